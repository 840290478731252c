/**
 * `AddressableUrlValidator` and `Gitlab::UrlBlocker.validate!` (14.7), as far as they decide without the network:
 * a blank value is "must be a valid URL"; anything else is parsed as `Addressable::URI` does ("URI is invalid" for
 * a line break, a scheme of the wrong form, a port that is not digits or a host with characters no host has), then
 * its scheme is checked, then its hostname (an IP address, or starting with a letter or digit).
 */

/** RFC 3986's splitting expression, as `Addressable::URI.parse` uses it: it matches any text. */
const URI_PARTS = /^(?:([^:/?#]+):)?(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/s;
const SCHEME_FORM = /^[a-z][a-z0-9.+-]*$/i;
/** `Addressable::URI#validate`: characters that make a host invalid. */
const HOST_INVALID = /[<>{}/\\?#@"\s]/;
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

const isIpAddress = (host: string): boolean => IPV4.test(host) || (host.includes(':') && /^[0-9a-f:.]+$/i.test(host));

export interface ParsedUrl {
  readonly scheme: string | undefined;
  /** The host without IPv6 brackets (`URI#hostname`), or null without an authority. */
  readonly hostname: string | null;
}

/** `Addressable::URI.parse` (`Gitlab::Utils.parse_url`), or null where it raises `InvalidURIError`. */
export const parseAddressable = (value: string): ParsedUrl | null => {
  if (/[\r\n]/.test(value)) return null;
  const parts = URI_PARTS.exec(value);
  if (!parts) return null;
  const [, scheme, authority] = parts;
  if (scheme !== undefined && !SCHEME_FORM.test(scheme)) return null;
  if (authority === undefined) return { scheme, hostname: null };
  const hostAndPort = authority.slice(authority.lastIndexOf('@') + 1);
  const split = /^(\[[^\]]*\]|[^:]*)(?::(.*))?$/.exec(hostAndPort);
  if (!split) return null;
  const [, host = '', port] = split;
  if (port !== undefined && port !== '' && !/^\d+$/.test(port)) return null;
  if (HOST_INVALID.test(host.replace(/^\[|\]$/g, ''))) return null;
  return { scheme, hostname: host.replace(/^\[|\]$/g, '') };
};

/** `UrlBlocker.validate!`'s reason for refusing a parsed URL (null: unparsable) with these schemes, or null when it passes. */
const blockedReason = (parsed: ParsedUrl | null, schemes: readonly string[]): string | null => {
  if (!parsed) return 'URI is invalid';
  if (parsed.scheme === undefined || !schemes.includes(parsed.scheme)) return `Only allowed schemes are ${schemes.join(', ')}`;
  const host = parsed.hostname ?? '';
  if (host !== '' && !isIpAddress(host) && !/^[\p{L}\p{N}]/u.test(host)) return 'Hostname or IP address invalid';
  return null;
};

/** `UrlBlocker.validate!`'s reason for refusing a URL with these schemes, or null when it passes. */
export const urlBlockedReason = (value: string, schemes: readonly string[] = ['http', 'https']): string | null => blockedReason(parseAddressable(value), schemes);

/** What `addressable_url` makes of a value: the URL it passes (parsed, stripped), or its message. */
export type AddressableUrl = { readonly url: ParsedUrl; readonly error: null } | { readonly url: null; readonly error: string };

/**
 * `addressable_url` (and `public_url`, before its local-address checks), parsing the value once: callers that read
 * the host further (`public_url`'s local addresses, a Geo node's host) take it from `url`.
 */
export const checkAddressableUrl = (value: string | null | undefined, schemes: readonly string[] = ['http', 'https']): AddressableUrl => {
  if (value === null || value === undefined || value.trim() === '') return { url: null, error: 'must be a valid URL' };
  const parsed = parseAddressable(value.trim());
  const reason = blockedReason(parsed, schemes);
  return reason === null && parsed ? { url: parsed, error: null } : { url: null, error: `is blocked: ${reason}` };
};

/** `addressable_url`'s message for a value, or null. */
export const addressableUrlError = (value: string | null | undefined, schemes: readonly string[] = ['http', 'https']): string | null => checkAddressableUrl(value, schemes).error;

import { isRubyBlank, rubyStrip } from './validation.js';
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

/** An IPv6 address's eight groups (`::` and a dotted IPv4 tail read), or null. */
const ipv6Groups = (host: string): number[] | null => {
  if (!host.includes(':') || !/^[0-9a-f:.]+$/i.test(host)) return null;
  let text = host;
  const dotted = /(?:^|:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const bytes = IPV4.test(dotted[1]!) ? dotted[1]!.split('.').map(Number) : null;
    if (!bytes) return null;
    text = `${text.slice(0, text.length - dotted[1]!.length)}${((bytes[0]! << 8) | bytes[1]!).toString(16)}:${((bytes[2]! << 8) | bytes[3]!).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const groups = (half: string) => (half === '' ? [] : half.split(':'));
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  return all.every((group) => /^[0-9a-f]{1,4}$/i.test(group)) ? all.map((group) => parseInt(group, 16)) : null;
};

/** `IPAddress.valid?` (the ipaddress gem): a dotted-quad IPv4 address or an IPv6 address (mixed notation too). */
const isIpAddress = (host: string): boolean => IPV4.test(host) || ipv6Groups(host) !== null;

export interface ParsedUrl {
  readonly scheme: string | undefined;
  /** The host without IPv6 brackets (`URI#hostname`), or null without an authority. */
  readonly hostname: string | null;
  /** The port the URL names, or null (`URI#port`). */
  readonly port: number | null;
}

/** `Addressable::URI.parse` (`Gitlab::Utils.parse_url`), or null where it raises `InvalidURIError`. */
export const parseAddressable = (value: string): ParsedUrl | null => {
  if (/[\r\n]/.test(value)) return null;
  const parts = URI_PARTS.exec(value);
  if (!parts) return null;
  const [, scheme, authority] = parts;
  if (scheme !== undefined && !SCHEME_FORM.test(scheme)) return null;
  if (authority === undefined) return { scheme, hostname: null, port: null };
  const hostAndPort = authority.slice(authority.lastIndexOf('@') + 1);
  const split = /^(\[[^\]]*\]|[^:]*)(?::(.*))?$/.exec(hostAndPort);
  if (!split) return null;
  const [, host = '', port] = split;
  if (port !== undefined && port !== '' && !/^\d+$/.test(port)) return null;
  if (HOST_INVALID.test(host.replace(/^\[|\]$/g, ''))) return null;
  return { scheme, hostname: host.replace(/^\[|\]$/g, ''), port: port !== undefined && port !== '' ? Number(port) : null };
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
  if (value === null || value === undefined || isRubyBlank(value)) return { url: null, error: 'must be a valid URL' };
  const parsed = parseAddressable(rubyStrip(value));
  const reason = blockedReason(parsed, schemes);
  return reason === null && parsed ? { url: parsed, error: null } : { url: null, error: `is blocked: ${reason}` };
};

/** `addressable_url`'s message for a value, or null. */
export const addressableUrlError = (value: string | null | undefined, schemes: readonly string[] = ['http', 'https']): string | null => checkAddressableUrl(value, schemes).error;

/**
 * An IPv4 address as `getaddrinfo` reads a numeric host (glibc's `inet_aton`: one to four parts, each decimal, octal
 * with a leading 0 or hexadecimal with 0x, the last filling the bytes left, so `127.1` is 127.0.0.1), or null.
 */
const ipv4Bytes = (host: string): number[] | null => {
  const parts = host.split('.');
  if (parts.length > 4) return null;
  const values: number[] = [];
  for (const part of parts) {
    if (/^0x[0-9a-f]+$/i.test(part)) values.push(parseInt(part.slice(2), 16));
    else if (/^0[0-7]*$/.test(part)) values.push(parseInt(part, 8));
    else if (/^[1-9]\d*$/.test(part)) values.push(Number(part));
    else return null;
  }
  const last = values.pop()!;
  if (values.some((value) => value > 255) || last >= 256 ** (4 - values.length)) return null;
  const tail = [3, 2, 1, 0].slice(values.length).map((shift) => Math.floor(last / 256 ** shift) % 256);
  return [...values, ...tail];
};

/** Which of `UrlBlocker`'s local checks an address falls under, in its order of checks. */
type LocalKind = 'localhost' | 'loopback' | 'local_network' | 'link_local' | null;

const ipv4Kind = ([a, b, c, d]: number[]): LocalKind => {
  // `validate_localhost`: "0.0.0.0" and the machine's own addresses, of which the loopback interface's is known.
  if ((a === 0 && b === 0 && c === 0 && d === 0) || (a === 127 && b === 0 && c === 0 && d === 1)) return 'localhost';
  if (a === 127) return 'loopback';
  if (a === 10 || (a === 172 && b! >= 16 && b! <= 31) || (a === 192 && b === 168)) return 'local_network';
  if (a === 169 && b === 254) return 'link_local';
  return null;
};

const ipv6Kind = (groups: number[]): LocalKind => {
  const [first] = groups;
  // "::" and the loopback interface's ::1.
  if (groups.slice(0, 7).every((group) => group === 0) && (groups[7] === 0 || groups[7] === 1)) return 'localhost';
  // `ipv6_sitelocal?` (fec0::/10), `ipv6_unique_local?` (fc00::/7), `ipv6_linklocal?` (fe80::/10).
  if ((first! & 0xffc0) === 0xfec0 || (first! & 0xfe00) === 0xfc00) return 'local_network';
  if ((first! & 0xffc0) === 0xfe80) return 'link_local';
  return null;
};

const LOCAL_REASONS = {
  localhost: 'Requests to localhost are not allowed',
  loopback: 'Requests to loopback addresses are not allowed',
  local_network: 'Requests to the local network are not allowed',
  link_local: 'Requests to the link local network are not allowed',
} as const;

/** `Addressable::URI#default_port` of the schemes UrlBlocker lets through here. */
const DEFAULT_PORTS: Readonly<Record<string, number>> = { http: 80, https: 443, ftp: 21 };

/**
 * An address as `get_address_info` has it for a literal host: IPv4 bytes, or IPv6 groups, an IPv4-mapped one read as
 * its IPv4 address (`ipv6_v4mapped?` → `ipv6_to_ipv4`).
 */
type Address = { readonly v4: number[] } | { readonly v6: number[] };

const literalAddress = (host: string): Address | null => {
  const ipv4 = ipv4Bytes(host);
  if (ipv4) return { v4: ipv4 };
  const ipv6 = ipv6Groups(host);
  if (!ipv6) return null;
  const mapped = ipv6.slice(0, 5).every((group) => group === 0) && ipv6[5] === 0xffff;
  return mapped ? { v4: [ipv6[6]! >> 8, ipv6[6]! & 255, ipv6[7]! >> 8, ipv6[7]! & 255] } : { v6: ipv6 };
};

/** An address as bits, most significant first, for prefix matching. */
const bitsOf = (address: Address): number[] =>
  'v4' in address ? address.v4.flatMap((byte) => [7, 6, 5, 4, 3, 2, 1, 0].map((shift) => (byte >> shift) & 1)) : address.v6.flatMap((group) => [...Array(16).keys()].reverse().map((shift) => (group >> shift) & 1));

/** An entry of the allowlist: an address range (`IPAddr`, a prefix length or none) or a domain, each with a port or any. */
type AllowlistEntry = { readonly range: Address; readonly prefix: number; readonly port: number | null } | { readonly domain: string; readonly port: number | null };

/** `IPAddr.new` of an entry: a dotted-quad IPv4 or an IPv6 address (brackets allowed), optionally `/prefix`; or null. */
const ipAddrRange = (text: string): { range: Address; prefix: number } | null => {
  const [address = '', prefix, extra] = text.split('/');
  if (extra !== undefined) return null;
  const unbracketed = /^\[(.*)\]$/.exec(address)?.[1] ?? address;
  const groups = ipv6Groups(unbracketed);
  const range: Address | null = IPV4.test(unbracketed) ? { v4: unbracketed.split('.').map(Number) } : groups ? { v6: groups } : null;
  if (!range) return null;
  const width = 'v4' in range ? 32 : 128;
  if (prefix === undefined) return { range, prefix: width };
  return /^\d+$/.test(prefix) && Number(prefix) <= width ? { range, prefix: Number(prefix) } : null;
};

/**
 * `ApplicationSetting#outbound_local_requests_allowlist_arrays` (`separate_allowlists`): an entry is `[address]:port`,
 * `address:port` (an address without a colon) or the address alone, with no port; the address an IP range or a domain.
 */
const allowlistEntry = (text: string): AllowlistEntry => {
  const split = /^\[(.*)\]:(\d+)$/.exec(text) ?? /^([^:]+):(\d+)$/.exec(text);
  const [address, port] = split ? [split[1]!, Number(split[2])] : [text, null];
  const range = ipAddrRange(address);
  return range ? { ...range, port } : { domain: address, port };
};

/**
 * `UrlAllowlist.domain_allowed?` (the URL's normalized host) or `ip_allowed?` (the address it resolves to), each entry
 * with its port if it has one (the URL's, else its scheme's default).
 */
const allowlisted = (url: ParsedUrl, allowlist: readonly string[]): boolean => {
  const host = (url.hostname ?? '').toLowerCase();
  const port = url.port ?? DEFAULT_PORTS[url.scheme?.toLowerCase() ?? ''] ?? null;
  const address = literalAddress(host);
  return allowlist.map(allowlistEntry).some((entry) => {
    if (entry.port !== null && entry.port !== port) return false;
    // `normalized_host`: lower-cased, without a single trailing dot.
    if ('domain' in entry) return entry.domain === host.replace(/(?<=[^.])\.$/, '');
    if (!address || 'v4' in address !== 'v4' in entry.range) return false;
    const wanted = bitsOf(entry.range).slice(0, entry.prefix);
    return bitsOf(address).slice(0, entry.prefix).every((bit, index) => bit === wanted[index]);
  });
};

/** Which of `UrlBlocker`'s local checks this literal host falls under, or null (a name other than `localhost`). */
const localKind = (hostname: string): LocalKind => {
  const host = hostname.toLowerCase();
  const address = literalAddress(host);
  if (address) return 'v4' in address ? ipv4Kind(address.v4) : ipv6Kind(address.v6);
  return host === 'localhost' || host.endsWith('.localhost') ? 'localhost' : null;
};

/**
 * `UrlBlocker#validate_local_request` on a URL's host, as far as it decides without a resolver: a literal address
 * (IPv4 in any form `getaddrinfo` reads, IPv6, an IPv4-mapped one) and the name `localhost` (and `*.localhost`), which
 * the resolver answers with the loopback addresses. Other names are not resolved and pass. Its reason (after
 * "is blocked: "), or null: nothing for a host or address of `outbound_local_requests_whitelist` (the allowlist, read
 * before these checks); then unless `localhost` is allowed, localhost then loopback; unless the local network is, the
 * local network then link local.
 */
export const localRequestReason = (
  url: ParsedUrl,
  allow: { readonly localhost: boolean; readonly localNetwork: boolean; readonly allowlist: readonly string[] },
): string | null => {
  const kind = localKind(url.hostname ?? '');
  if (kind === null || allowlisted(url, allow.allowlist)) return null;
  const allowed = kind === 'localhost' || kind === 'loopback' ? allow.localhost : allow.localNetwork;
  return allowed ? null : LOCAL_REASONS[kind];
};

/**
 * What a handler returns, and how it is written: JSON with exactly `Content-Type: application/json`, the security
 * headers of every API response, weak ETags on GET 200 with `If-None-Match` → 304, and `If-Unmodified-Since`.
 */
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { ApiError } from './errors.js';

const REPLY = Symbol.for('forgefold.http.reply');

export interface Reply {
  readonly [REPLY]: true;
  /** Default: 201 for POST, 200 otherwise (204 when `body` is undefined and status is unset: see `noContent`). */
  readonly status?: number;
  /** JSON-serialised; `undefined` means an empty body. */
  readonly body?: unknown;
  /** Pre-serialised body (wins over `body`). */
  readonly rawBody?: string | Buffer;
  readonly headers?: Readonly<Record<string, string>>;
  /** Default `application/json` (the mount may override, e.g. `application/scim+json`). */
  readonly contentType?: string;
  /** Set `false` to skip the ETag / If-None-Match handling on a GET 200. */
  readonly etag?: boolean;
}

export interface ReplyInit {
  readonly status?: number;
  readonly headers?: Record<string, string>;
  readonly contentType?: string;
  readonly etag?: boolean;
}

export function isReply(u: unknown): u is Reply {
  return typeof u === 'object' && u !== null && (u as Record<symbol, unknown>)[REPLY] === true;
}

/** A JSON reply; status defaults by method (201 POST, else 200). */
// Without `init`, the reply is one literal, not a spread of `{}` into a literal with a symbol key (with the `created`
// below, ~6 KB of allocation per POST /groups, measured with the server's allocation profile); most replies have no options.
export function json(body: unknown, init?: ReplyInit): Reply {
  return init === undefined ? { [REPLY]: true, body } : { [REPLY]: true, body, ...init };
}
export const ok = (body: unknown, init?: Omit<ReplyInit, 'status'>): Reply =>
  init === undefined ? { [REPLY]: true, body, status: 200 } : json(body, { ...init, status: 200 });
export const created = (body: unknown, init?: Omit<ReplyInit, 'status'>): Reply =>
  init === undefined ? { [REPLY]: true, body, status: 201 } : json(body, { ...init, status: 201 });
/** 204 with an empty body. */
export const noContent = (headers: Record<string, string> = {}): Reply => ({ [REPLY]: true, status: 204, headers });
/** Any status with an exact body (use `ApiError` for failures you want to throw). */
export const withStatus = (status: number, body?: unknown, init: Omit<ReplyInit, 'status'> = {}): Reply =>
  ({ [REPLY]: true, status, body, ...init });
/** Adds headers to a reply (e.g. pagination headers). */

/** Headers on every API response (reference §1.2 item 19). */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'X-Frame-Options': 'SAMEORIGIN',
  'X-Content-Type-Options': 'nosniff',
};

const SECURITY_HEADER_LIST: readonly string[] = Object.entries(SECURITY_HEADERS).flat();

export const JSON_CONTENT_TYPE = 'application/json';
export const SCIM_CONTENT_TYPE = 'application/scim+json';

/** Weak ETag of a serialised body: `W/"<md5 hex>"` (Rails' form). */
export function weakEtag(body: string | Buffer): string {
  return `W/"${createHash('md5').update(body).digest('hex')}"`;
}

/** RFC 9110 weak comparison of an `If-None-Match` header against an ETag (`*` matches anything). */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const strip = (s: string): string => s.trim().replace(/^W\//, '');
  const target = strip(etag);
  return ifNoneMatch.split(',').some((tag) => tag.trim() === '*' || strip(tag) === target);
}

/**
 * `If-Unmodified-Since` (GitLab `check_unmodified_since!`): true when the header parses as a time and the resource
 * changed after it. An unparsable header is ignored, like Ruby's `Time.parse rescue nil`.
 */
/**
 * RFC 2822 dates (RFC 7231's IMF-fixdate among them: "Sun, 06 Nov 1994 08:49:37 GMT", and "+0000", "UTC", no
 * weekday, no seconds), RFC 850's ("Sunday, 06-Nov-94 08:49:37 GMT") and asctime's ("Sun Nov  6 08:49:37 1994").
 */
const HTTP_DATE =
  /^\s*(?:(?:[A-Za-z]{3}, )?\d{1,2} [A-Za-z]{3} \d{4} \d{2}:\d{2}(?::\d{2})? (?:GMT|UTC?|[+-]\d{4})|[A-Za-z]+, \d{2}-[A-Za-z]{3}-\d{2} \d{2}:\d{2}:\d{2} GMT|[A-Za-z]{3} [A-Za-z]{3} [ \d]\d \d{2}:\d{2}:\d{2} \d{4})\s*$/;
/** An ISO 8601 date, with a time and a zone or not ("2021-06-01", "2021-06-01T11:00:00Z", "2021-06-01 11:00:00 UTC"). */
const ISO_DATE = /^\s*\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2}| ?UTC)?)?\s*$/;

export function modifiedSince(ifUnmodifiedSince: string | undefined, updatedAt: string | Date | null | undefined): boolean {
  if (!ifUnmodifiedSince || updatedAt === null || updatedAt === undefined) return false;
  // The platform ignores a value `Time.parse` rejects (`rescue nil`), which `Date.parse` may read as a year ("0" →
  // 2000, "-1"): only the HTTP-date forms and ISO 8601 dates, which both read alike, are compared.
  if (!HTTP_DATE.test(ifUnmodifiedSince) && !ISO_DATE.test(ifUnmodifiedSince)) return false;
  const since = Date.parse(ifUnmodifiedSince);
  const last = updatedAt instanceof Date ? updatedAt.getTime() : Date.parse(updatedAt);
  if (Number.isNaN(since) || Number.isNaN(last)) return false;
  return last > since;
}

/** Throws 412 `{"message":"412 Precondition Failed"}` when the resource changed after `If-Unmodified-Since`. */
export function checkUnmodifiedSince(headers: Readonly<Record<string, string | string[] | undefined>>, updatedAt: string | Date | null | undefined): void {
  const h = headers['if-unmodified-since'];
  if (modifiedSince(Array.isArray(h) ? h[0] : h, updatedAt)) throw ApiError.message(412, '412 Precondition Failed');
}

export interface WriteOptions {
  readonly method: string;
  readonly requestHeaders: Readonly<Record<string, string | string[] | undefined>>;
  readonly defaultContentType: string;
  readonly extraHeaders?: Readonly<Record<string, string>>;
}

function defaultStatus(method: string, hasBody: boolean): number {
  if (!hasBody) return method === 'POST' ? 201 : method === 'GET' || method === 'HEAD' ? 200 : 204;
  return method === 'POST' ? 201 : 200;
}

/** A reply serialised: what goes on the wire for a GET, before `If-None-Match` is considered. */
export interface RenderedReply {
  readonly status: number;
  /** Names and values alternating, as `writeHead` takes them: sent without building an object per request. */
  readonly headerList: readonly string[];
  /**
   * Bytes for a read (hashed for its ETag, and cached), the JSON text itself for a write: node sends a string body
   * and the head in one `write`, where a Buffer body takes a copy and a `writev` of two chunks.
   */
  readonly payload: Buffer | string | null;
  /** Set on GET/HEAD 200 replies with a body. */
  readonly etag: string | null;
}

/** Plain ASCII (and tab): a header value node writes as it is. */
const PLAIN_HEADER_VALUE = /^[\t\x20-\x7e]*$/;
/** A control character in a header line: Puma leaves the line out (and node refuses DEL, which Puma writes). */
const ILLEGAL_HEADER_LINE = /[\x00-\x08\x0a-\x1f\x7f]/;

/**
 * A header value as the platform's Puma writes a Rack header: the string's UTF-8 bytes, one header line per line
 * of the value (Ruby's `split("\n")`, trailing empty lines dropped), a line holding any other control character
 * left out. Node writes a string's characters as latin1 bytes and refuses any above U+00FF, so a value beyond ASCII
 * is handed to it as its UTF-8 bytes spelt in latin1 (`日` becomes `æ\x97¥`, sent as E6 97 A5).
 */
export const headerLines = (value: string): string[] => {
  if (PLAIN_HEADER_VALUE.test(value)) return [value];
  const lines = value.split('\n');
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines.filter((line) => !ILLEGAL_HEADER_LINE.test(line)).map((line) => Buffer.from(line, 'utf8').toString('latin1'));
};

/** Serialises a reply: status, headers (content type, length, ETag) and body bytes. */
export function renderReply(reply: Reply, opts: Omit<WriteOptions, 'requestHeaders'>): RenderedReply {
  const hasBody = reply.rawBody !== undefined || reply.body !== undefined;
  const status = reply.status ?? defaultStatus(opts.method, hasBody);
  const isRead = opts.method === 'GET' || opts.method === 'HEAD';
  let payload: Buffer | string | null = null;
  if (status !== 204 && status !== 304) {
    const text = reply.rawBody ?? (reply.body !== undefined ? JSON.stringify(reply.body) : undefined);
    if (text !== undefined) payload = isRead && typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  }
  const etag = isRead && status === 200 && payload && reply.etag !== false ? weakEtag(payload) : null;
  if (opts.extraHeaders === undefined && reply.headers === undefined) {
    // The usual reply: the list written directly, as the general path below would order it, without an object
    // built from spreads and its entries (about a kilobyte of allocation per reply).
    const list = [...SECURITY_HEADER_LIST];
    if (etag !== null) list.push('ETag', etag);
    if (status !== 204 && status !== 304) list.push('Content-Type', reply.contentType ?? opts.defaultContentType, 'Content-Length', String(payload ? Buffer.byteLength(payload) : 0));
    return { status, headerList: list, payload, etag };
  }
  const headers: Record<string, string> = { ...SECURITY_HEADERS, ...opts.extraHeaders, ...reply.headers };
  if (etag !== null) headers['ETag'] = etag;
  if (status !== 204 && status !== 304) {
    headers['Content-Type'] = reply.contentType ?? opts.defaultContentType;
    headers['Content-Length'] = String(payload ? Buffer.byteLength(payload) : 0);
  }
  const headerList: string[] = [];
  for (const [name, value] of Object.entries(headers)) for (const line of headerLines(value)) headerList.push(name, line);
  return { status, headerList, payload, etag };
}

/** Writes a rendered reply, answering 304 when `If-None-Match` matches its ETag; returns the status written. */
export interface SendOptions extends Pick<WriteOptions, 'method' | 'requestHeaders'> {
  /** Headers of this exchange rather than of the reply (request id, `Connection`), names and values alternating. */
  readonly exchangeHeaders?: readonly string[];
}

const ENTITY_HEADERS = new Set(['Content-Type', 'Content-Length']);

export function sendRendered(res: ServerResponse, rendered: RenderedReply, opts: SendOptions): number {
  let { status, payload } = rendered;
  let list = rendered.headerList;
  if (rendered.etag !== null) {
    const inm = opts.requestHeaders['if-none-match'];
    if (etagMatches(Array.isArray(inm) ? inm.join(',') : inm, rendered.etag)) {
      status = 304;
      payload = null;
      const kept: string[] = [];
      for (let i = 0; i < list.length; i += 2) if (!ENTITY_HEADERS.has(list[i]!)) kept.push(list[i]!, list[i + 1]!);
      list = kept;
    }
  }
  // One writeHead with a flat list: node's fast path, without a setHeader (and its checks) per header or an
  // object spread per request (both showed up as a sixth of a cached GET's cost).
  res.writeHead(status, (opts.exchangeHeaders ? opts.exchangeHeaders.concat(list) : list) as string[]);
  if (opts.method === 'HEAD' || !payload) res.end();
  else res.end(payload);
  return status;
}

/** Serialises and writes a reply; returns the status written. HEAD gets the GET headers and no body. */
export function writeReply(res: ServerResponse, reply: Reply, opts: WriteOptions & Pick<SendOptions, 'exchangeHeaders'>): number {
  return sendRendered(res, renderReply(reply, opts), opts);
}

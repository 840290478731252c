/**
 * Raw request parameters: query string, and body (JSON, x-www-form-urlencoded, multipart/form-data), parsed the
 * way Rack 2.2 and Grape do, then merged with route params (route params win, then body, then query — Grape).
 *
 * - Rack nesting: `a[]=1&a[]=2` → array; `h[k]=v` → hash; `l[][k]=v` → array of hashes (Rack rules);
 *   `l[0][k]=v` → Rack builds a hash keyed "0","1"…; we turn any hash whose keys are all decimal integers into an
 *   array ordered by index (so `name[0][key]=v` is an array of hashes).
 * - Form and query: `+` is a space, `%2B` a plus; `&` and `;` separate pairs (Rack 2); `a` without `=` is null.
 * - JSON body: an object's keys become params; any other JSON value is `_json` (Grape).
 * - Multipart: text parts become strings; file parts `{filename, contentType, data: Buffer}`.
 * - Malformed strings are refused with 400, as the platform's `HandleMalformedStrings` middleware and Rails'
 *   parameter encoding check do: invalid UTF-8 (in the body's bytes or behind %-escapes), an unpaired UTF-16
 *   surrogate (which only a JSON `\ud800` escape can produce), or a NUL, in any key or value at any depth.
 * - JSON nested deeper than `MAX_PARAM_DEPTH` is refused like a syntax error (Ruby's parser: `max_nesting` 100).
 * - A POST without Content-Type is read as a form (Rack `form_data?`). Other types are not parsed (no body params),
 *   unless `rejectUnsupportedContentType` is set, which gives Grape's 415.
 */
import type { IncomingMessage } from 'node:http';
import { ApiError } from './errors.js';
import type { RawParams } from './validation.js';

export interface UploadedFile {
  readonly filename: string;
  readonly contentType: string;
  readonly data: Buffer;
}

export const MAX_PARAM_DEPTH = 100;

const utf8 = new TextDecoder('utf-8', { fatal: true });

const MALFORMED_DETAIL = '(invalid UTF-8, an unpaired surrogate or a null byte)';

/** 400 for a malformed string; `where` names it: "parameter 'name'", "a parameter name", "the path"… */
export const malformedStringError = (where: string): ApiError => ApiError.error(400, `Malformed string in ${where} ${MALFORMED_DETAIL}`);

/** Any surrogate or NUL: the cheap first test; most strings stop here. */
const SUSPECT_RE = /[\0\uD800-\uDFFF]/;

/** A NUL, or a UTF-16 surrogate not part of a pair: text that has no UTF-8 form (or that the platform refuses). */
export function isMalformedString(s: string): boolean {
  if (!SUSPECT_RE.test(s)) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0) return true;
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
      else return true;
    } else if (c >= 0xdc00 && c <= 0xdfff) return true;
  }
  return false;
}

const LONE_SURROGATE_RE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Unpaired surrogates replaced by U+FFFD (ES2024 `toWellFormed`): for output that must be valid UTF-8. */
export const toWellFormed = (s: string): string => (SUSPECT_RE.test(s) ? s.replace(LONE_SURROGATE_RE, '\uFFFD') : s);

/**
 * `encodeURIComponent` for stored text in URLs we answer: an unpaired surrogate (refused on input now, but an
 * older version may have stored one; the log keeps it) is escaped as U+FFFD instead of throwing a URIError.
 */
export const encodeUriComponentSafely = (s: string): string => encodeURIComponent(toWellFormed(s));

/** Strict UTF-8: invalid bytes are a 400, never silently replaced. */
function decodeUtf8(bytes: Uint8Array, where: string): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw malformedStringError(where);
  }
}

/** What is wrong with parsed params: a malformed string (`where` names it, as `malformedStringError` takes it), or nesting. */
export type ParamsFault = { readonly kind: 'malformed'; readonly where: string } | { readonly kind: 'too_deep' };

/**
 * The first fault in parsed params, walked without recursion (a body may nest deeply): a malformed key or string,
 * or nesting deeper than `maxDepth`. Self-contained (built-ins, `SUSPECT_RE` and `isMalformedString` only): the
 * JSON worker runs its source (see `json-worker.ts`).
 */
export function paramsFault(params: unknown, maxDepth: number): ParamsFault | null {
  const stack: Array<{ value: unknown; depth: number; top: string | null }> = [{ value: params, depth: 0, top: null }];
  while (stack.length > 0) {
    const { value, depth, top } = stack.pop()!;
    if (typeof value === 'string') {
      if (isMalformedString(value)) return { kind: 'malformed', where: top === null ? 'the request body' : `parameter '${top}'` };
      continue;
    }
    if (typeof value !== 'object' || value === null || Buffer.isBuffer(value)) continue;
    if (depth >= maxDepth) return { kind: 'too_deep' };
    // An uploaded file (`isUploadedFile`, written out to keep this function self-contained): its name is text.
    if (Buffer.isBuffer((value as { data?: unknown }).data) && 'filename' in value) {
      stack.push({ value: (value as { filename: unknown }).filename, depth, top });
      continue;
    }
    if (Array.isArray(value)) {
      for (const item of value) stack.push({ value: item, depth: depth + 1, top });
      continue;
    }
    for (const [key, item] of Object.entries(value)) {
      if (isMalformedString(key)) return { kind: 'malformed', where: 'a parameter name' };
      stack.push({ value: item, depth: depth + 1, top: top ?? key });
    }
  }
  return null;
}

/** Throws 400 on a malformed key or string, and on nesting deeper than `maxDepth` (then `tooDeep` is thrown). */
export function assertWellFormedParams(params: unknown, maxDepth = Number.POSITIVE_INFINITY, tooDeep?: () => ApiError): void {
  const fault = paramsFault(params, maxDepth);
  if (fault === null) return;
  if (fault.kind === 'malformed') throw malformedStringError(fault.where);
  throw tooDeep ? tooDeep() : ApiError.error(400, 'Params nested too deep');
}

/**
 * A `\u` escape that JSON.parse turns into a NUL or a UTF-16 surrogate. Text decoded as strict UTF-8 holds no lone
 * surrogate, and JSON refuses a raw NUL: such an escape is the only way either gets into a parsed value. (A paired
 * surrogate written as two escapes, or an escaped backslash before `u0000`, match too: the walk then decides.)
 */
const SUSPECT_ESCAPE_RE = /\\u(?:0000|[dD][89a-fA-F])/;

/** Whether valid JSON text nests deeper than `maxDepth`: brackets counted outside strings, one pass, nothing allocated. */
export function jsonNestsDeeperThan(text: string, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/**
 * The first fault of a parsed JSON value, read off its text when it can: without a suspect escape no string is
 * malformed, and the nesting is counted in the text (a few percent of JSON.parse's time). Only a text with such an
 * escape is walked (`paramsFault`, which costs more than the parse for a large body). Nesting is the text's, as Ruby's
 * parser counts it while it parses: a value nested too deep under a key given twice is refused even where the later
 * value, all that the parsed object keeps, is shallow. Self-contained as `paramsFault` is (and `SUSPECT_ESCAPE_RE`,
 * `jsonNestsDeeperThan`).
 */
export function jsonFault(text: string, parsed: unknown, maxDepth: number): ParamsFault | null {
  const fault = SUSPECT_ESCAPE_RE.test(text) ? paramsFault(parsed, maxDepth) : null;
  return fault ?? (jsonNestsDeeperThan(text, maxDepth) ? { kind: 'too_deep' } : null);
}

/** Percent-decodes a form/query component (`+` → space). Throws ApiError 400 on invalid %-encoding or UTF-8. */
export function decodeFormComponent(s: string): string {
  if (!s.includes('%') && !s.includes('+')) return s;
  const replaced = s.replace(/\+/g, ' ');
  if (!replaced.includes('%')) return replaced;
  const bytes: number[] = [];
  for (let i = 0; i < replaced.length; ) {
    const ch = replaced.charCodeAt(i);
    if (ch === 0x25) {
      const hex = replaced.slice(i + 1, i + 3);
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) throw ApiError.error(400, 'Invalid %-encoding in query string or form');
      bytes.push(parseInt(hex, 16));
      i += 3;
    } else {
      const cp = replaced.codePointAt(i)!;
      const chunk = Buffer.from(String.fromCodePoint(cp), 'utf8');
      for (const b of chunk) bytes.push(b);
      i += cp > 0xffff ? 2 : 1;
    }
  }
  return decodeUtf8(Uint8Array.from(bytes), 'the query string or form');
}

/** Percent-decodes a path segment (no `+` handling). Returns null when the encoding is invalid. */
export function decodePathSegment(s: string): string | null {
  if (!s.includes('%')) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
}

const isHash = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !Buffer.isBuffer(v) && !isUploadedFile(v);

function isUploadedFile(v: unknown): v is UploadedFile {
  return typeof v === 'object' && v !== null && Buffer.isBuffer((v as { data?: unknown }).data) && 'filename' in v;
}

function typeError(k: string, expected: string, got: unknown): ApiError {
  const cls = Array.isArray(got) ? 'Array' : isHash(got) ? 'Hash' : 'String';
  return ApiError.error(400, `expected ${expected} (got ${cls}) for param \`${k}'`);
}

const NAME_RE = /^[[\]]*([^[\]]+)\]*/;

/** Rack 2.2 `normalize_params`: inserts `name=value` into `params` following the bracket syntax. */
export function normalizeParams(params: Record<string, unknown>, name: string, v: unknown, depth = MAX_PARAM_DEPTH): unknown {
  if (depth <= 0) throw ApiError.error(400, 'Params nested too deep');
  const m = NAME_RE.exec(name);
  const k = m?.[1] ?? '';
  const after = m ? name.slice(m[0].length) : '';
  if (k === '') {
    if (v !== null && v !== undefined && name === '[]') return [v];
    return undefined;
  }
  if (k === '__proto__' || k === 'constructor' || k === 'prototype') return params;
  if (after === '') {
    params[k] = v;
  } else if (after === '[') {
    params[name] = v;
  } else if (after === '[]') {
    const cur = (params[k] ??= []);
    if (!Array.isArray(cur)) throw typeError(k, 'Array', cur);
    cur.push(v);
  } else {
    const md = /^\[\]\[([^[\]]+)\]$/.exec(after) ?? /^\[\](.+)$/.exec(after);
    if (md && md[1] !== undefined) {
      const childKey = md[1];
      const cur = (params[k] ??= []);
      if (!Array.isArray(cur)) throw typeError(k, 'Array', cur);
      const last: unknown = cur[cur.length - 1];
      if (isHash(last) && !hashHasKey(last, childKey)) {
        normalizeParams(last, childKey, v, depth - 1);
      } else {
        cur.push(normalizeParams(Object.create(null) as Record<string, unknown>, childKey, v, depth - 1));
      }
    } else {
      const cur = (params[k] ??= Object.create(null) as Record<string, unknown>);
      if (!isHash(cur)) throw typeError(k, 'Hash', cur);
      params[k] = normalizeParams(cur, after, v, depth - 1);
    }
  }
  return params;
}

/** Rack `params_hash_has_key?`: does `h` already hold the (possibly nested, `a[b]`) key? */
function hashHasKey(h: Record<string, unknown>, key: string): boolean {
  if (/\[\]/.test(key)) return false;
  let cur: unknown = h;
  for (const part of key.split(/[[\]]+/).filter((p) => p !== '')) {
    if (!isHash(cur) || !Object.prototype.hasOwnProperty.call(cur, part)) return false;
    cur = cur[part];
  }
  return true;
}

/** Turns hashes with only decimal-integer keys into arrays ordered by index; plain objects everywhere. */
function finalize(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(finalize);
  if (isHash(v)) {
    const keys = Object.keys(v);
    if (keys.length > 0 && keys.every((k) => /^\d{1,9}$/.test(k))) {
      return keys
        .map((k) => [Number(k), v[k]] as const)
        .sort((a, b) => a[0] - b[0])
        .map(([, x]) => finalize(x));
    }
    const out: Record<string, unknown> = {};
    for (const k of keys) out[k] = finalize(v[k]);
    return out;
  }
  return v;
}

/** Builds nested params from ordered `[name, value]` pairs. */
export function buildNested(pairs: Iterable<readonly [string, unknown]>): RawParams {
  const params = Object.create(null) as Record<string, unknown>;
  for (const [name, value] of pairs) normalizeParams(params, name, value);
  return finalize(params) as RawParams;
}

/** Rack 2 `parse_nested_query`: `&` or `;` separated, `+` is space, nesting per `normalizeParams`. */
export function parseQueryString(qs: string): RawParams {
  const pairs: Array<[string, string | null]> = [];
  for (const part of qs.split(/[&;] */)) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const k = decodeFormComponent(eq === -1 ? part : part.slice(0, eq));
    const v = eq === -1 ? null : decodeFormComponent(part.slice(eq + 1));
    pairs.push([k, v]);
  }
  const params = buildNested(pairs);
  // %-decoding already refused invalid UTF-8 (and so surrogates); NULs remain to be found.
  assertWellFormedParams(params);
  return params;
}

/** Parses a Content-Type header: lower-cased media type and parameters. */
export function parseContentType(h: string | undefined): { type: string; params: Record<string, string> } | null {
  if (!h) return null;
  const [type, ...rest] = h.split(';');
  const params: Record<string, string> = {};
  for (const p of rest) {
    const eq = p.indexOf('=');
    if (eq === -1) continue;
    const k = p.slice(0, eq).trim().toLowerCase();
    let v = p.slice(eq + 1).trim();
    if (v.startsWith('"') && v.endsWith('"') && v.length >= 2) v = v.slice(1, -1).replace(/\\(.)/g, '$1');
    params[k] = v;
  }
  return { type: (type ?? '').trim().toLowerCase(), params };
}

/** Parses the header block of one multipart part. */
function parsePartHeaders(block: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of block.split('\r\n')) {
    const idx = line.indexOf(':');
    if (idx <= 0) continue;
    headers[line.slice(0, idx).trim().toLowerCase()] = line.slice(idx + 1).trim();
  }
  return headers;
}

function dispositionParam(disposition: string, key: string): string | undefined {
  const re = new RegExp(`(?:^|;)\\s*${key}\\*?=\\s*(?:"((?:[^"\\\\]|\\\\.)*)"|([^;]*))`, 'i');
  const m = re.exec(disposition);
  if (!m) return undefined;
  if (m[1] !== undefined) return m[1].replace(/\\(.)/g, '$1');
  return m[2]?.trim();
}

/**
 * multipart/form-data (RFC 7578). Text parts → UTF-8 strings; parts with a filename → UploadedFile (an empty
 * filename: no part, as Rack::Multipart drops it).
 * Throws ApiError 400 on a malformed body.
 */
export function parseMultipart(body: Buffer, boundary: string): RawParams {
  if (!boundary || boundary.length > 200) throw ApiError.error(400, 'Invalid multipart boundary');
  const delim = Buffer.from(`--${boundary}`);
  const pairs: Array<[string, unknown]> = [];
  let pos = body.indexOf(delim);
  if (pos === -1) throw ApiError.error(400, 'Malformed multipart body');
  for (;;) {
    pos += delim.length;
    // "--" after a delimiter closes the body.
    if (body[pos] === 0x2d && body[pos + 1] === 0x2d) break;
    // Skip transport padding up to CRLF.
    const eol = body.indexOf('\r\n', pos);
    if (eol === -1) throw ApiError.error(400, 'Malformed multipart body');
    pos = eol + 2;
    const headerEnd = body.indexOf('\r\n\r\n', pos);
    const next = body.indexOf(Buffer.concat([Buffer.from('\r\n'), delim]), pos);
    if (next === -1) throw ApiError.error(400, 'Malformed multipart body');
    let headers: Record<string, string>;
    let content: Buffer;
    if (headerEnd === -1 || headerEnd > next) {
      // A part without a blank line: headers only when it starts with one, else malformed.
      if (body.subarray(pos, pos + 2).toString() === '\r\n') {
        headers = {};
        content = body.subarray(pos + 2, next);
      } else throw ApiError.error(400, 'Malformed multipart body');
    } else {
      headers = parsePartHeaders(body.subarray(pos, headerEnd).toString('latin1'));
      content = body.subarray(headerEnd + 4, next);
    }
    const disposition = headers['content-disposition'] ?? '';
    const name = dispositionParam(disposition, 'name');
    const filename = dispositionParam(disposition, 'filename');
    // `filename=""` is a form's "no file chosen": Rack's parser drops the part, so the parameter is absent.
    if (name !== undefined && filename !== '') {
      const decodedName = decodeUtf8(Buffer.from(name, 'latin1'), 'a parameter name');
      if (filename !== undefined) {
        pairs.push([
          decodedName,
          {
            filename: decodeUtf8(Buffer.from(filename, 'latin1'), `parameter '${decodedName}'`),
            contentType: headers['content-type'] ?? 'application/octet-stream',
            data: Buffer.from(content),
          } satisfies UploadedFile,
        ]);
      } else {
        pairs.push([decodedName, decodeUtf8(content, `parameter '${decodedName}'`)]);
      }
    }
    pos = next + 2;
  }
  const params = buildNested(pairs);
  assertWellFormedParams(params);
  return params;
}

export interface BodyLimits {
  /** Maximum body size in bytes (413 beyond). */
  readonly maxBodyBytes: number;
}

/**
 * The client closed the connection before its body was complete: no one is left to answer, and it is not the server's
 * fault. Logged as nginx logs it (499), not as an error.
 */
export class ClientClosedRequest extends Error {
  constructor(cause: unknown) {
    super('the client closed the connection before its request was complete', { cause });
    this.name = 'ClientClosedRequest';
  }
}

/** Reads the request body up to `maxBodyBytes`; throws ApiError 413 when it is larger, ClientClosedRequest when cut short. */
export function readBody(req: IncomingMessage, limits: BodyLimits): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = req.headers['content-length'];
    if (declared !== undefined && Number(declared) > limits.maxBodyBytes) {
      req.resume();
      reject(ApiError.error(413, '413 Request Entity Too Large'));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limits.maxBodyBytes) {
        failed = true;
        chunks.length = 0;
        reject(ApiError.error(413, '413 Request Entity Too Large'));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!failed) resolve(Buffer.concat(chunks));
    });
    req.on('error', (e) => {
      if (!failed) {
        failed = true;
        // node's 'aborted' (ECONNRESET): the socket closed mid-body (not a time-out, which node answers itself).
        reject((e as NodeJS.ErrnoException).code === 'ECONNRESET' ? new ClientClosedRequest(e) : e);
      }
    });
  });
}

export interface ParseBodyOptions {
  readonly method: string;
  readonly contentType: string | undefined;
  /** Give Grape's 415 for unsupported media types instead of ignoring the body. */
  readonly rejectUnsupportedContentType?: boolean;
}

export const notDeclaredFormat = (): ApiError => ApiError.error(400, 'message body does not match declared format');

/** A JSON media type: `application/json` or any `+json` (`application/scim+json`). */
export const isJsonMediaType = (type: string): boolean => type === 'application/json' || type.endsWith('+json');

/** Why a JSON body is refused: a fault of its value (`jsonFault`), or text that is not JSON. */
export type JsonBodyFault = ParamsFault | { readonly kind: 'syntax' };

/** The error a JSON body's fault answers: a malformed string's 400, else `invalid()` (nesting is a syntax error). */
export const jsonBodyError = (fault: JsonBodyFault, invalid: () => ApiError): ApiError =>
  fault.kind === 'malformed' ? malformedStringError(fault.where) : invalid();

/**
 * A JSON body's value, with the checks every body gets: strict UTF-8 and no malformed string (400), no nesting
 * beyond `MAX_PARAM_DEPTH`; text that is not JSON, or nests deeper, throws `invalid()`.
 */
export function parseJsonBody(body: Buffer, invalid: () => ApiError): unknown {
  let parsed: unknown;
  const text = decodeUtf8(body, 'the request body');
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalid();
  }
  // Ruby's parser refuses nesting beyond 100 as a syntax error; deeper values would also overflow the
  // stack of whatever walks them later (validation, pagination links).
  const fault = jsonFault(text, parsed, MAX_PARAM_DEPTH);
  if (fault !== null) throw jsonBodyError(fault, invalid);
  return parsed;
}

/**
 * A JSON body's params: an object's own keys, else the value as `_json` (Grape). The object JSON.parse made is
 * used as it is (a copy cost more than the parse itself for a body of many keys); an own `__proto__` key is
 * dropped, as assigning it anywhere would set a prototype. Self-contained: the JSON worker runs its source.
 */
export function jsonBodyParams(parsed: unknown): RawParams {
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { _json: parsed };
  const params = parsed as RawParams;
  if (Object.prototype.hasOwnProperty.call(params, '__proto__')) delete params['__proto__'];
  return params;
}

/**
 * The source of the JSON checks above, for the worker that runs them off the event loop (`json-worker.ts`): the
 * same code answers there as here. Each function uses only built-ins and the others listed.
 */
export const JSON_CHECKS_SOURCE = [
  `const SUSPECT_RE = ${String(SUSPECT_RE)};`,
  `const SUSPECT_ESCAPE_RE = ${String(SUSPECT_ESCAPE_RE)};`,
  ...[isMalformedString, paramsFault, jsonNestsDeeperThan, jsonFault, jsonBodyParams].map(String),
].join('\n');

/** Whether a body is read as JSON: its Content-Type says so (a body without one is a form, or nothing). */
export const isJsonBody = (contentType: string | undefined): boolean => isJsonMediaType(parseContentType(contentType)?.type ?? '');

/** Body → params according to Content-Type. */
export function parseBody(body: Buffer, opts: ParseBodyOptions): RawParams {
  if (body.length === 0) return {};
  const ct = parseContentType(opts.contentType);
  const type = ct?.type ?? (opts.method === 'POST' ? 'application/x-www-form-urlencoded' : '');
  if (isJsonMediaType(type)) return jsonBodyParams(parseJsonBody(body, notDeclaredFormat));
  if (type === 'application/x-www-form-urlencoded') return parseQueryString(decodeUtf8(body, 'the request body'));
  if (type === 'multipart/form-data') return parseMultipart(body, ct?.params['boundary'] ?? '');
  if (opts.rejectUnsupportedContentType && type !== 'text/plain' && type !== '')
    throw ApiError.error(415, `The provided content-type '${type}' is not supported.`);
  return {};
}

/** Grape precedence: route params override body params, which override query params (top-level keys). */
export function mergeParams(query: RawParams, body: RawParams, route: Readonly<Record<string, string>>): RawParams {
  return { ...query, ...body, ...route };
}

/**
 * Raw request parameters: query string, and body (JSON, x-www-form-urlencoded, multipart/form-data), parsed the
 * way Rack 2.2 and Grape do, then merged with route params (route params win, then body, then query — Grape).
 *
 * - Query strings, forms and multipart bodies follow Rack's rules and limits (`form-params.ts`): `a[]=1&a[]=2` →
 *   array; `h[k]=v` → hash; `l[][k]=v` → array of hashes; `l[0][k]=v` → Rack builds a hash keyed "0","1"…; we
 *   turn any hash whose keys are all decimal integers into an array ordered by index (so `name[0][key]=v` is an
 *   array of hashes). Past Rack's key space (65,536 characters of names per hash) or depth (100), a 400.
 * - Form and query: `+` is a space, `%2B` a plus; `&` separates pairs, and `;` too in a query string (Rack 2's
 *   `GET`; its `POST` splits a form at `&` only, after dropping a trailing NUL); `a` without `=` is null.
 * - JSON body: an object's keys become params; any other JSON value is `_json` (Grape).
 * - Multipart: text parts become strings; file parts `{filename, contentType, data: Buffer}`.
 * - Malformed strings are refused with 400, as the platform's `HandleMalformedStrings` middleware and Rails'
 *   parameter encoding check do: invalid UTF-8 (in the body's bytes or behind %-escapes), an unpaired UTF-16
 *   surrogate (which only a JSON `\ud800` escape can produce), or a NUL, in any key or value at any depth.
 * - JSON nested deeper than `MAX_PARAM_DEPTH` is refused like a syntax error (Ruby's parser: `max_nesting` 100).
 * - A POST without Content-Type is read as a form (Rack `form_data?`). Other types are not parsed (no body params),
 *   unless `rejectUnsupportedContentType` is set, which gives Grape's 415.
 * - Forms and multipart bodies give params whatever the method (Rack's `POST` reads them). A JSON body gives the
 *   route its params on POST, PUT, PATCH and DELETE only (Grape's formatter, `read_body_input`). On other methods
 *   it is still checked (Rails parses it for `HandleMalformedStrings`), and only its `private_token` and
 *   `access_token` are read (the auth finders read Rails' params).
 */
import type { IncomingMessage } from 'node:http';
import { ApiError } from './errors.js';
import { parseFormText, parseMultipartBody, parseNestedQuery, RACK_LIMITS, type FormFault, type FormParse } from './form-params.js';
import type { RawParams } from './validation.js';

export type { UploadedFile } from './form-params.js';

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

/**
 * Rails' `Journey::Router::Utils.escape_path`, how a route helper writes a glob (`*path`) parameter: every character
 * but the unreserved ones, the sub-delimiters, `:`, `@` and `/` is percent-encoded (UTF-8, upper-case hex).
 */
export const escapePath = (s: string): string => toWellFormed(s).replace(/[^A-Za-z0-9\-._~!$&'()*+,;=:@/]/gu, (unsafe) => encodeURIComponent(unsafe));

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
 * body worker runs its source (see `body-worker.ts`).
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

/** Percent-decodes a path segment (no `+` handling). Returns null when the encoding is invalid. */
export function decodePathSegment(s: string): string | null {
  if (!s.includes('%')) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
}

/** 400 for Rack's `RangeError` past the key space (`key_space_limit`), with its message. */
export const keySpaceError = (): ApiError => ApiError.error(400, 'exceeded available parameter key space');

/** The answer to a fault of a query string, form or multipart body: each a 400. */
export function formFaultError(fault: FormFault): ApiError {
  switch (fault.kind) {
    case 'key_space':
      return keySpaceError();
    case 'too_deep':
      return ApiError.error(400, 'Params nested too deep');
    case 'escape':
      return ApiError.error(400, 'Invalid %-encoding in query string or form');
    case 'malformed':
      return malformedStringError(fault.where);
    case 'type':
    case 'multipart':
      return ApiError.error(400, fault.message);
  }
}

/** The params of a parse, or its fault thrown; walked for malformed strings when the parse saw a NUL. */
function formParamsOrThrow(parse: FormParse): RawParams {
  if (parse.fault !== null) throw formFaultError(parse.fault);
  if (parse.suspect) assertWellFormedParams(parse.params);
  return parse.params;
}

/** Rack 2 `parse_nested_query` of a query string: `&` or `;` separated, `+` is space, Rack's nesting and limits. */
export const parseQueryString = (qs: string): RawParams => formParamsOrThrow(parseNestedQuery(qs, '&;', RACK_LIMITS));

/** A form body's params (its text is strict UTF-8; pairs split at `&` only): Rack's nesting and limits. */
const parseFormBody = (body: Buffer): RawParams => formParamsOrThrow(parseFormText(decodeUtf8(body, 'the request body'), RACK_LIMITS));

/** A multipart/form-data body's params: text parts are strings, file parts `UploadedFile`s; Rack's nesting and limits. */
export const parseMultipart = (body: Buffer, boundary: string): RawParams => formParamsOrThrow(parseMultipartBody(body, boundary, RACK_LIMITS));

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
 * dropped, as assigning it anywhere would set a prototype. Self-contained: the body worker runs its source.
 */
export function jsonBodyParams(parsed: unknown): RawParams {
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { _json: parsed };
  const params = parsed as RawParams;
  if (Object.prototype.hasOwnProperty.call(params, '__proto__')) delete params['__proto__'];
  return params;
}

/**
 * The source of the JSON checks above, for the worker that runs them off the event loop (`body-worker.ts`): the
 * same code answers there as here. Each function uses only built-ins and the others listed.
 */
export const JSON_CHECKS_SOURCE = [
  `const SUSPECT_RE = ${String(SUSPECT_RE)};`,
  `const SUSPECT_ESCAPE_RE = ${String(SUSPECT_ESCAPE_RE)};`,
  ...[isMalformedString, paramsFault, jsonNestsDeeperThan, jsonFault, jsonBodyParams].map(String),
].join('\n');

/** How a body is read, by its Content-Type (a POST without one is a form); null: it gives no params. */
export type BodyFormat = { readonly kind: 'json' } | { readonly kind: 'form' } | { readonly kind: 'multipart'; readonly boundary: string };

/** The media type a body is read by (a POST without a Content-Type is a form, as Rack's `form_data?` says). */
const mediaTypeOf = (method: string, contentType: ReturnType<typeof parseContentType>): string =>
  contentType?.type ?? (method === 'POST' ? 'application/x-www-form-urlencoded' : '');

/**
 * Whether Grape's formatter reads a request's body (`read_body_input`: POST, PUT, PATCH, DELETE): a JSON body's
 * params, and the 415 for a type it has no parser for.
 */
export const formatterReadsBody = (method: string): boolean => method === 'POST' || method === 'PUT' || method === 'PATCH' || method === 'DELETE';

/** What a JSON body gives where the formatter does not read it: the tokens the auth finders read of Rails' params. */
export const TOKENS_OF_REQUEST_PARAMS: readonly string[] = ['private_token', 'access_token'];

/** The format of a body of media type `type` (its Content-Type `ct`), or null: it gives no params. */
function formatOf(type: string, ct: ReturnType<typeof parseContentType>): BodyFormat | null {
  if (isJsonMediaType(type)) return { kind: 'json' };
  if (type === 'application/x-www-form-urlencoded') return { kind: 'form' };
  if (type === 'multipart/form-data') return { kind: 'multipart', boundary: ct?.params['boundary'] ?? '' };
  return null;
}

/** How a body is read: JSON, a form, multipart, or (null) not at all. */
export function bodyFormat(method: string, contentType: string | undefined): BodyFormat | null {
  const ct = parseContentType(contentType);
  return formatOf(mediaTypeOf(method, ct), ct);
}

/** Why a body is refused, whatever its format. */
export type BodyFault = JsonBodyFault | FormFault;

/** The answer to a body's fault: a JSON body's (nesting is a syntax error there), or a form's. */
export function bodyFaultError(format: BodyFormat, fault: BodyFault): ApiError {
  if (fault.kind === 'syntax' || (fault.kind === 'too_deep' && format.kind === 'json')) return notDeclaredFormat();
  return formFaultError(fault);
}

/** Body → params according to Content-Type. */
export function parseBody(body: Buffer, opts: ParseBodyOptions): RawParams {
  if (body.length === 0) return {};
  const ct = parseContentType(opts.contentType);
  const type = mediaTypeOf(opts.method, ct);
  const format = formatOf(type, ct);
  if (format?.kind === 'json') {
    const params = jsonBodyParams(parseJsonBody(body, notDeclaredFormat));
    if (formatterReadsBody(opts.method)) return params;
    const tokens: Record<string, unknown> = {};
    for (const name of TOKENS_OF_REQUEST_PARAMS) if (Object.prototype.hasOwnProperty.call(params, name)) tokens[name] = params[name];
    return tokens as RawParams;
  }
  if (format?.kind === 'form') return parseFormBody(body);
  if (format?.kind === 'multipart') return parseMultipart(body, format.boundary);
  if (opts.rejectUnsupportedContentType && formatterReadsBody(opts.method) && type !== 'text/plain' && type !== '')
    throw ApiError.error(415, `The provided content-type '${type}' is not supported.`);
  return {};
}

/** Grape precedence: route params override body params, which override query params (top-level keys). */
export function mergeParams(query: RawParams, body: RawParams, route: Readonly<Record<string, string>>): RawParams {
  return { ...query, ...body, ...route };
}

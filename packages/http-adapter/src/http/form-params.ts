/**
 * Query strings, form bodies and multipart bodies into params, by the rules of Rack 2.2 (the version GitLab 14.7
 * runs: `Rack::QueryParser#parse_nested_query` and `normalize_params`, `Rack::Multipart::Parser`), with its limits:
 *
 * - **Key space**: the names of one hash's keys may total 65,536 characters (`Rack::Utils.key_space_limit`). A
 *   name counts once, when the hash first gets it, and each hash counts for itself (Rack's `Params#[]=`): the
 *   top level, every nested hash, every hash of an array (`l[][k]`).
 * - **Depth**: a name nests at most 100 levels (`param_depth_limit`; one per `[k]`, and `[]` with what follows it).
 *
 * Rack raises a `RangeError` past either limit; here it is a fault (`key_space`, `too_deep`), as are type clashes
 * and bad escapes. Faults are values, never thrown (`params.ts` turns them into answers), and the functions below
 * use only built-ins and each other: the body worker runs the same code (`FORM_PARSER_SOURCE`).
 *
 * Pairs are read and put in place one after the other, as Rack does (the first fault in the text wins). A pair
 * costs its own length: its name is read once, by position, where Rack (and the parser before this one) sliced and
 * matched the rest of the name again at each level; separators, `=`, and a name's last `[]` and line break are
 * each found once. `__proto__`, `constructor` and `prototype` count and clash as any name, and are dropped from the
 * params at the end.
 */

/** Rack 2.2's limits: characters of key names per hash, levels of nesting. */
export interface RackLimits {
  readonly keySpace: number;
  readonly depth: number;
}

/** `Rack::Utils.key_space_limit` and `param_depth_limit`, as Rack 2.2 sets them and GitLab 14.7 keeps them. */
export const RACK_LIMITS: RackLimits = { keySpace: 65_536, depth: 100 };

/** Why a query, form or multipart body is refused. */
export type FormFault =
  | { readonly kind: 'key_space' }
  | { readonly kind: 'too_deep' }
  /** A `%` not followed by two hex digits. */
  | { readonly kind: 'escape' }
  /** Invalid UTF-8 (behind escapes, or in a multipart part); `where` names it as `malformedStringError` takes it. */
  | { readonly kind: 'malformed'; readonly where: string }
  /** Rack's `ParameterTypeError`: "expected Array (got String) for param `a'". */
  | { readonly kind: 'type'; readonly message: string }
  | { readonly kind: 'multipart'; readonly message: string };

/**
 * Parsed params, or the first fault. `suspect`: a NUL may be in a name or a value (a raw one in the text, or a
 * `%00`), so the params are to be walked for malformed strings (`paramsFault`); otherwise they hold none.
 */
export type FormParse =
  | { readonly fault: null; readonly params: Record<string, unknown>; readonly suspect: boolean }
  | { readonly fault: FormFault };

/**
 * A hash while params are built (Rack's `Params`): its entries in order, and the characters of their names. The
 * first entry is held inline: most hashes of a large body hold one, and a Map for each cost more than the parse.
 */
class ParamsHash {
  keySpace = 0;
  private firstKey: string | null = null;
  private firstValue: unknown = undefined;
  private more: Map<string, unknown> | null = null;

  get(key: string): unknown {
    return key === this.firstKey ? this.firstValue : this.more?.get(key);
  }

  has(key: string): boolean {
    return key === this.firstKey || (this.more !== null && this.more.has(key));
  }

  /** Sets `key` to `value`; whether the hash had no such key. */
  set(key: string, value: unknown): boolean {
    if (this.firstKey === null) {
      this.firstKey = key;
      this.firstValue = value;
      return true;
    }
    if (key === this.firstKey) {
      this.firstValue = value;
      return false;
    }
    const more = (this.more ??= new Map());
    const size = more.size;
    more.set(key, value);
    return more.size !== size;
  }

  /** Each entry, in the order the keys came. */
  forEach(each: (value: unknown, key: string) => void): void {
    if (this.firstKey === null) return;
    each(this.firstValue, this.firstKey);
    this.more?.forEach(each);
  }
}

/** One parse: its limits, its first fault, and what is known of the name being read. */
interface Build {
  readonly keySpace: number;
  fault: FormFault | null;
  suspect: boolean;
  /** The name of the pair being read, and the last `[]` and the last line break in it (-2: not looked for yet). */
  name: string;
  lastEmptyBrackets: number;
  lastLineBreak: number;
}

function newBuild(limits: RackLimits): Build {
  return { keySpace: limits.keySpace, fault: null, suspect: false, name: '', lastEmptyBrackets: -2, lastLineBreak: -2 };
}

/** Characters (code points, as Ruby's `String#size` counts them) of `s` from `start` to `end`. */
function charactersIn(s: string, start: number, end: number): number {
  let n = end - start;
  for (let i = start; i < end; i++) if ((s.charCodeAt(i) & 0xfc00) === 0xd800) n--;
  return n;
}

/**
 * Rack's `Params#[]=`: a name new to the hash adds its characters (`characters`) to the hash's key space, and a
 * hash past the limit is the `key_space` fault.
 */
function setParam(b: Build, hash: ParamsHash, key: string, characters: number, value: unknown): void {
  if (hash.set(key, value)) {
    hash.keySpace += characters;
    if (hash.keySpace > b.keySpace) b.fault = { kind: 'key_space' };
  }
}

/** Rack's class name of a value in a type clash message. */
function rackClassName(value: unknown): string {
  return Array.isArray(value) ? 'Array' : value instanceof ParamsHash ? 'Hash' : 'String';
}

/** `params[k] ||= []` and its type check: the array at `k`, or undefined with the fault set. */
function arrayParam(b: Build, params: ParamsHash, k: string, characters: number): unknown[] | undefined {
  const current = params.get(k);
  if (current === undefined || current === null) {
    const created: unknown[] = [];
    setParam(b, params, k, characters, created);
    return b.fault === null ? created : undefined;
  }
  if (Array.isArray(current)) return current;
  b.fault = { kind: 'type', message: `expected Array (got ${rackClassName(current)}) for param \`${k}'` };
  return undefined;
}

const isBracket = (c: number): boolean => c === 0x5b || c === 0x5d;

/** Whether the name being read holds a line break at or after `start` (JavaScript's `.` stops at these). */
function hasLineBreakFrom(b: Build, start: number): boolean {
  if (b.lastLineBreak === -2) {
    const s = b.name;
    b.lastLineBreak = Math.max(s.lastIndexOf('\n'), s.lastIndexOf('\r'), s.lastIndexOf('\u2028'), s.lastIndexOf('\u2029'));
  }
  return b.lastLineBreak >= start;
}

/**
 * Rack's `params_hash_has_key?(hash, key)` for the key `name[start, end)`: false when it holds `[]`, else whether
 * the hash holds the path of its bracketed parts (`a[b]`: `a`, then `b` in it).
 */
function hashHasKey(b: Build, hash: ParamsHash, name: string, start: number, end: number): boolean {
  if (b.lastEmptyBrackets === -2) b.lastEmptyBrackets = name.lastIndexOf('[]');
  // The key is `name[start, end)`: the name's tail, or one part without brackets (then it holds no `[]`).
  if (b.lastEmptyBrackets >= start && b.lastEmptyBrackets + 1 < end) return false;
  let current: unknown = hash;
  for (let i = start; i < end; ) {
    while (i < end && isBracket(name.charCodeAt(i))) i++;
    if (i === end) break;
    let j = i;
    while (j < end && !isBracket(name.charCodeAt(j))) j++;
    if (!(current instanceof ParamsHash)) return false;
    const part = name.slice(i, j);
    if (!current.has(part)) return false;
    current = current.get(part);
    i = j;
  }
  return true;
}

/**
 * Rack 2.2's `normalize_params(params, name, v, depth)` for the name `name[start, end)`: puts `v` where the name
 * says, and returns what Rack returns (the hash, `[v]` for a bare `[]`, or nothing). On a fault, `b.fault` is set
 * and nothing more is done.
 */
function normalizeParams(b: Build, params: ParamsHash, name: string, start: number, end: number, v: unknown, depth: number): unknown {
  if (depth <= 0) {
    b.fault = { kind: 'too_deep' };
    return undefined;
  }
  // name =~ %r(\A[\[\]]*([^\[\]]+)\]*): k = $1, after = $'
  let i = start;
  while (i < end && isBracket(name.charCodeAt(i))) i++;
  let j = i;
  let surrogates = 0;
  for (; j < end; j++) {
    const c = name.charCodeAt(j);
    if (isBracket(c)) break;
    if ((c & 0xfc00) === 0xd800) surrogates++;
  }
  if (j === i) {
    // No match: k is empty. A bare `[]` gives `[v]` (an array of hashes' `l[][]`); anything else, nothing.
    const bare = end - start === 2 && name.charCodeAt(start) === 0x5b && name.charCodeAt(start + 1) === 0x5d;
    return bare && v !== null && v !== undefined ? [v] : undefined;
  }
  const k = name.slice(i, j);
  const kCharacters = j - i - surrogates;
  let after = j;
  while (after < end && name.charCodeAt(after) === 0x5d) after++;
  const rest = end - after;

  if (rest === 0) {
    setParam(b, params, k, kCharacters, v);
    return b.fault === null ? params : undefined;
  }
  if (rest === 1 && name.charCodeAt(after) === 0x5b) {
    // `a[`: the name as it is.
    setParam(b, params, name.slice(start, end), charactersIn(name, start, end), v);
    return b.fault === null ? params : undefined;
  }
  if (name.charCodeAt(after) === 0x5b && name.charCodeAt(after + 1) === 0x5d) {
    if (rest === 2) {
      // `a[]`
      const array = arrayParam(b, params, k, kCharacters);
      if (array === undefined) return undefined;
      array.push(v);
      return params;
    }
    // `a[][k]` (/^\[\]\[([^\[\]]+)\]$/: the child is `k`), else `a[]…` (/^\[\](.+)$/: the child is what follows).
    let childStart = -1;
    let childEnd = end;
    if (rest >= 5 && name.charCodeAt(after + 2) === 0x5b && name.charCodeAt(end - 1) === 0x5d) {
      let m = after + 3;
      while (m < end - 1 && !isBracket(name.charCodeAt(m))) m++;
      if (m === end - 1) {
        childStart = after + 3;
        childEnd = end - 1;
      }
    }
    if (childStart === -1 && !hasLineBreakFrom(b, after + 2)) childStart = after + 2;
    if (childStart !== -1) {
      const array = arrayParam(b, params, k, kCharacters);
      if (array === undefined) return undefined;
      const last = array[array.length - 1];
      if (last instanceof ParamsHash && !hashHasKey(b, last, name, childStart, childEnd)) {
        normalizeParams(b, last, name, childStart, childEnd, v, depth - 1);
        if (b.fault !== null) return undefined;
      } else {
        const child = normalizeParams(b, new ParamsHash(), name, childStart, childEnd, v, depth - 1);
        if (b.fault !== null) return undefined;
        array.push(child);
      }
      return params;
    }
  }
  // `a[b]…`: the hash at `a`, then the rest of the name in it.
  const current = params.get(k);
  let hash: ParamsHash;
  if (current === undefined || current === null) {
    hash = new ParamsHash();
    setParam(b, params, k, kCharacters, hash);
    if (b.fault !== null) return undefined;
  } else if (current instanceof ParamsHash) hash = current;
  else {
    b.fault = { kind: 'type', message: `expected Hash (got ${rackClassName(current)}) for param \`${k}'` };
    return undefined;
  }
  const value = normalizeParams(b, hash, name, after, end, v, depth - 1);
  if (b.fault !== null) return undefined;
  params.set(k, value);
  return params;
}

/** One pair into the params being built (its name read from the start, with what was known of the last one forgotten). */
function addPair(b: Build, root: ParamsHash, name: string, value: unknown, depth: number): void {
  b.name = name;
  b.lastEmptyBrackets = -2;
  b.lastLineBreak = -2;
  normalizeParams(b, root, name, 0, name.length, value, depth);
}

/** Names never set on the params (they would name or replace an object's prototype), dropped after counting. */
const isDroppedName = (k: string): boolean => k === '__proto__' || k === 'constructor' || k === 'prototype';

/** Whether a key is a decimal index of 1 to 9 digits (`name[0][key]`). */
function isIndexKey(k: string): boolean {
  if (k.length === 0 || k.length > 9) return false;
  for (let i = 0; i < k.length; i++) {
    const c = k.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return true;
}

/**
 * The built params as plain objects and arrays. A hash whose keys are all decimal indexes becomes an array in
 * their order (Rack keeps a hash keyed "0", "1"…; Grape reads such a hash as an array).
 */
function finishParams(value: unknown): unknown {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = finishParams(value[i]);
    return value;
  }
  if (!(value instanceof ParamsHash)) return value;
  let indexed = 0;
  let kept = 0;
  value.forEach((_, k) => {
    if (isDroppedName(k)) return;
    kept++;
    if (isIndexKey(k)) indexed++;
  });
  if (kept > 0 && indexed === kept) {
    // By index; of equal ones ("1", "01"), the one without leading zeros first, as an object lists its keys.
    const items: Array<readonly [number, number, unknown]> = [];
    value.forEach((item, k) => {
      if (!isDroppedName(k)) items.push([Number(k), k.length > 1 && k.charCodeAt(0) === 0x30 ? 1 : 0, item]);
    });
    items.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
    return items.map(([, , item]) => finishParams(item));
  }
  const out: Record<string, unknown> = {};
  value.forEach((item, k) => {
    if (!isDroppedName(k)) out[k] = finishParams(item);
  });
  return out;
}

/** What a parse answers: the finished params, or its fault. */
function finishParse(b: Build, root: ParamsHash): FormParse {
  if (b.fault !== null) return { fault: b.fault };
  // An array when every top-level name is an index (`0=a&1=b`), as it always was: spread into params, the same keys.
  return { fault: null, params: finishParams(root) as Record<string, unknown>, suspect: b.suspect };
}

/**
 * A form or query component, %-decoded (`+` is a space) as Rack's `unescape` does, into strict UTF-8; undefined
 * with the fault set when an escape is bad or its bytes are not UTF-8. A decoded NUL makes the parse `suspect`.
 */
function decodeComponent(b: Build, s: string): string | undefined {
  const percent = s.indexOf('%');
  if (percent === -1) return s.includes('+') ? s.replaceAll('+', ' ') : s;
  const spaced = s.includes('+') ? s.replaceAll('+', ' ') : s;
  let decoded: string;
  try {
    // Valid escapes of valid UTF-8 decode here as they do byte by byte below; anything else is told apart there.
    decoded = decodeURIComponent(spaced);
  } catch {
    return decodeComponentBytes(b, spaced);
  }
  if (decoded.includes('\0')) b.suspect = true;
  return decoded;
}

/** `decodeComponent` byte by byte: the escapes' bytes and the other characters' UTF-8, then strict UTF-8. */
function decodeComponentBytes(b: Build, s: string): string | undefined {
  const bytes: number[] = [];
  for (let i = 0; i < s.length; ) {
    const c = s.charCodeAt(i);
    if (c === 0x25) {
      const hex = s.slice(i + 1, i + 3);
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) {
        b.fault = { kind: 'escape' };
        return undefined;
      }
      bytes.push(parseInt(hex, 16));
      i += 3;
    } else {
      const cp = s.codePointAt(i)!;
      for (const byte of Buffer.from(String.fromCodePoint(cp), 'utf8')) bytes.push(byte);
      i += cp > 0xffff ? 2 : 1;
    }
  }
  try {
    const decoded = new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(bytes));
    if (decoded.includes('\0')) b.suspect = true;
    return decoded;
  } catch {
    b.fault = { kind: 'malformed', where: 'the query string or form' };
    return undefined;
  }
}

/**
 * Rack's `parse_nested_query(text, separators)`: pairs split at any of `separators` (`&;` for a query string, `&`
 * for a form body) and the spaces after it, each `name=value` (a pair without `=` has no value), %-decoded and
 * put in place one after the other. `text` is already strict UTF-8; a raw NUL in it makes the parse `suspect`.
 */
export function parseNestedQuery(text: string, separators: '&;' | '&', limits: RackLimits): FormParse {
  const b = newBuild(limits);
  b.suspect = text.includes('\0');
  const root = new ParamsHash();
  const withSemicolon = separators === '&;';
  const length = text.length;
  // The next `&`, `;` and `=` at or after the current pair: each found once, so a long text costs its length.
  let nextAmp = -1;
  let nextSemi = withSemicolon ? -1 : length;
  let nextEq = -1;
  let pos = 0;
  while (pos < length) {
    if (nextAmp < pos) {
      const found = text.indexOf('&', pos);
      nextAmp = found === -1 ? length : found;
    }
    if (nextSemi < pos) {
      const found = text.indexOf(';', pos);
      nextSemi = found === -1 ? length : found;
    }
    const end = Math.min(nextAmp, nextSemi);
    if (end > pos) {
      if (nextEq < pos) {
        const found = text.indexOf('=', pos);
        nextEq = found === -1 ? length : found;
      }
      const hasValue = nextEq < end;
      const name = decodeComponent(b, text.slice(pos, hasValue ? nextEq : end));
      if (name === undefined) return { fault: b.fault! };
      let value: string | null = null;
      if (hasValue) {
        const decoded = decodeComponent(b, text.slice(nextEq + 1, end));
        if (decoded === undefined) return { fault: b.fault! };
        value = decoded;
      }
      addPair(b, root, name, value, limits.depth);
      if (b.fault !== null) return { fault: b.fault };
    }
    // The separator, and the spaces after it.
    pos = end + 1;
    while (pos < length && text.charCodeAt(pos) === 0x20) pos++;
  }
  return finishParse(b, root);
}

/**
 * A form body's params, as Rack's `Request#POST` reads them: a trailing NUL dropped ("Safari Ajax postings"), then
 * `parse_nested_query(text, '&')`: pairs are split at `&` only (`;` separates pairs in a query string, not here).
 */
export function parseFormText(text: string, limits: RackLimits): FormParse {
  return parseNestedQuery(text.endsWith('\0') ? text.slice(0, -1) : text, '&', limits);
}

/** An uploaded file, as multipart parts with a filename give it. */
export interface UploadedFile {
  readonly filename: string;
  readonly contentType: string;
  readonly data: Buffer;
}

/** The header block of one multipart part, names lower-cased. */
function parsePartHeaders(block: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of block.split('\r\n')) {
    const idx = line.indexOf(':');
    if (idx <= 0) continue;
    headers[line.slice(0, idx).trim().toLowerCase()] = line.slice(idx + 1).trim();
  }
  return headers;
}

/** A parameter of a Content-Disposition header (`name`, `filename`), quoted or not. */
function dispositionParam(disposition: string, key: 'name' | 'filename'): string | undefined {
  const m = (key === 'name' ? /(?:^|;)\s*name\*?=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/i : /(?:^|;)\s*filename\*?=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/i).exec(
    disposition,
  );
  if (!m) return undefined;
  if (m[1] !== undefined) return m[1].replace(/\\(.)/g, '$1');
  return m[2]?.trim();
}

/**
 * A multipart/form-data body (RFC 7578): text parts are strings (strict UTF-8), parts with a filename are files
 * (`UploadedFile`; an empty filename is no part, as Rack's parser drops it). Every part is read first, then each is
 * put in place by its name as Rack does, with the same limits.
 */
export function parseMultipartBody(body: Buffer, boundary: string, limits: RackLimits): FormParse {
  const multipart = (message: string): FormParse => ({ fault: { kind: 'multipart', message } });
  if (!boundary || boundary.length > 200) return multipart('Invalid multipart boundary');
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  const decode = (bytes: Uint8Array): string | undefined => {
    try {
      return utf8.decode(bytes);
    } catch {
      return undefined;
    }
  };
  const delim = Buffer.from(`--${boundary}`);
  const nextDelim = Buffer.from(`\r\n--${boundary}`);
  const pairs: Array<readonly [string, unknown]> = [];
  let suspect = false;
  let pos = body.indexOf(delim);
  if (pos === -1) return multipart('Malformed multipart body');
  for (;;) {
    pos += delim.length;
    // "--" after a delimiter closes the body.
    if (body[pos] === 0x2d && body[pos + 1] === 0x2d) break;
    // Skip transport padding up to CRLF.
    const eol = body.indexOf('\r\n', pos);
    if (eol === -1) return multipart('Malformed multipart body');
    pos = eol + 2;
    const next = body.indexOf(nextDelim, pos);
    if (next === -1) return multipart('Malformed multipart body');
    // The blank line that ends the headers, looked for in this part only.
    const blank = body.subarray(pos, next + 4).indexOf('\r\n\r\n');
    let headers: Record<string, string>;
    let content: Buffer;
    if (blank === -1) {
      // A part without a blank line: headers only when it starts with one, else malformed.
      if (body[pos] === 0x0d && body[pos + 1] === 0x0a) {
        headers = {};
        content = body.subarray(pos + 2, next);
      } else return multipart('Malformed multipart body');
    } else {
      headers = parsePartHeaders(body.subarray(pos, pos + blank).toString('latin1'));
      content = body.subarray(pos + blank + 4, next);
    }
    const disposition = headers['content-disposition'] ?? '';
    const name = dispositionParam(disposition, 'name');
    const filename = dispositionParam(disposition, 'filename');
    // `filename=""` is a form's "no file chosen": Rack's parser drops the part, so the parameter is absent.
    if (name !== undefined && filename !== '') {
      const decodedName = decode(Buffer.from(name, 'latin1'));
      if (decodedName === undefined) return { fault: { kind: 'malformed', where: 'a parameter name' } };
      if (decodedName.includes('\0')) suspect = true;
      let value: unknown;
      if (filename !== undefined) {
        const decodedFilename = decode(Buffer.from(filename, 'latin1'));
        if (decodedFilename === undefined) return { fault: { kind: 'malformed', where: `parameter '${decodedName}'` } };
        if (decodedFilename.includes('\0')) suspect = true;
        value = {
          filename: decodedFilename,
          contentType: headers['content-type'] ?? 'application/octet-stream',
          data: Buffer.from(content),
        } satisfies UploadedFile;
      } else {
        const text = decode(content);
        if (text === undefined) return { fault: { kind: 'malformed', where: `parameter '${decodedName}'` } };
        if (text.includes('\0')) suspect = true;
        value = text;
      }
      pairs.push([decodedName, value]);
    }
    pos = next + 2;
  }
  const b = newBuild(limits);
  b.suspect = suspect;
  const root = new ParamsHash();
  for (const [name, value] of pairs) {
    addPair(b, root, name, value, limits.depth);
    if (b.fault !== null) return { fault: b.fault };
  }
  return finishParse(b, root);
}

/**
 * The source of the parser above, for the body worker (`body-worker.ts`): the same code answers there as here.
 * Each function uses only built-ins and the others listed.
 */
export const FORM_PARSER_SOURCE = [
  String(ParamsHash),
  ...[
    newBuild,
    charactersIn,
    setParam,
    rackClassName,
    arrayParam,
    hasLineBreakFrom,
    hashHasKey,
    normalizeParams,
    addPair,
    isIndexKey,
    finishParams,
    finishParse,
    decodeComponent,
    decodeComponentBytes,
    parseNestedQuery,
    parseFormText,
    parsePartHeaders,
    dispositionParam,
    parseMultipartBody,
  ].map(String),
  `const isBracket = ${String(isBracket)};`,
  `const isDroppedName = ${String(isDroppedName)};`,
].join('\n');

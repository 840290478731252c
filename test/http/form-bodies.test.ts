/**
 * Query strings, forms and multipart bodies by Rack 2.2's rules and limits: a hash may hold 65,536 characters of
 * key names (a name counts once, when the hash first gets it; each hash counts for itself), and a name nests at
 * most 100 levels. Past either, a 400. A reference written as Rack writes `normalize_params` (which re-reads the
 * rest of the name at each level) builds what the parser builds, for generated names.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ApiError, parseBody, parseMultipart, parseQueryString } from '@forgefold/http-adapter';

const KEY_SPACE = 65_536;

const form = (text: string) => parseBody(Buffer.from(text), { method: 'POST', contentType: 'application/x-www-form-urlencoded' });

/** A multipart body of text parts (boundary `XyZ`). */
const multipart = (parts: ReadonlyArray<readonly [string, string]>) =>
  parseMultipart(
    Buffer.from([...parts.flatMap(([name, value]) => ['--XyZ', `Content-Disposition: form-data; name="${name}"`, '', value]), '--XyZ--', ''].join('\r\n')),
    'XyZ',
  );

/** What a parse throws: its status and body. */
const refusal = (parse: () => unknown): { status: number; body: unknown } | 'accepted' => {
  try {
    parse();
    return 'accepted';
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { status: error.status, body: error.body };
  }
};

const KEY_SPACE_REFUSAL = { status: 400, body: { error: 'exceeded available parameter key space' } };
const TOO_DEEP_REFUSAL = { status: 400, body: { error: 'Params nested too deep' } };

/** `count` distinct names of `length` characters each (`length` ≥ 6). */
const names = (count: number, length: number): string[] => Array.from({ length: count }, (_, i) => `k${i.toString(36).padStart(length - 1, '0')}`);

describe('pairs', () => {
  it('of a form are split at `&` only, after a trailing NUL is dropped (Rack\'s `POST`); of a query string at `&` and `;`', () => {
    expect(form('description=a;b&name=x; y')).toEqual({ description: 'a;b', name: 'x; y' });
    expect(parseQueryString('description=a;b&name=x; y')).toEqual({ description: 'a', b: null, name: 'x', y: null });
    expect(form('name=x&path=y\0')).toEqual({ name: 'x', path: 'y' });
    expect(refusal(() => form('name=x\0&path=y'))).toMatchObject({ status: 400 });
    expect(refusal(() => form('name=x\0\0'))).toMatchObject({ status: 400 });
    expect(refusal(() => parseQueryString('name=x%00'))).toMatchObject({ status: 400 });
  });
});

describe('the key space', () => {
  it('is 65,536 characters of names in a hash: a form, a query string or a multipart body, one more is refused', () => {
    const full = names(KEY_SPACE / 16, 16);
    const text = full.map((name) => `${name}=1`).join('&');
    expect(Object.keys(form(text))).toHaveLength(4096);
    expect(refusal(() => form(`${text}&x=1`))).toEqual(KEY_SPACE_REFUSAL);
    expect(Object.keys(parseQueryString(text))).toHaveLength(4096);
    expect(refusal(() => parseQueryString(`${text}&x=1`))).toEqual(KEY_SPACE_REFUSAL);
    const parts = full.map((name) => [name, '1'] as const);
    expect(Object.keys(multipart(parts))).toHaveLength(4096);
    expect(refusal(() => multipart([...parts, ['x', '1']]))).toEqual(KEY_SPACE_REFUSAL);
  });

  it('counts a name once, however often it comes', () => {
    const full = names(KEY_SPACE / 16, 16);
    const again = Array.from({ length: 100_000 }, () => `${full[1]}=2`);
    expect(form([...full.map((name) => `${name}=1`), ...again].join('&'))[full[1]!]).toBe('2');
    expect(form(Array.from({ length: 100_000 }, (_, i) => `a[]=${i}`).join('&'))['a']).toHaveLength(100_000);
  });

  it('is each hash’s own: the top level, nested hashes, the hashes of an array', () => {
    const inner = names(KEY_SPACE / 16, 16);
    const nested = (hash: string) => inner.map((name) => `${hash}[${name}]=1`);
    const two = form([...nested('h1'), ...nested('h2')].join('&'));
    expect([Object.keys(two['h1'] as object).length, Object.keys(two['h2'] as object).length]).toEqual([4096, 4096]);
    expect(refusal(() => form([...nested('h1'), ...nested('h2'), 'h2[x]=1'].join('&')))).toEqual(KEY_SPACE_REFUSAL);
    // `l[][k]` starts a new hash of the array when the last one holds `k`.
    const array = form([...nested('l[]'), ...nested('l[]')].join('&'))['l'] as object[];
    expect(array.map((hash) => Object.keys(hash).length)).toEqual([4096, 4096]);
    expect(refusal(() => form([...nested('l[]'), 'l[][x]=1'].join('&')))).toEqual(KEY_SPACE_REFUSAL);
    // A name three levels down counts in the third hash only.
    expect(form(inner.map((name) => `a[b][${name}]=1`).join('&'))).toEqual({ a: { b: Object.fromEntries(inner.map((name) => [name, '1'])) } });
  });

  it('counts characters, as Ruby does, not bytes nor UTF-16 units; escaped or not', () => {
    for (const character of ['é', '😀', '%C3%A9', '%F0%9F%98%80']) {
      expect(refusal(() => form(`${character.repeat(KEY_SPACE)}=1`)), character).toBe('accepted');
      expect(refusal(() => form(`${character.repeat(KEY_SPACE + 1)}=1`)), character).toEqual(KEY_SPACE_REFUSAL);
    }
  });

  it('counts a name ending in `[` whole, and the names the params drop (`__proto__`)', () => {
    expect(form(`${'x'.repeat(KEY_SPACE - 1)}[=1`)).toEqual({ [`${'x'.repeat(KEY_SPACE - 1)}[`]: '1' });
    expect(refusal(() => form(`${'x'.repeat(KEY_SPACE)}[=1`))).toEqual(KEY_SPACE_REFUSAL);
    expect(form(`${'x'.repeat(KEY_SPACE - 9)}=1&__proto__=2`)).toEqual({ [`${'x'.repeat(KEY_SPACE - 9)}`]: '1' });
    expect(refusal(() => form(`${'x'.repeat(KEY_SPACE - 8)}=1&__proto__=2`))).toEqual(KEY_SPACE_REFUSAL);
  });
});

describe('the depth', () => {
  it('is 100 levels: `[k]`, `[]` with what follows it, in forms, query strings and multipart bodies', () => {
    const deep = (levels: number) => `a${'[b]'.repeat(levels - 1)}`;
    for (const parse of [(name: string) => form(`${name}=1`), (name: string) => parseQueryString(`${name}=1`), (name: string) => multipart([[name, '1']])]) {
      expect(refusal(() => parse(deep(100)))).toBe('accepted');
      expect(refusal(() => parse(deep(101)))).toEqual(TOO_DEEP_REFUSAL);
      expect(refusal(() => parse(`a${'[][b]'.repeat(99)}`))).toBe('accepted');
      expect(refusal(() => parse(`a${'[][b]'.repeat(100)}`))).toEqual(TOO_DEEP_REFUSAL);
    }
  });
});

/**
 * Rack 2.2's `normalize_params`, `Params` and `params_hash_has_key?`, written as Rack writes them (regular
 * expressions on the rest of the name at each level; JavaScript's `^`, `$` and `.`), with its key space and depth.
 * `[]` and `{}`-like `RackHash`es; `Fault` when Rack raises.
 */
class RackHash {
  readonly map = new Map<string, unknown>();
  size = 0;
  get(key: string): unknown {
    return this.map.get(key);
  }
  set(key: string, value: unknown): void {
    if (!this.map.has(key)) this.size += [...key].length;
    if (this.size > KEY_SPACE) throw new Fault('exceeded available parameter key space');
    this.map.set(key, value);
  }
}

class Fault extends Error {}

const rackClass = (value: unknown) => (Array.isArray(value) ? 'Array' : value instanceof RackHash ? 'Hash' : 'String');

function hasKey(hash: RackHash, key: string): boolean {
  if (/\[\]/.test(key)) return false;
  let h: unknown = hash;
  for (const part of key.split(/[[\]]+/)) {
    if (part === '') continue;
    if (!(h instanceof RackHash) || !h.map.has(part)) return false;
    h = h.get(part);
  }
  return true;
}

function rackNormalize(params: RackHash, name: string, v: unknown, depth: number): unknown {
  if (depth <= 0) throw new Fault('Params nested too deep');
  const m = /^[[\]]*([^[\]]+)\]*/.exec(name);
  const k = m?.[1] ?? '';
  const after = m ? name.slice(m[0].length) : '';
  if (k === '') return v !== null && name === '[]' ? [v] : undefined;
  if (after === '') params.set(k, v);
  else if (after === '[') params.set(name, v);
  else if (after === '[]') {
    if (params.get(k) === undefined || params.get(k) === null) params.set(k, []);
    const array = params.get(k);
    if (!Array.isArray(array)) throw new Fault(`expected Array (got ${rackClass(array)}) for param \`${k}'`);
    array.push(v);
  } else {
    const md = /^\[\]\[([^[\]]+)\]$/.exec(after) ?? /^\[\](.+)$/.exec(after);
    if (md) {
      const childKey = md[1]!;
      if (params.get(k) === undefined || params.get(k) === null) params.set(k, []);
      const array = params.get(k);
      if (!Array.isArray(array)) throw new Fault(`expected Array (got ${rackClass(array)}) for param \`${k}'`);
      const last: unknown = array[array.length - 1];
      if (last instanceof RackHash && !hasKey(last, childKey)) rackNormalize(last, childKey, v, depth - 1);
      else array.push(rackNormalize(new RackHash(), childKey, v, depth - 1));
    } else {
      if (params.get(k) === undefined || params.get(k) === null) params.set(k, new RackHash());
      const hash = params.get(k);
      if (!(hash instanceof RackHash)) throw new Fault(`expected Hash (got ${rackClass(hash)}) for param \`${k}'`);
      params.set(k, rackNormalize(hash, after, v, depth - 1));
    }
  }
  return params;
}

/** Rack's hashes as Forgefold's params: index-keyed hashes as arrays (the one with leading zeros after), `__proto__` and the like dropped. */
function asParams(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(asParams);
  if (!(value instanceof RackHash)) return value;
  const entries = [...value.map].filter(([k]) => !['__proto__', 'constructor', 'prototype'].includes(k));
  if (entries.length > 0 && entries.every(([k]) => /^\d{1,9}$/.test(k))) {
    return entries
      .map(([k, item]) => [Number(k), /^0./.test(k) ? 1 : 0, item] as const)
      .sort((x, y) => x[0] - y[0] || x[1] - y[1])
      .map(([, , item]) => asParams(item));
  }
  return Object.fromEntries(entries.map(([k, item]) => [k, asParams(item)]));
}

/** Rack's `parse_nested_query(text, '&;')`, unescaping with JavaScript's decoder; the params, or what Rack raises. */
function rackParse(text: string): unknown {
  const root = new RackHash();
  try {
    for (const pair of text.split(/[&;] */)) {
      if (pair === '') continue;
      const eq = pair.indexOf('=');
      const unescape = (s: string) => decodeURIComponent(s.replaceAll('+', ' '));
      rackNormalize(root, unescape(eq === -1 ? pair : pair.slice(0, eq)), eq === -1 ? null : unescape(pair.slice(eq + 1)), 100);
    }
  } catch (error) {
    if (error instanceof Fault) return { status: 400, body: { error: error.message } };
    throw error;
  }
  return asParams(root);
}

describe('a reference written as Rack writes it', () => {
  const pieces = ['a', 'b', '0', '1', '01', '[', ']', '[]', '[a]', '[0]', '[][a]', '=', '&', ';', ' ', '+', '%5B', '%5D', '%0A', '\n', 'é', '😀', '__proto__'];
  const name = fc.array(fc.constantFrom(...pieces, '[b]'.repeat(60), '[][c]'.repeat(45), 'x'.repeat(20_000)), { maxLength: 25 }).map((parts) => parts.join(''));

  it('builds what the parser builds, or refuses it the same way', () => {
    fc.assert(
      fc.property(name, (text) => {
        const ours = refusal(() => parseQueryString(text)) === 'accepted' ? parseQueryString(text) : refusal(() => parseQueryString(text));
        expect(ours).toEqual(rackParse(text));
      }),
      { numRuns: 3000 },
    );
  });
});

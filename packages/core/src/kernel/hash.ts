/**
 * A content hash of a projection state: SHA-256 over a canonical serialization. Two states with the same
 * content hash equally whatever their history: a live state built by immer (frozen, keys in insertion order)
 * and the same state refolded from the log or loaded from a JSON snapshot.
 *
 * Canonical form (JSON-like, written straight into the hash in chunks, never built as one string):
 * - object keys sorted by UTF-16 code units; properties whose value is undefined are dropped;
 * - arrays in order, an undefined element written as null (as JSON would);
 * - numbers as JSON writes them (-0 as 0), NaN and ±Infinity as bare tokens;
 * - a Date as its ISO string (what a JSON snapshot holds), a bigint as `<digits>n`;
 * - a Map as `Map{key:value,…}` and a Set as `Set[…]`, entries ordered by their canonical key/element;
 * - a table node still in its snapshot bytes (`LazyNode`) as its decoded content;
 * - functions, symbols and cycles are errors: a state is data.
 */
import { createHash, type Hash } from 'node:crypto';
import { LazyNode } from './lazy-node.js';

const FLUSH_AT = 64 * 1024;

class HashWriter {
  private buffer = '';
  constructor(private readonly hash: Hash) {}

  write(text: string): void {
    this.buffer += text;
    if (this.buffer.length >= FLUSH_AT) this.flush();
  }

  flush(): void {
    if (this.buffer.length > 0) this.hash.update(this.buffer, 'utf8');
    this.buffer = '';
  }
}

/** Collects a small value's canonical form as a string: used to order Map keys and Set elements. */
class StringWriter {
  text = '';
  write(text: string): void {
    this.text += text;
  }
}

type Writer = { write(text: string): void };

const canonicalString = (value: unknown, path: Set<object>): string => {
  const writer = new StringWriter();
  writeValue(writer, value, path);
  return writer.text;
};

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

const writeNumber = (out: Writer, value: number): void => {
  if (Number.isFinite(value)) out.write(Object.is(value, -0) ? '0' : String(value));
  else out.write(Number.isNaN(value) ? 'NaN' : value > 0 ? 'Infinity' : '-Infinity');
};

const writeValue = (out: Writer, value: unknown, path: Set<object>): void => {
  switch (typeof value) {
    case 'string':
      out.write(JSON.stringify(value));
      return;
    case 'number':
      writeNumber(out, value);
      return;
    case 'boolean':
      out.write(value ? 'true' : 'false');
      return;
    case 'bigint':
      out.write(`${value.toString()}n`);
      return;
    case 'undefined':
      out.write('undefined');
      return;
    case 'function':
    case 'symbol':
      throw new TypeError(`stateHash: cannot hash a ${typeof value}`);
  }
  if (value === null) {
    out.write('null');
    return;
  }
  const object = value as object;
  // A table node not read since its snapshot was loaded hashes as its content (replay == live, loaded or not).
  if (object instanceof LazyNode) {
    writeValue(out, object.peek(), path);
    return;
  }
  if (object instanceof Date) {
    out.write(JSON.stringify(Number.isNaN(object.getTime()) ? null : object.toISOString()));
    return;
  }
  if (path.has(object)) throw new TypeError('stateHash: cannot hash a cyclic structure');
  path.add(object);
  try {
    if (Array.isArray(object)) {
      out.write('[');
      for (let i = 0; i < object.length; i++) {
        if (i > 0) out.write(',');
        const element: unknown = object[i];
        if (element === undefined) out.write('null');
        else writeValue(out, element, path);
      }
      out.write(']');
    } else if (object instanceof Map) {
      const entries = [...object.entries()].map(([key, entry]) => [canonicalString(key, path), entry] as const);
      entries.sort((a, b) => compare(a[0], b[0]));
      out.write('Map{');
      entries.forEach(([key, entry], index) => {
        if (index > 0) out.write(',');
        out.write(key);
        out.write(':');
        writeValue(out, entry, path);
      });
      out.write('}');
    } else if (object instanceof Set) {
      const elements = [...object].map((element) => canonicalString(element, path)).sort(compare);
      out.write('Set[');
      out.write(elements.join(','));
      out.write(']');
    } else if (ArrayBuffer.isView(object)) {
      const bytes = new Uint8Array(object.buffer, object.byteOffset, object.byteLength);
      out.write(`Bytes(${Buffer.from(bytes).toString('hex')})`);
    } else {
      const record = object as Record<string, unknown>;
      const keys = Object.keys(record).sort(compare);
      out.write('{');
      let first = true;
      for (const key of keys) {
        const entry = record[key];
        if (entry === undefined) continue;
        if (!first) out.write(',');
        first = false;
        out.write(JSON.stringify(key));
        out.write(':');
        writeValue(out, entry, path);
      }
      out.write('}');
    }
  } finally {
    path.delete(object);
  }
};

/** SHA-256 (hex) of the canonical serialization of `state`. */
export const stateHash = (state: unknown): string => {
  const hash = createHash('sha256');
  const writer = new HashWriter(hash);
  writeValue(writer, state, new Set());
  writer.flush();
  return hash.digest('hex');
};

/** SHA-256 of a UTF-8 string, in hex (deterministic: decisions may use it, e.g. environment slugs). */
export const sha256Hex = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

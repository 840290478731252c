/**
 * Writes a value in V8's serialisation format (what `v8.serialize` writes and `v8.deserialize` reads) into a buffer
 * this writer keeps and reuses, for the snapshot encoder's table nodes.
 *
 * Why not `v8.serialize`: each call returns a new Buffer over memory V8 does not own, with a weak handle of its own, and
 * every young collection pays for each such Buffer that died since the last one. The encoder writes one node per
 * call (tens of thousands in an incremental snapshot at 1e6 commands) and copies it at once into its piece, so each
 * dies young. Measured (issue 16, docs/decisions.md): scavenges of 1.1 ms took 3.9 ms, 2.0 ms of it V8's "external"
 * time, with a `v8.serialize` every four small allocations; in the 1e6 bench the scavenges inside snapshot windows
 * averaged 9.2 ms against 2.3 ms elsewhere, and one of them was the longest pause.
 *
 * What it writes: `undefined`, `null`, booleans, numbers (a small integer, else a double), strings (one byte per
 * character when every character is below 256, else UTF-16, aligned as V8 aligns it), plain objects (own enumerable
 * string keys; integer keys as numbers) and arrays (dense when they have no hole, else by their present indices).
 * Anything else (a Date, a Map, a class instance, a bigint…) makes `write` answer null and the caller serialises
 * with `v8.serialize`, as it does a value nested deeper than MAX_DEPTH (a cycle) or longer than MAX_BYTES.
 *
 * An object met twice in one value is written twice (V8 writes a reference to the first), so it decodes as two equal
 * objects: a snapshot keeps the state's values, not which of its objects are one (it never did across nodes, each
 * serialised apart). Tracking them took a third of this writer's time (a map of every object written). An array's
 * properties other than its indices are not written (the state's arrays have none; the snapshot's structure ignores
 * them too).
 *
 * V8 reads every format version up to its own; this writes version 15's encoding of these values, and is used only
 * when the running V8 writes version 15 or later (`WIRE_VERSION`).
 */
import v8 from 'node:v8';

/** V8's serialisation tags (v8/src/objects/value-serializer.cc). */
const Tag = {
  version: 0xff,
  padding: 0x00,
  undefined: 0x5f, // '_'
  null: 0x30, // '0'
  true: 0x54, // 'T'
  false: 0x46, // 'F'
  int32: 0x49, // 'I' (zigzag varint)
  double: 0x4e, // 'N'
  oneByteString: 0x22, // '"'
  twoByteString: 0x63, // 'c'
  beginObject: 0x6f, // 'o'
  endObject: 0x7b, // '{'
  beginDenseArray: 0x41, // 'A'
  endDenseArray: 0x24, // '$'
  beginSparseArray: 0x61, // 'a'
  endSparseArray: 0x40, // '@'
} as const;

const VERSION = 15;
/** The running V8's format version (the byte after the header's tag), or 0 when its header is not the expected one. */
const runningVersion = ((): number => {
  const header = v8.serialize(null);
  return header[0] === Tag.version && header[1]! < 0x80 ? header[1]! : 0;
})();
/** Whether this writer can be used: the running V8 reads version 15. */
const WIRE_VERSION = runningVersion >= VERSION ? VERSION : 0;

/** Thrown inside `write` when a value is one it does not write (caught there: the caller falls back). */
const UNSUPPORTED = Symbol('unsupported');

/** An array index written as a key (V8 writes indices as numbers). */
const MAX_INDEX = 2 ** 32 - 2;

/** The buffer's usual size: a table node takes a few KB. */
const BUFFER = 64 * 1024;
/**
 * A value longer than this is declined: `v8.serialize` writes it once, without the writer keeping a buffer that large;
 * and an object met many times (a shared tree: written once per path here, once in all by V8) cannot grow without bound.
 */
const MAX_BYTES = 4 * 1024 * 1024;

/** Nesting beyond this is declined: a cycle (`v8.serialize` writes it as a reference); a table node nests a few levels. */
const MAX_DEPTH = 128;

/** Strings at least this long are written by Buffer's native encoders, shorter ones (their length a varint of one byte) by a loop. */
const LONG_STRING = 0x80;

export class WireWriter {
  /** The bytes of the last value written are `buffer[0, length)` (valid until the next `write`). */
  buffer = Buffer.allocUnsafeSlow(BUFFER);
  private at = 0;
  /** Objects and arrays open around the value being written. */
  private depth = 0;

  /**
   * Writes `value` (header included) into `buffer`; answers its length, or null when `value` holds something this
   * writer does not write (then nothing is promised about `buffer`).
   */
  write(value: unknown): number | null {
    if (WIRE_VERSION === 0) return null;
    // A large value grew the buffer: not kept for the small ones that follow.
    if (this.buffer.length > BUFFER) this.buffer = Buffer.allocUnsafeSlow(BUFFER);
    this.at = 0;
    this.depth = 0;
    try {
      this.room(2);
      this.buffer[this.at++] = Tag.version;
      this.buffer[this.at++] = VERSION;
      this.value(value);
      return this.at;
    } catch (error) {
      if (error === UNSUPPORTED) return null;
      throw error;
    }
  }

  private room(bytes: number): void {
    if (this.at + bytes <= this.buffer.length) return;
    if (this.at + bytes > MAX_BYTES) throw UNSUPPORTED;
    const grown = Buffer.allocUnsafeSlow(Math.max(this.buffer.length * 2, this.at + bytes));
    this.buffer.copy(grown, 0, 0, this.at);
    this.buffer = grown;
  }

  private tag(tag: number): void {
    this.room(1);
    this.buffer[this.at++] = tag;
  }

  /** A base-128 varint, low bits first (`n` a non-negative integer below 2^53). */
  private varint(n: number): void {
    this.room(8);
    let rest = n;
    while (rest >= 0x80) {
      this.buffer[this.at++] = (rest & 0x7f) | 0x80;
      rest = Math.floor(rest / 0x80);
    }
    this.buffer[this.at++] = rest;
  }

  private number(n: number): void {
    // A small integer as V8 keeps it (-0 is a double); V8 may hold an integer as a double too, which reads the same.
    if ((n | 0) === n && !(n === 0 && 1 / n < 0)) {
      this.tag(Tag.int32);
      this.varint(((n << 1) ^ (n >> 31)) >>> 0);
      return;
    }
    this.room(9);
    this.buffer[this.at++] = Tag.double;
    this.buffer.writeDoubleLE(n, this.at);
    this.at += 8;
  }

  private string(s: string): void {
    const length = s.length;
    this.room(1 + 5 + length);
    const start = this.at;
    if (length < LONG_STRING) {
      // Optimistically one byte per character; started again as UTF-16 at the first character above 255.
      const buffer = this.buffer;
      let at = start;
      buffer[at++] = Tag.oneByteString;
      buffer[at++] = length; // below 0x80: a varint of one byte
      let i = 0;
      for (; i < length; i++) {
        const c = s.charCodeAt(i);
        if (c > 0xff) break;
        buffer[at + i] = c;
      }
      if (i === length) {
        this.at = at + length;
        return;
      }
    } else {
      let oneByte = true;
      for (let i = 0; i < length; i++) {
        if (s.charCodeAt(i) > 0xff) {
          oneByte = false;
          break;
        }
      }
      if (oneByte) {
        this.buffer[this.at++] = Tag.oneByteString;
        this.varint(length);
        this.at += this.buffer.write(s, this.at, length, 'latin1');
        return;
      }
    }
    const bytes = 2 * length;
    this.room(2 + 5 + bytes);
    // V8 aligns a UTF-16 string's characters on an even offset of the value's bytes, with a padding tag before.
    if ((this.at + 1 + varintSize(bytes)) & 1) this.buffer[this.at++] = Tag.padding;
    this.buffer[this.at++] = Tag.twoByteString;
    this.varint(bytes);
    this.at += this.buffer.write(s, this.at, bytes, 'utf16le');
  }

  /** A property key: an array index as a number, as V8 writes it. */
  private key(key: string): void {
    const first = key.charCodeAt(0);
    if (first >= 0x30 && first <= 0x39 && isIndex(key)) this.number(Number(key));
    else this.string(key);
  }

  private value(value: unknown): void {
    switch (typeof value) {
      case 'string':
        return this.string(value);
      case 'number':
        return this.number(value);
      case 'boolean':
        return this.tag(value ? Tag.true : Tag.false);
      case 'undefined':
        return this.tag(Tag.undefined);
      case 'object':
        if (value === null) return this.tag(Tag.null);
        if (Array.isArray(value)) return this.array(value);
        return this.object(value);
      default:
        throw UNSUPPORTED;
    }
  }

  private object(object: object): void {
    const proto: unknown = Object.getPrototypeOf(object);
    if (proto !== Object.prototype && proto !== null) throw UNSUPPORTED;
    if (++this.depth > MAX_DEPTH) throw UNSUPPORTED;
    this.tag(Tag.beginObject);
    const record = object as Record<string, unknown>;
    let count = 0;
    // for…in walks V8's cached keys of the object's shape (Object.keys makes an array per object); a plain object's
    // prototype has no enumerable property, so it yields the own keys alone, in Object.keys' order.
    for (const key in record) {
      this.key(key);
      this.value(record[key]);
      count++;
    }
    this.tag(Tag.endObject);
    this.varint(count);
    this.depth--;
  }

  private array(array: readonly unknown[]): void {
    if (Object.getPrototypeOf(array) !== Array.prototype) throw UNSUPPORTED;
    if (++this.depth > MAX_DEPTH) throw UNSUPPORTED;
    const length = array.length;
    let dense = true;
    for (let i = 0; i < length; i++) {
      if (!(i in array)) {
        dense = false;
        break;
      }
    }
    if (dense) {
      this.tag(Tag.beginDenseArray);
      this.varint(length);
      for (let i = 0; i < length; i++) this.value(array[i]);
      this.tag(Tag.endDenseArray);
      this.varint(0);
      this.varint(length);
      this.depth--;
      return;
    }
    // By its keys (integer keys first, ascending): a loop over a long holey array would ask for every slot.
    this.tag(Tag.beginSparseArray);
    this.varint(length);
    let written = 0;
    for (const key of Object.keys(array)) {
      if (!isIndex(key)) continue;
      this.number(Number(key));
      this.value(array[Number(key)]);
      written++;
    }
    this.tag(Tag.endSparseArray);
    this.varint(written);
    this.varint(length);
    this.depth--;
  }
}

/** Whether `key` is an array index in canonical form ("0", "17"; not "01", "-1", "4294967295"). */
const isIndex = (key: string): boolean => {
  if (key.length === 0 || key.length > 10) return false;
  if (key.length > 1 && key.charCodeAt(0) === 0x30) return false;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return Number(key) <= MAX_INDEX;
};

const varintSize = (n: number): number => {
  let size = 1;
  for (let rest = n; rest >= 0x80; rest = Math.floor(rest / 0x80)) size++;
  return size;
};

/**
 * The snapshot format: the state as a stream of small pieces, so that a snapshot of a large state is serialised a
 * piece at a time between other work instead of in one `v8.serialize` call that holds the event loop for as long as
 * the whole state takes (seconds at 1e6 events), and so that its bytes can be handed to another thread as they come.
 *
 * The top levels of the state (slices, their tables, a table's first two trie levels: plain objects and arrays above
 * depth SPLIT_DEPTH, and below it arrays that hold arrays of arrays: tables nested in tables) become structure tokens;
 * everything below is one `v8.serialize`d leaf (a trie leaf of at most 32
 * entries, or one small value). Holes in arrays are kept as holes. The state must not change while it is encoded:
 * committed states are immutable (each command makes a new one), so encoding a committed reference is safe.
 *
 *   stream  = MAGIC value
 *   value   = ARRAY u32(length) (value | HOLE)*  |  OBJECT u32(count) (u32(keyBytes) key value)*  |  LEAF u32(bytes) v8
 */
import v8 from 'node:v8';

const MAGIC = Buffer.from('FFSNAP1\n', 'latin1');
const ARRAY = 1;
const OBJECT = 2;
const LEAF = 3;
const HOLE = 4;
/** state → slice → table → trie level 1 → level 2: below this, one leaf each. */
const SPLIT_DEPTH = 4;
/** Size of the pieces the encoder hands out (bigger leaves come as pieces of their own). */
const PIECE = 256 * 1024;

const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
};

const isArrayOfArrays = (node: unknown): boolean => {
  if (!Array.isArray(node)) return false;
  for (let i = 0; i < node.length; i++) if (Array.isArray(node[i])) return true;
  return false;
};

/**
 * A node below SPLIT_DEPTH is split further when it holds arrays of arrays: tables nested in a table (the members
 * of each group, by group) are tries too, and one of them can hold a whole large group (200,000 members in one
 * `v8.serialize` call was a pause of its own). A string table's last level (leaves of key/value pairs) and a trie
 * level holding leaves of at most 32 values stay one leaf each (more, smaller leaves load slower); entities are plain
 * objects and stay inside their leaf.
 */
const holdsArrays = (node: readonly unknown[]): boolean => {
  for (let i = 0; i < node.length; i++) if (isArrayOfArrays(node[i])) return true;
  return false;
};

/** Accumulates tokens into pieces of about PIECE bytes, each on an ArrayBuffer of its own (so it can be transferred). */
class Pieces {
  private buffer = Buffer.allocUnsafeSlow(PIECE);
  private used = 0;
  readonly ready: Buffer[] = [];

  private room(bytes: number): void {
    if (this.used + bytes <= this.buffer.length) return;
    this.flush();
    if (bytes > this.buffer.length) this.buffer = Buffer.allocUnsafeSlow(bytes);
  }

  flush(): void {
    if (this.used === 0) return;
    const piece = Buffer.allocUnsafeSlow(this.used);
    this.buffer.copy(piece, 0, 0, this.used);
    this.ready.push(piece);
    this.used = 0;
    if (this.buffer.length > PIECE) this.buffer = Buffer.allocUnsafeSlow(PIECE);
  }

  tag(kind: number, n?: number): void {
    this.room(5);
    this.buffer[this.used++] = kind;
    if (n !== undefined) {
      this.buffer.writeUInt32LE(n, this.used);
      this.used += 4;
    }
  }

  bytes(data: Uint8Array): void {
    this.room(4 + data.length);
    this.buffer.writeUInt32LE(data.length, this.used);
    this.used += 4;
    this.buffer.set(data, this.used);
    this.used += data.length;
  }

  get size(): number {
    return this.used;
  }
}

/**
 * Encodes a state as a sequence of pieces (concatenated, they are the snapshot). A generator, so that the caller
 * chooses when to let other work run: each step serialises at most about one piece.
 */
export function* encodeState(state: unknown): Generator<Buffer, void, undefined> {
  const out = new Pieces();
  out.bytes(MAGIC);
  // The four length bytes `bytes` wrote before the magic are part of the format: the magic is a length-prefixed token.
  function* value(node: unknown, depth: number): Generator<Buffer, void, undefined> {
    if (Array.isArray(node) && (depth < SPLIT_DEPTH || holdsArrays(node))) {
      out.tag(ARRAY, node.length);
      for (let i = 0; i < node.length; i++) {
        if (!(i in node)) out.tag(HOLE);
        else yield* value(node[i], depth + 1);
      }
      return;
    }
    if (depth < SPLIT_DEPTH && isPlainObject(node)) {
      const keys = Object.keys(node);
      out.tag(OBJECT, keys.length);
      for (const key of keys) {
        out.bytes(Buffer.from(key, 'utf8'));
        yield* value(node[key], depth + 1);
      }
      return;
    }
    out.tag(LEAF);
    out.bytes(v8.serialize(node));
    if (out.size >= PIECE || out.ready.length > 0) {
      out.flush();
      yield* out.ready.splice(0);
    }
  }
  yield* value(state, 0);
  out.flush();
  yield* out.ready.splice(0);
}

/** Whether bytes are in this format (older snapshots are one `v8.serialize`d value). */
const isEncoded = (bytes: Uint8Array): boolean =>
  bytes.length >= 4 + MAGIC.length && bytes[0] === MAGIC.length && Buffer.from(bytes.buffer, bytes.byteOffset + 4, MAGIC.length).equals(MAGIC);

/** Decodes a snapshot written by `encodeState` (or, for older snapshots, by `v8.serialize`). */
export const decodeState = (bytes: Uint8Array): unknown => {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (!isEncoded(buffer)) return v8.deserialize(buffer);
  let at = 4 + MAGIC.length;
  const u32 = (): number => {
    const n = buffer.readUInt32LE(at);
    at += 4;
    return n;
  };
  const value = (): unknown => {
    const kind = buffer[at++];
    if (kind === LEAF) {
      const length = u32();
      const leaf: unknown = v8.deserialize(buffer.subarray(at, at + length));
      at += length;
      return leaf;
    }
    if (kind === ARRAY) {
      const length = u32();
      // Grown by push (a preallocated `new Array(n)` is holey, or a dictionary when large); a hole only where one was.
      const array: unknown[] = [];
      for (let i = 0; i < length; i++) {
        if (buffer[at] === HOLE) {
          at++;
          array.length = i + 1;
        } else array.push(value());
      }
      return array;
    }
    if (kind === OBJECT) {
      const count = u32();
      const object: Record<string, unknown> = {};
      for (let i = 0; i < count; i++) {
        const length = u32();
        const key = buffer.toString('utf8', at, at + length);
        at += length;
        if (key === '__proto__') Object.defineProperty(object, key, { value: value(), enumerable: true, writable: true, configurable: true });
        else object[key] = value();
      }
      return object;
    }
    throw new Error(`Corrupt snapshot: token ${String(kind)} at byte ${at - 1}`);
  };
  return value();
};

/**
 * A table node loaded from a snapshot and not yet read: where its `v8.serialize`d bytes lie in the snapshot (read from
 * the store, off the JavaScript heap, when needed), decoded on first access. Start-up from a snapshot then costs the snapshot's structure,
 * not the decoding of every entity in it (issue 16: ~500 MB at 1e6 commands), and a snapshot taken later writes an
 * untouched node's bytes as they are.
 *
 * Only the snapshot codec makes them, and only at the positions of a table's trie nodes (below a table's root, never
 * a table's values): `table.ts` reads those positions through `resolveAt`, and the generic walkers (`stateHash`, the
 * codec itself, `looksLikeTable`) know them. Nothing else ever sees one.
 */
import v8 from 'node:v8';

/**
 * Random access to a snapshot's bytes: a store may read them on demand (the SQLite store reads a piece of about a MiB
 * when a node in it is first read), so that start-up reads the snapshot's structure alone.
 */
export interface SnapshotBytes {
  readonly size: number;
  /** `length` bytes at `offset`; throws when they can no longer be read. */
  read(offset: number, length: number): Uint8Array;
}

export class LazyNode {
  private shared: unknown[] | undefined;
  /** Its bytes, kept once a lookup scanned them (see `mayHold`), until it is decoded. */
  private scanned: Buffer | undefined;
  constructor(
    /** Where its bytes lie (a store may copy them to a new snapshot without reading them: see `encodePieces`). */
    readonly source: SnapshotBytes,
    readonly offset: number,
    readonly length: number,
  ) {}

  /** The node's `v8.serialize`d bytes (what a later snapshot writes while the node stays unread). */
  get bytes(): Uint8Array {
    return this.scanned ?? this.source.read(this.offset, this.length);
  }

  /** A fresh copy of the node (the caller may own and mutate it). */
  decode(): unknown[] {
    return decodeNode(this.bytes);
  }

  /**
   * False when the node certainly holds no string `key` (as a key of a string table's leaf, or anywhere else): its
   * bytes hold the string neither as one-byte characters nor as UTF-16 code units, the only two ways
   * `v8.serialize` writes a string (a one-byte string only when every character is below 256). True when it may.
   *
   * A lookup of a key a table does not hold (a new group's path checked against the users' names) then costs a scan
   * of the node's bytes, not its decoding: decoded, a string table's third level stayed on the heap for good (6–13 KB
   * of bytes, several times that decoded), and at 1e6 commands the checks of one group creation decoded ~25 KB that
   * nothing wrote, which the scavenger then copied twice (issue 16, branch gcpause). The bytes are kept (off the
   * JavaScript heap, no objects for the collector) so that the next lookup does not read them from the store again.
   */
  mayHold(key: string): boolean {
    // A buffer of its own (`Buffer.from` would place a small copy on a shared 8 KB slab, and keep the slab).
    const bytes = (this.scanned ??= copyOf(this.source.read(this.offset, this.length)));
    // Written by a v8 whose format could hold a string otherwise (as UTF-8, before version 13): decoded to be sure.
    if (bytes[0] !== V8_VERSION_TAG || (bytes[1] ?? 0) < 13) return true;
    let oneByte = true;
    for (let i = 0; i < key.length; i++) {
      if (key.charCodeAt(i) > 0xff) {
        oneByte = false;
        break;
      }
    }
    // As v8 writes a string: its tag and length (so that "user-1" is not found inside "user-10"), then its characters.
    const utf16 = Buffer.from(key, 'utf16le');
    if (bytes.includes(Buffer.concat([framing(TWO_BYTE_STRING, utf16.length), utf16]))) return true;
    return oneByte && bytes.includes(Buffer.concat([framing(ONE_BYTE_STRING, key.length), Buffer.from(key, 'latin1')]));
  }

  /** One decoded copy, deep-frozen, for reads from a frozen (committed) parent, which cannot take it in. */
  frozen(): unknown[] {
    this.shared ??= deepFreeze(this.decode());
    this.scanned = undefined;
    return this.shared;
  }

  /** The decoded content without keeping it (a walk of the whole state must not hold every node twice). */
  peek(): unknown[] {
    return this.shared ?? this.decode();
  }
}

/** The tag of v8's serialization header, followed by the format's version. */
const V8_VERSION_TAG = 0xff;
/** v8's serialization tags of a string: one byte per character (every character below 256), or UTF-16. */
const ONE_BYTE_STRING = 0x22;
const TWO_BYTE_STRING = 0x63;

/** A string's tag and its length in bytes, as v8 writes them (the length a base-128 varint, low bits first). */
const framing = (tag: number, length: number): Buffer => {
  const bytes = [tag];
  let rest = length;
  do {
    bytes.push((rest & 0x7f) | (rest >= 0x80 ? 0x80 : 0));
    rest = Math.floor(rest / 0x80);
  } while (rest > 0);
  return Buffer.from(bytes);
};

const copyOf = (bytes: Uint8Array): Buffer => {
  const copy = Buffer.allocUnsafeSlow(bytes.length);
  copy.set(bytes);
  return copy;
};

/**
 * Arrays longer than this, holding at most one element in SPARSE_RATIO of their slots, are made sparse (see `sparse`).
 */
const SPARSE_LENGTH = 64;
const SPARSE_RATIO = 8;

/**
 * An array of `length` holding `elements`, as V8's dictionary of its elements: a table's root is indexed by
 * `id >>> 10`, so a small table of large ids (one group's members, keyed by member id) is a root of up to ~1,200
 * slots holding one node. `v8.deserialize` makes such a root a flat array of all its slots whenever the index is below
 * ~1,024 past its start, 2–10 KB each (a node of 32 such tables: 80–300 KB, where its bytes are 1–10 KB), and every
 * node decoded on the request path stayed on the heap as that: the served process's heap grew from 25 to 440 MB
 * in 5 s of writes at 200k commands, and the collector's scavenges, copying it, took 30–50 ms. An element set far
 * past the end makes V8 keep the elements as a dictionary; the length set back drops it, and the array stays one.
 * Reads, keys, `v8.serialize` (a holey array is written by its keys either way) and immer's copies are the same.
 */
const sparse = (length: number, source: readonly unknown[], keys: readonly string[]): unknown[] => {
  const array: unknown[] = [];
  array.length = length;
  makeSparse(array);
  for (const key of keys) {
    const index = Number(key);
    if (Number.isInteger(index) && index >= 0 && index < length) array[index] = source[index];
  }
  return array;
};

/**
 * `node` made to keep its elements as a dictionary (V8's slow elements), in place, its length and elements unchanged:
 * an element set far past the end converts the elements, and the length set back drops it.
 */
export const makeSparse = (node: unknown[]): void => {
  const length = node.length;
  node[length + 4096] = undefined;
  node.length = length;
};

/** `node` with its long sparse arrays, at any depth of arrays, made dictionaries (see `sparse`). */
const compact = (node: unknown[]): unknown[] => {
  let array = node;
  if (array.length > SPARSE_LENGTH) {
    // By its keys: a loop over a sparse array's length asks for every slot.
    const keys = Object.keys(array);
    if (keys.length * SPARSE_RATIO <= array.length) array = sparse(array.length, array, keys);
    for (const key of keys) {
      const index = Number(key);
      const element = array[index];
      if (Array.isArray(element)) array[index] = compact(element);
    }
    return array;
  }
  for (let i = 0; i < array.length; i++) {
    const element = array[i];
    if (Array.isArray(element)) array[i] = compact(element);
  }
  return array;
};

/** A table node from its `v8.serialize`d bytes, its long sparse arrays as dictionaries (see `sparse`). */
export const decodeNode = (bytes: Uint8Array): unknown[] => compact(v8.deserialize(bytes) as unknown[]);

const deepFreeze = <T>(value: T): T => {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
};

/**
 * `node[index]`, a lazy node decoded. A node that can be written (a mutable state being folded, an immer draft, an
 * unfrozen committed state) takes a fresh copy in place, so that it is decoded once and then read as any other
 * (through a draft, the copy is the draft's own: an evolve may mutate what it reads without touching the committed
 * state); a frozen node keeps its lazy node and reads the node's one frozen copy.
 */
export const resolveAt = <T>(node: readonly unknown[], index: number): T => {
  const value = node[index];
  if (!(value instanceof LazyNode)) return value as T;
  if (Object.isFrozen(node)) return value.frozen() as T;
  (node as unknown[])[index] = value.decode();
  return node[index] as T;
};

/**
 * `resolveAt` for a lookup of string `key` below `node[index]`: undefined, without decoding, when that position is a
 * lazy node that certainly does not hold the key (see `LazyNode.mayHold`); else what `resolveAt` reads. Only for
 * lookups that answer "absent" when the key is absent below that position (never before a write there: a write
 * decodes the node anyway).
 */
export const resolveFor = <T>(node: readonly unknown[], index: number, key: string): T | undefined => {
  const value = node[index];
  if (value instanceof LazyNode && !value.mayHold(key)) return undefined;
  return resolveAt<T>(node, index);
};

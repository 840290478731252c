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
  constructor(
    /** Where its bytes lie (a store may copy them to a new snapshot without reading them: see `encodePieces`). */
    readonly source: SnapshotBytes,
    readonly offset: number,
    readonly length: number,
  ) {}

  /** The node's `v8.serialize`d bytes (what a later snapshot writes while the node stays unread). */
  get bytes(): Uint8Array {
    return this.source.read(this.offset, this.length);
  }

  /** A fresh copy of the node (the caller may own and mutate it). */
  decode(): unknown[] {
    return decodeNode(this.bytes);
  }

  /** One decoded copy, deep-frozen, for reads from a frozen (committed) parent, which cannot take it in. */
  frozen(): unknown[] {
    return (this.shared ??= deepFreeze(this.decode()));
  }

  /** The decoded content without keeping it (a walk of the whole state must not hold every node twice). */
  peek(): unknown[] {
    return this.shared ?? this.decode();
  }
}

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
  array[length + 4096] = undefined;
  array.length = length;
  for (const key of keys) {
    const index = Number(key);
    if (Number.isInteger(index) && index >= 0 && index < length) array[index] = source[index];
  }
  return array;
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

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
    return v8.deserialize(this.bytes) as unknown[];
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

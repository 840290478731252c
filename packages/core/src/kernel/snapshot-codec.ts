/**
 * The snapshot format: the state as a stream of small pieces, so that a snapshot of a large state is serialised a
 * piece at a time between other work instead of in one `v8.serialize` call that holds the event loop for as long as
 * the whole state takes (seconds at 1e6 events), and so that its bytes can be handed to another thread as they come.
 *
 * The top levels of the state (slices, their tables, a table's first two trie levels: plain objects and arrays above
 * depth SPLIT_DEPTH, and below it arrays that hold arrays of arrays: tables nested in tables) become structure tokens;
 * everything below is one `v8.serialize`d leaf (a trie leaf of at most 32 entries, or one small value). Holes in
 * arrays are kept as holes. The state must not change while it is encoded: committed states are immutable (each
 * command makes a new one), so encoding a committed reference is safe.
 *
 * Version 2 (FFSNAP2) puts the nodes of the tables' tries (below a table's second level: a leaf of values, a string
 * table's third level; see table.ts) apart from the structure, so that start-up reads the structure alone (a few MB
 * at 1e6 commands, of ~500) and each node when it is first read (`LazyNode`):
 *
 *   stream    = u32(8) MAGIC  node-bytes*  structure  u32(lo) u32(hi) (offset of structure)  u32(8) MAGIC
 *   structure = value
 *   value     = ARRAY u32(length) (value | HOLE)*  |  OBJECT u32(count) (u32(keyBytes) key value)*  |  LEAF u32(bytes) v8
 *             | NODE u32(lo) u32(hi) u32(bytes)   (a `v8.serialize`d table node at that offset of the stream)
 *
 * Version 3 (FFSNAP3) adds HOLES u32(count), a run of holes: a table's root is indexed by `id >>> 10`, so a small table
 * of large ids (the members of one group, keyed by member id) has a root of ~1,000 slots holding one node; version 2
 * wrote a HOLE per slot, and at 1e6 commands the structure held hundreds of millions of them (start-up 17.6 s).
 *
 *   value    += HOLES u32(count)
 *
 * Version 1 (FFSNAP1: the structure with the leaves inline, no NODE), version 2 (FFSNAP2: no HOLES) and a whole
 * `v8.serialize`d state still decode.
 *
 * Leaves and nodes are in V8's serialisation format, which `v8.deserialize` reads; the encoder writes most of them
 * itself (v8-wire.ts), and calls `v8.serialize` only for values that writer declines.
 */
import v8 from 'node:v8';
import { decodeNode, LazyNode, type SnapshotBytes } from './lazy-node.js';
import { WireWriter } from './v8-wire.js';

const MAGIC = Buffer.from('FFSNAP3\n', 'latin1');
/** The former magics: version 2 (no HOLES), version 1 (no NODE, no HOLES). */
const MAGIC_V2 = Buffer.from('FFSNAP2\n', 'latin1');
const MAGIC_V1 = Buffer.from('FFSNAP1\n', 'latin1');
const ARRAY = 1;
const OBJECT = 2;
const LEAF = 3;
const HOLE = 4;
const NODE = 5;
const HOLES = 6;
/** A string table's mark in its second-level nodes (see table.ts). */
const MARK_AT = 32;
const STRING_MARK = 1;
/** state → slice → table → trie level 1 → level 2: below this, one leaf each. */
const SPLIT_DEPTH = 4;
/**
 * Size of the pieces the encoder hands out (bigger leaves come as pieces of their own): a step serialises about this
 * much. 256 KiB of decoded nodes took 20–47 ms of serialisation in a server at 200k commands; 64 KiB keeps a step short.
 */
const PIECE = 64 * 1024;

const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
};

/**
 * Arrays longer than this are walked by their keys: a table's root is indexed by `id >>> 10`, so a small table of
 * large ids (one group's members, keyed by member id) is a root of ~1,000 slots holding one node, which V8 keeps as a
 * dictionary: a loop over its length cost ~40 µs there (a minute over the million small tables of 1e6 commands), its
 * keys ~0.1 µs. A short array is walked by a loop.
 */
const SPARSE = 64;

/** The indices of `array` that hold an element (not a hole), ascending. */
const present = (array: readonly unknown[]): number[] => {
  const indices: number[] = [];
  if (array.length > SPARSE) {
    // Integer keys come first, ascending; the state's arrays have no other properties (and none would be encoded).
    for (const key of Object.keys(array)) {
      const index = Number(key);
      if (Number.isInteger(index) && index >= 0 && index < array.length) indices.push(index);
    }
    return indices;
  }
  for (let i = 0; i < array.length; i++) if (i in array) indices.push(i);
  return indices;
};

/** Whether an element of `array` that is not a hole nor `undefined` satisfies `test` (a short array by a loop). */
const some = (array: readonly unknown[], test: (element: unknown) => boolean): boolean => {
  if (array.length > SPARSE) {
    for (const i of present(array)) if (array[i] !== undefined && test(array[i])) return true;
    return false;
  }
  for (let i = 0; i < array.length; i++) {
    const element = array[i];
    if (element !== undefined && test(element)) return true;
  }
  return false;
};

const isArrayOfArrays = (node: unknown): boolean => Array.isArray(node) && some(node, Array.isArray);

/**
 * A node below SPLIT_DEPTH is split further when it holds arrays of arrays: tables nested in a table (the members
 * of each group, by group) are tries too, and one of them can hold a whole large group (200,000 members in one
 * `v8.serialize` call was a pause of its own). A string table's last level (leaves of key/value pairs) and a trie
 * level holding leaves of at most 32 values stay one leaf each (more, smaller leaves load slower); entities are plain
 * objects and stay inside their leaf.
 */
const holdsArrays = (node: readonly unknown[]): boolean => some(node, isArrayOfArrays);

/** A second-level node of a table: at most 32 nodes (arrays of at most 32, or lazy nodes), and a string table's mark. */
const isLevel2 = (level2: unknown): boolean => {
  if (!Array.isArray(level2) || level2.length > 33) return false;
  for (let b = 0; b < level2.length; b++) {
    const child: unknown = level2[b];
    if (child === undefined) continue;
    if (b === MARK_AT) {
      if (child !== STRING_MARK) return false;
      continue;
    }
    if (child instanceof LazyNode) continue;
    if (!Array.isArray(child) || child.length > 32) return false;
  }
  return true;
};

/**
 * Whether a slice's array is a table's trie (see table.ts), judged by its shape alone (a root of second-level nodes of
 * at most 33 slots, whose slots hold arrays of at most 32, or lazy nodes): cheap enough to run on every table of a
 * snapshot between pieces. A list of entities fails (its elements are not arrays). Holes are where a node was created
 * beyond the end (a table keeps them).
 */
const isTrie = (node: readonly unknown[]): boolean => node.length > 0 && !some(node, (level2) => !isLevel2(level2));

/**
 * How many elements `node` holds (holes and `undefined` are not elements: a sparse array costs `v8.serialize` its
 * elements, not its length), nested arrays' included, counted up to `budget` (the count stops there; a lazy node
 * counts as the whole budget).
 */
const slots = (node: unknown, budget: number): number => {
  // A node holding lazy nodes is never light: its lazy nodes are written as their bytes (never `v8.serialize`d).
  if (node instanceof LazyNode) return budget;
  if (!Array.isArray(node)) return 0;
  let count = 0;
  some(node, (element) => {
    count++;
    if (count < budget) count += slots(element, budget - count);
    return count >= budget;
  });
  return Math.min(count, budget);
};

/**
 * A node holding tables (a table of tables: the members of each group) is one NODE while it is this light (one
 * small `v8.serialize`, one lazy node instead of thousands of tiny ones); a heavier one is split into its values,
 * each value table a trie of its own (a group with 200,000 members is thousands of nodes, not one long pause).
 */
const LIGHT = 4096;

/**
 * How a string table's third level (32 leaves of keys and values) is written:
 * - `apart`: as its leaves, each a NODE, rather than as one NODE, when its values are tables (a table of tables keyed
 *   by strings: `members.bySource`, a table of member ids per source) or when it holds leaves still lazy (written so
 *   before). At 1e6 commands such a level holds ~400 tables; creating a group adds a key to one at random, and the
 *   first write there decoded all of them on the request path (~60 KB of heap per node at 200k, where a leaf holds a
 *   dozen). 33 tokens in the structure instead of 1, for the 1,024 third levels of such a table;
 * - `scalars`: as one NODE, none of its values being an array (so no table: light whatever its size);
 * - `mixed`: as any other node of a trie (see `light`).
 * An incremental snapshot asks this of every third level it writes, i.e. of most entries of a string table (a creation
 * adds a key at random): one plain loop over the values alone, where `some` with a closure per entry, then `light`'s
 * walk of every key and value, were a fifth of an incremental snapshot's time at 200k–380k groups (a CPU profile of
 * the encoder alone).
 */
const stringLevel = (level3: readonly unknown[]): 'apart' | 'scalars' | 'mixed' => {
  let scalars = false;
  let arrays = false;
  for (let i = 0; i < level3.length; i++) {
    const leaf = level3[i];
    if (leaf instanceof LazyNode) return 'apart';
    if (!Array.isArray(leaf)) continue;
    // A leaf is [key, value, key, value, …]; a removed entry is `undefined`. Every value is looked at: a level of
    // scalars written as one NODE must hold no table (one still lazy would be serialised as an object, and lost).
    for (let j = 1; j < leaf.length; j += 2) {
      const value: unknown = leaf[j];
      if (value === undefined) continue;
      if (!Array.isArray(value)) scalars = true;
      else if (isTrie(value)) return 'apart';
      else arrays = true;
    }
  }
  return scalars && !arrays ? 'scalars' : 'mixed';
};

/**
 * Work (structure tokens, and elements counted by `slots`) after which the encoder ends a step even when no piece is
 * ready: a span of structure alone (the values of a heavy table of tables) made one step of seconds at 1e6 commands.
 * A step is otherwise a piece (PIECE bytes of serialised nodes). 4,096 made steps of 100–170 ms in a server started from
 * a snapshot at 200k commands (a step's tokens stand for nodes serialised or copied); 256 kept them near 20 ms.
 */
export const STEP_WORK = 256;

/**
 * The work a node serialised (or read from its snapshot) counts for, against STEP_WORK: one `v8.serialize` of a
 * node of 32 small entries measured 20–170 µs in a server at 200k commands (a token copied from the previous snapshot
 * ~1 µs), so steps of 256 tokens that each serialised a node lasted 30–60 ms; 8 such nodes now end a step.
 */
export const SERIALISED_WORK = 32;

/** Accumulates bytes into pieces of about PIECE bytes, each on an ArrayBuffer of its own (so it can be transferred). */
class Pieces {
  private buffer = Buffer.allocUnsafeSlow(PIECE);
  private used = 0;
  /** Bytes flushed so far. */
  private flushed = 0;
  /** Tokens written so far. */
  tokens = 0;
  readonly ready: (Buffer | CopiedBytes)[] = [];

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
    this.flushed += this.used;
    this.used = 0;
    if (this.buffer.length > PIECE) this.buffer = Buffer.allocUnsafeSlow(PIECE);
  }

  tag(kind: number, n?: number): void {
    this.tokens++;
    this.room(5);
    this.buffer[this.used++] = kind;
    if (n !== undefined) {
      this.buffer.writeUInt32LE(n, this.used);
      this.used += 4;
    }
  }

  u32(n: number): void {
    this.room(4);
    this.buffer.writeUInt32LE(n, this.used);
    this.used += 4;
  }

  /** A length and the bytes. */
  bytes(data: Uint8Array): void {
    this.room(4 + data.length);
    this.u32(data.length);
    this.buffer.set(data, this.used);
    this.used += data.length;
  }

  /** The bytes alone, in one piece; returns their offset in the stream. */
  raw(data: Uint8Array): number {
    this.room(data.length);
    const offset = this.offset;
    this.buffer.set(data, this.used);
    this.used += data.length;
    return offset;
  }

  /** Bytes of an earlier snapshot, copied in place by the consumer (one run with the previous one when they follow it there); returns their offset in the stream. */
  copy(source: SnapshotBytes, from: number, length: number): number {
    this.flush();
    const offset = this.offset;
    const last = this.ready[this.ready.length - 1];
    if (last !== undefined && !Buffer.isBuffer(last) && last.source === source && last.offset + last.length === from) {
      this.ready[this.ready.length - 1] = { source, offset: last.offset, length: last.length + length };
    } else this.ready.push({ source, offset: from, length });
    this.flushed += length;
    return offset;
  }

  /** Bytes written so far (flushed or not). */
  get offset(): number {
    return this.flushed + this.used;
  }

  get size(): number {
    return this.used;
  }
}

const HI = 2 ** 32;

const wire = new WireWriter();
/**
 * `value` as `v8.serialize` writes it, in a buffer reused by the next call (copied into a piece at once): no Buffer
 * of its own per node, which the young collections paid for (see v8-wire.ts).
 */
const serialise = (value: unknown): Uint8Array => {
  const length = wire.write(value);
  return length === null ? v8.serialize(value) : wire.buffer.subarray(0, length);
};

/** What a step that has no bytes to hand out yields. */
const NOTHING = Buffer.alloc(0);

/** A run of an earlier snapshot's bytes (lazy nodes not read since it was loaded), to be copied where it stands. */
export interface CopiedBytes {
  readonly source: SnapshotBytes;
  readonly offset: number;
  readonly length: number;
}

type Steps = Generator<Buffer | CopiedBytes, void, undefined>;

/**
 * The table nodes (arrays, and lazy nodes) a snapshot holds, by object, and where each one's bytes lie in it. A
 * committed state is immutable (each command makes a new one, sharing what it did not change), so a node that is the
 * same object in a later state has the same bytes: the next snapshot copies them from this one instead of
 * serialising it again (issue 16: a live server re-serialised every node it had touched since start-up, at every
 * snapshot). A node written to is a new object (immer copies the path it changes, up to the root), so it is not
 * found here. Weak: a node no state holds any more is forgotten with it. The runs are numbers in one array, not an
 * object per node (hundreds of thousands at 1e6 commands, each one more object for the collector to move).
 */
export class NodeRuns {
  /**
   * The index, as maps of at most SHARD nodes each: a `WeakMap` rehashes itself whole when it grows, and one `set`
   * of the 175,000th node took 47–58 ms here (a snapshot holds ~250,000 nodes at 1e6 commands).
   */
  private readonly shards: WeakMap<object, number>[] = [new WeakMap()];
  /** The shard of the last node found: a snapshot walks its nodes in the order the previous one did. */
  private last = 0;
  private runs = new Float64Array(2048);
  private count = 0;

  /** `node`'s bytes are `length` bytes at `offset`. */
  set(node: object, offset: number, length: number): void {
    if (2 * this.count + 2 > this.runs.length) {
      const grown = new Float64Array(this.runs.length * 2);
      grown.set(this.runs);
      this.runs = grown;
    }
    this.runs[2 * this.count] = offset;
    this.runs[2 * this.count + 1] = length;
    if (this.count > 0 && this.count % SHARD === 0) this.shards.push(new WeakMap());
    this.shards[this.shards.length - 1]!.set(node, this.count++);
  }

  /** Where `node`'s run is kept (for `offset` and `length`), or -1. */
  find(node: object): number {
    // A node found is most often in the shard of the node found before it (or the next one): those are asked first.
    const shards = this.shards.length;
    for (let k = 0; k < shards; k++) {
      const shard = (this.last + k) % shards;
      const run = this.shards[shard]!.get(node);
      if (run !== undefined) {
        this.last = shard;
        return run;
      }
    }
    return -1;
  }

  offset(run: number): number {
    return this.runs[2 * run]!;
  }

  length(run: number): number {
    return this.runs[2 * run + 1]!;
  }
}

/** Nodes per map of `NodeRuns`' index (a miss asks every map: at 1e6 commands ~30, well below a serialisation's cost). */
const SHARD = 8192;

/** What `encodePieces` may copy from the snapshot written before, and where it records what the new one holds. */
export interface Incremental {
  /**
   * The snapshot written before by the same encoder, readable until this one is written, and its nodes (`runs` of
   * an earlier call): a node found there is handed out as a run of `source`.
   */
  readonly previous?: { readonly source: SnapshotBytes; readonly runs: NodeRuns };
  /** Filled with where each table node lies in this snapshot (the next one's `previous.runs`). */
  readonly runs?: NodeRuns;
}

/**
 * Encodes a state as a sequence of pieces (concatenated, they are the snapshot). A generator, so that the caller
 * chooses when to let other work run: each step serialises at most about one piece, or does about STEP_WORK of
 * structure; a step with nothing to hand out yields an empty piece. A table node still lazy (not read since its
 * snapshot was loaded) is written as the bytes it was read from.
 */
export function* encodeState(state: unknown): Generator<Buffer, void, undefined> {
  for (const piece of encodePieces(state, () => false)) yield piece as Buffer;
}

/**
 * `encodeState`, where the bytes of lazy nodes over a source that `copies` accepts are not read but handed out as
 * runs of that source (`CopiedBytes`, consecutive nodes as one run): a store copies them itself (the SQLite store's
 * worker, from the snapshot the state was loaded from), so that a snapshot of a state loaded from a snapshot costs
 * this thread what was read or written since, not the reading and copying of hundreds of MB. `incremental`: the nodes
 * the previous snapshot written this way holds are runs of it too (see `NodeRuns`), so that what a snapshot costs
 * this thread is what changed since the previous one. The bytes are the same in every case.
 */
export function* encodePieces(state: unknown, copies: (source: SnapshotBytes) => boolean, incremental: Incremental = {}): Steps {
  const { previous, runs } = incremental;
  const out = new Pieces();
  // The structure is held until the end (a few MB at 1e6 commands); the nodes' bytes go out as they come.
  const structure = new Pieces();
  out.bytes(MAGIC);
  /** Work done outside the structure's tokens since the encoding began (elements counted by `slots`). */
  let walked = 0;
  let stepEnds = STEP_WORK;
  const due = (): boolean => out.size >= PIECE || structure.tokens + walked >= stepEnds;
  function* step(): Steps {
    if (structure.size >= PIECE) structure.flush();
    if (out.size >= PIECE) out.flush();
    if (out.ready.length > 0) yield* out.ready.splice(0);
    else yield NOTHING;
    stepEnds = structure.tokens + walked + STEP_WORK;
  }
  /** A run of `count` holes. */
  const holes = (count: number): void => {
    if (count === 1) structure.tag(HOLE);
    else structure.tag(HOLES, count);
  };
  /**
   * An array and its elements (each written by `element`, which returns the steps left when it has more to do than
   * one token: a table's nodes are written without a generator each), a run of holes as one token.
   */
  function* array(node: readonly unknown[], element: (child: unknown, index: number) => Steps | undefined): Steps {
    structure.tag(ARRAY, node.length);
    let next = 0;
    for (const i of present(node)) {
      if (i > next) holes(i - next);
      const more = element(node[i], i);
      if (more !== undefined) yield* more;
      next = i + 1;
      if (due()) yield* step();
    }
    if (node.length > next) holes(node.length - next);
  }
  /**
   * A table node: its NODE token in the structure, and where it lies (for the next snapshot). The caller (`array`)
   * ends the step when it is due.
   */
  const nodeAt = (of: object, offset: number, length: number, indexed = true): undefined => {
    structure.tag(NODE);
    structure.u32(offset % HI);
    structure.u32(Math.floor(offset / HI));
    structure.u32(length);
    if (indexed) runs?.set(of, offset, length);
    return undefined;
  };
  const node = (of: object, bytes: Uint8Array): undefined => {
    walked += SERIALISED_WORK;
    return nodeAt(of, out.raw(bytes), bytes.length);
  };
  const light = (child: readonly unknown[]): boolean => {
    if (!holdsArrays(child)) return true;
    const weight = slots(child, LIGHT);
    walked += weight;
    return weight < LIGHT;
  };
  /** A table: root and second level as structure, the nodes below as NODEs (heavy ones holding tables split). */
  function* trie(root: readonly unknown[], depth: number): Steps {
    yield* array(root, (level2) => (level2 === undefined ? value(level2, depth + 1) : array(level2 as readonly unknown[], (child, b) => trieNode(child, b, level2 as readonly unknown[], depth))));
  }
  /** A position of a table's second level: a NODE, unless it is a heavy node (split) or not an array. */
  const trieNode = (child: unknown, b: number, level2: readonly unknown[], depth: number): Steps | undefined => {
    const written = writtenBefore(child);
    if (written !== null) return written;
    const level = Array.isArray(child) && b < MARK_AT && level2[MARK_AT] === STRING_MARK ? stringLevel(child) : 'mixed';
    if (level === 'apart') return array(child as readonly unknown[], (leaf) => stringLeaf(leaf, depth + 3));
    if (Array.isArray(child) && (level === 'scalars' || light(child))) return node(child, serialise(child));
    if (Array.isArray(child) && b < MARK_AT) return heavy(child, depth + 2, level2[MARK_AT] === STRING_MARK);
    return value(child, depth + 2);
  };
  /**
   * A node already written (copied from the previous snapshot, the same object, so the same bytes; or a lazy node's
   * bytes), as its NODE; null when it must be written.
   */
  const writtenBefore = (child: unknown): undefined | null => {
    // A lazy node over a snapshot the store copies from is copied from there in every snapshot (the same bytes as
    // from the previous one), and is not indexed: at 1e6 commands a served process's state is ~250,000 such nodes,
    // and indexing them cost a `WeakMap` entry each per snapshot (a third of the encoder's time on the event loop,
    // steps of up to 100 ms under load, and two maps of that size for the collector: issue 16, branch gcpause).
    if (child instanceof LazyNode && copies(child.source)) return nodeAt(child, out.copy(child.source, child.offset, child.length), child.length, false);
    const before = previous !== undefined && typeof child === 'object' && child !== null ? previous.runs.find(child) : -1;
    if (before >= 0) {
      const length = previous!.runs.length(before);
      return nodeAt(child as object, out.copy(previous!.source, previous!.runs.offset(before), length), length);
    }
    if (child instanceof LazyNode) return node(child, child.bytes);
    return null;
  };
  /**
   * A leaf of a string table whose leaves are NODEs of their own (see `stringLevel`): a NODE, or split as a heavy
   * node's leaf is when it holds a heavy table.
   */
  const stringLeaf = (leaf: unknown, depth: number): Steps | undefined => {
    const written = writtenBefore(leaf);
    if (written !== null) return written;
    if (!Array.isArray(leaf)) return value(leaf, depth);
    if (light(leaf)) return node(leaf, serialise(leaf));
    return array(leaf, (pair, j) => (j % 2 === 0 ? value(pair, depth + 1) : tableValue(pair, depth + 1)));
  };
  /** A heavy node of a trie (see LIGHT): an integer table's leaf of values, or a string table's level of leaves. */
  function* heavy(node: readonly unknown[], depth: number, strings: boolean): Steps {
    yield* array(node, (element) =>
      strings && Array.isArray(element)
        ? // A leaf of keys and values.
          array(element, (pair, j) => (j % 2 === 0 ? value(pair, depth + 2) : tableValue(pair, depth + 2)))
        : tableValue(element, depth + 1),
    );
  }
  /** A table's value: a trie of its own when it is a table (a table of tables), else as any value. */
  function* tableValue(node: unknown, depth: number): Steps {
    if (Array.isArray(node) && isTrie(node)) yield* trie(node, depth);
    else yield* value(node, depth);
  }
  function* value(node: unknown, depth: number): Steps {
    if (depth === 2 && Array.isArray(node) && isTrie(node)) {
      yield* trie(node, depth);
      return;
    }
    if (node instanceof LazyNode) {
      // Only inside a trie, which `trie` writes; elsewhere (never made so) its content.
      yield* value(node.peek(), depth);
      return;
    }
    if (Array.isArray(node) && (depth < SPLIT_DEPTH || holdsArrays(node))) {
      yield* array(node, (element) => value(element, depth + 1));
      return;
    }
    if (depth < SPLIT_DEPTH && isPlainObject(node)) {
      const keys = Object.keys(node);
      structure.tag(OBJECT, keys.length);
      for (const key of keys) {
        structure.bytes(Buffer.from(key, 'utf8'));
        yield* value(node[key], depth + 1);
        if (due()) yield* step();
      }
      return;
    }
    structure.tag(LEAF);
    structure.bytes(serialise(node));
    walked += SERIALISED_WORK;
  }
  yield* value(state, 0);
  out.flush();
  yield* out.ready.splice(0);
  const at = out.offset;
  structure.flush();
  yield* structure.ready.splice(0);
  const trailer = new Pieces();
  trailer.u32(at % HI);
  trailer.u32(Math.floor(at / HI));
  trailer.bytes(MAGIC);
  trailer.flush();
  yield* trailer.ready;
}

/** Random access to a snapshot's bytes (stores may read them on demand: see `SnapshotBytes` in lazy-node.ts). */
export type { SnapshotBytes } from './lazy-node.js';

/** A snapshot held in memory, whole or in pieces. */
class InMemory implements SnapshotBytes {
  private readonly starts: number[] = [];
  readonly size: number;
  constructor(private readonly pieces: readonly Buffer[]) {
    let size = 0;
    for (const piece of pieces) {
      this.starts.push(size);
      size += piece.length;
    }
    this.size = size;
  }

  read(offset: number, length: number): Buffer {
    return readAcross(this.starts, (i) => this.pieces[i]!, offset, length);
  }
}

/**
 * `length` bytes at `offset` of a stream stored as consecutive pieces starting at `starts` (in place when they lie
 * in one piece, as every token does; joined otherwise).
 */
export const readAcross = (starts: readonly number[], piece: (index: number) => Buffer, offset: number, length: number): Buffer => {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  const first = piece(lo);
  const local = offset - starts[lo]!;
  if (local + length <= first.length) return first.subarray(local, local + length);
  const parts: Buffer[] = [first.subarray(local)];
  let got = first.length - local;
  for (let i = lo + 1; got < length; i++) {
    if (i >= starts.length) throw new Error('Corrupt snapshot: a read beyond its end');
    const next = piece(i);
    parts.push(next.subarray(0, Math.min(next.length, length - got)));
    got += next.length;
  }
  return Buffer.concat(parts, length);
};

const asBuffer = (bytes: Uint8Array): Buffer => (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));

/** The format's version (1, 2 or 3) of a stream that starts with `head`, or 0 (a whole `v8.serialize`d state). */
const versionOf = (head: Buffer): number => {
  if (head.length < 4 + MAGIC.length || head[0] !== MAGIC.length) return 0;
  const magic = head.subarray(4, 4 + MAGIC.length);
  return magic.equals(MAGIC) ? 3 : magic.equals(MAGIC_V2) ? 2 : magic.equals(MAGIC_V1) ? 1 : 0;
};

/**
 * Decodes a snapshot written by `encodeState` (or by an earlier version, or a whole `v8.serialize`d state), given
 * whole, as the pieces it was stored in, or as random access to them (`SnapshotBytes`: a store reading on demand).
 * `lazy`: the tables' nodes stay `LazyNode`s over these bytes, decoded when read (see lazy-node.ts); the bytes must
 * then stay readable, unchanged, for as long as the state lives.
 */
export const decodeState = (bytes: Uint8Array | readonly Uint8Array[] | SnapshotBytes, options: { readonly lazy?: boolean } = {}): unknown => {
  const source: SnapshotBytes =
    bytes instanceof Uint8Array ? new InMemory([asBuffer(bytes)]) : Array.isArray(bytes) ? new InMemory((bytes as readonly Uint8Array[]).map(asBuffer)) : (bytes as SnapshotBytes);
  const read = (offset: number, length: number): Buffer => asBuffer(source.read(offset, length));
  // The trailer first: a version 2 or 3 stream is read from its end (its structure), and its first piece never.
  const TRAILER = 8 + 4 + MAGIC.length;
  const trailer = source.size >= 4 + MAGIC.length + TRAILER ? read(source.size - TRAILER, TRAILER) : null;
  if (!trailer || versionOf(trailer.subarray(8)) < 2) {
    const whole = read(0, source.size);
    const version = versionOf(whole);
    if (version >= 2) throw new Error('Corrupt snapshot: no trailer');
    return version === 1 ? parse(whole, 4 + MAGIC.length, null, false) : v8.deserialize(whole);
  }
  const at = trailer.readUInt32LE(0) + trailer.readUInt32LE(4) * HI;
  const structure = read(at, source.size - TRAILER - at);
  return parse(structure, 0, source, options.lazy === true);
};

/** Reads the structure tokens of `buffer` from `start` (version 1: with the leaves inline; 2 and 3: NODEs in `nodes`). */
const parse = (buffer: Buffer, start: number, nodes: SnapshotBytes | null, lazy: boolean): unknown => {
  let at = start;
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
    if (kind === NODE && nodes) {
      const offset = u32() + u32() * HI;
      const length = u32();
      return lazy ? new LazyNode(nodes, offset, length) : decodeNode(nodes.read(offset, length));
    }
    if (kind === ARRAY) {
      const length = u32();
      // Grown by push (a preallocated `new Array(n)` is holey, or a dictionary when large); a hole only where one was.
      const array: unknown[] = [];
      for (let i = 0; i < length; i++) {
        if (buffer[at] === HOLE) {
          at++;
          array.length = i + 1;
        } else if (buffer[at] === HOLES) {
          at++;
          const count = u32();
          if (count < 2 || i + count > length) throw new Error(`Corrupt snapshot: a run of holes beyond its array at byte ${at - 5}`);
          i += count - 1;
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

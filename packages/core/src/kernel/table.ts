/**
 * Tables for projections: maps from an id (or a string key) to a value, shaped for immer.
 *
 * Immer copies every object on the path it modifies (and, through a draft, every parent of what it reads)
 * and walks every key of each copy when it finalizes, so the cost of a change is the size of the nodes on
 * its path. A flat object of 100,000 entries would cost a copy of 100,000 keys per command; a two-level split
 * still copied ~1,000 (measured here: 0.3–3 ms per `produce`). A table is therefore a three-level trie with at
 * most 32 entries per node below the root:
 *   integer keys k:  root[k >>> 10][(k >>> 5) & 31][k & 31]
 *   string keys s:   root[h & 31][(h >>> 5) & 31][(h >>> 10) & 31] → [s0, v0, s1, v1, …]   (h = FNV-1a of s)
 * Every node is an array. Immer copies a node in one call site shared by all its shapes, where V8 clones an
 * object with integer keys in 4–9 µs and one with more than 16 string keys in ~12 µs, but slices an array of
 * 64 in 0.09 µs (measured here). A string table's second-level nodes carry a mark at index 32, which tells
 * its third level (leaves of key/value pairs, a few per leaf up to ~100,000 keys) from an integer table's
 * leaves (values by the low five bits of the key). Integer
 * keys iterate in ascending order; string keys in hash order. A removed entry or emptied node is left as
 * `undefined` (what immer makes of `delete` on an array draft), never a hole, so that live and replayed
 * states have the same shape.
 *
 * A table made with its first entry (`tableOf`) starts as a small table instead, its entries in one array until it
 * outgrows it (see SMALL): most nested tables hold one or a few entries.
 *
 * The type is opaque: read and write tables only through the functions below (direct indexing does not
 * type-check), so that the layout can change without touching the modules.
 *
 * A table loaded from a snapshot holds its nodes below the root as `LazyNode`s (their serialised bytes) until they
 * are read: every read of a node below the root goes through `resolveAt` (see lazy-node.ts).
 */

import { LazyNode, makeSparse, resolveAt, resolveFor } from './lazy-node.js';

declare const TABLE: unique symbol;

/** A table of V, keyed by non-negative integers or by strings (one kind per table). */
export interface Table<V> {
  readonly [TABLE]?: V;
}

/** Integer leaves: values at `k & 31`; string leaves: `[key, value, key, value, …]`. */
type Leaf<V> = (string | V | undefined)[];
/** An integer table's second level holds leaves; a string table's holds a third level of leaves, and the mark. */
type Level3<V> = (Leaf<V> | undefined)[];
type Level2<V> = (Leaf<V> | Level3<V> | typeof STRING_MARK | undefined)[];
type Root<V> = (Level2<V> | undefined)[];

/** Index and value of the mark in a string table's second-level nodes. */
const MARK_AT = 32;
const STRING_MARK = 1;

// The opaque Table is a trie of arrays underneath: these two casts are the only way in and out of it.
const root = <V>(table: Table<V>): Root<V> => table as unknown as Root<V>;

const hash = (key: string): number => {
  let h = 2166136261;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 16777619);
  return h >>> 0;
};

/** The inner levels of a key's path: two for an integer, three for a string. */
const pathOf = (key: number | string): [number, number, number] => {
  if (typeof key === 'number') return [key >>> 10, (key >>> 5) & 31, -1];
  const h = hash(key);
  return [h & 31, (h >>> 5) & 31, (h >>> 10) & 31];
};

/** Index of `key` in a string leaf, or -1. */
const indexIn = (leaf: Leaf<unknown>, key: string): number => {
  for (let i = 0; i < leaf.length; i += 2) if (leaf[i] === key) return i;
  return -1;
};

const isStringLevel = (level2: Level2<unknown>): boolean => level2[MARK_AT] === STRING_MARK;

/** True when no slot of `node` below `end` holds anything. */
const isBare = (node: readonly unknown[], end: number): boolean => {
  for (let i = 0; i < Math.min(node.length, end); i++) if (node[i] !== undefined) return false;
  return true;
};

/** How far past its end a node may be written before it is made sparse first (see `child`). */
const SPARSE_GAP = 64;

/**
 * A small table: `[SMALL, key0, value0, key1, value1, …]`, at most SMALL_MAX entries, in the order the trie iterates
 * them (integer keys ascending; string keys by their path in the trie, then as added). `tableOf` makes one; a write
 * past SMALL_MAX turns it, in place, into the trie of the same entries. A table of one entry was a root, a second-level
 * node and a leaf: 177–605 bytes (more for larger keys), where this is ~40. Each group creation makes four (its
 * members by source, by user, its effective and billable counts): at 1e6 commands they were 2.4 of the 4.9 KB a
 * group creation left on the heap (issue 16, "Start-up and snapshots": the collector marks all of it).
 */
const SMALL = -1;
const SMALL_MAX = 8;

// The trie's root holds nodes or nothing, never a number: the mark cannot be a trie's.
const isSmall = (node: readonly unknown[]): boolean => node[0] === SMALL;

/** Index of `key` in a small table, or -1. */
const smallIndex = (node: readonly unknown[], key: number | string): number => {
  for (let i = 1; i < node.length; i += 2) if (node[i] === key) return i;
  return -1;
};

/** Where a key not yet in a small table goes: after every key the trie would iterate before it or beside it. */
const smallInsertAt = (node: readonly unknown[], key: number | string): number => {
  let i = 1;
  if (typeof key === 'number') {
    while (i < node.length && (node[i] as number) < key) i += 2;
    return i;
  }
  const [a, b, c] = pathOf(key);
  for (; i < node.length; i += 2) {
    const [x, y, z] = pathOf(node[i] as string);
    if (x > a || (x === a && (y > b || (y === b && z > c)))) break;
  }
  return i;
};

/**
 * Whether a write of `key` stays in small table `node`; when it does not (full, `key` absent), `node` becomes the
 * trie of its entries first, in place (its identity is the table's: the parent keeps it).
 */
const staysSmall = (node: unknown[], key: number | string): boolean => {
  if (!isSmall(node)) return false;
  if (smallIndex(node, key) !== -1 || node.length - 1 < 2 * SMALL_MAX) return true;
  const pairs = node.slice(1);
  node.length = 0;
  for (let i = 0; i < pairs.length; i += 2) trieSet(node as Root<unknown>, pairs[i] as number | string, pairs[i + 1]);
  return false;
};

/** Sets `key` in small table `node` that has room for it (see `staysSmall`); returns the value's index. */
const smallSet = (node: unknown[], key: number | string, value: unknown): number => {
  const i = smallIndex(node, key);
  if (i !== -1) {
    node[i + 1] = value;
    return i + 1;
  }
  const at = smallInsertAt(node, key);
  node.splice(at, 0, key, value);
  return at + 1;
};

/**
 * What a batch folding without immer may write (see `withOwned`); null outside such a fold, where the helpers write
 * what they are given (a mutable state, or an immer draft, which copies for itself).
 */
export interface Ownership {
  /** The nodes (and table values) the fold made: written in place. */
  readonly nodes: Set<object>;
  /** The roots of the tables the fold may write, each with the (copied) slice field that holds it. */
  readonly roots: Map<object, { readonly slice: Record<string, unknown>; readonly field: string }>;
}

let owned: Set<object> | null = null;
let ownable: Ownership['roots'] | null = null;

/**
 * Runs `fold` with the table helpers copying on write: a node (or a value `tableGetOrCreate` hands out) not among the
 * fold's own is copied as immer copies it (`slice`, a spread for an object), the copy put in place of it in its
 * (owned) parent, or for a root in its slice's field, and becomes the fold's own; the fold's own nodes are written in
 * place. A write to a table that is neither (a table read back with `tableGet` and written) throws: the fold's rules
 * (`CopyOnWriteRule` in decider.ts) admit only events whose evolves write through these helpers alone.
 */
export const withOwned = <T>(ownership: Ownership, fold: () => T): T => {
  const before = [owned, ownable] as const;
  owned = ownership.nodes;
  ownable = ownership.roots;
  try {
    return fold();
  } finally {
    [owned, ownable] = before;
  }
};

/** A table's root, to be written: copied first (into its slice's field) when copying on write. */
const writableRoot = <V>(table: Table<V>): Root<V> => {
  const node = root(table);
  if (owned === null || owned.has(node)) return node;
  const place = ownable?.get(node);
  if (place === undefined) throw new Error('A table the batch does not own was written while copying on write (see CopyOnWriteRule)');
  const copy = node.slice();
  owned.add(copy);
  place.slice[place.field] = copy;
  return copy;
};

/** `value` as its owned copy, put at `node[index]` (owned) when it was not owned yet; anything else as it is. */
const own = <T>(node: unknown[], index: number, value: T): T => {
  if (owned === null || value === null || typeof value !== 'object' || owned.has(value) || value instanceof LazyNode) return value;
  const copy = (Array.isArray(value) ? value.slice() : { ...value }) as T & object;
  owned.add(copy);
  node[index] = copy;
  return copy;
};

/** `node[index]`, decoded if lazy, ready to be written: owned when copying on write (`withOwned`). */
const writable = <T>(node: unknown[], index: number): T => {
  // Outside a copy-on-write fold, one read (under immer each read of a draft is a trap call).
  if (owned === null) return resolveAt<T>(node, index);
  const value = node[index];
  if (value instanceof LazyNode) {
    // A fresh decoded copy in an owned node is the batch's own.
    const decoded = value.decode();
    owned.add(decoded);
    node[index] = decoded;
    return decoded as T;
  }
  return own(node, index, resolveAt<T>(node, index));
};

/** The node at `node[index]`, created empty when absent (read back, so that under immer it is the draft's). */
const child = <T extends unknown[]>(node: unknown[], index: number, create: () => T): T => {
  // One read when the node exists (the common case): under immer each read of a draft is a trap call.
  const existing = writable<T | undefined>(node, index);
  if (existing !== undefined) return existing;
  // A table's root is indexed by `id >>> 10`: the first entry of a new small table of large ids (a new group's
  // members, keyed by member id, at index ~400 at 1e6 commands) would make V8 grow the root flat to about 1.5x that
  // index (~5 KB, nearly all holes). Four such tables per group creation were a third of what each request left on
  // the heap, and the scavenger copied them twice (issue 16, branch gcpause). A root far past its end is made a
  // dictionary first, as `decodeNode` keeps the roots it decodes; V8 makes it flat again once it fills up.
  if (index > node.length + SPARSE_GAP) makeSparse(node);
  const created = create();
  owned?.add(created);
  node[index] = created;
  return node[index] as T;
};

export const emptyTable = <V>(): Table<V> => [] as unknown as Table<V>;

/**
 * A new inner node about to hold one element at `index`: `length` holes, as `[]` written at `index` would be (the same
 * content, keys and `v8.serialize`d bytes), without the room V8 adds when it grows an array (to ~1.5x the index and 16
 * more slots: ~520 bytes for an index near 31, where this is ~270). A new small table holds three such arrays; the
 * room was a third of what one was left holding on the heap (issue 16, branch gcpause).
 */
// At 0, one slot: written at 0 it stays a packed array, which v8 writes in its dense format (as `[]` written at 0, which
// V8 grows to 17 slots: 152 bytes for one used, and the marker scans them all; branch heapcensus).
const holding = (index: number): unknown[] => (index === 0 ? [undefined] : new Array<unknown>(index + 1));

/** The leaf that holds `key`, if any. */
// The hot paths below compute a key's path inline rather than through `pathOf`: a table operation is the inner
// loop of every fold, and an array per call was a measurable share of a replay's allocations.
const leafOf = <V>(table: Table<V>, key: number | string): Leaf<V> | undefined => {
  if (typeof key === 'number') {
    const level2 = root(table)[key >>> 10];
    const node = level2 === undefined ? undefined : resolveAt<Leaf<V> | typeof STRING_MARK | undefined>(level2, (key >>> 5) & 31);
    return node === undefined || node === STRING_MARK ? undefined : node;
  }
  // A node still in its snapshot bytes is scanned for the key before it is decoded (a key a table does not hold is
  // the usual answer of a uniqueness check).
  const h = hash(key);
  const level2 = root(table)[h & 31];
  const node = level2 === undefined ? undefined : resolveFor<Level3<V> | typeof STRING_MARK | undefined>(level2, (h >>> 5) & 31, key);
  return node === undefined || node === STRING_MARK ? undefined : resolveFor<Leaf<V> | undefined>(node, (h >>> 10) & 31, key);
};

export const tableGet = <V>(table: Table<V>, key: number | string): V | undefined => {
  const level1 = root(table);
  if (isSmall(level1)) {
    const i = smallIndex(level1, key);
    return i === -1 ? undefined : (level1[i + 1] as V);
  }
  const leaf = leafOf(table, key);
  if (leaf === undefined) return undefined;
  if (typeof key === 'number') return leaf[key & 31] as V | undefined;
  const i = indexIn(leaf, key);
  return i === -1 ? undefined : (leaf[i + 1] as V);
};

/** immer's draft marker (`Symbol.for`, so the same symbol as immer's own): a draft answers its state to it. */
const DRAFT_STATE = Symbol.for('immer-state');

/**
 * What `value` holds now when it is an immer draft (its copy once written, else its base), without drafting anything;
 * any other value as it is. Reading a table through a draft drafts every node on the key's path (under immer, a read
 * of a child copies its parent and makes a proxy): a decision that only reads paid for copies nobody wrote.
 */
const undrafted = <T>(value: T): T => {
  const state = (value as { readonly [DRAFT_STATE]?: { readonly copy_?: T; readonly base_: T } } | null | undefined)?.[DRAFT_STATE];
  return state === undefined ? value : (state.copy_ ?? state.base_);
};

/** `object[key]` read past immer drafts, drafting nothing (see `tablePeek`). */
export const peekField = <T extends object, K extends keyof T>(object: T, key: K): T[K] => undrafted(undrafted(object)[key]);

/**
 * `tableGet` for readers that never write what they read (a decision's lookups inside a batch's draft): the same
 * value, read past the drafts on the key's path instead of through them, so nothing is copied or proxied. What it
 * returns must not be written to (it may be a committed node).
 */
export const tablePeek = <V>(table: Table<V>, key: number | string): V | undefined => {
  const level1 = undrafted(root(table));
  if (isSmall(level1)) {
    const i = smallIndex(level1, key);
    return i === -1 ? undefined : undrafted(level1[i + 1] as V);
  }
  if (typeof key === 'number') {
    const level2 = undrafted(level1[key >>> 10]);
    const leaf = level2 === undefined ? undefined : undrafted(resolveAt<Leaf<V> | typeof STRING_MARK | undefined>(level2, (key >>> 5) & 31));
    return leaf === undefined || leaf === STRING_MARK ? undefined : undrafted(leaf[key & 31] as V | undefined);
  }
  const h = hash(key);
  const level2 = undrafted(level1[h & 31]);
  const level3 = level2 === undefined ? undefined : undrafted(resolveFor<Level3<V> | typeof STRING_MARK | undefined>(level2, (h >>> 5) & 31, key));
  if (level3 === undefined || level3 === STRING_MARK) return undefined;
  const leaf = undrafted(resolveFor<Leaf<V> | undefined>(level3, (h >>> 10) & 31, key));
  if (leaf === undefined) return undefined;
  const i = indexIn(leaf, key);
  return i === -1 ? undefined : undrafted(leaf[i + 1] as V);
};

/**
 * The leaf that holds (or will hold) string `key`, created with its path when absent, then holding `key` and
 * `first()` already: built as the pair, not `[]` and a push (which V8 grows to 19 slots for 2).
 */
const stringLeaf = <V>(level1: Root<V>, key: string, first: () => V): Leaf<V> => {
  const h = hash(key);
  const level2 = child<Level2<V>>(level1, h & 31, () => {
    const marked = holding(MARK_AT) as Level2<V>;
    marked[MARK_AT] = STRING_MARK;
    return marked;
  });
  return child<Leaf<V>>(child<Level3<V>>(level2, (h >>> 5) & 31, () => holding((h >>> 10) & 31) as Level3<V>), (h >>> 10) & 31, () => [key, first()] as Leaf<V>);
};

export const tableSet = <V>(table: Table<V>, key: number | string, value: V): void => {
  const level1 = writableRoot(table);
  if (staysSmall(level1, key)) smallSet(level1, key, value);
  else trieSet(level1, key, value);
};

/** `tableSet` into a trie's (writable) root. */
function trieSet<V>(level1: Root<V>, key: number | string, value: V): void {
  if (typeof key === 'number') {
    const level2 = child<Level2<V>>(level1, key >>> 10, () => holding((key >>> 5) & 31) as Level2<V>);
    child<Leaf<V>>(level2, (key >>> 5) & 31, () => holding(key & 31) as Leaf<V>)[key & 31] = value;
    return;
  }
  const leaf = stringLeaf(level1, key, () => value);
  const i = indexIn(leaf, key);
  if (i === -1) leaf.push(key, value);
  else leaf[i + 1] = value;
}

/**
 * The value at `key`, stored first as `create()` when absent (the value stored, under immer the draft's): one walk
 * down the trie where a get, a set and a get back took three, for indexes whose entries are tables themselves.
 */
export const tableGetOrCreate = <V>(table: Table<V>, key: number | string, create: () => V): V => {
  const level1 = writableRoot(table);
  if (staysSmall(level1, key)) {
    const i = smallIndex(level1, key);
    const at = i !== -1 ? i + 1 : smallSet(level1, key, created(create));
    return own(level1, at, level1[at] as V);
  }
  if (typeof key === 'number') {
    const level2 = child<Level2<V>>(level1, key >>> 10, () => holding((key >>> 5) & 31) as Level2<V>);
    const leaf = child<Leaf<V>>(level2, (key >>> 5) & 31, () => holding(key & 31) as Leaf<V>);
    if (leaf[key & 31] === undefined) leaf[key & 31] = created(create);
    return own(leaf, key & 31, leaf[key & 31] as V);
  }
  const leaf = stringLeaf(level1, key, () => created(create));
  let i = indexIn(leaf, key);
  if (i === -1) {
    leaf.push(key, created(create));
    i = leaf.length - 2;
  }
  return own(leaf, i + 1, leaf[i + 1] as V);
};

/** A new table holding `key → value` alone: a small table (see SMALL). Copying on write, it is the fold's own. */
export const tableOf = <V>(key: number | string, value: V): Table<V> => {
  const table = [SMALL, key, value];
  owned?.add(table);
  return table as unknown as Table<V>;
};

/**
 * `tables[key][id] = value` for a table of tables: the inner table made with its entry (`tableOf`) when absent or
 * as created (`emptyTable()`, no node yet), else written in place (as `tableGetOrCreate` hands it out). One walk
 * down the outer table. An inner table emptied by deletes keeps its nodes (and is written into): replacing it would
 * change the state's shape (its root's length) from what former builds made of the same events.
 */
export const tableSetIn = <V>(tables: Table<Table<V>>, key: number | string, id: number | string, value: V): void => {
  const level1 = writableRoot(tables);
  let leaf: Leaf<Table<V>>;
  let at: number;
  if (staysSmall(level1, key)) {
    // A small table of tables (a table made with `tableOf` whose value is a table).
    leaf = level1 as Leaf<Table<V>>;
    at = smallIndex(level1, key) + 1;
    if (at === 0) {
      smallSet(level1, key, tableOf(id, value));
      return;
    }
  } else if (typeof key === 'number') {
    const level2 = child<Level2<Table<V>>>(level1, key >>> 10, () => holding((key >>> 5) & 31) as Level2<Table<V>>);
    leaf = child<Leaf<Table<V>>>(level2, (key >>> 5) & 31, () => holding(key & 31) as Leaf<Table<V>>);
    at = key & 31;
  } else {
    let made = false;
    leaf = stringLeaf(level1, key, () => {
      made = true;
      return tableOf(id, value);
    });
    if (made) return;
    at = indexIn(leaf, key) + 1;
    if (at === 0) {
      leaf.push(key, tableOf(id, value));
      return;
    }
  }
  const inner = leaf[at] as Table<V> | undefined;
  if (inner === undefined || root(inner).length === 0) leaf[at] = tableOf(id, value);
  else tableSet(own(leaf, at, inner), id, value);
};

/**
 * An index kept as a table of tables (e.g. user id → record id → its owner's id): `id` listed with `value` under each
 * of `keys`, or taken off them (an inner table emptied stays, as `tableDelete` leaves it).
 */
export const tableIndexUnder = <V>(index: Table<Table<V>>, keys: readonly (number | string)[], id: number | string, value: V, listed: boolean): void => {
  for (const key of keys) {
    if (listed) tableSetIn(index, key, id, value);
    else {
      const inner = tableGet(index, key);
      if (inner !== undefined && tableGet(inner, id) !== undefined) tableDelete(tableGetOrCreate(index, key, emptyTable<V>), id);
    }
  }
};

/** A value `create` made for the table: the batch's own when copying on write. */
const created = <V>(create: () => V): V => {
  const value = create();
  if (owned !== null && value !== null && typeof value === 'object') owned.add(value);
  return value;
};

export const tableDelete = (table: Table<unknown>, key: number | string): void => {
  // Copying on write, the path is copied only when the key is there (as immer leaves unwritten nodes shared).
  if (owned !== null && tableGet(table, key) === undefined) return;
  const level1 = writableRoot(table);
  if (isSmall(level1)) {
    const i = smallIndex(level1, key);
    // Emptied, it stays a small table (its shape is the events', live or replayed).
    if (i !== -1) level1.splice(i, 2);
    return;
  }
  const [a, b, c] = pathOf(key);
  const level2 = writable<Level2<unknown> | undefined>(level1, a);
  const node = level2 === undefined ? undefined : writable<Leaf<unknown> | Level3<unknown> | typeof STRING_MARK | undefined>(level2, b);
  if (level2 === undefined || node === undefined || node === STRING_MARK) return;
  // Emptied nodes are pruned so that iteration and skipping never visit dead branches.
  const prune = (): void => {
    level2[b] = undefined;
    if (isBare(level2, MARK_AT)) level1[a] = undefined;
  };
  if (typeof key === 'number') {
    const leaf = node as Leaf<unknown>;
    if (leaf[key & 31] === undefined) return;
    leaf[key & 31] = undefined;
    if (isBare(leaf, leaf.length)) prune();
    return;
  }
  const level3 = node as Level3<unknown>;
  const leaf = writable<Leaf<unknown> | undefined>(level3, c);
  const i = leaf === undefined ? -1 : indexIn(leaf, key);
  if (leaf === undefined || i === -1) return;
  leaf.splice(i, 2);
  if (leaf.length > 0) return;
  level3[c] = undefined;
  if (isBare(level3, level3.length)) prune();
};

/**
 * Every leaf, with whether it holds strings and (for integer leaves) the first key it could hold, integer
 * leaves in key order. Callers may delete entries while iterating (evolve often does): nodes pruned in the
 * meantime are skipped, and each leaf is read when it is reached.
 */
function* leaves<V>(table: Table<V>): Generator<[Leaf<V>, boolean, number]> {
  const level1 = root(table);
  for (let a = 0; a < level1.length; a++) {
    const level2 = level1[a];
    if (level2 === undefined) continue;
    const strings = isStringLevel(level2);
    for (let b = 0; b < Math.min(level2.length, MARK_AT); b++) {
      const node = resolveAt<Leaf<V> | Level3<V> | typeof STRING_MARK | undefined>(level2, b);
      if (node === undefined || node === STRING_MARK) continue;
      if (!strings) {
        yield [node as Leaf<V>, false, (a << 10) + (b << 5)];
        continue;
      }
      const level3 = node as Level3<V>;
      for (let c = 0; c < level3.length; c++) {
        const leaf = resolveAt<Leaf<V> | undefined>(level3, c);
        if (leaf !== undefined) yield [leaf, true, 0];
      }
    }
  }
}

function* entries<V>(table: Table<V>): Generator<[number | string, V]> {
  const level1 = root(table) as unknown[];
  if (isSmall(level1)) {
    // Read as the walk goes, as the trie's leaves are: the caller may delete entries meanwhile.
    for (let i = 1; i < level1.length; ) {
      const key = level1[i] as number | string;
      yield [key, level1[i + 1] as V];
      if (level1[i] === key) i += 2;
      else {
        const moved = smallIndex(level1, key);
        if (moved !== -1) i = moved + 2;
      }
    }
    return;
  }
  for (const [leaf, strings, base] of leaves(table)) {
    if (strings) {
      const pairs = leaf.slice();
      for (let i = 0; i < pairs.length; i += 2) yield [pairs[i] as string, pairs[i + 1] as V];
      continue;
    }
    for (let low = 0; low < leaf.length; low++) {
      const value = leaf[low];
      if (value !== undefined) yield [base + low, value as V];
    }
  }
}

/** Number of entries in a leaf. */
const leafSize = (leaf: Leaf<unknown>, strings: boolean): number => {
  if (strings) return leaf.length / 2;
  let size = 0;
  for (let low = 0; low < leaf.length; low++) if (leaf[low] !== undefined) size++;
  return size;
};

/** Keys as strings (integer keys in ascending order). */
export function* tableKeys(table: Table<unknown>): Generator<string> {
  for (const [key] of entries(table)) yield String(key);
}

/** Integer keys, ascending (for integer-keyed tables). */
export function* tableIds(table: Table<unknown>): Generator<number> {
  for (const [key] of entries(table)) yield Number(key);
}

export function* tableValues<V>(table: Table<V>): Generator<V> {
  for (const [, value] of entries(table)) yield value;
}

export function* tableEntries<V>(table: Table<V>): Generator<[string, V]> {
  for (const [key, value] of entries(table)) yield [String(key), value];
}

/**
 * Integer keys from the `offset`-th on, in ascending order, skipping whole leaves: a page deep in a large
 * table costs a visit per leaf skipped (≤ 1/32 of the entries), not per entry.
 */
export function* tableIdsFrom(table: Table<unknown>, offset: number): Generator<number> {
  if (isSmall(root(table))) {
    let skip = offset;
    for (const id of tableIds(table)) {
      if (skip > 0) skip--;
      else yield id;
    }
    return;
  }
  let skip = offset;
  for (const [leaf, , base] of leaves(table)) {
    const size = leafSize(leaf, false);
    if (skip >= size) {
      skip -= size;
      continue;
    }
    for (let low = 0; low < leaf.length; low++) {
      if (leaf[low] === undefined) continue;
      if (skip > 0) skip--;
      else yield base + low;
    }
  }
}

export const tableSize = (table: Table<unknown>): number => {
  if (isSmall(root(table))) return (root(table).length - 1) / 2;
  let size = 0;
  for (const [leaf, strings] of leaves(table)) size += leafSize(leaf, strings);
  return size;
};

export const tableIsEmpty = (table: Table<unknown>): boolean => (isSmall(root(table)) ? root(table).length === 1 : isBare(root(table), root(table).length));

/**
 * True when `value` has a table's shape: a non-empty trie of arrays whose string keys sit on the path they
 * would be stored at (an empty table is `[]`, which is also an empty list: both count 0). Used by generic tooling (the CLI's summary) that walks a state without knowing its
 * types; a list of entities fails the check (its elements are not arrays).
 */
export const looksLikeTable = (value: unknown): value is Table<unknown> => {
  if (!Array.isArray(value) || value.length === 0) return false;
  if (isSmall(value)) {
    if (value.length % 2 !== 1) return false;
    const kind = typeof value[1];
    for (let i = 1; i < value.length; i += 2) if ((kind !== 'number' && kind !== 'string') || typeof value[i] !== kind) return false;
    return true;
  }
  // Only emptied nodes: a table all of whose entries were removed (a state never holds lists of undefined).
  if (isBare(value, value.length)) return true;
  for (let a = 0; a < value.length; a++) {
    const level2: unknown = value[a];
    if (level2 === undefined) continue;
    if (!Array.isArray(level2) || level2.length > MARK_AT + 1) return false;
    const strings = level2[MARK_AT] === STRING_MARK;
    for (let b = 0; b < Math.min(level2.length, MARK_AT); b++) {
      const node: unknown = level2[b];
      // Not decoded to be checked: a lazy node was a table's node when it was written.
      if (node === undefined || node instanceof LazyNode) continue;
      if (!Array.isArray(node) || node.length > 32) return false;
      if (!strings) continue;
      for (let c = 0; c < node.length; c++) {
        const leaf: unknown = node[c];
        if (leaf === undefined || leaf instanceof LazyNode) continue;
        if (!Array.isArray(leaf) || leaf.length === 0 || leaf.length % 2 !== 0) return false;
        for (let i = 0; i < leaf.length; i += 2) {
          const key: unknown = leaf[i];
          if (typeof key !== 'string') return false;
          const [x, y, z] = pathOf(key);
          if (x !== a || y !== b || z !== c) return false;
        }
      }
    }
  }
  return true;
};

/**
 * Tables for projections: maps from an id (or a string key) to a value, shaped for immer.
 *
 * Immer copies every object on the path it modifies and walks every key of each copy when it finalizes,
 * so the cost of a change is the size of the objects on its path. A flat object of 100,000 entries would
 * cost a copy of 100,000 keys per command; a two-level split still copied ~1,000 (measured here: 0.3–3 ms
 * per `produce`). A table is therefore a three-level trie with at most 32 keys per inner level:
 *   integer keys k:  [k >>> 10][(k >>> 5) & 31][k]      (leaves hold ≤ 32 keys)
 *   string keys s:   [h & 31][(h >>> 5) & 31][s]         (h = FNV-1a hash of s)
 * so a change copies ~100 keys, whatever the table's size. Integer-like keys iterate in ascending order
 * in JavaScript, so integer-keyed tables yield their entries in key order.
 *
 * The type is opaque: read and write tables only through the functions below (direct indexing does not
 * type-check), so that the layout can change without touching the modules.
 */

declare const TABLE: unique symbol;

/** A table of V, keyed by non-negative integers or by strings (one kind per table). */
export interface Table<V> {
  readonly [TABLE]?: V;
}

type Leaf<V> = { [key: string]: V };
type Trie<V> = { [level1: string]: { [level2: string]: Leaf<V> } };

const trie = <V>(table: Table<V>): Trie<V> => table as unknown as Trie<V>;

const hash = (key: string): number => {
  let h = 2166136261;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 16777619);
  return h >>> 0;
};

/** The two inner levels of a key's path. */
const pathOf = (key: number | string): [number, number] => {
  if (typeof key === 'number') return [key >>> 10, (key >>> 5) & 31];
  const h = hash(key);
  return [h & 31, (h >>> 5) & 31];
};

export const emptyTable = <V>(): Table<V> => ({}) as Table<V>;

export const tableGet = <V>(table: Table<V>, key: number | string): V | undefined => {
  const [a, b] = pathOf(key);
  return trie(table)[a]?.[b]?.[key];
};

export const tableHas = (table: Table<unknown>, key: number | string): boolean => tableGet(table, key) !== undefined;

export const tableSet = <V>(table: Table<V>, key: number | string, value: V): void => {
  const [a, b] = pathOf(key);
  const level1 = trie(table);
  const level2 = (level1[a] ??= {});
  (level2[b] ??= {})[key] = value;
};

export const tableDelete = (table: Table<unknown>, key: number | string): void => {
  const [a, b] = pathOf(key);
  const level1 = trie(table);
  const leaf = level1[a]?.[b];
  if (!leaf || !(key in leaf)) return;
  delete leaf[key];
  // Empty nodes are pruned so that iteration and skipping never visit dead branches.
  if (Object.keys(leaf).length === 0) {
    delete level1[a]![b];
    if (Object.keys(level1[a]!).length === 0) delete level1[a];
  }
};

/**
 * Leaves in key order. Callers may delete entries while iterating (evolve often does): nodes pruned in the
 * meantime are skipped, and each leaf's keys are read when the leaf is reached.
 */
function* leaves<V>(table: Table<V>): Generator<Leaf<V>> {
  const level1 = trie(table);
  for (const a of Object.keys(level1)) {
    const level2 = level1[a];
    if (!level2) continue;
    for (const b of Object.keys(level2)) {
      const leaf = level2[b];
      if (leaf) yield leaf;
    }
  }
}

/** Keys as strings (integer keys in ascending order). */
export function* tableKeys(table: Table<unknown>): Generator<string> {
  for (const leaf of leaves(table)) yield* Object.keys(leaf);
}

/** Integer keys, ascending (for integer-keyed tables). */
export function* tableIds(table: Table<unknown>): Generator<number> {
  for (const leaf of leaves(table)) for (const key of Object.keys(leaf)) yield Number(key);
}

export function* tableValues<V>(table: Table<V>): Generator<V> {
  for (const [, value] of tableEntries(table)) yield value;
}

export function* tableEntries<V>(table: Table<V>): Generator<[string, V]> {
  for (const leaf of leaves(table)) {
    for (const key of Object.keys(leaf)) {
      const value = leaf[key];
      if (value !== undefined) yield [key, value];
    }
  }
}

/**
 * Integer keys from the `offset`-th on, in ascending order, skipping whole leaves: a page deep in a large
 * table costs a visit per leaf skipped (≤ 1/32 of the entries), not per entry.
 */
export function* tableIdsFrom(table: Table<unknown>, offset: number): Generator<number> {
  let skip = offset;
  for (const leaf of leaves(table)) {
    const keys = Object.keys(leaf);
    if (skip >= keys.length) {
      skip -= keys.length;
      continue;
    }
    for (let i = skip; i < keys.length; i++) yield Number(keys[i]);
    skip = 0;
  }
}

export const tableSize = (table: Table<unknown>): number => {
  let size = 0;
  for (const leaf of leaves(table)) size += Object.keys(leaf).length;
  return size;
};

export const tableIsEmpty = (table: Table<unknown>): boolean => Object.keys(trie(table)).length === 0;

/**
 * True when `value` has a table's shape: a non-empty trie whose every key sits on the path it would be
 * stored at. Used by generic tooling (the CLI's summary) that walks a state without knowing its types; a
 * record of entities fails the check (an entity's field names do not hash to its path).
 */
export const looksLikeTable = (value: unknown): value is Table<unknown> => {
  const isObject = (candidate: unknown): candidate is Record<string, unknown> =>
    typeof candidate === 'object' && candidate !== null && !Array.isArray(candidate) && !(candidate instanceof Map) && !(candidate instanceof Set);
  if (!isObject(value) || Object.keys(value).length === 0) return false;
  for (const a of Object.keys(value)) {
    const level2 = value[a];
    if (!isObject(level2)) return false;
    for (const b of Object.keys(level2)) {
      const leaf = level2[b];
      if (!isObject(leaf)) return false;
      for (const key of Object.keys(leaf)) {
        const asNumber = /^\d+$/.test(key) ? Number(key) : null;
        const [x, y] = pathOf(asNumber ?? key);
        const [hx, hy] = pathOf(key);
        if (!((String(x) === a && String(y) === b) || (String(hx) === a && String(hy) === b))) return false;
      }
    }
  }
  return true;
};

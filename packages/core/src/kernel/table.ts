/**
 * A two-level table for projections. Immer copies every object on the path it modifies, so a flat
 * object of 100,000 entries would be copied whole by each command; split into shards, a change copies
 * one shard (≤ 256 entries for ids) and the shard index. Integer-like keys iterate in ascending
 * order in JavaScript, so `values` yields entries in id order.
 */
export type Table<V> = { [shard: string]: { [key: string]: V } };

const shardOf = (key: number | string): string => {
  if (typeof key === 'number') return String(key >>> 8);
  let hash = 2166136261;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 16777619);
  return `h${(hash >>> 0) & 1023}`;
};

export const emptyTable = <V>(): Table<V> => ({});

export const tableGet = <V>(table: Table<V>, key: number | string): V | undefined => table[shardOf(key)]?.[key];

export const tableHas = (table: Table<unknown>, key: number | string): boolean => tableGet(table, key) !== undefined;

export const tableSet = <V>(table: Table<V>, key: number | string, value: V): void => {
  const shard = shardOf(key);
  (table[shard] ??= {})[key] = value;
};

export const tableDelete = (table: Table<unknown>, key: number | string): void => {
  const shard = shardOf(key);
  const entries = table[shard];
  if (!entries || !(key in entries)) return;
  delete entries[key];
  // Keep empty shards: deleting and recreating them would churn the index on every remove/add pair.
};

export function* tableValues<V>(table: Table<V>): Generator<V> {
  for (const shard of Object.keys(table)) {
    const entries = table[shard]!;
    for (const key of Object.keys(entries)) yield entries[key]!;
  }
}

export const tableSize = (table: Table<unknown>): number => {
  let size = 0;
  for (const shard of Object.keys(table)) size += Object.keys(table[shard]!).length;
  return size;
};

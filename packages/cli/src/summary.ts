/**
 * A generic summary of a projection state: for every top-level slice, the number of entries in each of its
 * collections (Tables, arrays, Maps, Sets, records) and the value of each scalar (counters, sequences).
 * Used when @forgefold/core does not export a domain-specific `summarize`.
 */

export type SummaryValue = number | string | boolean | null;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Map) && !(value instanceof Set);

/** The shard a key lands in, as kernel/table.ts computes it. */
const fnvShard = (key: string): string => {
  let hash = 2166136261;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 16777619);
  return `h${(hash >>> 0) & 1023}`;
};

/**
 * True when `value` is a kernel Table: an index of shards whose every key sits in the shard it would be
 * stored in (number keys in `String(key >>> 8)`, string keys in `h<fnv & 1023>`). A record keyed by ids of
 * entities fails the check (an entity's field names do not shard to its id).
 */
export const isTable = (value: unknown): value is Record<string, Record<string, unknown>> => {
  if (!isPlainObject(value)) return false;
  const shards = Object.keys(value);
  if (shards.length === 0) return false;
  for (const shard of shards) {
    const entries = value[shard];
    if (!isPlainObject(entries)) return false;
    const hashed = shard.startsWith('h');
    if (!hashed && !/^\d+$/.test(shard)) return false;
    for (const key of Object.keys(entries)) {
      if (hashed ? fnvShard(key) !== shard : !/^-?\d+$/.test(key) || String(Number(key) >>> 8) !== shard) return false;
    }
  }
  return true;
};

const tableEntries = (table: Record<string, Record<string, unknown>>): number => {
  let size = 0;
  for (const shard of Object.keys(table)) size += Object.keys(table[shard]!).length;
  return size;
};

/** The count of a collection, or undefined when `value` is not one. */
const collectionSize = (value: unknown): number | undefined => {
  if (Array.isArray(value)) return value.length;
  if (value instanceof Map || value instanceof Set) return value.size;
  if (isTable(value)) return tableEntries(value);
  return undefined;
};

const scalar = (value: unknown): SummaryValue | undefined => {
  if (value === null || typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean') return value;
  return undefined;
};

/** An empty object ({}) may be an empty Table: count it as 0 entries. */
const isEmptyObject = (value: unknown): boolean => isPlainObject(value) && Object.keys(value).length === 0;

/**
 * Flattens the state into "slice" / "slice.part" → count or scalar. A slice that is an object of collections
 * and scalars (`users: { byId: Table, count: 3 }`) is listed part by part; any other object counts its keys.
 */
export const genericSummary = (state: unknown): Record<string, SummaryValue> => {
  const summary: Record<string, SummaryValue> = {};
  if (!isPlainObject(state)) {
    const size = collectionSize(state);
    summary['state'] = size ?? scalar(state) ?? null;
    return summary;
  }
  for (const name of Object.keys(state)) {
    const slice = state[name];
    if (slice === undefined) continue;
    const size = collectionSize(slice);
    if (size !== undefined) {
      summary[name] = size;
      continue;
    }
    const value = scalar(slice);
    if (value !== undefined) {
      summary[name] = value;
      continue;
    }
    if (isPlainObject(slice)) {
      const parts = Object.keys(slice).filter((part) => slice[part] !== undefined);
      const describable = parts.every((part) => {
        const child = slice[part];
        return collectionSize(child) !== undefined || scalar(child) !== undefined || isEmptyObject(child);
      });
      const recordOfEntities = parts.length > 0 && parts.every((part) => /^\d+$/.test(part));
      if (describable && parts.length > 0 && !recordOfEntities) {
        for (const part of parts) {
          const child = slice[part];
          summary[`${name}.${part}`] = collectionSize(child) ?? scalar(child) ?? 0;
        }
        continue;
      }
      summary[name] = parts.length;
      continue;
    }
    summary[name] = null;
  }
  return summary;
};

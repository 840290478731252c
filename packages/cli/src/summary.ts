/**
 * A generic summary of a projection state: for every top-level slice, the number of entries in each of its
 * collections (Tables, arrays, Maps, Sets, records) and the value of each scalar (counters, sequences).
 * Used when @forgefold/core does not export a domain-specific `summarize`.
 */

import { looksLikeTable, tableSize, type Table } from '@forgefold/core';

export type SummaryValue = number | string | boolean | null;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Map) && !(value instanceof Set);

/** True when `value` is a kernel Table (the kernel knows its layout). */
export const isTable = (value: unknown): value is Table<unknown> => looksLikeTable(value);

/** The count of a collection, or undefined when `value` is not one. */
const collectionSize = (value: unknown): number | undefined => {
  if (isTable(value)) return tableSize(value);
  if (Array.isArray(value)) return value.length;
  if (value instanceof Map || value instanceof Set) return value.size;
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

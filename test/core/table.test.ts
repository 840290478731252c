import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { emptyTable, tableDelete, tableGet, tableSet, tableSize, tableValues } from '@forgefold/core';

describe('Table', () => {
  it('behaves like a Map and iterates integer keys in ascending order', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.nat(5_000))), (ops) => {
        const table = emptyTable<number>();
        const model = new Map<number, number>();
        for (const [add, key] of ops) {
          if (add) {
            tableSet(table, key, key * 2);
            model.set(key, key * 2);
          } else {
            tableDelete(table, key);
            model.delete(key);
          }
        }
        expect(tableSize(table)).toBe(model.size);
        expect([...tableValues(table)]).toEqual([...model.keys()].sort((a, b) => a - b).map((k) => k * 2));
        for (const key of model.keys()) expect(tableGet(table, key)).toBe(key * 2);
      }),
    );
  });
});

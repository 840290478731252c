import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { produce } from 'immer';
import { decodeState, emptyTable, encodeState, peekField, stateHash, tableDelete, tableEntries, tableGet, tablePeek, tableGetOrCreate, tableIds, tableIdsFrom, tableIsEmpty, tableKeys, tableOf, tableSet, tableSetIn, tableSize, tableValues, type Table } from '@forgefold/core';

const model = <K extends number | string>(keys: fc.Arbitrary<K>) =>
  fc.array(fc.tuple(fc.boolean(), keys), { maxLength: 300 });

const apply = <K extends number | string>(ops: readonly (readonly [boolean, K])[]) => {
  const table = emptyTable<string>();
  const map = new Map<K, string>();
  for (const [add, key] of ops) {
    if (add) {
      tableSet(table, key, `v${key}`);
      map.set(key, `v${key}`);
    } else {
      tableDelete(table, key);
      map.delete(key);
    }
  }
  return { table, map };
};

describe('Table', () => {
  it('behaves like a Map and iterates integer keys in ascending order', () => {
    fc.assert(
      fc.property(model(fc.nat(50_000)), (ops) => {
        const { table, map } = apply(ops);
        const sorted = [...map.keys()].sort((a, b) => a - b);
        expect(tableSize(table)).toBe(map.size);
        expect(tableIsEmpty(table)).toBe(map.size === 0);
        expect([...tableIds(table)]).toEqual(sorted);
        expect([...tableValues(table)]).toEqual(sorted.map((key) => `v${key}`));
        for (const key of map.keys()) expect(tableGet(table, key)).toBe(`v${key}`);
      }),
    );
  });

  it('holds string keys', () => {
    fc.assert(
      fc.property(model(fc.string({ maxLength: 8 })), (ops) => {
        const { table, map } = apply(ops);
        expect(new Set(tableKeys(table))).toEqual(new Set(map.keys()));
        for (const [key, value] of map) expect(tableGet(table, key)).toBe(value);
      }),
    );
  });

  it('reads ids from an offset like a slice of the sorted ids', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.nat(100_000), { maxLength: 400 }), fc.nat(450), (ids, offset) => {
        const table = emptyTable<number>();
        for (const id of ids) tableSet(table, id, id);
        expect([...tableIdsFrom(table, offset)]).toEqual([...ids].sort((a, b) => a - b).slice(offset));
      }),
    );
  });

  it('copies only small objects when immer applies a change, whatever the size of the table', () => {
    for (const keyOf of [(i: number) => i, (i: number) => `key-${i}`]) {
      let state: { table: Table<number> } = { table: emptyTable() };
      for (let i = 0; i < 50_000; i++) tableSet(state.table, keyOf(i), i);
      state = produce(state, () => undefined);
      const next = produce(state, (draft) => tableSet(draft.table, keyOf(50_001), 1));
      // Every object whose identity changed is on the path of the change: count their keys.
      let copied = 0;
      const walk = (before: unknown, after: unknown) => {
        if (before === after || typeof after !== 'object' || after === null) return;
        copied += Object.keys(after).length;
        for (const key of Object.keys(after)) walk((before as Record<string, unknown> | undefined)?.[key], (after as Record<string, unknown>)[key]);
      };
      walk(state, next);
      expect(copied).toBeLessThan(3 * 64 + 100);
    }
  });

  it('gets or creates an entry in one walk, live (the draft\'s value, changes land) as in place', () => {
    // Large ids too: a new table's first id far past its root's end makes that root sparse (see `child` in table.ts).
    const keys = fc.oneof(fc.nat(5_000), fc.nat(2_000_000), fc.string({ maxLength: 6 }));
    fc.assert(
      fc.property(fc.array(fc.tuple(keys, fc.nat(9)), { maxLength: 60 }), (ops) => {
        type Tables = { ints: Table<number[]>; strings: Table<number[]> };
        const run = (tables: Tables) => {
          for (const [key, value] of ops) tableGetOrCreate(typeof key === 'number' ? tables.ints : tables.strings, key, () => [] as number[]).push(value);
        };
        const plain: Tables = { ints: emptyTable(), strings: emptyTable() };
        run(plain);
        const live = produce({ ints: emptyTable(), strings: emptyTable() } as Tables, (draft) => run(draft));
        const expected = new Map<number | string, number[]>();
        for (const [key, value] of ops) expected.set(key, [...(expected.get(key) ?? []), value]);
        for (const [key, values] of expected) {
          expect(tableGet(typeof key === 'number' ? plain.ints : plain.strings, key)).toEqual(values);
          expect(tableGet(typeof key === 'number' ? live.ints : live.strings, key)).toEqual(values);
        }
        expect(stateHash(live)).toBe(stateHash(plain));
      }),
    );
  });

  it('has the same shape whether changed through immer drafts (live) or in place (replay)', () => {
    // Immer turns `delete` on an array draft into `undefined`; the table never relies on holes, so the
    // live and the replayed table hash alike after any sequence of sets and deletes.
    const keys = fc.oneof(fc.nat(5_000), fc.string({ maxLength: 6 }));
    fc.assert(
      fc.property(fc.array(fc.array(fc.tuple(fc.boolean(), keys), { maxLength: 8 }), { maxLength: 40 }), (batches) => {
        type Tables = { ints: Table<string>; strings: Table<string> };
        const plain: Tables = { ints: emptyTable(), strings: emptyTable() };
        let live: Tables = { ints: emptyTable(), strings: emptyTable() };
        for (const batch of batches) {
          const run = (tables: Tables) => {
            for (const [add, key] of batch) {
              // One kind of key per table.
              const table = typeof key === 'number' ? tables.ints : tables.strings;
              if (add) tableSet(table, key, `v${key}`);
              else tableDelete(table, key);
            }
          };
          run(plain);
          live = produce(live, (draft) => run(draft));
        }
        expect(stateHash(live)).toBe(stateHash(plain));
        expect([...tableKeys(live.strings)].sort()).toEqual([...tableKeys(plain.strings)].sort());
        expect([...tableIds(live.ints)]).toEqual([...tableIds(plain.ints)]);
      }),
    );
  });
});

describe('a table made with its first entry (tableOf, tableSetIn; issue 16, branches heapcensus2 and smalltables)', () => {
  // Up to 2^20: root indexes up to 1,024, past SPARSE_GAP (64), where the root is made sparse first.
  const keyArb = fc.oneof(fc.nat(2 ** 20), fc.nat(100), fc.string({ maxLength: 8 }));
  const valueArb = fc.oneof(fc.nat(), fc.string({ maxLength: 4 }), fc.constant({ row: 1 }));
  const roundTrip = (state: unknown): unknown => decodeState(Buffer.concat([...encodeState(state)]));

  it('holds what tableSet makes of an empty table, survives the snapshot codec, and reads and writes as one (property)', () => {
    fc.assert(
      fc.property(keyArb, valueArb, (key, value) => {
        const made = tableOf(key, value);
        const set = emptyTable<typeof value>();
        tableSet(set, key, value);
        expect([...tableEntries(made)]).toEqual([...tableEntries(set)]);
        expect(tableSize(made)).toBe(1);
        expect(tableIsEmpty(made)).toBe(false);
        // As a table of a slice (a structure of the snapshot) and as a table in a table (nested below its leaves).
        const state = (table: Table<typeof value>) => ({ slice: { table, nested: tableOf(3, table) } });
        const decoded = roundTrip(state(made)) as ReturnType<typeof state>;
        expect(stateHash(decoded)).toBe(stateHash(state(made)));
        expect(decoded).toStrictEqual(state(made));
        expect(tableGet(decoded.slice.table, key)).toEqual(value);
        expect(tableGet(tableGet(decoded.slice.nested, 3)!, key)).toEqual(value);
        // Written to afterwards, as any table.
        const other = typeof key === 'number' ? key + 1 : `${key}+`;
        tableSet(made, other, value);
        tableSet(set, other, value);
        expect([...tableEntries(made)]).toEqual([...tableEntries(set)]);
        tableDelete(made, key);
        expect(tableGet(made, key)).toBeUndefined();
        expect(tableSize(made)).toBe(1);
      }),
    );
  });

  it('sets into a table of tables as getting or creating the inner table and setting into it did, live and in place (property)', () => {
    // Outer keys as a group's or a user's id, inner keys as member ids; resets as onGroupCreated stores an empty table.
    // Few keys, so that deletes empty inner tables that later sets write again; ids up to 2^20 (sparse roots).
    const outerArb = fc.oneof(fc.nat(2), fc.constant(2 ** 20), fc.constantFrom('a', 'b'));
    const idArb = fc.oneof(fc.nat(2), fc.constantFrom(2 ** 20 - 70_000, 2 ** 20 - 1, 2 ** 20));
    // One kind of key per table: the tables at 2^20 and 'b' are keyed by strings.
    const idIn = (key: number | string, id: number): number | string => (key === 2 ** 20 || key === 'b' ? `id ${id}` : id);
    const opArb = fc.oneof(
      fc.tuple(fc.constant('set' as const), outerArb, idArb, fc.nat(9)),
      fc.tuple(fc.constant('delete' as const), outerArb, idArb, fc.constant(0)),
      fc.tuple(fc.constant('reset' as const), fc.nat(2), fc.constant(0), fc.constant(0)),
    );
    fc.assert(
      fc.property(fc.array(fc.array(opArb, { maxLength: 10 }), { maxLength: 12 }), (batches) => {
        type Tables = { ints: Table<Table<number>>; strings: Table<Table<number>> };
        const run = (tables: Tables, setIn: (outer: Table<Table<number>>, key: number | string, id: number | string, value: number) => void) => {
          for (const batch of batches) {
            for (const [op, key, n, value] of batch) {
              const id = idIn(key, n);
              const outer = typeof key === 'number' ? tables.ints : tables.strings;
              if (op === 'set') setIn(outer, key, id, value);
              else if (op === 'reset') tableSet(outer, key, emptyTable<number>());
              else {
                const inner = tableGet(outer, key);
                if (inner !== undefined) tableDelete(inner, id);
              }
            }
          }
        };
        const fresh = (): Tables => ({ ints: emptyTable(), strings: emptyTable() });
        const contents = (tables: Tables) =>
          [tables.ints, tables.strings].map((outer) => [...tableEntries(outer)].map(([key, inner]) => [key, [...tableEntries(inner)]]));
        const former = fresh();
        run(former, (outer, key, id, value) => tableSet(tableGetOrCreate(outer, key, emptyTable<number>), id, value));
        const inPlace = fresh();
        run(inPlace, tableSetIn);
        const live = produce(fresh(), (draft) => run(draft, tableSetIn));
        // The same entries as the former way; the same shape live (under immer) as folded in place.
        expect(contents(inPlace)).toEqual(contents(former));
        expect(stateHash(live)).toBe(stateHash(inPlace));
        expect(roundTrip(inPlace)).toStrictEqual(roundTrip(live));
      }),
    );
  });
});

describe('a small table (tableOf: entries in one array until it outgrows it; issue 16, branch smalltables)', () => {
  // Keys of one kind per table, few enough to repeat (deletes hit) and to pass the small table's room (8) and back.
  const intKeyArb = fc.oneof(fc.nat(20), fc.constantFrom(31, 32, 1_023, 1_024, 200_123, 2 ** 20));
  const stringKeyArb = fc.oneof(fc.constantFrom('a', 'b', 'c', 'ab', 'id 1', 'id 2'), fc.string({ maxLength: 3 }));
  const opsOf = (keyArb: fc.Arbitrary<number | string>) =>
    fc.array(fc.oneof(fc.tuple(fc.constantFrom('set', 'create', 'delete', 'sweep'), keyArb, fc.nat(9))), { maxLength: 40 });

  const apply = (table: Table<number>, [op, key, value]: [string, number | string, number]): void => {
    if (op === 'set') tableSet(table, key, value);
    else if (op === 'create') tableGetOrCreate(table, key, () => value);
    else if (op === 'delete') tableDelete(table, key);
    // Deleting while iterating, as evolves do: every entry whose value is below `value`.
    else for (const [k, v] of tableEntries(table)) if (v < value) tableDelete(table, typeof key === 'number' ? Number(k) : k);
  };
  const view = (table: Table<number>) => ({
    entries: [...tableEntries(table)],
    size: tableSize(table),
    empty: tableIsEmpty(table),
    from: [0, 1, 3, 9].map((offset) => [...tableIdsFrom(table, offset)]),
  });

  for (const [kind, keyArb] of [['integer', intKeyArb], ['string', stringKeyArb]] as const) {
    it(`answers as the trie of the same writes, in the trie's order, plain and under immer (${kind} keys, property)`, () => {
      fc.assert(
        fc.property(keyArb, fc.nat(9), opsOf(keyArb), (first, value, ops) => {
          const small = tableOf<number>(first, value);
          const trie = emptyTable<number>();
          tableSet(trie, first, value);
          const drafted = ops.reduce((state, op) => produce(state, (draft) => apply(draft.table, op)), { table: tableOf<number>(first, value) });
          for (const op of ops) {
            apply(small, op);
            apply(trie, op);
            const [, key] = op;
            expect(tableGet(small, key)).toBe(tableGet(trie, key));
            if (kind === 'integer') expect(view(small)).toEqual(view(trie));
            else expect([...tableEntries(small)]).toEqual([...tableEntries(trie)]);
          }
          expect(stateHash(drafted.table)).toBe(stateHash(small));
          expect(decodeState(Buffer.concat([...encodeState({ s: { t: small } })]))).toStrictEqual({ s: { t: small } });
        }),
      );
    });
  }

  it('takes tableSetIn as a table of tables, while small and once grown, plain and under immer (property)', () => {
    const opArb = fc.tuple(fc.oneof(fc.nat(12), fc.constant(200_123)), fc.oneof(fc.nat(3), fc.constant(2 ** 20)), fc.nat(9));
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 30 }), (ops) => {
        const small = tableOf<Table<number>>(0, tableOf(0, 0));
        const trie = emptyTable<Table<number>>();
        tableSet(trie, 0, tableOf(0, 0));
        for (const [key, id, value] of ops) {
          tableSetIn(small, key, id, value);
          tableSetIn(trie, key, id, value);
        }
        const contents = (tables: Table<Table<number>>) => [...tableEntries(tables)].map(([key, inner]) => [key, [...tableEntries(inner)]]);
        expect(contents(small)).toEqual(contents(trie));
        const drafted = produce({ t: tableOf<Table<number>>(0, tableOf(0, 0)) }, (draft) => {
          for (const [key, id, value] of ops) tableSetIn(draft.t, key, id, value);
        });
        expect(stateHash(drafted.t)).toBe(stateHash(small));
      }),
    );
  });

  it('costs one array while small, and turns into the trie in place when it outgrows it', () => {
    const table = tableOf(200_123, 1);
    expect(table).toEqual([-1, 200_123, 1]);
    for (let k = 1; k < 8; k++) tableSet(table, 200_123 + k, k);
    expect((table as unknown as unknown[])[0]).toBe(-1);
    tableSet(table, 1, 0);
    expect((table as unknown as unknown[])[0]).not.toBe(-1);
    expect([...tableIds(table)]).toEqual([1, ...Array.from({ length: 8 }, (_, k) => 200_123 + k)]);
  });
});

describe('tablePeek (reads past immer drafts)', () => {
  const keysArb = fc.oneof(fc.nat(5_000), fc.string({ maxLength: 6 }));

  it('answers what tableGet answers through a draft, before and after writes in it, and drafts nothing', () => {
    fc.assert(
      fc.property(fc.array(keysArb, { maxLength: 60 }), fc.array(keysArb, { maxLength: 20 }), fc.array(keysArb, { maxLength: 30 }), (before, written, probes) => {
        const numbers = emptyTable<string>();
        const strings = emptyTable<string>();
        for (const key of before) tableSet(typeof key === 'number' ? numbers : strings, key, `old ${key}`);
        const base = { numbers, strings };
        const after = produce(base, (draft) => {
          for (const key of written) tableSet(typeof key === 'number' ? draft.numbers : draft.strings, key, `new ${key}`);
          for (const key of probes) {
            const table = typeof key === 'number' ? draft.numbers : draft.strings;
            expect(tablePeek(table, key)).toBe(tableGet(table, key));
          }
        });
        // Peeks alone leave the state as it was: the very same objects.
        const peeked = produce(after, (draft) => {
          for (const key of [...probes, ...before]) tablePeek(typeof key === 'number' ? draft.numbers : draft.strings, key);
          expect(peekField(draft, 'strings')).toBe(after.strings);
        });
        expect(peeked).toBe(after);
      }),
    );
  });
});

v8.setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

describe('small tables of large ids (issue 16, the collector under writes)', () => {
  /** Heap kept per value by `count` values `make` returns (after full collections; a first round warms up). */
  const heapPer = (count: number, make: (i: number) => unknown): number => {
    Array.from({ length: 100 }, (_, i) => make(i));
    gc();
    const before = process.memoryUsage().heapUsed;
    const kept = Array.from({ length: count }, (_, i) => make(i));
    gc();
    const used = process.memoryUsage().heapUsed - before;
    expect(kept.length).toBe(count);
    return used / count;
  };

  it('keeps the root of a new table of one large id sparse, in place and through a draft', () => {
    // Member ids near 400,000 (a new group's members at 1e6 commands): root index ~390, one slot used.
    const id = (i: number): number => 400_000 + i;
    const inPlace = heapPer(20_000, (i) => {
      const table = emptyTable<number>();
      tableSet(table, id(i), i);
      return table;
    });
    // Twenty new tables per batch, as a group creation's evolve adds them to the indexes through the batch's draft.
    const drafted =
      heapPer(1_000, (i) =>
        produce({ tables: emptyTable<Table<number>>() }, (draft) => {
          for (let j = 0; j < 20; j++) tableSet(tableGetOrCreate(draft.tables, j, emptyTable<number>), id(i * 20 + j), i);
        }),
      ) / 20;
    // What V8 kept for the same table as it was written before: a flat root grown to ~1.5x the index (~5 KB).
    const flat = heapPer(20_000, (i) => {
      const root: unknown[] = [];
      const leaf: unknown[] = [];
      leaf[id(i) & 31] = i;
      const level2: unknown[] = [];
      level2[(id(i) >>> 5) & 31] = leaf;
      root[id(i) >>> 10] = level2;
      return root;
    });
    // ~5.7 KB flat; ~930 bytes with a sparse root alone (its two inner nodes grown with V8's room); ~550 sized.
    expect(inPlace).toBeLessThan(flat / 8);
    expect(drafted).toBeLessThan(flat / 3);
    for (const key of [0, 63 * 1024, 65 * 1024, 400_000, 2_000_000]) {
      const table = emptyTable<number>();
      tableSet(table, key, 1);
      tableSet(table, key + 1, 2);
      tableSet(table, 7, 3);
      expect([...tableIds(table)]).toEqual([...new Set([7, key, key + 1])].sort((a, b) => a - b));
      expect(tableGet(table, key + 1)).toBe(2);
      tableDelete(table, key + 1);
      expect(tableSize(table)).toBe(2);
    }
  });
});


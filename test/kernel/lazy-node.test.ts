/**
 * Decoding a table node (issue 16, snapshot pauses): a small table of large ids (one group's members, keyed by member
 * id) is a root indexed by `id >>> 10`, mostly holes; `v8.deserialize` made each such root a flat array of all its
 * slots, and the nodes read on the request path stayed on the heap as that. Decoded nodes keep such arrays sparse,
 * and are otherwise what `v8.deserialize` gives: the same content, the same bytes when serialised again, the same
 * table operations.
 */
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Immer } from 'immer';
import { decodeState, emptyTable, encodeState, stateHash, tableDelete, tableGet, tablePeek, tableSet, tableValues, type Table } from '@forgefold/core';

type State = { members: { byUser: Table<Table<string>>; bySource: Table<Table<number>> } };

/** Users 0..users-1, each a member of a few sources with member ids near `base` (as `members.byUser` at 200k–1e6 commands). */
const build = (users: number, base: number): State => {
  const byUser: Table<Table<string>> = emptyTable();
  const bySource: Table<Table<number>> = emptyTable();
  for (let user = 0; user < users; user++) {
    const own: Table<string> = emptyTable();
    tableSet(own, base + user * 3, `Namespace:${user}`);
    if (user % 4 === 0) tableSet(own, base + user * 3 + 1, `Project:${user}`);
    tableSet(byUser, user, own);
    const source: Table<number> = emptyTable();
    tableSet(source, base + user * 3, user);
    tableSet(bySource, `Namespace:${user}`, source);
  }
  return { members: { byUser, bySource } };
};

const bytesOf = (state: unknown): Buffer => Buffer.concat([...encodeState(state)]);
/** How many lazy nodes `value` holds (what a read has not decoded yet). */
const lazyNodes = (value: unknown): number => {
  if (value === null || typeof value !== 'object') return 0;
  if (!Array.isArray(value) && Object.getPrototypeOf(value) !== Object.prototype) return 1;
  let count = 0;
  for (const key of Object.keys(value)) count += lazyNodes((value as Record<string, unknown>)[key]);
  return count;
};

v8.setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

describe('decoding table nodes', () => {
  it('keeps the sparse roots of small tables of large ids sparse on the heap', () => {
    // Member ids near 300,000: each small table's root has ~290 slots, one of them used.
    const bytes = bytesOf({ members: { byUser: build(1_024, 300_000).members.byUser } });
    const flat = (): unknown => {
      // What the former decoding kept: each node as `v8.deserialize` gives it.
      const state = decodeState(bytes, { lazy: true }) as State;
      const nodes: unknown[] = [];
      for (const own of tableValues(state.members.byUser)) nodes.push(v8.deserialize(v8.serialize(own)));
      return nodes;
    };
    const heapOf = (make: () => unknown): number => {
      gc();
      const before = process.memoryUsage().heapUsed;
      const kept = Array.from({ length: 20 }, make);
      gc();
      const used = process.memoryUsage().heapUsed - before;
      expect(kept.length).toBe(20);
      return used;
    };
    const decoded = heapOf(() => decodeState(bytes));
    const former = heapOf(flat);
    // ~80 KB per node of 32 such tables before; a few KB now.
    expect(decoded).toBeLessThan(former / 3);
  });

  it('writes a string table of tables as its leaves: a write to one key decodes one leaf, not its 32 neighbours', () => {
    const bytes = bytesOf(build(20_000, 1_000_000));
    const lazy = decodeState(bytes, { lazy: true }) as State;
    const before = lazyNodes(lazy.members.bySource);
    // The 32,768 leaves of the string table (fewer: the empty ones), not its 1,024 third levels.
    expect(before).toBeGreaterThan(10_000);
    const next = new Immer({ autoFreeze: true }).produce(lazy, (draft) => {
      tableSet(tableGet(draft.members.bySource, 'Namespace:77')!, 5, 5);
    });
    expect(lazyNodes(next.members.bySource)).toBe(before - 1);
    expect(tableGet(tableGet(next.members.bySource, 'Namespace:77')!, 5)).toBe(5);
    expect(tableGet(tableGet(next.members.bySource, 'Namespace:78')!, 1_000_000 + 234)).toBe(78);
    expect(stateHash(decodeState(bytesOf(next), { lazy: true }))).toBe(stateHash(decodeState(bytesOf(next))));
  });

  it('writes a third level holding a scalar and a table (still lazy) apart: the table survives a second snapshot', () => {
    // A scalar value in a leaf before a table's leaf in the same third level (the encoder once stopped looking at the
    // values after the first scalar, and wrote the level whole, its lazy nodes as plain objects: the table was lost).
    const pathOf = (key: string): number[] => {
      let h = 2166136261;
      for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 16777619);
      h >>>= 0;
      return [h & 31, (h >>> 5) & 31, (h >>> 10) & 31];
    };
    const [a, b, leaf] = pathOf('t0');
    let scalarKey = '';
    for (let i = 0; scalarKey === ''; i++) {
      const [x, y, z] = pathOf(`s${i}`);
      if (x === a && y === b && z! < leaf!) scalarKey = `s${i}`;
    }
    const inner: Table<number> = emptyTable();
    for (let i = 0; i < 6_000; i++) tableSet(inner, i, i);
    const state = { slice: { table: emptyTable<Table<number> | number>() } };
    tableSet(state.slice.table, 't0', inner);
    const lazy = decodeState(bytesOf(state), { lazy: true }) as typeof state;
    tableSet(lazy.slice.table, scalarKey, 5);
    const again = decodeState(bytesOf(lazy)) as typeof state;
    expect(tableGet(tableGet(again.slice.table, 't0') as Table<number>, 100)).toBe(100);
    expect(tableGet(again.slice.table, scalarKey)).toBe(5);
  });

  it('decodes what v8 decodes: content, bytes, table operations, immer (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 64 }),
        fc.integer({ min: 0, max: 2_000_000 }),
        fc.array(fc.record({ user: fc.integer({ min: 0, max: 80 }), member: fc.integer({ min: 0, max: 2_000_000 }), remove: fc.boolean() }), { maxLength: 30 }),
        fc.boolean(),
        (users, base, writes, autoFreeze) => {
          const live = build(users, base);
          const bytes = bytesOf(live);
          const eager = decodeState(bytes) as State;
          expect(eager).toStrictEqual(live);
          // (Not the same bytes as the live state's: v8 decodes a packed array, a string leaf, as a holey one.)
          let lazy = decodeState(bytes, { lazy: true }) as State;
          const immer = new Immer({ autoFreeze });
          for (const { user, member, remove } of writes) {
            const write = (state: State): void => {
              const key = `Namespace:${user}`;
              if (remove) tableDelete(state.members.bySource, key);
              else if (tableGet(state.members.bySource, key) === undefined) tableSet(state.members.bySource, key, emptyTable());
              const source = tableGet(state.members.bySource, key);
              if (source !== undefined) tableSet(source, member, user);
              let own = tableGet(state.members.byUser, user);
              if (own === undefined) {
                tableSet(state.members.byUser, user, emptyTable());
                own = tableGet(state.members.byUser, user)!;
              }
              if (remove) tableDelete(own, member);
              else tableSet(own, member, `Group:${member}`);
            };
            write(live);
            write(eager);
            lazy = immer.produce(lazy, write);
          }
          expect(stateHash(eager)).toBe(stateHash(live));
          expect(stateHash(lazy)).toBe(stateHash(live));
          // Written and loaded again (lazily), each is the live state.
          for (const state of [eager, lazy]) expect(stateHash(decodeState(bytesOf(state), { lazy: true }))).toBe(stateHash(live));
          expect(decodeState(bytesOf(lazy))).toStrictEqual(decodeState(bytesOf(eager)));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('answers a lookup of a key a string table does not hold without decoding, and every other as decoded (property)', () => {
    // Keys of every kind v8 writes: one-byte, two-byte, and one-byte content held as a two-byte string (a slice of a
    // two-byte string: v8 writes it as UTF-16).
    const twoByteLatin1 = (text: string): string => `\u65e5${text}-padding-to-make-a-sliced-string`.slice(1);
    const key = (n: number): string => (n % 3 === 0 ? `user-${n}` : n % 3 === 1 ? `\u00fcser-\u65e5-${n}` : twoByteLatin1(`user-${n}`));
    type Names = { users: { byUsername: Table<number> } };
    const live: Names = { users: { byUsername: emptyTable() } };
    for (let n = 0; n < 60_000; n += 2) tableSet(live.users.byUsername, key(n), n);
    const bytes = bytesOf(live);
    const lazy = decodeState(bytes, { lazy: true }) as Names;
    const before = lazyNodes(lazy.users.byUsername);
    expect(before).toBe(1_024);
    // Absent keys of every kind (odd numbers), by both lookups: nothing decoded ("user-1" is not taken for "user-10").
    for (let n = 1; n < 6_000; n += 2) {
      expect(tableGet(lazy.users.byUsername, key(n))).toBeUndefined();
      expect(tablePeek(lazy.users.byUsername, key(n))).toBeUndefined();
    }
    expect(lazyNodes(lazy.users.byUsername)).toBe(before);
    // A key it holds is read (its node decoded).
    expect(tableGet(lazy.users.byUsername, key(4))).toBe(4);
    expect(lazyNodes(lazy.users.byUsername)).toBe(before - 1);
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.nat(60_000).map(key), fc.string({ maxLength: 12 }), fc.string({ unit: 'grapheme', maxLength: 6 })), { maxLength: 200 }), fc.boolean(), (keys, frozen) => {
        const state = decodeState(bytes, { lazy: true }) as Names;
        if (frozen) Object.freeze(state.users.byUsername);
        for (const k of keys) {
          expect(tablePeek(state.users.byUsername, k)).toBe(tableGet(live.users.byUsername, k));
          expect(tableGet(state.users.byUsername, k)).toBe(tableGet(live.users.byUsername, k));
        }
        expect(stateHash(state)).toBe(stateHash(live));
      }),
      { numRuns: 40 },
    );
  });
});

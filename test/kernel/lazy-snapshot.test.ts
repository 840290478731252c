/**
 * Lazy snapshots (issue 16): a state decoded with `lazy` keeps its tables' nodes as their bytes until `table.ts` reads
 * them. What it reads, hashes and re-encodes is what the eager decoding gives; immer's semantics hold through it.
 */
import v8 from 'node:v8';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Immer } from 'immer';
import { decodeState, emptyTable, encodePieces, encodeState, stateHash, tableDelete, tableGet, tableSet, tableSize, tableValues, type SnapshotBytes, type Table } from '@forgefold/core';

interface Entity {
  id: number;
  name: string;
  tags: string[];
}
interface Slice {
  byId: Table<Entity>;
  byName: Table<number>;
  byGroup: Table<Table<number>>;
  count: number;
}
type State = { things: Slice; settings: { nested: { deep: { label: string; flag: boolean } } } };

const build = (n: number): State => {
  const byId: Table<Entity> = emptyTable();
  const byName: Table<number> = emptyTable();
  const byGroup: Table<Table<number>> = emptyTable();
  for (let id = 1; id <= n; id++) {
    tableSet(byId, id, { id, name: `n${id}`, tags: [`t${id % 7}`] });
    tableSet(byName, `n${id}`, id);
    const group = id % 5;
    if (tableGet(byGroup, group) === undefined) tableSet(byGroup, group, emptyTable());
    tableSet(tableGet(byGroup, group)!, id, id);
  }
  return { things: { byId, byName, byGroup, count: n }, settings: { nested: { deep: { label: 'x', flag: true } } } };
};

const bytesOf = (state: unknown): Buffer => Buffer.concat([...encodeState(state)]);
const lazyNodes = (value: unknown): number => {
  if (value === null || typeof value !== 'object') return 0;
  if (value.constructor.name === 'LazyNode') return 1;
  return Array.isArray(value) ? value.reduce((sum: number, element: unknown) => sum + lazyNodes(element), 0) : Object.values(value).reduce((sum: number, element) => sum + lazyNodes(element), 0);
};

describe('lazy snapshots', () => {
  it('leave the tables’ nodes undecoded, and read, hash and re-encode as the state they were taken of', () => {
    const state = build(5_000);
    const bytes = bytesOf(state);
    const lazy = decodeState([bytes.subarray(0, 1000), bytes.subarray(1000)], { lazy: true }) as State;
    expect(lazyNodes(lazy)).toBeGreaterThan(100);
    // What is not in a table is plain.
    expect(lazy.settings).toStrictEqual(state.settings);
    expect(lazy.things.count).toBe(5_000);
    expect(stateHash(lazy)).toBe(stateHash(state));
    // An untouched state re-encodes to the same bytes (its nodes' bytes as they are: not decoded; scalars elsewhere).
    const before = lazyNodes(lazy);
    expect(bytesOf(lazy).equals(bytes)).toBe(true);
    expect(lazyNodes(lazy)).toBe(before);
    expect(tableGet(lazy.things.byId, 4321)).toStrictEqual({ id: 4321, name: 'n4321', tags: ['t2'] });
    expect(tableGet(lazy.things.byName, 'n17')).toBe(17);
    expect(tableGet(tableGet(lazy.things.byGroup, 3)!, 4998)).toBe(4998);
    expect(tableSize(lazy.things.byId)).toBe(5_000);
    expect(stateHash(lazy)).toBe(stateHash(state));
    expect(decodeState(bytes)).toStrictEqual(state);
  });

  it('load → read → write → snapshot → load equals the state written live (property)', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('set' as const), id: fc.integer({ min: 1, max: 3_000 }), name: fc.string({ maxLength: 5 }) }),
      fc.record({ kind: fc.constant('delete' as const), id: fc.integer({ min: 1, max: 3_000 }) }),
      fc.record({ kind: fc.constant('rename' as const), id: fc.integer({ min: 1, max: 2_000 }), name: fc.string({ maxLength: 5 }) }),
      fc.record({ kind: fc.constant('join' as const), id: fc.integer({ min: 1, max: 3_000 }), group: fc.integer({ min: 0, max: 7 }) }),
    );
    const base = build(2_000);
    const bytes = bytesOf(base);
    const apply = (state: State, ops: readonly { kind: string; id: number; name?: string; group?: number }[]): void => {
      for (const o of ops) {
        if (o.kind === 'set') {
          tableSet(state.things.byId, o.id, { id: o.id, name: o.name!, tags: [] });
          tableSet(state.things.byName, o.name!, o.id);
        } else if (o.kind === 'delete') {
          const found = tableGet(state.things.byId, o.id);
          tableDelete(state.things.byId, o.id);
          if (found) tableDelete(state.things.byName, found.name);
        } else if (o.kind === 'rename') {
          // Mutates what it read, as evolve recipes do.
          const found = tableGet(state.things.byId, o.id);
          if (found) {
            found.name = o.name!;
            found.tags.push('renamed');
          }
        } else {
          if (tableGet(state.things.byGroup, o.group!) === undefined) tableSet(state.things.byGroup, o.group!, emptyTable());
          tableSet(tableGet(state.things.byGroup, o.group!)!, o.id, o.id);
        }
      }
    };
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), fc.boolean(), fc.boolean(), (ops, throughImmer, autoFreeze) => {
        const live = v8.deserialize(v8.serialize(base)) as State;
        apply(live, ops);
        const loaded = decodeState(bytes, { lazy: true }) as State;
        const before = stateHash(loaded);
        let written: State;
        if (throughImmer) {
          written = new Immer({ autoFreeze }).produce(loaded, (draft) => apply(draft as State, ops));
          // The state it was produced from is unchanged, read or not.
          expect(stateHash(loaded)).toBe(before);
        } else {
          written = loaded;
          apply(written, ops);
        }
        expect(stateHash(written)).toBe(stateHash(live));
        const again = decodeState(bytesOf(written), { lazy: true }) as State;
        expect(stateHash(again)).toBe(stateHash(live));
        expect([...tableValues(again.things.byId)]).toStrictEqual([...tableValues(live.things.byId)]);
        expect(decodeState(bytesOf(again))).toStrictEqual(decodeState(bytesOf(live)));
      }),
      { numRuns: 30 },
    );
  });

  it('reads a frozen state’s nodes without changing it, and keeps what it decodes frozen', () => {
    const loaded = decodeState(bytesOf(build(3_000)), { lazy: true }) as State;
    const frozen = new Immer({ autoFreeze: true }).produce(loaded, (draft) => {
      draft.things.count = 3_001;
    });
    const deepFreeze = (value: unknown): void => {
      if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return;
      Object.freeze(value);
      if (value.constructor.name !== 'LazyNode') for (const child of Object.values(value)) deepFreeze(child);
    };
    deepFreeze(frozen);
    const entity = tableGet(frozen.things.byId, 1234)!;
    expect(entity.name).toBe('n1234');
    expect(Object.isFrozen(entity)).toBe(true);
    expect(() => {
      (entity as { name: string }).name = 'x';
    }).toThrow();
    expect(tableGet(frozen.things.byId, 1234)).toBe(entity);
  });

  it('hand out unread nodes as runs of their snapshot’s bytes, for a store to copy, and the same snapshot results', () => {
    const state = build(5_000);
    const bytes = bytesOf(state);
    const source: SnapshotBytes & { reads: number } = {
      size: bytes.length,
      reads: 0,
      read(offset: number, length: number) {
        this.reads++;
        return bytes.subarray(offset, offset + length);
      },
    };
    const lazy = decodeState(source, { lazy: true }) as State;
    const resolve = (pieces: Iterable<Buffer | { source: SnapshotBytes; offset: number; length: number }>): { bytes: Buffer; copied: number; runs: number } => {
      const parts: Buffer[] = [];
      let copied = 0;
      let runs = 0;
      for (const piece of pieces) {
        if (Buffer.isBuffer(piece)) parts.push(piece);
        else {
          parts.push(Buffer.from(piece.source.read(piece.offset, piece.length)));
          copied += piece.length;
          runs++;
        }
      }
      return { bytes: Buffer.concat(parts), copied, runs };
    };
    const before = source.reads;
    const untouched = resolve(encodePieces(lazy, (from) => from === source));
    // Nothing read while encoding (the runs are read above, by the "store"): a run of nodes per step (STEP_WORK
    // nodes; some 600 nodes here), not one per node.
    expect(source.reads - before).toBe(untouched.runs);
    expect(untouched.runs).toBeLessThan(20);
    expect(untouched.copied).toBeGreaterThan(bytes.length * 0.9);
    expect(untouched.bytes.equals(bytes)).toBe(true);
    // Written to: the nodes on the written paths are serialised, the others copied, and the result is the state.
    tableSet(lazy.things.byId, 4321, { id: 4321, name: 'changed', tags: [] });
    tableDelete(lazy.things.byName, 'n17');
    tableSet(tableGet(lazy.things.byGroup, 3)!, 99_999, 1);
    const written = resolve(encodePieces(lazy, (from) => from === source));
    expect(written.runs).toBeGreaterThan(1);
    expect(written.bytes.equals(bytesOf(lazy))).toBe(true);
    expect(stateHash(decodeState(written.bytes))).toBe(stateHash(lazy));
    // Another source is read, not copied.
    expect(resolve(encodePieces(lazy, () => false)).runs).toBe(0);
  });

  it('still decodes the first format (structure with its leaves inline)', () => {
    // u32(8) "FFSNAP1\n" OBJECT 1 "a" LEAF v8([1, 2])
    const leaf = v8.serialize([1, 2]);
    const u32 = (n: number) => {
      const b = Buffer.alloc(4);
      b.writeUInt32LE(n);
      return b;
    };
    const v1 = Buffer.concat([u32(8), Buffer.from('FFSNAP1\n', 'latin1'), Buffer.from([2]), u32(1), u32(1), Buffer.from('a'), Buffer.from([3]), u32(leaf.length), leaf]);
    expect(decodeState(v1, { lazy: true })).toStrictEqual({ a: [1, 2] });
    expect(decodeState(v8.serialize({ b: 1 }), { lazy: true })).toStrictEqual({ b: 1 });
  });
});

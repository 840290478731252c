/**
 * Incremental snapshots (issue 16): a snapshot copies from the previous one the table nodes that are still the same
 * objects (a committed state is immutable: immer copies what it changes), and serialises only what changed since.
 * The bytes are a full encoding's, and decode to the state.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import { Immer } from 'immer';
import { spyOnSerialisedNodes } from './serialised-nodes.js';
import {
  decodeState,
  emptyTable,
  encodePieces,
  encodeState,
  stateHash,
  tableDelete,
  tableGet,
  tableSet,
  tableValues,
  type CopiedBytes,
  NodeRuns,
  type SnapshotBytes,
  type Table,
} from '@forgefold/core';

interface Entity {
  id: number;
  name: string;
}
interface State {
  things: { byId: Table<Entity>; byName: Table<number>; byGroup: Table<Table<number>>; count: number };
}

const build = (n: number): State => {
  const byId: Table<Entity> = emptyTable();
  const byName: Table<number> = emptyTable();
  const byGroup: Table<Table<number>> = emptyTable();
  for (let id = 1; id <= n; id++) {
    tableSet(byId, id, { id, name: `n${id}` });
    tableSet(byName, `n${id}`, id);
    const group = id % 5;
    if (tableGet(byGroup, group) === undefined) tableSet(byGroup, group, emptyTable());
    tableSet(tableGet(byGroup, group)!, id, id);
  }
  return { things: { byId, byName, byGroup, count: n } };
};

type Op = { kind: 'set' | 'delete' | 'rename' | 'join'; id: number; name: string; group: number };
const opArb: fc.Arbitrary<Op> = fc.record({
  kind: fc.constantFrom('set' as const, 'delete' as const, 'rename' as const, 'join' as const),
  id: fc.integer({ min: 1, max: 3_000 }),
  name: fc.string({ maxLength: 5 }),
  group: fc.integer({ min: 0, max: 7 }),
});

/** Evolve-like writes through a draft (mutating what it reads, as recipes do). */
const apply = (state: State, ops: readonly Op[]): void => {
  for (const o of ops) {
    if (o.kind === 'set') {
      tableSet(state.things.byId, o.id, { id: o.id, name: o.name });
      tableSet(state.things.byName, o.name, o.id);
    } else if (o.kind === 'delete') {
      const found = tableGet(state.things.byId, o.id);
      tableDelete(state.things.byId, o.id);
      if (found) tableDelete(state.things.byName, found.name);
    } else if (o.kind === 'rename') {
      const found = tableGet(state.things.byId, o.id);
      if (found) found.name = o.name;
    } else {
      // A write into a table nested in a table: the node holding it must not be copied from before.
      if (tableGet(state.things.byGroup, o.group) === undefined) tableSet(state.things.byGroup, o.group, emptyTable());
      tableSet(tableGet(state.things.byGroup, o.group)!, o.id, o.id);
    }
  }
};

class Bytes implements SnapshotBytes {
  constructor(private readonly bytes: Buffer) {}
  get size(): number {
    return this.bytes.length;
  }
  read(offset: number, length: number): Buffer {
    return this.bytes.subarray(offset, offset + length);
  }
}

/** A store's part: runs copied from their source, pieces as they come; how many bytes were copied. */
const write = (pieces: Iterable<Buffer | CopiedBytes>): { bytes: Buffer; copied: number } => {
  const parts: Buffer[] = [];
  let copied = 0;
  for (const piece of pieces) {
    if (Buffer.isBuffer(piece)) parts.push(piece);
    else {
      parts.push(Buffer.from(piece.source.read(piece.offset, piece.length)));
      copied += piece.length;
    }
  }
  return { bytes: Buffer.concat(parts), copied };
};

const full = (state: unknown): Buffer => Buffer.concat([...encodeState(state)]);

/** A chain of snapshots as a store takes them: each one given the previous one's bytes and nodes. */
class Chain {
  private previous: { source: Bytes; runs: NodeRuns } | undefined;
  take(state: unknown, copies: (source: SnapshotBytes) => boolean = () => false): { bytes: Buffer; copied: number } {
    const runs = new NodeRuns();
    const written = write(encodePieces(state, copies, this.previous ? { previous: this.previous, runs } : { runs }));
    this.previous = { source: new Bytes(written.bytes), runs };
    return written;
  }
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('incremental snapshots', () => {
  it('serialise only the nodes changed since the previous snapshot, and write a full encoding’s bytes', () => {
    const immer = new Immer({ autoFreeze: false });
    const chain = new Chain();
    const first = build(5_000);
    const serialised = spyOnSerialisedNodes();
    const whole = chain.take(first);
    expect(whole.copied).toBe(0);
    const nodesOfAll = serialised.count();
    expect(nodesOfAll).toBeGreaterThan(300);
    expect(whole.bytes.equals(full(first))).toBe(true);

    const second = immer.produce(first, (draft) => {
      tableSet(draft.things.byId, 4_321, { id: 4_321, name: 'changed' });
      tableSet(tableGet(draft.things.byGroup, 3)!, 12, 12);
      draft.things.count++;
    });
    serialised.clear();
    const next = chain.take(second);
    // The leaf of byId holding 4321 and the node of byGroup holding group 3's table; nothing else.
    expect(serialised.count()).toBe(2);
    // All but the structure (written again each time: ~10% of a state this small) and the two nodes.
    expect(next.copied).toBeGreaterThan(whole.bytes.length * 0.85);
    serialised.restore();
    expect(next.bytes.equals(full(second))).toBe(true);
    expect(decodeState(next.bytes)).toStrictEqual(second);
    // The first state is unchanged, and its own snapshot still decodes to it.
    expect(decodeState(whole.bytes)).toStrictEqual(first);

    // Nothing changed: everything copied (from the second snapshot, which copied it from the first).
    const third = chain.take(second);
    expect(third.bytes.equals(next.bytes)).toBe(true);
    expect(third.copied).toBeGreaterThan(whole.bytes.length * 0.85);
  });

  it('find the nodes of a snapshot holding more nodes than one map of NodeRuns holds', () => {
    // 300,000 entries: ~9,400 leaves, over one map of the index (8,192 nodes).
    const immer = new Immer({ autoFreeze: false });
    const byId: Table<number> = emptyTable();
    for (let id = 1; id <= 300_000; id++) tableSet(byId, id, id);
    const first = { things: { byId } };
    const chain = new Chain();
    chain.take(first);
    const second = immer.produce(first, (draft) => {
      tableSet(draft.things.byId, 100, -1);
      tableSet(draft.things.byId, 299_000, -1);
    });
    const serialised = spyOnSerialisedNodes();
    const next = chain.take(second);
    // The two leaves changed, nothing else: the nodes of the first map and of the last one were both found.
    expect(serialised.count()).toBe(2);
    serialised.restore();
    expect(next.bytes.equals(full(second))).toBe(true);
  });

  it('copies the lazy nodes of the snapshot a state was loaded from from there, without indexing them', () => {
    const pinned = new Bytes(full(build(3_000)));
    const loaded = decodeState(pinned, { lazy: true }) as State;
    const state = new Immer({ autoFreeze: false }).produce(loaded, (draft) => {
      tableSet(draft.things.byId, 7, { id: 7, name: 'changed' });
    });
    const fromPinned = (source: SnapshotBytes): boolean => source === pinned;
    const runs = new NodeRuns();
    const first = [...encodePieces(state, fromPinned, { runs })];
    const firstBytes = write(first).bytes;
    expect(firstBytes.equals(full(state))).toBe(true);
    // The lazy nodes (all but the written leaf's path) are not in the index; the written leaf is.
    const lazy = (state.things.byId as unknown as unknown[][])[1]![1];
    // (A lazy node: not decoded, so not an array.)
    expect(typeof lazy === 'object' && lazy !== null && !Array.isArray(lazy)).toBe(true);
    expect(runs.find(lazy as object)).toBe(-1);
    expect(runs.find((state.things.byId as unknown as unknown[][])[0]![0] as object)).toBeGreaterThanOrEqual(0);
    // The next snapshot copies them from the pinned snapshot again (the written leaf from the previous one): the same bytes.
    const second = [...encodePieces(state, fromPinned, { previous: { source: new Bytes(firstBytes), runs }, runs: new NodeRuns() })];
    const sources = new Set(second.filter((piece): piece is CopiedBytes => !Buffer.isBuffer(piece)).map((piece) => piece.source));
    expect(sources.has(pinned)).toBe(true);
    expect(sources.size).toBe(2);
    expect(second.filter((piece) => Buffer.isBuffer(piece) && piece.length > 0).reduce((sum, piece) => sum + (piece as Buffer).length, 0)).toBeLessThan(firstBytes.length / 10);
    expect(write(second).bytes.equals(full(state))).toBe(true);
  });

  it('a chain of snapshots over immer’s states, from a state loaded lazily, each a full encoding of its state (property)', () => {
    const base = full(build(2_000));
    fc.assert(
      fc.property(fc.array(fc.array(opArb, { maxLength: 15 }), { minLength: 1, maxLength: 5 }), fc.boolean(), fc.boolean(), (rounds, autoFreeze, fromLoaded) => {
        const immer = new Immer({ autoFreeze });
        const pinned = new Bytes(base);
        let state = (fromLoaded ? decodeState(pinned, { lazy: true }) : decodeState(base)) as State;
        const live = decodeState(base) as State;
        const chain = new Chain();
        chain.take(state, (source) => source === pinned);
        for (const ops of rounds) {
          state = immer.produce(state, (draft) => apply(draft as State, ops));
          apply(live, ops);
          const { bytes } = chain.take(state, (source) => source === pinned);
          expect(bytes.equals(full(state))).toBe(true);
          const loaded = decodeState(bytes, { lazy: true }) as State;
          expect(stateHash(loaded)).toBe(stateHash(live));
          expect([...tableValues(loaded.things.byId)]).toStrictEqual([...tableValues(live.things.byId)]);
        }
      }),
      { numRuns: 20 },
    );
  });
});

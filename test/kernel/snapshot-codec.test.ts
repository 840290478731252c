/** The snapshot format (issue 16): a state encoded piece by piece decodes to the same value, holes and all. */
import v8 from 'node:v8';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { decodeState, emptyTable, encodeState, SERIALISED_WORK, STEP_WORK, tableGet, tableSet, type SnapshotBytes, type Table } from '@forgefold/core';
import { spyOnSerialisedNodes } from './serialised-nodes.js';

const roundTrip = (state: unknown): unknown => decodeState(Buffer.concat([...encodeState(state)]));

/** The bytes of a snapshot, counting what a decoding reads. */
class Counted implements SnapshotBytes {
  bytesRead = 0;
  constructor(private readonly bytes: Buffer) {}
  get size(): number {
    return this.bytes.length;
  }
  read(offset: number, length: number): Buffer {
    this.bytesRead += length;
    return this.bytes.subarray(offset, offset + length);
  }
}

/** The size of a version 2 or 3 snapshot's structure (what start-up reads), from its trailer. */
const structureSize = (bytes: Buffer): number => bytes.length - 20 - (bytes.readUInt32LE(bytes.length - 20) + bytes.readUInt32LE(bytes.length - 16) * 2 ** 32);

/**
 * Tables of small tables keyed by large ids, as at 1e6 commands: user id → member id → source key (members.byUser)
 * and source → member id → user id (members.bySource), member ids near 1e6. A table's root is indexed by `id >>> 10`,
 * so each small table is a root of ~1,000 slots holding one node.
 */
const smallTablesOfLargeIds = (owners: number): { byUser: Table<Table<string>>; bySource: Table<Table<number>> } => {
  const byUser: Table<Table<string>> = emptyTable();
  const bySource: Table<Table<number>> = emptyTable();
  for (let user = 1; user <= owners; user++) {
    const memberships: Table<string> = emptyTable();
    const members: Table<number> = emptyTable();
    for (let k = 0; k < 2; k++) {
      const memberId = 900_000 + user * 2 + k;
      tableSet(memberships, memberId, `Namespace:${user}`);
      tableSet(members, memberId, user);
    }
    tableSet(byUser, user, memberships);
    tableSet(bySource, `Namespace:${user}`, members);
  }
  return { byUser, bySource };
};

describe('the snapshot format', () => {
  it('decodes what it encodes, holes, nesting and all', () => {
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.jsonValue(),
        fc.sparseArray(tie('node'), { maxLength: 40 }),
        fc.dictionary(fc.string(), tie('node'), { maxKeys: 6 }),
        fc.constantFrom(undefined, null, NaN, -0, 10n),
      ),
    })).node;
    fc.assert(
      fc.property(value, (state) => {
        // The same value as v8's own round trip gives (undefined, -0, holes, bigints).
        expect(roundTrip(state)).toStrictEqual(v8.deserialize(v8.serialize(state)));
      }),
      { numRuns: 300 },
    );
  });

  it('decodes tables into the same tries, in pieces of bounded size', () => {
    const table: Table<{ id: number; name: string }> = emptyTable();
    const byName: Table<number> = emptyTable();
    for (let id = 1; id <= 50_000; id++) {
      tableSet(table, id, { id, name: `n${id}` });
      tableSet(byName, `n${id}`, id);
    }
    const state = { groups: { byId: table, byName, count: 50_000 }, sequences: { group: 50_000 } };
    const pieces = [...encodeState(state)];
    expect(pieces.length).toBeGreaterThan(4);
    for (const piece of pieces) expect(piece.length).toBeLessThan(1024 * 1024);
    expect(roundTrip(state)).toStrictEqual(state);
  });

  it("splits tables nested in tables (a very large group's members) into pieces of bounded size too", () => {
    // members.effective: a table of tables; a group with 200,000 members was one v8.serialize call of all of them.
    const effective: Table<Table<number>> = emptyTable();
    const big: Table<number> = emptyTable();
    for (let user = 1; user <= 200_000; user++) tableSet(big, user, 1);
    tableSet(effective, 7, big);
    const byKey: Table<Table<number>> = emptyTable();
    const bigByKey: Table<number> = emptyTable();
    for (let user = 1; user <= 200_000; user++) tableSet(bigByKey, user, user);
    tableSet(byKey, 'Namespace:7', bigByKey);
    const state = { members: { effective, byKey } };
    const pieces = [...encodeState(state)];
    for (const piece of pieces) expect(piece.length).toBeLessThanOrEqual(256 * 1024 + 64 * 1024);
    expect(roundTrip(state)).toStrictEqual(state);
  });

  it('decodes long sparse arrays (runs of holes) as they were', () => {
    fc.assert(
      fc.property(fc.sparseArray(fc.oneof(fc.integer(), fc.constant(undefined), fc.array(fc.integer(), { maxLength: 3 })), { maxLength: 3000, maxNumElements: 6 }), (sparse) => {
        const state = { slice: { sparse, nested: [sparse], deep: { a: { b: sparse } } } };
        expect(roundTrip(state)).toStrictEqual(v8.deserialize(v8.serialize(state)));
      }),
      { numRuns: 200 },
    );
  });

  it('keeps the structure of a table of small tables of large ids to its top levels, and start-up reads that alone', () => {
    // Format 2 took each such table for a heavy one (its root's ~1,000 slots counted) and wrote every root's holes one
    // by one into the structure: at 1e6 commands hundreds of millions of tokens, which start-up parsed (17.6 s).
    const owners = 3_000;
    const state = { members: smallTablesOfLargeIds(owners) };
    // And one heavy table among them (a SAML group's 20,000 members): split, its own nodes NODEs too.
    const saml: Table<number> = emptyTable();
    for (let k = 0; k < 20_000; k++) tableSet(saml, 950_000 + k, 5_000_000 + k);
    tableSet(state.members.bySource, 'Namespace:1', saml);
    const bytes = Buffer.concat([...encodeState(state)]);
    // The two outer tables' top levels (a NODE token of 13 bytes per node: ~100 for the integer table; for the string
    // table of tables, a NODE per leaf in use, ~3,000, each third level written as its leaves) and the heavy table's
    // (~630 nodes), not a token per slot of each small table's root (~3.5 MB in format 2).
    expect(structureSize(bytes)).toBeLessThan(80 * 1024);
    const source = new Counted(bytes);
    const lazy = decodeState(source, { lazy: true }) as typeof state;
    expect(source.bytesRead).toBeLessThan(80 * 1024 + 32);
    expect(tableGet(tableGet(lazy.members.bySource, 'Namespace:1')!, 950_000 + 12_345)).toBe(5_012_345);
    expect(tableGet(tableGet(lazy.members.byUser, 1234)!, 900_000 + 2468)).toBe('Namespace:1234');
    expect(tableGet(tableGet(lazy.members.bySource, 'Namespace:77')!, 900_000 + 155)).toBe(77);
    expect(decodeState(bytes)).toStrictEqual(state);
  });

  it('serialises at most STEP_WORK / SERIALISED_WORK nodes in a step', () => {
    // A step of 256 tokens serialised up to 256 small nodes (a piece of 64 KiB of them): 30–60 ms in a server.
    const byId: Table<{ id: number; name: string }> = emptyTable();
    for (let id = 1; id <= 20_000; id++) tableSet(byId, id, { id, name: `n${id}` });
    const serialised = spyOnSerialisedNodes();
    let most = 0;
    const pieces: Buffer[] = [];
    for (const piece of encodeState({ things: { byId } })) {
      most = Math.max(most, serialised.count());
      serialised.clear();
      pieces.push(piece);
    }
    serialised.restore();
    expect(most).toBeLessThanOrEqual(Math.ceil(STEP_WORK / SERIALISED_WORK));
    expect(decodeState(pieces)).toStrictEqual({ things: { byId } });
  });

  it('ends a step after at most STEP_WORK of structure, even when no piece is ready', () => {
    // A long span of structure alone (format 2 yielded only when a piece of nodes was ready: one group's 100,000
    // identities, or the values of a heavy table of tables, were one step of seconds).
    const items = Array.from({ length: 100_000 }, (_, i) => i);
    let steps = 0;
    const pieces: Buffer[] = [];
    for (const piece of encodeState({ list: { items } })) {
      steps++;
      pieces.push(piece);
    }
    // A token per item.
    expect(steps).toBeGreaterThanOrEqual(Math.floor(100_000 / STEP_WORK));
    expect(decodeState(pieces)).toStrictEqual({ list: { items } });
    // A heavy table of tables (one group of 20,000 members beside small ones) is split into its values' tries.
    const effective: Table<Table<number>> = emptyTable();
    for (let group = 1; group <= 32; group++) {
      const members: Table<number> = emptyTable();
      for (let user = 1; user <= (group === 7 ? 20_000 : 3); user++) tableSet(members, user * 37, 1);
      tableSet(effective, group, members);
    }
    const tables = [...encodeState({ members: { effective, ...smallTablesOfLargeIds(2_000) } })];
    expect(tables.length).toBeGreaterThan(3);
    expect(decodeState(tables)).toStrictEqual({ members: { effective, ...smallTablesOfLargeIds(2_000) } });
  });

  it('writes nodes the wire writer declines (a Date in an entity) by v8.serialize, and decodes them, lazily too', () => {
    const byId: Table<{ id: number; at: Date | string }> = emptyTable();
    for (let id = 1; id <= 100; id++) tableSet(byId, id, { id, at: id === 42 ? new Date(42) : 'never' });
    const bytes = Buffer.concat([...encodeState({ things: { byId } })]);
    expect(decodeState(bytes)).toStrictEqual({ things: { byId } });
    const lazy = decodeState(bytes, { lazy: true }) as { things: { byId: Table<{ id: number; at: Date | string }> } };
    expect(tableGet(lazy.things.byId, 42)).toStrictEqual({ id: 42, at: new Date(42) });
    expect(tableGet(lazy.things.byId, 43)).toStrictEqual({ id: 43, at: 'never' });
  });

  it('still decodes the second format (a HOLE per hole)', () => {
    // Written by format 2's encoder: tables of integer and string keys, a table of tables, a list with holes.
    const v2 = Buffer.from(V2, 'base64');
    expect(v2.subarray(4, 12).toString('latin1')).toBe('FFSNAP2\n');
    const byId: Table<{ id: number; name: string }> = emptyTable();
    const byName: Table<number> = emptyTable();
    for (const id of [1, 2, 40, 2100]) {
      tableSet(byId, id, { id, name: `n${id}` });
      tableSet(byName, `n${id}`, id);
    }
    const inner: Table<number> = emptyTable();
    tableSet(inner, 3000, 7);
    const byGroup: Table<Table<number>> = emptyTable();
    tableSet(byGroup, 5, inner);
    const list: unknown[] = [];
    list[3] = 'x';
    const expected = { things: { byId, byName, byGroup, list, count: 4 } };
    expect(decodeState(v2)).toStrictEqual(expected);
    const lazy = decodeState(v2, { lazy: true }) as typeof expected;
    expect(tableGet(lazy.things.byId, 2100)).toStrictEqual({ id: 2100, name: 'n2100' });
    expect(tableGet(tableGet(lazy.things.byGroup, 5)!, 3000)).toBe(7);
    // Re-encoded in the current format, the same state.
    expect(roundTrip(lazy)).toStrictEqual(expected);
  });

  it('still reads snapshots written whole by v8.serialize', () => {
    const holey: unknown[] = [1];
    holey[2] = 3;
    expect(decodeState(v8.serialize({ a: holey }))).toStrictEqual({ a: holey });
  });
});

const V2 = 'CAAAAEZGU05BUDIK/w9hA0kCbyICaWRJAiIEbmFtZSICbjF7AkkEbyICaWRJBCIEbmFtZSICbjJ7AkACA/8PYQlJEG8iAmlkSVAiBG5hbWUiA240MHsCQAEJ/w9hFUkobyICaWRJ6CAiBG5hbWUiBW4yMTAwewJAARX/D2EYSS5BAiICbjFJAiQAAkABGP8PYQ9JHEECIgVuMjEwMEnoICQAAkABD/8PYRlJMEECIgJuMkkEJAACQAEZ/w9hFUkoQQIiA240MElQJAACQAEV/w9hBkkKYQNJBGEeSTphGUkwSQ5AARlAAR5AAQNAAQYCAQAAAAYAAAB0aGluZ3MCBQAAAAQAAABieUlkAQMAAAABAgAAAAUMAAAAAAAAADEAAAAFPQAAAAAAAAAdAAAABAECAAAABAVaAAAAAAAAACAAAAAGAAAAYnlOYW1lAR4AAAABIQAAAAV6AAAAAAAAABQAAAAEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEAwQAAAD/D0kCBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQBIQAAAAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQFjgAAAAAAAAAYAAAABAQEBAQEBAQEAwQAAAD/D0kCASEAAAAEBAQEBAWmAAAAAAAAABQAAAAEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAMEAAAA/w9JAgQEBAEhAAAABAQEBAQEBAQEBboAAAAAAAAAFQAAAAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQDBAAAAP8PSQIHAAAAYnlHcm91cAEBAAAAAQEAAAAFzwAAAAAAAAAgAAAABAAAAGxpc3QBBAAAAAQEBAMFAAAA/w8iAXgFAAAAY291bnQDBAAAAP8PSQjvAAAAAAAAAAgAAABGRlNOQVAyCg==';

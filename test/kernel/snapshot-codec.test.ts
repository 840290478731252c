/** The snapshot format (issue 16): a state encoded piece by piece decodes to the same value, holes and all. */
import v8 from 'node:v8';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { decodeState, emptyTable, encodeState, tableSet, type Table } from '@forgefold/core';

const roundTrip = (state: unknown): unknown => decodeState(Buffer.concat([...encodeState(state)]));

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

  it('still reads snapshots written whole by v8.serialize', () => {
    const holey: unknown[] = [1];
    holey[2] = 3;
    expect(decodeState(v8.serialize({ a: holey }))).toStrictEqual({ a: holey });
  });
});

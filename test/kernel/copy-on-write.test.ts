/**
 * A batch's copy-on-write fold (kernel/batch-fold.ts; issue 16, branch `writefast`): the events the modules admit (a
 * top-level group creation, an added membership) are folded without immer, by the same evolve. Whatever the commands
 * and however they are batched, the state is immer's: deep equal, the same hash, frozen the same way; nothing of the
 * committed state is written in place (the server runs unfrozen, where nothing would throw); and what no event wrote
 * is still shared with the state before.
 */
import { describe, expect, it } from 'vitest';
import { produce } from 'immer';
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import {
  Application,
  composeModules,
  emptyTable,
  forgefold,
  InMemoryEventStore,
  stateHash,
  tableEntries,
  tableGet,
  tableGetOrCreate,
  tableIsEmpty,
  tableOf,
  tableSet,
  tableSetIn,
  withOwned,
  type Actor,
  type AnyModule,
  type ForgefoldCommand,
  type State,
  type Table,
} from '@forgefold/core';
import { as, letterUser, system, userCommand } from '../core/fixtures.js';

const start = (copyOnWrite: boolean, freeze: boolean) => {
  let n = 0;
  return Application.start<ForgefoldCommand, State>({
    ...forgefold,
    store: new InMemoryEventStore(),
    clock: { now: () => '2026-11-26T00:00:00.000Z' },
    ids: { eventId: () => `event-${n++}` },
    copyOnWrite,
    freeze,
  });
};

/** Whether each array and plain object of `value`, in walk order, is frozen. */
const frozenness = (value: unknown, out: boolean[] = [], seen = new Set<object>()): boolean[] => {
  if (value === null || typeof value !== 'object' || seen.has(value)) return out;
  seen.add(value);
  out.push(Object.isFrozen(value));
  for (const key of Object.keys(value)) frozenness((value as Record<string, unknown>)[key], out, seen);
  return out;
};

const gid = fc.integer({ min: 7, max: 11 });
const src = fc.oneof(fc.record({ source_type: fc.constant('Namespace' as const), source_id: gid }), fc.record({ source_type: fc.constant('Project' as const), source_id: fc.integer({ min: 1, max: 3 }) }));
const level = fc.constantFrom(5, 10, 20, 30, 40, 50);
const user = fc.integer({ min: 1, max: 5 });
const actor = fc.integer({ min: 1, max: 6 });
const path = fc.constantFrom('gg', 'hh', 'kk', 'mm');

/** Group creations and memberships (the copy-on-write path) among commands that fold under immer. */
const stepArb: fc.Arbitrary<{ actor: number | null; command: ForgefoldCommand }> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ actor, command: fc.record({ type: fc.constant('CreateGroup' as const), name: path, path, parent_id: fc.option(gid, { nil: undefined, freq: 3 }), visibility: fc.constantFrom('public' as const, 'internal' as const, 'private' as const) }) }) },
  { weight: 6, arbitrary: fc.record({ actor, command: fc.tuple(src, user, level, fc.option(fc.constant('2026-12-01'), { nil: undefined, freq: 3 })).map(([s, u, l, x]) => ({ type: 'AddMember' as const, ...s, user_id: u, access_level: l, expires_at: x })) }) },
  { weight: 2, arbitrary: fc.record({ actor, command: fc.tuple(src, level).map(([s, l]) => ({ type: 'InviteMembers' as const, ...s, emails: ['inv@example.com'], access_level: l })) }) },
  { weight: 3, arbitrary: fc.record({ actor: user, command: src.map((s) => ({ type: 'RequestAccess' as const, ...s })) }) },
  { weight: 2, arbitrary: fc.record({ actor, command: fc.tuple(src, user).map(([s, u]) => ({ type: 'ApproveAccessRequest' as const, ...s, user_id: u })) }) },
  { weight: 2, arbitrary: fc.record({ actor, command: fc.tuple(src, user).map(([s, u]) => ({ type: 'RemoveMember' as const, ...s, user_id: u })) }) },
  { weight: 2, arbitrary: fc.record({ actor, command: fc.tuple(gid, gid, level).map(([g, w, l]) => ({ type: 'ShareGroup' as const, group_id: g, shared_with_group_id: w, group_access: l })) }) },
  { weight: 2, arbitrary: fc.record({ actor, command: fc.record({ type: fc.constant('CreateProject' as const), path: fc.constantFrom('p', 'q'), namespace_id: gid }) }) },
  fc.record({ actor, command: fc.tuple(gid, path).map(([g, p]) => ({ type: 'UpdateGroup' as const, id: g, path: p })) }),
  fc.record({ actor, command: fc.record({ type: fc.constant('DeleteGroup' as const), id: gid }) }),
  fc.record({ actor: fc.constant(null), command: fc.record({ type: fc.constant('BlockUser' as const), id: fc.integer({ min: 2, max: 5 }) }) }),
  // Review of the users audit: deactivation, tokens and their first use (at most one AccessTokenUsed per token here,
  // where the clock does not move).
  fc.record({ actor: fc.constant(null), command: fc.record({ type: fc.constantFrom('DeactivateUser' as const, 'ActivateUser' as const, 'UnblockUser' as const), id: fc.integer({ min: 2, max: 5 }) }) }),
  {
    weight: 2,
    arbitrary: fc.record({
      actor: fc.constant(6),
      command: fc.tuple(user, fc.integer({ min: 0, max: 1_000_000 })).map(([u, n]) => ({ type: 'CreatePersonalAccessToken' as const, user_id: u, name: 't', scopes: ['api'], expires_at: null, token_digest: n.toString(16).padStart(64, '0'), impersonation: false })),
    }),
  },
  { weight: 3, arbitrary: fc.record({ actor: fc.constant(null), command: fc.record({ type: fc.constant('RecordAccessTokenUse' as const), id: fc.integer({ min: 1, max: 4 }) }) }) },
);

let tokenUses = 0;
const actorOf = (id: number | null): Actor => (id === null ? system : as(id));

describe('copy-on-write folding of a batch', () => {
  it('yields immer’s state, frozen the same way, and writes nothing committed in place (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(stepArb, { minLength: 1, maxLength: 8 }), { minLength: 4, maxLength: 14 }), fc.boolean(), async (batches, freeze) => {
        const uses: number[] = [];
        const copying = await start(true, freeze);
        const drafting = await start(false, freeze);
        for (const app of [copying, drafting]) {
          for (const name of ['a', 'b', 'c', 'd', 'e']) await app.execute(system, letterUser(name));
          await app.execute(system, userCommand('boss', { is_admin: true }));
        }
        for (const batch of batches) {
          const before = copying.state;
          const hashBefore = stateHash(before);
          // Each batch is executed at once, so that its commands are decided and folded in one commit.
          const [copied, drafted] = await Promise.all([copying, drafting].map((app) => Promise.all(batch.map(({ actor: id, command }) => app.execute(actorOf(id), command)))));
          expect(copied!.map((result) => (E.isLeft(result) ? result.left : result.right.events.map((event) => event.data)))).toEqual(
            drafted!.map((result) => (E.isLeft(result) ? result.left : result.right.events.map((event) => event.data))),
          );
          expect(copying.state).toEqual(drafting.state);
          uses.push(...copied!.flatMap((result) => (E.isLeft(result) ? [] : result.right.events.filter((event) => event.type === 'AccessTokenUsed').map((event) => (event.data as { id: number }).id))));
          expect(new Set(uses).size).toBe(uses.length);
          tokenUses += uses.length;
          expect(stateHash(copying.state)).toBe(stateHash(drafting.state));
          expect(frozenness(copying.state)).toEqual(frozenness(drafting.state));
          // Unfrozen, a write in place into the committed state would not throw: the state before is as it was.
          expect(stateHash(before)).toBe(hashBefore);
        }
      }),
      { numRuns: 40 },
    );
    // The generator reaches a token's first use.
    expect(tokenUses).toBeGreaterThan(0);
  });

  it('shares with the state before what the batch did not write', async () => {
    const app = await start(true, true);
    await app.execute(system, userCommand('alice'));
    await app.execute(as(1), { type: 'CreateGroup', name: 'First', path: 'first' });
    const before = app.state;
    await Promise.all([1, 2, 3].map((i) => app.execute(as(1), { type: 'CreateGroup', name: `G${i}`, path: `g${i}` })));
    const after = app.state;
    expect(after.groups.count).toBe(before.groups.count + 3);
    // Slices the events do not write, and the untouched tables of the slices they write, are the same objects.
    expect(after.users).toBe(before.users);
    expect(after.tokens).toBe(before.tokens);
    expect(after.projects).toBe(before.projects);
    expect(after.members.links).toBe(before.members.links);
    expect(after.members.accessRequests).toBe(before.members.accessRequests);
    expect(after.groups.internalIds).toBe(before.groups.internalIds);
    expect(after.groups.byId).not.toBe(before.groups.byId);
    expect(Object.isFrozen(after.groups.byId)).toBe(true);
  });

  it('copies a table on its first write into its slice, and refuses to write a table the fold does not own', () => {
    const written = emptyTable<number>();
    tableSet(written, 5, 1);
    const other = emptyTable<number>();
    const slice: Record<string, unknown> = { written, other };
    const nodes = new Set<object>();
    withOwned({ nodes, roots: new Map([[written as object, { slice, field: 'written' }]]) }, () => {
      tableSet(slice['written'] as Table<number>, 6, 2);
      tableSet(slice['written'] as Table<number>, 7000, 3);
      // A table reached otherwise than through an owned slice or node (as `tableGet` hands one out) is not written.
      expect(() => tableSet(other, 1, 1)).toThrow(/does not own/);
    });
    expect(slice['written']).not.toBe(written);
    expect([...tableEntries(slice['written'] as Table<number>)]).toEqual([['5', 1], ['6', 2], ['7000', 3]]);
    expect([...tableEntries(written)]).toEqual([['5', 1]]);
    expect(tableIsEmpty(other)).toBe(true);
    // Outside the fold the helpers write in place, as before.
    tableSet(other, 1, 1);
    expect(tableIsEmpty(other)).toBe(false);
  });

  it('owns a nested table it makes with its first entry, writes it in place after, and copies what was committed (tableSetIn)', () => {
    /** Every array (node) of `value`, at any depth. */
    const arrays = (value: unknown, out: object[] = []): object[] => {
      if (!Array.isArray(value)) return out;
      out.push(value);
      for (const key of Object.keys(value)) arrays(value[Number(key)], out);
      return out;
    };
    const deepFreeze = (value: unknown): void => {
      if (value === null || typeof value !== 'object') return;
      Object.freeze(value);
      for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
    };
    // A group's effective table stored empty (as `onGroupCreated` stores it), another holding a user, committed (frozen:
    // a write in place throws).
    const committed = emptyTable<Table<number>>();
    tableSet(committed, 3, emptyTable<number>());
    tableSet(committed, 4, tableOf(8, 1));
    tableSet(committed, 6, tableOf(8, 1));
    deepFreeze(committed);
    const hashBefore = stateHash(committed);
    // Member ids near 1e6 (the new inner table's root, at index ~950, is made sparse); a table stored empty; one
    // holding an entry; a key with none.
    const writes = [[900_001, 975_010, 1], [900_001, 975_011, 2], [3, 975_012, 3], [4, 9, 4], [5, 7, 5]] as const;
    const slice: Record<string, unknown> = { index: committed };
    const nodes = new Set<object>();
    const index = () => slice['index'] as Table<Table<number>>;
    withOwned({ nodes, roots: new Map([[committed as object, { slice, field: 'index' }]]) }, () => {
      const [[key, id, value], ...rest] = writes;
      tableSetIn(index(), key, id, value);
      const made = tableGet(index(), key)!;
      // Every node of the table made with its entry is the fold's own: the next write lands in it, not in a copy.
      expect(arrays(made).every((node) => nodes.has(node))).toBe(true);
      for (const [k, i, v] of rest) tableSetIn(index(), k, i, v);
      expect(tableGet(index(), key)).toBe(made);
    });
    expect(stateHash(committed)).toBe(hashBefore);
    // What immer makes of the same writes, and what getting or creating the inner table and setting into it made.
    const drafted = produce({ index: committed }, (draft) => {
      for (const [key, id, value] of writes) tableSetIn(draft.index, key, id, value);
    });
    const former = produce({ index: committed }, (draft) => {
      for (const [key, id, value] of writes) tableSet(tableGetOrCreate(draft.index, key, emptyTable<number>), id, value);
    });
    expect(stateHash(index())).toBe(stateHash(drafted.index));
    const contents = (tables: Table<Table<number>>) => [...tableEntries(tables)].map(([key, inner]) => [key, [...tableEntries(inner)]]);
    expect(contents(index())).toEqual(contents(former.index));
    expect(index()).toStrictEqual(drafted.index);
    expect([...tableEntries(tableGet(index(), 4)!)]).toEqual([['8', 1], ['9', 4]]);
    // An inner table no write reached is still the committed one.
    expect(tableGet(index(), 6)).toBe(tableGet(committed, 6));
  });

  it('admits an event only when every module applying it lists it, under all their conditions', () => {
    expect([...forgefold.decider.copyOnWrite!.keys()].sort()).toEqual(['GroupCreated', 'MemberAdded']);
    expect(forgefold.decider.copyOnWrite!.get('GroupCreated')!.slices).toEqual(['sequences', 'groups', 'members']);
    expect(forgefold.decider.copyOnWrite!.get('MemberAdded')!.slices).toEqual(['sequences', 'members']);

    type Toy = { readonly notes: Table<string>; readonly tags: Table<number> };
    type Noted = { readonly type: 'Noted'; readonly data: { readonly id: number } };
    const notes: AnyModule<Toy> = {
      name: 'notes',
      version: 1,
      initial: () => ({ notes: emptyTable() }),
      events: { Noted: { version: 1, stream: (data: { id: number }) => `note-${data.id}`, codec: t.type({ id: t.number }) } },
      commands: [],
      decide: () => E.right([]),
      evolve: ((state: { notes: Table<string> }, event: Noted) => tableSet(state.notes, event.data.id, 'x')) as AnyModule<Toy>['evolve'],
      copyOnWrite: { Noted: ((_state: Toy, event: Noted) => event.data.id > 0) as (state: never, event: never) => boolean },
    };
    const follower = (listed: boolean): AnyModule<Toy> => ({
      name: 'tags',
      version: 1,
      initial: () => ({ tags: emptyTable() }),
      events: {},
      commands: [],
      decide: () => E.right([]),
      evolve: () => undefined,
      follows: { Noted: ((state: { tags: Table<number> }, event: Noted) => tableSet(state.tags, event.data.id, 1)) as (state: never, event: never) => void },
      ...(listed ? { copyOnWrite: { Noted: ((_state: Toy, event: Noted) => event.data.id < 10) as (state: never, event: never) => boolean } } : {}),
    });
    const compose = (listed: boolean) => composeModules<{ type: string }, Toy>('toy', [notes, follower(listed)], { initial: () => ({}) }).decider.copyOnWrite!;
    // A follower that does not list the event keeps it under immer.
    expect(compose(false).has('Noted')).toBe(false);
    const rule = compose(true).get('Noted')!;
    expect(rule.slices).toEqual(['notes', 'tags']);
    const state = { notes: emptyTable<string>(), tags: emptyTable<number>() };
    expect([0, 5, 10].map((id) => rule.when(state, { type: 'Noted', data: { id } }))).toEqual([false, true, false]);
  });
});

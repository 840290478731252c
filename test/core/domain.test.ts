import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import {
  accessRequestsOf,
  Application,
  directMembership,
  findGroupByFullPath,
  findProjectByFullPath,
  findUserByUsername,
  forgefold,
  groupAccessLevel,
  membersOfSource,
  projectAccessLevel,
  canReadGroup,
  listGroups,
  type ForgefoldCommand,
  type State,
} from '@forgefold/core';
import { as, makeApp, system, userCommand } from './fixtures.js';

const replay = async (store: import('@forgefold/core').EventStore) =>
  (await Application.start<ForgefoldCommand, State>({ ...forgefold, store, clock: { now: () => '' }, ids: { eventId: () => '' } })).state;

describe('identity and namespaces', () => {
  it('makes the group creator an owner, and a personal project owner a direct maintainer', async () => {
    const { app, ok } = await makeApp();
    await ok(system, userCommand('root', { is_admin: true }));
    await ok(system, userCommand('alice'));
    const alice = findUserByUsername(app.state.users, 'ALICE')!;
    await ok(as(alice.id), { type: 'CreateGroup', name: 'Parent', path: 'parent' });
    const parent = findGroupByFullPath(app.state.groups, 'Parent')!;
    expect(directMembership(app.state.members, 'Namespace', parent.id, alice.id)?.access_level).toBe(50);
    await ok(as(alice.id), { type: 'CreateGroup', name: 'Child', path: 'child', parent_id: parent.id });
    const child = findGroupByFullPath(app.state.groups, 'parent/child')!;
    expect(child.full_name).toBe('Parent / Child');
    await ok(as(alice.id), { type: 'CreateProject', name: 'Grouped', namespace_id: child.id });
    const grouped = findProjectByFullPath(app.state.projects, 'parent/child/grouped')!;
    expect([...membersOfSource(app.state.members, 'Project', grouped.id)]).toEqual([]);
    expect(projectAccessLevel(app.state, grouped, alice.id)).toBe(50);
    await ok(as(alice.id), { type: 'CreateProject', name: 'Mine' });
    const mine = findProjectByFullPath(app.state.projects, 'alice/mine')!;
    expect(directMembership(app.state.members, 'Project', mine.id, alice.id)?.access_level).toBe(40);
  });

  it('renaming a group moves the full paths of its subgroups and projects', async () => {
    const { app, ok } = await makeApp();
    await ok(system, userCommand('alice'));
    await ok(as(1), { type: 'CreateGroup', name: 'A', path: 'aa' });
    await ok(as(1), { type: 'CreateGroup', name: 'B', path: 'bb', parent_id: 2 });
    await ok(as(1), { type: 'CreateProject', path: 'p', namespace_id: 3 });
    await ok(as(1), { type: 'UpdateGroup', id: 2, path: 'zz', name: 'Z' });
    expect(findProjectByFullPath(app.state.projects, 'zz/bb/p')?.name_with_namespace).toBe('Z / B / p');
    expect(findGroupByFullPath(app.state.groups, 'aa/bb')).toBeUndefined();
  });

  it('a membership added ends a pending access request, in its own batch as after it', async () => {
    const { app, ok } = await makeApp();
    await ok(system, userCommand('alice'));
    await ok(system, userCommand('bob'));
    await ok(system, userCommand('carol'));
    await ok(as(1), { type: 'CreateGroup', name: 'G', path: 'gg', visibility: 'public' });
    await ok(as(1), { type: 'CreateGroup', name: 'H', path: 'hh', visibility: 'public' });
    const group = findGroupByFullPath(app.state.groups, 'gg')!;
    const other = findGroupByFullPath(app.state.groups, 'hh')!;
    await ok(as(2), { type: 'RequestAccess', source_type: 'Namespace', source_id: group.id });
    // One batch: carol's request is folded into the draft before her membership is.
    await Promise.all([
      ok(as(3), { type: 'RequestAccess', source_type: 'Namespace', source_id: other.id }),
      ok(as(1), { type: 'AddMember', source_type: 'Namespace', source_id: other.id, user_id: 3, access_level: 30 }),
      ok(as(1), { type: 'AddMember', source_type: 'Namespace', source_id: group.id, user_id: 2, access_level: 30 }),
    ]);
    expect(accessRequestsOf(app.state, 'Namespace', group.id)).toEqual([]);
    expect(accessRequestsOf(app.state, 'Namespace', other.id)).toEqual([]);
  });

  it('a group creation sees a username taken earlier in its own batch (read past the batch draft)', async () => {
    const { app, ok } = await makeApp();
    await ok(system, userCommand('alice'));
    // One batch: the user is folded into the draft before the group creations are decided.
    const [carol, taken, free, again] = await Promise.all([
      app.execute(system, userCommand('carol')),
      app.execute(as(1), { type: 'CreateGroup', name: 'Carol', path: 'CAROL' }),
      app.execute(as(1), { type: 'CreateGroup', name: 'Free', path: 'free' }),
      app.execute(as(1), { type: 'CreateGroup', name: 'Free', path: 'free' }),
    ]);
    expect(E.isRight(carol!)).toBe(true);
    expect(taken).toEqual(E.left({ _tag: 'BadRequest', message: 'Failed to save group {:path=>["has already been taken"]}' }));
    expect(E.isRight(free!)).toBe(true);
    expect(again).toEqual(E.left({ _tag: 'BadRequest', message: 'Failed to save group {:path=>["has already been taken"]}' }));
    expect(findGroupByFullPath(app.state.groups, 'carol')).toBeUndefined();
  });

  it('keeps private groups from strangers and rejects taken paths in the platform words', async () => {
    const { app, ok, run } = await makeApp();
    await ok(system, userCommand('alice'));
    await ok(system, userCommand('bob'));
    await ok(as(1), { type: 'CreateGroup', name: 'Secret', path: 'secret' });
    const secret = findGroupByFullPath(app.state.groups, 'secret')!;
    expect(canReadGroup(app.state, 2, secret)).toBe(false);
    expect(canReadGroup(app.state, 1, secret)).toBe(true);
    const taken = await run(as(2), { type: 'CreateGroup', name: 'Secret', path: 'secret' });
    expect(taken).toEqual(E.left({ _tag: 'BadRequest', message: 'Failed to save group {:path=>["has already been taken"]}' }));
    expect(E.isLeft(await run(as(2), { type: 'CreateUser', username: 'xx', name: 'x', email: 'x@example.com', password_digest: null }))).toBe(true);
    const dup = await run(system, userCommand('ALICE', { email: 'other@example.com' }));
    expect(dup).toEqual(E.left({ _tag: 'Conflict', message: 'Username has already been taken' }));
  });

  it('deleting a group deletes its subtree and ends every membership in it with explicit events', async () => {
    const { app, ok } = await makeApp();
    await ok(system, userCommand('alice'));
    await ok(as(1), { type: 'CreateGroup', name: 'A', path: 'aa' });
    await ok(as(1), { type: 'CreateGroup', name: 'B', path: 'bb', parent_id: 2 });
    await ok(as(1), { type: 'CreateProject', path: 'p', namespace_id: 3 });
    const result = await ok(as(1), { type: 'DeleteGroup', id: 2 });
    expect(result.events.map((e) => e.type)).toEqual(['ProjectDeleted', 'MemberRemoved', 'GroupDeleted', 'MemberRemoved', 'GroupDeleted']);
    expect(app.state.groups.count).toBe(0);
    expect(app.state.projects.count).toBe(0);
  });
});

/** Random command sequences over a small universe of names, so that collisions and denials happen often. */
const commandArb: fc.Arbitrary<{ actor: number | null; command: ForgefoldCommand }> = fc.oneof(
  fc.record({ actor: fc.constant(null), command: fc.constantFrom(...['aa', 'bb', 'cc', 'dd'].map((u) => userCommand(u))) }),
  fc.record({
    actor: fc.integer({ min: 1, max: 4 }),
    command: fc.record({ type: fc.constant('CreateGroup' as const), name: fc.constantFrom('G', 'H'), path: fc.constantFrom('gg', 'hh', 'kk'), parent_id: fc.option(fc.integer({ min: 1, max: 12 }), { nil: undefined }) }),
  }),
  fc.record({ actor: fc.integer({ min: 1, max: 4 }), command: fc.record({ type: fc.constant('CreateProject' as const), path: fc.constantFrom('p', 'q'), namespace_id: fc.option(fc.integer({ min: 1, max: 12 }), { nil: undefined }) }) }),
  fc.record({ actor: fc.integer({ min: 1, max: 4 }), command: fc.record({ type: fc.constant('UpdateGroup' as const), id: fc.integer({ min: 1, max: 12 }), path: fc.constantFrom('gg', 'xx', 'yy') }) }),
  fc.record({ actor: fc.integer({ min: 1, max: 4 }), command: fc.record({ type: fc.constant('DeleteGroup' as const), id: fc.integer({ min: 1, max: 12 }) }) }),
  fc.record({ actor: fc.integer({ min: 1, max: 4 }), command: fc.record({ type: fc.constant('DeleteProject' as const), id: fc.integer({ min: 1, max: 6 }) }) }),
  fc.record({ actor: fc.constant(null), command: fc.record({ type: fc.constant('DeleteUser' as const), id: fc.integer({ min: 1, max: 4 }) }) }),
);

describe('properties', () => {
  it('replaying the log yields the projections of live execution, and top-level groups keep an owner', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(commandArb, { maxLength: 40 }), async (steps) => {
        const { app, store } = await makeApp();
        // Concurrent submission exercises group commit; order within the batch is preserved.
        await Promise.all(steps.map(({ actor, command }) => app.execute(actor === null ? system : as(actor), command)));
        const replayed = await replay(store);
        expect(replayed).toEqual(app.state);
        {
          for (const group of listGroups(app.state.groups)) {
            if (group.parent_id === null) {
              const owners = [...membersOfSource(app.state.members, 'Namespace', group.id)].filter((m) => m.access_level === 50);
              expect(owners.length).toBeGreaterThan(0);
            }
            // Effective access is the maximum over the hierarchy.
            for (const userId of [1, 2, 3, 4]) {
              const direct = directMembership(app.state.members, 'Namespace', group.id, userId)?.access_level ?? 0;
              expect(groupAccessLevel(app.state, group, userId)).toBeGreaterThanOrEqual(direct);
            }
          }
        }
      }),
      { numRuns: 60 },
    );
  });
});

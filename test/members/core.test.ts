import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import {
  Application,
  billableCount,
  directMembership,
  effectiveCount,
  effectiveGroupMember,
  effectiveUserIds,
  findGroup,
  findUser,
  forgefold,
  groupAccessLevel,
  isBillable,
  linksOfSource,
  membersAsOf,
  membershipHistory,
  membersOfSource,
  pendingMembers,
  projectAccessLevel,
  findProject,
  selfAndAncestors,
  listGroups,
  listProjects,
  listUsers,
  membershipsOfUser,
  sourceIndex,
  type ForgefoldCommand,
  type State,
  type EventStore,
  type Group,
  tableGet,
  projectMembersPage,
  effectiveProjectMembers,
  tableIds,
  tableValues,
  tableSize,
  tableSet,
  tableEntries,
  emptyTable,
  InMemorySnapshotStore,
  type Table,
} from '@forgefold/core';
import { as, letterUser, makeApp, system, userCommand } from '../core/fixtures.js';

const replay = async (store: EventStore) =>
  (await Application.start<ForgefoldCommand, State>({ ...forgefold, store, clock: { now: () => '' }, ids: { eventId: () => '' } })).state;

const DAY = 86_400_000;

/** root(1) alice admin-less owner; groups: 3 parent, 4 child (ids drawn from the namespace sequence). */
const setup = async () => {
  const fx = await makeApp();
  const { ok, app } = fx;
  for (const name of ['alice', 'bob', 'carol', 'dave', 'erin']) await ok(system, userCommand(name));
  await ok(system, userCommand('root', { is_admin: true }));
  const alice = 1;
  await ok(as(alice), { type: 'CreateGroup', name: 'Parent', path: 'parent' });
  const parent = [...listGroups(app.state.groups)].find((g) => g.path === 'parent')!.id;
  await ok(as(alice), { type: 'CreateGroup', name: 'Child', path: 'child', parent_id: parent });
  const child = [...listGroups(app.state.groups)].find((g) => g.path === 'child')!.id;
  await ok(as(alice), { type: 'CreateProject', path: 'proj', namespace_id: child });
  const project = [...listProjects(app.state.projects)][0]!.id;
  return { ...fx, parent, child, project };
};

describe('members: add, update, remove', () => {
  it('adds, rejects duplicates and lower-than-inherited levels in the platform words', async () => {
    const { run, ok, app, parent, child, project } = await setup();
    await ok(as(1), { type: 'AddMember', source_type: 'Namespace', source_id: parent, user_id: 2, access_level: 30 });
    expect(await run(as(1), { type: 'AddMember', source_type: 'Namespace', source_id: parent, user_id: 2, access_level: 30 })).toEqual(E.left({ _tag: 'Conflict', message: 'Member already exists' }));
    expect(await run(as(1), { type: 'AddMember', source_type: 'Namespace', source_id: child, user_id: 2, access_level: 20 })).toEqual(
      E.left({ _tag: 'Validation', errors: { access_level: ['should be greater than or equal to Developer inherited membership from group Parent'] } }),
    );
    expect(await run(as(1), { type: 'AddMember', source_type: 'Project', source_id: project, user_id: 3, access_level: 50 })).toEqual(
      E.left({ _tag: 'Validation', errors: { access_level: ['is not included in the list'] } }),
    );
    expect(await run(as(1), { type: 'AddMember', source_type: 'Namespace', source_id: child, user_id: 3, access_level: 5 })).toEqual(
      E.left({ _tag: 'Validation', errors: { access_level: ['is not included in the list', 'supported on top level groups only'] } }),
    );
    expect(await run(as(1), { type: 'AddMember', source_type: 'Namespace', source_id: parent, user_id: 3, access_level: 30, expires_at: '2025-12-31' })).toEqual(
      E.left({ _tag: 'Validation', errors: { expires_at: ['cannot be a date in the past'] } }),
    );
    expect(await run(as(1), { type: 'AddMember', source_type: 'Namespace', source_id: parent, user_id: 99, access_level: 30 })).toEqual(E.left({ _tag: 'NotFound', resource: 'User', message: undefined }));
    // Developers may not add members; maintainers may not add group members (owners only), but may add project members.
    expect(E.isLeft(await run(as(2), { type: 'AddMember', source_type: 'Namespace', source_id: parent, user_id: 3, access_level: 10 }))).toBe(true);
    await ok(as(1), { type: 'UpdateMember', source_type: 'Namespace', source_id: parent, user_id: 2, access_level: 40 });
    expect(await run(as(2), { type: 'AddMember', source_type: 'Namespace', source_id: parent, user_id: 3, access_level: 10 })).toEqual(E.left({ _tag: 'Forbidden', reason: undefined }));
    await ok(as(2), { type: 'AddMember', source_type: 'Project', source_id: project, user_id: 3, access_level: 40 });
    expect(projectAccessLevel(app.state, findProject(app.state.projects, project)!, 3)).toBe(40);
  });

  it('protects the last owner, lets members remove themselves, and removes subresources by default', async () => {
    const { run, ok, app, parent, child, project } = await setup();
    expect(await run(as(1), { type: 'RemoveMember', source_type: 'Namespace', source_id: parent, user_id: 1 })).toEqual(E.left({ _tag: 'Forbidden', reason: undefined }));
    expect(await run(as(6), { type: 'UpdateMember', source_type: 'Namespace', source_id: parent, user_id: 1, access_level: 30 })).toEqual(E.left({ _tag: 'Forbidden', reason: undefined }));
    await ok(as(1), { type: 'AddMember', source_type: 'Namespace', source_id: parent, user_id: 2, access_level: 30 });
    await ok(as(1), { type: 'AddMember', source_type: 'Namespace', source_id: child, user_id: 2, access_level: 40 });
    await ok(as(1), { type: 'AddMember', source_type: 'Project', source_id: project, user_id: 2, access_level: 40 });
    expect(await run(as(3), { type: 'RemoveMember', source_type: 'Namespace', source_id: parent, user_id: 2 })).toEqual(E.left({ _tag: 'Forbidden', reason: undefined }));
    expect(await run(as(3), { type: 'RemoveMember', source_type: 'Namespace', source_id: parent, user_id: 4 })).toEqual(E.left({ _tag: 'NotFound', resource: undefined, message: '404 Not found' }));
    await ok(as(2), { type: 'RemoveMember', source_type: 'Namespace', source_id: parent, user_id: 2 });
    expect(directMembership(app.state.members, 'Namespace', child, 2)).toBeUndefined();
    expect(directMembership(app.state.members, 'Project', project, 2)).toBeUndefined();
    await ok(as(1), { type: 'AddMember', source_type: 'Namespace', source_id: parent, user_id: 2, access_level: 30 });
    await ok(as(1), { type: 'AddMember', source_type: 'Namespace', source_id: child, user_id: 2, access_level: 40 });
    await ok(as(1), { type: 'RemoveMember', source_type: 'Namespace', source_id: parent, user_id: 2, skip_subresources: true });
    expect(directMembership(app.state.members, 'Namespace', child, 2)?.access_level).toBe(40);
    // A second owner makes the first removable.
    await ok(as(1), { type: 'AddMember', source_type: 'Namespace', source_id: parent, user_id: 3, access_level: 50 });
    await ok(as(1), { type: 'RemoveMember', source_type: 'Namespace', source_id: parent, user_id: 1 });
    expect(groupAccessLevel(app.state, findGroup(app.state.groups, parent)!, 1)).toBe(0);
  });

  it('multiple adds update existing members by id and drop usernames', async () => {
    const { ok, app, parent } = await setup();
    await ok(as(1), { type: 'AddMember', source_type: 'Namespace', source_id: parent, user_id: 2, access_level: 10 });
    // A username is no user id nor an address: `parse_users_list` drops it.
    await ok(as(1), { type: 'AddMembers', source_type: 'Namespace', source_id: parent, user_ids: ['2', '3', 'dave'], access_level: 20 });
    expect([2, 3, 4].map((u) => directMembership(app.state.members, 'Namespace', parent, u)?.access_level)).toEqual([20, 20, undefined]);
    await ok(as(1), { type: 'AddMembers', source_type: 'Namespace', source_id: parent, user_ids: ['4', '2'], access_level: 30 });
    expect([2, 3, 4].map((u) => directMembership(app.state.members, 'Namespace', parent, u)?.access_level)).toEqual([30, 20, 30]);
  });
});

describe('direct members by source (members projections 4 and 5: integer keys and values)', () => {
  it('keeps a group and a project of the same id apart', async () => {
    const { ok, app, child } = await setup();
    // Projects number from 1 of their own: create them until one has the child group's id.
    let project = [...listProjects(app.state.projects)][0]!.id;
    while (project < child) {
      await ok(as(1), { type: 'CreateProject', path: `p${project}`, namespace_id: child });
      project = Math.max(...[...listProjects(app.state.projects)].map((p) => p.id));
    }
    expect(project).toBe(child);
    await ok(as(1), { type: 'AddMember', source_type: 'Project', source_id: project, user_id: 3, access_level: 30 });
    await ok(as(1), { type: 'AddMember', source_type: 'Namespace', source_id: child, user_id: 2, access_level: 20 });
    expect([...membersOfSource(app.state.members, 'Project', project)].map((m) => m.user_id)).toEqual([3]);
    expect([...membersOfSource(app.state.members, 'Namespace', child)].map((m) => m.user_id)).toEqual([1, 2]);
  });

  it('a snapshot of version 3 (sources keyed "Namespace:5") is not loaded: the state is replayed from the log', async () => {
    const { ok, app, store, parent } = await setup();
    await ok(as(1), { type: 'AddMember', source_type: 'Namespace', source_id: parent, user_id: 2, access_level: 30 });
    expect(forgefold.projectionVersion).toContain('/members.8/');
    // What the previous build saved: the same state with string source keys, under its projection version.
    const previous = structuredClone(app.state) as State;
    const byString: Table<Table<number>> = emptyTable();
    for (const [key, ids] of tableEntries(app.state.members.bySource)) {
      const n = Number(key);
      tableSet(byString, `${n % 2 === 0 ? 'Namespace' : 'Project'}:${Math.floor(n / 2)}`, ids);
    }
    (previous.members as { bySource: Table<Table<number>> }).bySource = byString;
    const snapshots = new InMemorySnapshotStore();
    await snapshots.save({ position: app.position, projectionVersion: forgefold.projectionVersion.replace('/members.8/', '/members.3/'), state: previous, takenAt: '2026-01-01T00:00:00.000Z' });
    const restarted = await Application.start<ForgefoldCommand, State>({ ...forgefold, store, snapshots, clock: { now: () => '' }, ids: { eventId: () => '' } });
    expect(restarted.position).toBe(app.position);
    expect([...membersOfSource(restarted.state.members, 'Namespace', parent)].map((m) => m.user_id)).toEqual([1, 2]);
    expect(JSON.stringify(restarted.state.members)).toBe(JSON.stringify(app.state.members));
  });

  it('a snapshot of version 4 (a user\'s memberships valued "Namespace:5") is not loaded: the state is replayed from the log', async () => {
    const { ok, app, store, parent, project } = await setup();
    await ok(as(1), { type: 'AddMember', source_type: 'Namespace', source_id: parent, user_id: 2, access_level: 30 });
    await ok(as(1), { type: 'AddMember', source_type: 'Project', source_id: project, user_id: 2, access_level: 30 });
    // Version 5: a membership's source as `sourceIndex` (a group's id doubled, a project's doubled plus one).
    const sources = [...tableEntries(tableGet(app.state.members.byUser, 2)!)];
    expect(sources).toEqual(
      [...membershipsOfUser(app.state.members, 2)].map((m) => [String(m.id), m.source_id * 2 + (m.source_type === 'Project' ? 1 : 0)]),
    );
    expect(sources.length).toBe(2);
    // What the previous build saved: the same state with source keys as the values, under its projection version.
    const previous = structuredClone(app.state) as State;
    const byKey: Table<Table<string>> = emptyTable();
    for (const [user, memberships] of tableEntries(app.state.members.byUser)) {
      const keyed: Table<string> = emptyTable();
      for (const [id, n] of tableEntries(memberships)) tableSet(keyed, Number(id), `${n % 2 === 0 ? 'Namespace' : 'Project'}:${Math.floor(n / 2)}`);
      tableSet(byKey, Number(user), keyed);
    }
    (previous.members as unknown as { byUser: Table<Table<string>> }).byUser = byKey;
    const snapshots = new InMemorySnapshotStore();
    await snapshots.save({ position: app.position, projectionVersion: forgefold.projectionVersion.replace('/members.8/', '/members.4/'), state: previous, takenAt: '2026-01-01T00:00:00.000Z' });
    const restarted = await Application.start<ForgefoldCommand, State>({ ...forgefold, store, snapshots, clock: { now: () => '' }, ids: { eventId: () => '' } });
    expect(restarted.position).toBe(app.position);
    expect([...tableEntries(tableGet(restarted.state.members.byUser, 2)!)]).toEqual(sources);
    expect(JSON.stringify(restarted.state.members)).toBe(JSON.stringify(app.state.members));
  });
});

describe('small inner tables (members projection 6)', () => {
  it('a snapshot of version 5 (inner tables as tries) is not loaded: the state is replayed from the log', async () => {
    const { ok, app, store, parent } = await setup();
    await ok(as(1), { type: 'AddMember', source_type: 'Namespace', source_id: parent, user_id: 2, access_level: 30 });
    // Version 6: an inner table made with its first entry is one small array.
    const inner = tableGet(app.state.members.byUser, 2)!;
    expect((inner as unknown as unknown[])[0]).toBe(-1);
    // What the previous build saved: the same entries, each inner table a trie, under its projection version.
    const previous = structuredClone(app.state) as State;
    const asTries: Table<Table<number>> = emptyTable();
    for (const [user, memberships] of tableEntries(app.state.members.byUser)) {
      const trie: Table<number> = emptyTable();
      for (const [id, n] of tableEntries(memberships)) tableSet(trie, Number(id), n);
      tableSet(asTries, Number(user), trie);
    }
    (previous.members as { byUser: Table<Table<number>> }).byUser = asTries;
    const snapshots = new InMemorySnapshotStore();
    await snapshots.save({ position: app.position, projectionVersion: forgefold.projectionVersion.replace('/members.8/', '/members.5/'), state: previous, takenAt: '2026-01-01T00:00:00.000Z' });
    const restarted = await Application.start<ForgefoldCommand, State>({ ...forgefold, store, snapshots, clock: { now: () => '' }, ids: { eventId: () => '' } });
    expect(restarted.position).toBe(app.position);
    expect((tableGet(restarted.state.members.byUser, 2) as unknown as unknown[])[0]).toBe(-1);
    expect(JSON.stringify(restarted.state.members)).toBe(JSON.stringify(app.state.members));
  });
});

describe('invitations, shares, expiry, cap, LDAP', () => {
  it('an invitation becomes a membership when the account is created', async () => {
    const { ok, app, parent } = await setup();
    await ok(as(1), { type: 'InviteMembers', source_type: 'Namespace', source_id: parent, emails: ['new@example.com', 'bob@example.com'], access_level: 30 });
    expect(directMembership(app.state.members, 'Namespace', parent, 2)?.access_level).toBe(30);
    expect(pendingMembers(app.state, findGroup(app.state.groups, parent)!).map((m) => m.invite_email)).toEqual(['new@example.com']);
    const created = await ok(system, userCommand('newbie', { email: 'NEW@example.com' }));
    expect(created.events.map((e) => e.type)).toEqual(['UserCreated', 'MemberInvitationAccepted']);
    const newbie = findUser(app.state.users, 7)!;
    expect(newbie.username).toBe('newbie');
    expect(groupAccessLevel(app.state, findGroup(app.state.groups, parent)!, newbie.id)).toBe(30);
  });

  it('shares grant access capped at group_access and list the invited members at that capped level', async () => {
    const { ok, run, app, parent, child, project } = await setup();
    await ok(as(2), { type: 'CreateGroup', name: 'Other', path: 'other' });
    const other = [...listGroups(app.state.groups)].find((g) => g.path === 'other')!.id;
    await ok(as(2), { type: 'AddMember', source_type: 'Namespace', source_id: other, user_id: 3, access_level: 40 });
    // alice cannot see the private group "other": 404 Not Found
    expect(await run(as(1), { type: 'ShareGroup', group_id: parent, shared_with_group_id: other, group_access: 20 })).toEqual(E.left({ _tag: 'NotFound', resource: undefined, message: 'Not Found' }));
    await ok(as(6), { type: 'ShareGroup', group_id: parent, shared_with_group_id: other, group_access: 20 });
    const parentGroup = findGroup(app.state.groups, parent)!;
    expect(groupAccessLevel(app.state, parentGroup, 3)).toBe(20);
    expect(groupAccessLevel(app.state, findGroup(app.state.groups, child)!, 3)).toBe(20);
    expect(effectiveGroupMember(app.state, parentGroup, 3)?.access_level).toBe(20);
    expect([...effectiveUserIds(app.state.members, parent)]).toEqual([1, 2, 3]);
    expect([...effectiveUserIds(app.state.members, child)]).toEqual([1]);
    expect(isBillable(app.state.members, parent, 3)).toBe(true);
    // Not with its own group or an ancestor (ProjectGroupLink#different_group); with another group.
    expect(await run(as(1), { type: 'ShareProject', project_id: project, group_id: parent, group_access: 30 })).toEqual(
      E.left({ _tag: 'Conflict', message: 'Project cannot be shared with the group it is in or one of its ancestors.' }),
    );
    await ok(as(1), { type: 'CreateGroup', name: 'Third', path: 'third' });
    const third = [...listGroups(app.state.groups)].find((g) => g.path === 'third')!.id;
    await ok(as(1), { type: 'ShareProject', project_id: project, group_id: third, group_access: 30 });
    expect([...linksOfSource(app.state.members, 'Project', project)].length).toBe(1);
    await ok(as(6), { type: 'UnshareGroup', group_id: parent, shared_with_group_id: other });
    expect(groupAccessLevel(app.state, parentGroup, 3)).toBe(0);
    expect(isBillable(app.state.members, parent, 3)).toBe(false);
    expect(await replay(fxStore(app))).toEqual(app.state);
  });

  it('billable membership types: group member, project member, group invite, project invite', async () => {
    const { ok, app, parent, project } = await setup();
    await ok(as(2), { type: 'CreateGroup', name: 'Ext', path: 'ext', visibility: 'internal' });
    const ext = [...listGroups(app.state.groups)].find((g) => g.path === 'ext')!.id;
    await ok(as(2), { type: 'AddMember', source_type: 'Namespace', source_id: ext, user_id: 3, access_level: 30 });
    await ok(as(2), { type: 'CreateGroup', name: 'Ext2', path: 'ext2', visibility: 'internal' });
    const ext2 = [...listGroups(app.state.groups)].find((g) => g.path === 'ext2')!.id;
    await ok(as(2), { type: 'AddMember', source_type: 'Namespace', source_id: ext2, user_id: 4, access_level: 30 });
    await ok(as(1), { type: 'AddMember', source_type: 'Project', source_id: project, user_id: 5, access_level: 20 });
    await ok(as(1), { type: 'ShareGroup', group_id: parent, shared_with_group_id: ext, group_access: 20 });
    await ok(as(1), { type: 'ShareProject', project_id: project, group_id: ext2, group_access: 20 });
    const root = findGroup(app.state.groups, parent)!;
    const { membershipType } = await import('@forgefold/core');
    expect([1, 5, 3, 4, 2].map((u) => membershipType(app.state, root, u))).toEqual(['group_member', 'project_member', 'group_invite', 'project_invite', 'group_invite']);
    // bob (2) owns both invited groups: billable through the shares too.
    expect([1, 2, 3, 4, 5].map((u) => isBillable(app.state.members, parent, u))).toEqual([true, true, true, true, true]);
    // The project lists its shared group's members (visible to the viewer), the group does not list the project's.
    const projectAll = effectiveProjectMembers(app.state, findProject(app.state.projects, project)!, () => true).map((m) => m.user_id);
    expect(projectAll).toEqual([1, 2, 4, 5]);
    expect([...effectiveUserIds(app.state.members, parent)]).toEqual([1, 2, 3]);
  });

  it('expiry: from the injected clock, ExpireMemberships records MemberExpired and the access ends', async () => {
    const { ok, app, parent, advance } = await setup();
    await ok(as(1), { type: 'AddMember', source_type: 'Namespace', source_id: parent, user_id: 2, access_level: 30, expires_at: '2026-01-03' });
    const group = findGroup(app.state.groups, parent)!;
    expect(groupAccessLevel(app.state, group, 2, '2026-01-02')).toBe(30);
    expect(groupAccessLevel(app.state, group, 2, '2026-01-03')).toBe(0);
    expect((await ok(system, { type: 'ExpireMemberships' })).events).toEqual([]);
    advance(2 * DAY);
    const result = await ok(system, { type: 'ExpireMemberships' });
    expect(result.events.map((e) => e.type)).toEqual(['MemberExpired']);
    expect(directMembership(app.state.members, 'Namespace', parent, 2)).toBeUndefined();
  });

  it('user cap: new members await approval; approval activates them across the hierarchy', async () => {
    const { ok, app, parent, child } = await setup();
    await ok(as(1), { type: 'UpdateGroup', id: parent, new_user_signups_cap: 2 });
    await ok(as(1), { type: 'AddMember', source_type: 'Namespace', source_id: parent, user_id: 2, access_level: 30 });
    expect(billableCount(app.state.members, parent)).toBe(2);
    await ok(as(1), { type: 'AddMember', source_type: 'Namespace', source_id: child, user_id: 3, access_level: 30 });
    await ok(as(1), { type: 'AddMember', source_type: 'Namespace', source_id: parent, user_id: 3, access_level: 30 });
    const awaiting = directMembership(app.state.members, 'Namespace', child, 3)!;
    expect(awaiting.state).toBe('awaiting');
    expect(groupAccessLevel(app.state, findGroup(app.state.groups, child)!, 3)).toBe(0);
    // An existing active member stays active anywhere in the hierarchy.
    await ok(as(1), { type: 'AddMember', source_type: 'Namespace', source_id: child, user_id: 2, access_level: 40 });
    expect(directMembership(app.state.members, 'Namespace', child, 2)!.state).toBe('active');
    const approved = await ok(as(1), { type: 'ApproveMember', group_id: parent, member_id: awaiting.id });
    expect(approved.events.map((e) => e.type)).toEqual(['MemberApproved', 'MemberApproved']);
    expect(groupAccessLevel(app.state, findGroup(app.state.groups, child)!, 3)).toBe(30);
  });

  it('LDAP: links, sync to the link level, override keeps a manual level, no links means 403', async () => {
    const { ok, run, app, parent } = await setup();
    expect(await run(as(1), { type: 'SetMemberOverride', group_id: parent, user_id: 1, override: true })).toEqual(E.left({ _tag: 'Forbidden', reason: undefined }));
    await ok(as(1), { type: 'AddLdapGroupLink', group_id: parent, cn: 'devs', group_access: 30, provider: 'ldapmain' });
    await ok(as(6), { type: 'SyncLdapGroup', group_id: parent, directory: [{ provider: 'ldapmain', cn: 'devs', user_ids: [2, 3] }] });
    expect(directMembership(app.state.members, 'Namespace', parent, 2)).toMatchObject({ access_level: 30, ldap: true });
    expect(await run(as(1), { type: 'UpdateMember', source_type: 'Namespace', source_id: parent, user_id: 2, access_level: 40 })).toEqual(E.left({ _tag: 'Forbidden', reason: undefined }));
    await ok(as(1), { type: 'SetMemberOverride', group_id: parent, user_id: 2, override: true });
    await ok(as(1), { type: 'UpdateMember', source_type: 'Namespace', source_id: parent, user_id: 2, access_level: 40 });
    await ok(as(6), { type: 'SyncLdapGroup', group_id: parent, directory: [{ provider: 'ldapmain', cn: 'devs', user_ids: [2] }] });
    expect(directMembership(app.state.members, 'Namespace', parent, 2)?.access_level).toBe(40);
    expect(directMembership(app.state.members, 'Namespace', parent, 3)).toBeUndefined();
    await ok(as(1), { type: 'SetMemberOverride', group_id: parent, user_id: 2, override: false });
    await ok(as(6), { type: 'SyncLdapGroup', group_id: parent, directory: [{ provider: 'ldapmain', cn: 'devs', user_ids: [2] }] });
    expect(directMembership(app.state.members, 'Namespace', parent, 2)?.access_level).toBe(30);
  });

  it('audit: history of a user and of a group, and members as of a past time', async () => {
    const { ok, app, parent, advance, store } = await setup();
    const t0 = new Date(Date.parse('2026-01-01T00:00:00.000Z') + 1000).toISOString();
    advance(DAY);
    await ok(as(1), { type: 'AddMember', source_type: 'Namespace', source_id: parent, user_id: 2, access_level: 30 });
    advance(DAY);
    await ok({ userId: 6, sudoFromId: null, origin: 'api' }, { type: 'UpdateMember', source_type: 'Namespace', source_id: parent, user_id: 2, access_level: 40 });
    advance(DAY);
    await ok(as(2), { type: 'RemoveMember', source_type: 'Namespace', source_id: parent, user_id: 2 });
    const history = await membershipHistory(store, { userId: 2 });
    expect(history.map((h) => [h.event, h.access_level, h.actor_id])).toEqual([
      ['MemberAdded', 30, 1],
      ['MemberAccessLevelChanged', 40, 6],
      ['MemberRemoved', undefined, 2],
    ]);
    const groupHistory = await membershipHistory(store, { groupId: parent });
    expect(groupHistory[0]).toMatchObject({ event: 'MemberAdded', user_id: 1, access_level: 50 });
    expect((await membersAsOf(store, { type: 'Namespace', id: parent }, t0))!.map((m) => m.user_id)).toEqual([1]);
    const dayTwo = new Date(Date.parse('2026-01-02T12:00:00.000Z')).toISOString();
    expect((await membersAsOf(store, { type: 'Namespace', id: parent }, dayTwo))!.map((m) => [m.user_id, m.access_level])).toEqual([[1, 50], [2, 30]]);
    expect((await membersAsOf(store, { type: 'Namespace', id: parent }, '2026-01-03T12:00:00.000Z'))!.map((m) => [m.user_id, m.access_level])).toEqual([[1, 50], [2, 40]]);
    void app;
  });
});

const fxStore = (app: Application<ForgefoldCommand, State>): EventStore => (app as unknown as { options: { store: EventStore } }).options.store;

// ---------------------------------------------------------------------------------------------------------------
// Properties

const gid = fc.integer({ min: 7, max: 10 });
const src = fc.oneof(fc.record({ source_type: fc.constant('Namespace' as const), source_id: gid }), fc.record({ source_type: fc.constant('Project' as const), source_id: fc.integer({ min: 1, max: 4 }) }));
const level = fc.constantFrom(5, 10, 20, 30, 40, 50);
const user = fc.integer({ min: 1, max: 5 });
const actor = fc.integer({ min: 1, max: 8 });

const memberCommandArb: fc.Arbitrary<{ actor: number | null; command: ForgefoldCommand }> = fc.oneof(
  fc.record({ actor: fc.constant(null), command: fc.constantFrom(userCommand('zz', { email: 'inv@example.com' })) }),
  fc.record({ actor, command: fc.record({ type: fc.constant('CreateGroup' as const), name: fc.constantFrom('G', 'H'), path: fc.constantFrom('gg', 'hh', 'kk'), parent_id: fc.option(gid, { nil: undefined }) }) }),
  fc.record({ actor, command: fc.record({ type: fc.constant('CreateProject' as const), path: fc.constantFrom('p', 'q'), namespace_id: gid }) }),
  { weight: 10, arbitrary: fc.record({ actor, command: fc.tuple(src, user, level).map(([s, u, l]) => ({ type: 'AddMember' as const, ...s, user_id: u, access_level: l })) }) },
  { weight: 2, arbitrary: fc.record({ actor, command: fc.tuple(gid, gid, level).map(([g, w, l]) => ({ type: 'ShareGroup' as const, group_id: g, shared_with_group_id: w, group_access: l })) }) },
  fc.record({ actor, command: fc.tuple(src, user, level, fc.option(fc.constantFrom('2026-01-02', '2026-01-05'), { nil: undefined })).map(([s, u, l, x]) => ({ type: 'UpdateMember' as const, ...s, user_id: u, access_level: l, expires_at: x })) }),
  fc.record({ actor, command: fc.tuple(src, user, fc.boolean()).map(([s, u, k]) => ({ type: 'RemoveMember' as const, ...s, user_id: u, skip_subresources: k })) }),
  fc.record({ actor, command: fc.tuple(src, level).map(([s, l]) => ({ type: 'InviteMembers' as const, ...s, emails: ['inv@example.com', 'c@example.com'], access_level: l })) }),
  // Comma lists of ids and addresses (users' in any case, invited ones, junk): each row is saved before the next, so a
  // list naming every owner leaves the last one (review h-rv1).
  {
    weight: 4,
    arbitrary: fc.record({
      actor,
      command: fc
        .tuple(src, fc.array(fc.constantFrom('1', '2', '3', '4', '5', 'a@example.com', 'B@example.com', 'c@example.com', 'inv@example.com', 'new@example.org', 'ee'), { minLength: 1, maxLength: 5 }), level, fc.option(fc.constantFrom('2026-01-02', '2026-01-05'), { nil: undefined }))
        .map(([s, items, l, x]) => ({ type: 'AddMembers' as const, ...s, user_ids: items, access_level: l, expires_at: x })),
    }),
  },
  fc.record({ actor, command: fc.tuple(gid, gid, level).map(([g, w, l]) => ({ type: 'ShareGroup' as const, group_id: g, shared_with_group_id: w, group_access: l })) }),
  fc.record({ actor, command: fc.tuple(gid, gid).map(([g, w]) => ({ type: 'UnshareGroup' as const, group_id: g, shared_with_group_id: w })) }),
  fc.record({ actor, command: fc.tuple(fc.integer({ min: 1, max: 4 }), gid, fc.constantFrom(10, 20, 30, 40)).map(([p, g, l]) => ({ type: 'ShareProject' as const, project_id: p, group_id: g, group_access: l })) }),
  fc.record({ actor, command: fc.tuple(gid, fc.option(fc.integer({ min: 0, max: 3 }), { nil: null })).map(([g, c]) => ({ type: 'UpdateGroup' as const, id: g, new_user_signups_cap: c })) }),
  fc.record({ actor, command: fc.tuple(gid, fc.integer({ min: 1, max: 20 })).map(([g, m]) => ({ type: 'ApproveMember' as const, group_id: g, member_id: m })) }),
  fc.record({ actor, command: fc.tuple(gid, user).map(([g, u]) => ({ type: 'RemoveBillableMember' as const, group_id: g, user_id: u })) }),
  fc.record({ actor: fc.constant(null), command: fc.constant({ type: 'ExpireMemberships' as const }) }),
  fc.record({ actor, command: fc.record({ type: fc.constant('DeleteGroup' as const), id: gid }) }),
  fc.record({ actor, command: fc.record({ type: fc.constant('DeleteProject' as const), id: fc.integer({ min: 1, max: 4 }) }) }),
  fc.record({ actor: fc.constant(null), command: fc.record({ type: fc.constant('BlockUser' as const), id: fc.integer({ min: 3, max: 5 }) }) }),
  // Unblocking, deactivation and activation move billability too (review of the users audit).
  fc.record({ actor: fc.constant(null), command: fc.record({ type: fc.constantFrom('UnblockUser' as const, 'DeactivateUser' as const, 'ActivateUser' as const), id: fc.integer({ min: 3, max: 5 }) }) }),
  fc.record({ actor: fc.constant(null), command: fc.record({ type: fc.constant('DeleteUser' as const), id: fc.integer({ min: 2, max: 5 }) }) }),
  // Transfers move whole subtrees and projects between hierarchies: the read models must follow (issue 16).
  { weight: 5, arbitrary: fc.record({ actor, command: fc.tuple(gid, fc.option(gid, { nil: null })).map(([g, p]) => ({ type: 'TransferGroup' as const, id: g, parent_id: p })) }) },
  { weight: 5, arbitrary: fc.record({ actor, command: fc.tuple(fc.integer({ min: 1, max: 4 }), gid).map(([p, g]) => ({ type: 'TransferProject' as const, id: p, namespace_id: g })) }) },
);

/** Effective access by definition: max over the group's chain of direct levels and, per share into the chain, min(share, level in the invited group). */
const accessByDefinition = (state: State, group: Group, userId: number): number => {
  let best = 0;
  for (const g of selfAndAncestors(state.groups, group)) {
    const m = directMembership(state.members, 'Namespace', g.id, userId);
    if (m && m.state === 'active') best = Math.max(best, m.access_level);
    for (const link of linksOfSource(state.members, 'Namespace', g.id)) {
      const inv = directMembership(state.members, 'Namespace', link.group_id, userId);
      if (inv && inv.state === 'active') best = Math.max(best, Math.min(inv.access_level, link.group_access));
    }
  }
  return best;
};

/** Billable by definition (reference item 98) computed from scratch. */
const billableByDefinition = (state: State, root: Group): number[] => {
  const ids = new Set<number>();
  const inRoot = (type: 'Namespace' | 'Project', id: number): boolean => {
    let groupId: number | undefined = id;
    if (type === 'Project') {
      const p = findProject(state.projects, id);
      if (!p || p.namespace_kind !== 'group') return false;
      groupId = p.namespace_id;
    }
    const g = findGroup(state.groups, groupId);
    if (!g) return false;
    const chain = selfAndAncestors(state.groups, g);
    return chain[chain.length - 1]!.id === root.id;
  };
  for (const u of listUsers(state.users)) {
    if (u.state !== 'active' || u.bot !== null) continue;
    for (const m of membershipsOfUser(state.members, u.id)) {
      if (m.state !== 'active' || m.access_level < 10) continue;
      const direct = inRoot(m.source_type, m.source_id);
      let shared = false;
      if (m.source_type === 'Namespace') {
        for (const link of tableValues(state.members.links)) if (link.group_id === m.source_id && inRoot(link.source_type, link.source_id)) shared = true;
      }
      if (direct || shared) ids.add(u.id);
    }
  }
  return [...ids].sort((a, b) => a - b);
};

const stats = { runs: 0, members: 0, links: 0 };
describe('membership properties', () => {
  it('replay equals live; top-level groups keep an owner; effective access, /members/all and billable match their definitions', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(memberCommandArb, { minLength: 20, maxLength: 60 }), async (steps) => {
        const { app, store, advance, ok } = await makeApp();
        for (const name of ['a', 'b', 'c', 'd', 'e']) await ok(system, letterUser(name));
        await app.execute(system, userCommand('boss', { is_admin: true }));
        await app.execute(as(1), { type: 'CreateGroup', name: 'R', path: 'rr' });
        await app.execute(as(2), { type: 'CreateGroup', name: 'T', path: 'tt' });
        await app.execute(as(1), { type: 'CreateGroup', name: 'C', path: 'cc', parent_id: 7 });
        await app.execute(as(1), { type: 'CreateProject', path: 'p', namespace_id: 9 });
        await app.execute(as(2), { type: 'CreateProject', path: 'p', namespace_id: 8 });
        for (const [index, { actor, command }] of steps.entries()) {
          if (index % 10 === 9) advance(DAY);
          // Half the commands run as an administrator, so that most of them are accepted.
          const r = await app.execute(actor === null ? system : as(actor <= 3 ? 6 : actor - 3), command);
          if (process.env['DBG']) console.log(command.type, r._tag === 'Left' ? JSON.stringify(r.left) : 'ok');
        }
        const state = app.state;
        stats.runs += 1;
        stats.members += tableSize(state.members.byId);
        stats.links += tableSize(state.members.links);
        expect(await replay(store)).toEqual(state);
        // byUser (members projection 5): a user's memberships in member-id order, each valued by its source's index.
        for (const user of listUsers(state.users)) {
          const held = [...tableValues(state.members.byId)].filter((m) => m.user_id === user.id).map((m) => [String(m.id), sourceIndex(m.source_type, m.source_id)]);
          const ofUser = tableGet(state.members.byUser, user.id);
          expect(ofUser ? [...tableEntries(ofUser)] : []).toEqual(held);
        }
        for (const group of listGroups(state.groups)) {
          if (group.parent_id === null) {
            const owners = [...membersOfSource(state.members, 'Namespace', group.id)].filter((m) => m.access_level === 50 && m.state === 'active' && m.user_id !== null);
            const creatorGone = owners.length === 0;
            // A group loses its last owner only with the account of that owner (the platform deletes solely owned groups then).
            expect(creatorGone).toBe(false);
            const ofGroup = tableGet(state.members.billable, group.id);
            const billable = ofGroup ? [...tableIds(ofGroup)] : [];
            expect(billable).toEqual(billableByDefinition(state, group));
            expect(billableCount(state.members, group.id)).toBe(billable.length);
          }
          const expected: number[] = [];
          for (const u of listUsers(state.users)) {
            expect(groupAccessLevel(state, group, u.id)).toBe(accessByDefinition(state, group, u.id));
            if (effectiveGroupMember(state, group, u.id)) expected.push(u.id);
          }
          expect([...effectiveUserIds(state.members, group.id)]).toEqual(expected);
          // A project's paged /members/all (index merged with its extras) equals the full computation, page by page.
          for (const project of listProjects(state.projects)) {
            if (project.namespace_kind !== 'group' || project.namespace_id !== group.id) continue;
            const page = projectMembersPage(state, project, () => true);
            const full = effectiveProjectMembers(state, project, () => true);
            if (!page) continue;
            const paged = [0, 1, 2, 3, 4, 5, 6].flatMap((n) => page.slice(n * 2, 2));
            expect(paged.map((m) => [m.user_id, m.id])).toEqual(full.map((m) => [m.user_id, m.id]));
            expect(page.count()).toBe(full.length);
          }
          expect(effectiveCount(state.members, group.id)).toBe(expected.length);
        }
      }),
      { numRuns: 80 },
    );
    // The generator reaches interesting states (memberships beyond the creators', shares).
    expect(stats.members / stats.runs).toBeGreaterThan(2.5);
    // A floor, not a target: the count varies with the random runs (16 was seen against 80 runs), and CI must not flake.
    expect(stats.links).toBeGreaterThan(4);
  });
});

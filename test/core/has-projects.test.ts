/**
 * GroupPolicy's `has_projects`: a user reads a private group when a project of its subtree is one they hold a project
 * authorization for. `Gitlab::ProjectAuthorizations` authorizes the projects of every group the user has access to,
 * and that includes a group shared with one of their groups (and its subgroups): so a group share into a private
 * subgroup that holds a project opens the groups above it for reading, as a project share does.
 */
import { describe, expect, it } from 'vitest';
import * as E from 'fp-ts/lib/Either.js';
import {
  canOnGroup,
  canReadGroup,
  canReadProject,
  findGroupByFullPath,
  findUserByIdOrUsername,
  groupCandidates,
  hasAccessInOrBelow,
  listProjects,
  type State,
} from '@forgefold/core';
import { as, makeApp, system, userCommand } from './fixtures.js';

const group = (state: State, path: string) => findGroupByFullPath(state.groups, path)!;
const project = (state: State, path: string) => [...listProjects(state.projects)].find((p) => p.path === path)!;
const user = (state: State, name: string) => findUserByIdOrUsername(state.users, name)!.id;

/**
 * Private `aa` with the private subgroups `aa/bb` (project `pp`, when `withProject`) and `aa/cc`, and private `xx`,
 * whose member `uu` is; `aa/bb` shared with `xx`. `ww` is no member of anything.
 */
const world = async (options: { readonly withProject: boolean }) => {
  const { app, ok } = await makeApp();
  await ok(system, userCommand('uu'));
  await ok(system, userCommand('ww'));
  await ok(system, { type: 'CreateGroup', name: 'AA', path: 'aa', visibility: 'private' });
  await ok(system, { type: 'CreateGroup', name: 'BB', path: 'bb', visibility: 'private', parent_id: group(app.state, 'aa').id });
  await ok(system, { type: 'CreateGroup', name: 'CC', path: 'cc', visibility: 'private', parent_id: group(app.state, 'aa').id });
  await ok(system, { type: 'CreateGroup', name: 'XX', path: 'xx', visibility: 'private' });
  if (options.withProject) await ok(system, { type: 'CreateProject', path: 'pp', namespace_id: group(app.state, 'aa/bb').id, visibility: 'private' });
  await ok(system, { type: 'AddMember', source_type: 'Namespace', source_id: group(app.state, 'xx').id, user_id: user(app.state, 'uu'), access_level: 30 });
  await ok(system, { type: 'ShareGroup', group_id: group(app.state, 'aa/bb').id, shared_with_group_id: group(app.state, 'xx').id, group_access: 30 });
  return app;
};

describe('a group share into a subgroup holding a project opens the groups above it (GroupPolicy `has_projects`)', () => {
  it('the invited group\'s members read the subgroup, its project and its ancestors, and find them among their groups', async () => {
    const state = (await world({ withProject: true })).state;
    const uu = user(state, 'uu');
    expect(canReadProject(state, uu, project(state, 'pp'))).toBe(true);
    expect(canReadGroup(state, uu, group(state, 'aa/bb'))).toBe(true);
    // `group_projects_for(aa)` (its projects and its subgroups') finds `pp`, which `uu` holds an authorization for.
    expect(canReadGroup(state, uu, group(state, 'aa'))).toBe(true);
    expect(hasAccessInOrBelow(state, group(state, 'aa'), uu)).toBe(true);
    // GroupsFinder: `authorized_groups` take the namespaces of authorized projects, and their ancestors.
    expect(groupCandidates(state, uu, false).map((g) => g.full_path)).toEqual(expect.arrayContaining(['aa', 'aa/bb']));
    // The sibling stays closed, and reading `aa` is not acting in it.
    expect(canReadGroup(state, uu, group(state, 'aa/cc'))).toBe(false);
    expect(canOnGroup(state, uu, 'create_projects', group(state, 'aa'))).toBe(false);
    // Someone outside `xx` reads none of them.
    const ww = user(state, 'ww');
    expect(['aa', 'aa/bb', 'aa/cc'].map((path) => canReadGroup(state, ww, group(state, path)))).toEqual([false, false, false]);
  });

  it('without a project in the shared subgroup, the groups above it stay closed', async () => {
    const state = (await world({ withProject: false })).state;
    const uu = user(state, 'uu');
    expect(canReadGroup(state, uu, group(state, 'aa/bb'))).toBe(true);
    expect(canReadGroup(state, uu, group(state, 'aa'))).toBe(false);
    expect(hasAccessInOrBelow(state, group(state, 'aa'), uu)).toBe(false);
  });

  it('a Minimal Access member of the invited group opens nothing above (ProjectAuthorizations: access_level > MINIMAL_ACCESS)', async () => {
    const { app, ok } = await makeApp();
    await ok(system, userCommand('uu'));
    await ok(system, { type: 'CreateGroup', name: 'AA', path: 'aa', visibility: 'private' });
    await ok(system, { type: 'CreateGroup', name: 'BB', path: 'bb', visibility: 'private', parent_id: group(app.state, 'aa').id });
    await ok(system, { type: 'CreateGroup', name: 'XX', path: 'xx', visibility: 'private' });
    await ok(system, { type: 'CreateProject', path: 'pp', namespace_id: group(app.state, 'aa/bb').id, visibility: 'private' });
    await ok(system, { type: 'AddMember', source_type: 'Namespace', source_id: group(app.state, 'xx').id, user_id: user(app.state, 'uu'), access_level: 5 });
    await ok(system, { type: 'ShareGroup', group_id: group(app.state, 'aa/bb').id, shared_with_group_id: group(app.state, 'xx').id, group_access: 30 });
    const state = app.state;
    expect(canReadGroup(state, user(state, 'uu'), group(state, 'aa'))).toBe(false);
  });
});

/**
 * The groups a user's projects open are remembered per state (`groupsOpenedByProjects`). A batch's decisions read
 * slices its next folds change in place (an immer draft, a copy-on-write working copy that becomes the committed
 * slice): what one decision remembered must not answer after a later fold of the same batch, nor after it.
 */
describe('the opened groups remembered across the folds of one batch', () => {
  const world = async () => {
    const made = await makeApp();
    const { app, ok } = made;
    for (const name of ['uu', 'ww']) await ok(system, userCommand(name));
    await ok(system, { type: 'CreateGroup', name: 'AA', path: 'aa', visibility: 'private' });
    await ok(system, { type: 'CreateGroup', name: 'BB', path: 'bb', visibility: 'private', parent_id: group(app.state, 'aa').id });
    await ok(system, { type: 'CreateGroup', name: 'XX', path: 'xx', visibility: 'private' });
    await ok(system, { type: 'CreateProject', path: 'pp', namespace_id: group(app.state, 'aa/bb').id, visibility: 'private' });
    return made;
  };
  const outcome = (result: E.Either<unknown, unknown>) => (E.isLeft(result) ? result.left : 'ok');

  it('a membership added after a refusal in the same batch (copy-on-write) opens the group once committed', async () => {
    const { app, ok } = await world();
    await ok(system, { type: 'ShareGroup', group_id: group(app.state, 'aa/bb').id, shared_with_group_id: group(app.state, 'xx').id, group_access: 30 });
    const uu = user(app.state, 'uu');
    const xx = group(app.state, 'xx').id;
    await Promise.all([
      app.execute(system, { type: 'AddMember', source_type: 'Namespace', source_id: xx, user_id: user(app.state, 'ww'), access_level: 10 }),
      // Decided before uu's membership: `aa` is not readable yet (404), and that answer is remembered.
      app.execute(as(uu), { type: 'RequestAccess', source_type: 'Namespace', source_id: group(app.state, 'aa').id }),
      app.execute(system, { type: 'AddMember', source_type: 'Namespace', source_id: xx, user_id: uu, access_level: 30 }),
    ]);
    const fresh = structuredClone(app.state) as State;
    expect(canReadGroup(fresh, uu, group(fresh, 'aa'))).toBe(true);
    expect(canReadGroup(app.state, uu, group(app.state, 'aa'))).toBe(true);
  });

  it('a share folded between two decisions of one batch (immer) changes the second one\'s answer', async () => {
    const { app, ok } = await world();
    const uu = user(app.state, 'uu');
    await ok(system, { type: 'AddMember', source_type: 'Namespace', source_id: group(app.state, 'xx').id, user_id: uu, access_level: 30 });
    const aa = group(app.state, 'aa').id;
    const results = await Promise.all([
      app.execute(system, { type: 'CreateProject', path: 'qq', namespace_id: group(app.state, 'xx').id, visibility: 'private' }),
      app.execute(as(uu), { type: 'RequestAccess', source_type: 'Namespace', source_id: aa }),
      app.execute(system, { type: 'ShareGroup', group_id: group(app.state, 'aa/bb').id, shared_with_group_id: group(app.state, 'xx').id, group_access: 30 }),
      app.execute(as(uu), { type: 'RequestAccess', source_type: 'Namespace', source_id: aa }),
    ]);
    // The same request decided again on the committed state answers as the last one of the batch did.
    const again = await app.execute(as(uu), { type: 'RequestAccess', source_type: 'Namespace', source_id: aa });
    expect(outcome(results[1]!)).not.toEqual(outcome(again));
    expect(outcome(results[3]!)).toEqual(outcome(again));
  });
});

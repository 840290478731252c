/**
 * Lists of a non-administrator cost what the caller can see (issue 16): `groupCandidates`/`projectCandidates` start
 * from the user's memberships and the public/internal id sets kept by evolve, instead of every group and project.
 * Over random command sequences (hierarchies, memberships, shares, visibility changes, transfers, deletions, blocked
 * users, share locks), the candidates filtered as the routes filter them equal every group/project filtered the same way, and the
 * id sets equal a scan, live and after a replay of the log.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  canReadGroup,
  canReadProject,
  findUser,
  findUserByNamespace,
  foldMutable,
  forgefold,
  groupAccessLevel,
  groupCandidates,
  hasMembershipBelow,
  listGroups,
  listProjects,
  projectAccessLevel,
  projectCandidates,
  type Group,
  type Project,
  type State,
  type ForgefoldCommand,
} from '@forgefold/core';
import { makeApp, system, userCommand } from './fixtures.js';

const USERS = [1, 2, 3, 4, 5];
const LEVELS = [10, 20, 30, 40, 50];
const VISIBILITIES = ['private', 'internal', 'public'] as const;

/** What `GET /groups` keeps of a candidate for a non-administrator (see resources/groups/routes.ts). */
const listsGroup = (state: State, userId: number | null, allAvailable: boolean, group: Group): boolean =>
  canReadGroup(state, userId, group) && (userId === null || allAvailable || groupAccessLevel(state, group, userId) > 0 || hasMembershipBelow(state, group, userId));

/**
 * What `GET /projects` keeps (without and with a filter that asks for access; the owner of a personal namespace holds
 * its projects as Owner, see resources/projects/routes.ts).
 */
const listsProject = (state: State, userId: number | null, needsAccess: boolean, project: Project): boolean =>
  canReadProject(state, userId, project) &&
  (!needsAccess || (userId !== null && (findUserByNamespace(state.users, project.namespace_id)?.id === userId || projectAccessLevel(state, project, userId) > 0)));

const ids = (items: readonly { id: number }[]): number[] => items.map((item) => item.id);

const step = fc.oneof(
  fc.record({ kind: fc.constant('group' as const), parent: fc.nat(9), visibility: fc.constantFrom(...VISIBILITIES) }),
  fc.record({ kind: fc.constant('project' as const), group: fc.nat(9), visibility: fc.constantFrom(...VISIBILITIES), personal: fc.constantFrom(...USERS, 0) }),
  fc.record({ kind: fc.constant('member' as const), user: fc.constantFrom(...USERS), target: fc.nat(9), level: fc.constantFrom(...LEVELS), project: fc.boolean() }),
  fc.record({ kind: fc.constant('unmember' as const), user: fc.constantFrom(...USERS), target: fc.nat(9), project: fc.boolean() }),
  fc.record({ kind: fc.constant('shareGroup' as const), shared: fc.nat(9), invited: fc.nat(9), level: fc.constantFrom(...LEVELS) }),
  fc.record({ kind: fc.constant('shareProject' as const), project: fc.nat(9), invited: fc.nat(9), level: fc.constantFrom(10, 20, 30, 40) }),
  fc.record({ kind: fc.constant('visibility' as const), target: fc.nat(9), project: fc.boolean(), visibility: fc.constantFrom(...VISIBILITIES) }),
  fc.record({ kind: fc.constant('transferGroup' as const), group: fc.nat(9), parent: fc.nat(9) }),
  fc.record({ kind: fc.constant('transferProject' as const), project: fc.nat(9), group: fc.nat(9), personal: fc.constantFrom(...USERS, 0, 0) }),
  fc.record({ kind: fc.constant('delete' as const), target: fc.nat(9), project: fc.boolean() }),
  fc.record({ kind: fc.constant('block' as const), user: fc.constantFrom(...USERS), unblock: fc.boolean() }),
  // `share_with_group_lock` (cascading to the subgroups): a locked group's project shares grant nothing.
  fc.record({ kind: fc.constant('lock' as const), group: fc.nat(9), lock: fc.boolean() }),
);

const sets = (state: State) => ({
  groupsPublic: [...listGroups(state.groups)].filter((g) => g.visibility === 'public').map((g) => g.id),
  groupsInternal: [...listGroups(state.groups)].filter((g) => g.visibility === 'internal').map((g) => g.id),
  projectsPublic: [...listProjects(state.projects)].filter((p) => p.visibility === 'public').map((p) => p.id),
  projectsInternal: [...listProjects(state.projects)].filter((p) => p.visibility === 'internal').map((p) => p.id),
});

const indexedSets = (state: State) => ({
  groupsPublic: ids(groupCandidates(state, null, true)),
  groupsInternal: ids(groupCandidates(state, 1_000_000, true)).filter((id) => listGroups(state.groups) && [...listGroups(state.groups)].find((g) => g.id === id)?.visibility === 'internal'),
  projectsPublic: ids(projectCandidates(state, null, true)),
  projectsInternal: ids(projectCandidates(state, 1_000_000, true)).filter((id) => [...listProjects(state.projects)].find((p) => p.id === id)?.visibility === 'internal'),
});

describe('the lists of a non-administrator', () => {
  it('equal a filter over every group and project, whatever happened before', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 10, maxLength: 50 }), async (steps) => {
        const { app, store } = await makeApp();
        for (const name of ['a', 'b', 'c', 'd', 'e']) await app.execute(system, userCommand(name));
        const groups = (): Group[] => [...listGroups(app.state.groups)];
        const projects = (): Project[] => [...listProjects(app.state.projects)];
        const pick = <T>(items: readonly T[], n: number): T | undefined => (items.length === 0 ? undefined : items[n % items.length]);
        let made = 0;
        const run = async (command: ForgefoldCommand) => {
          await app.execute(system, command);
        };
        for (const s of steps) {
          const gs = groups();
          made += 1;
          if (s.kind === 'group') {
            const parent = s.parent % 3 === 0 ? undefined : pick(gs, s.parent);
            await run({ type: 'CreateGroup', name: `G${made}`, path: `g${made}`, visibility: s.visibility, ...(parent ? { parent_id: parent.id } : {}) });
          } else if (s.kind === 'project') {
            const group = pick(gs, s.group);
            if (s.personal !== 0) await run({ type: 'CreateProject', path: `p${made}`, owner_id: s.personal, visibility: s.visibility });
            else if (group) await run({ type: 'CreateProject', path: `p${made}`, namespace_id: group.id, visibility: s.visibility });
          } else if (s.kind === 'member' || s.kind === 'unmember') {
            const project = s.project ? pick(projects(), s.target) : undefined;
            const group = s.project ? undefined : pick(gs, s.target);
            const source = project ? { source_type: 'Project' as const, source_id: project.id } : group ? { source_type: 'Namespace' as const, source_id: group.id } : undefined;
            if (source && s.kind === 'member') await run({ type: 'AddMember', ...source, user_id: s.user, access_level: project ? Math.min(s.level, 40) : s.level });
            if (source && s.kind === 'unmember') await run({ type: 'RemoveMember', ...source, user_id: s.user });
          } else if (s.kind === 'shareGroup') {
            const shared = pick(gs, s.shared);
            const invited = pick(gs, s.invited);
            if (shared && invited) await run({ type: 'ShareGroup', group_id: shared.id, shared_with_group_id: invited.id, group_access: s.level });
          } else if (s.kind === 'shareProject') {
            const project = pick(projects(), s.project);
            const invited = pick(gs, s.invited);
            if (project && invited) await run({ type: 'ShareProject', project_id: project.id, group_id: invited.id, group_access: s.level });
          } else if (s.kind === 'visibility') {
            const project = s.project ? pick(projects(), s.target) : undefined;
            const group = s.project ? undefined : pick(gs, s.target);
            if (project) await run({ type: 'UpdateProject', id: project.id, visibility: s.visibility });
            if (group) await run({ type: 'UpdateGroup', id: group.id, visibility: s.visibility });
          } else if (s.kind === 'transferGroup') {
            const group = pick(gs, s.group);
            const parent = s.parent % 3 === 0 ? undefined : pick(gs, s.parent);
            if (group) await run({ type: 'TransferGroup', id: group.id, parent_id: parent?.id ?? null });
          } else if (s.kind === 'transferProject') {
            const project = pick(projects(), s.project);
            const group = pick(gs, s.group);
            // Into a personal namespace too: its owner holds the project without a membership.
            const user = s.personal === 0 ? undefined : findUser(app.state.users, s.personal);
            if (project && user) await run({ type: 'TransferProject', id: project.id, namespace_id: user.namespace_id });
            else if (project && group) await run({ type: 'TransferProject', id: project.id, namespace_id: group.id });
          } else if (s.kind === 'delete') {
            const project = s.project ? pick(projects(), s.target) : undefined;
            const group = s.project ? undefined : pick(gs, s.target);
            if (project) await run({ type: 'DeleteProject', id: project.id });
            if (group) await run({ type: 'DeleteGroup', id: group.id });
          } else if (s.kind === 'lock') {
            const group = pick(gs, s.group);
            if (group) await run({ type: 'UpdateGroup', id: group.id, share_with_group_lock: s.lock });
          } else {
            await run({ type: s.unblock ? 'UnblockUser' : 'BlockUser', id: s.user });
          }
        }
        const state = app.state;
        const everyGroup = groups();
        const everyProject = projects();
        for (const userId of [null, ...USERS, 99]) {
          for (const all of [false, true]) {
            const visibleToAll = userId === null || all;
            expect(ids(groupCandidates(state, userId, visibleToAll).filter((g) => listsGroup(state, userId, all, g)))).toEqual(ids(everyGroup.filter((g) => listsGroup(state, userId, all, g))));
            const needsAccess = !all;
            expect(ids(projectCandidates(state, userId, !needsAccess).filter((p) => listsProject(state, userId, needsAccess, p)))).toEqual(
              ids(everyProject.filter((p) => listsProject(state, userId, needsAccess, p))),
            );
          }
        }
        // The id sets, live and folded again from the log.
        expect(indexedSets(state)).toEqual(sets(state));
        const replayed = foldMutable(forgefold.decider, forgefold.decider.initialState(), (await store.readAll(0, 1_000_000)).map((e) => ({ type: e.type, data: e.data })) as never);
        expect(indexedSets(replayed)).toEqual(sets(replayed));
        expect(JSON.stringify([replayed.groups.publicIds, replayed.projects.internalIds])).toBe(JSON.stringify([state.groups.publicIds, state.projects.internalIds]));
        // What each user reads and holds, replayed as live (the locks and their cascades included).
        const access = (st: State) => USERS.map((u) => [...listProjects(st.projects)].map((p) => [p.id, canReadProject(st, u, p), projectAccessLevel(st, p, u)]));
        expect(access(replayed)).toEqual(access(state));
        expect([...listGroups(replayed.groups)].map((g) => [g.id, g.share_with_group_lock ?? false])).toEqual(everyGroup.map((g) => [g.id, g.share_with_group_lock ?? false]));
      }),
      { numRuns: 60 },
    );
  });
});

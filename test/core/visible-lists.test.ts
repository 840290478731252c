/**
 * Lists of a non-administrator cost what the caller can see (issue 16): `groupCandidates`/`projectCandidates` start
 * from the user's memberships and the public/internal id sets kept by evolve, instead of every group and project.
 * Over random command sequences (hierarchies, memberships, shares, visibility changes, transfers, deletions, blocked
 * users, share locks), the candidates filtered as the routes filter them equal every group/project filtered the same way, and the
 * id sets equal a scan, live and after a replay of the log. The sequences start with a few groups and group projects
 * and draw more memberships and shares (`accessSequences`), so the shares the candidates must follow occur.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  canReadGroup,
  canReadProject,
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
} from '@forgefold/core';
import { letterUser, makeApp, system } from './fixtures.js';
import { accessSequences, applySteps, USERS } from './random-access.js';

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
      fc.asyncProperty(accessSequences(), async (steps) => {
        const { app, store, ok } = await makeApp();
        for (const name of ['a', 'b', 'c', 'd', 'e']) await ok(system, letterUser(name));
        await applySteps(app, steps);
        const state = app.state;
        const everyGroup: Group[] = [...listGroups(state.groups)];
        const everyProject: Project[] = [...listProjects(state.projects)];
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

/**
 * A group's project list costs what the caller can see (issue 16): `groupProjectCandidates` takes every project of a
 * group only from a caller who reads them all through the group (an administrator, or access to the group); for
 * anyone else it starts from the group's public (and internal) ids, kept per namespace by evolve, and from the
 * caller's own project memberships and their groups' project shares. Over random command sequences (hierarchies,
 * memberships, shares, visibility changes, transfers, deletions, blocked users, share locks), for anonymous,
 * outsider, external, member and administrator callers, the candidates filtered by `canReadProject` equal every
 * project of the group(s) filtered the same way (the route's scan before), with and without the subgroups; and the
 * per-namespace id sets equal a scan of the projects, live and after a replay of the log.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  canReadProject,
  foldMutable,
  forgefold,
  groupProjectCandidates,
  idsVisibleInNamespace,
  listGroups,
  listProjects,
  projectsInNamespace,
  selfAndDescendants,
  type Group,
  type Project,
  type State,
} from '@forgefold/core';
import { letterUser, makeApp, system, userCommand } from './fixtures.js';
import { accessSequences, applySteps, USERS } from './random-access.js';

/** The administrator (never a member; the steps touch only USERS), and two accounts no step ever gives anything. */
const ADMIN = 6;
const OUTSIDER = 7;
const EXTERNAL_OUTSIDER = 8;
/** Anonymous, the users of the steps (user 5 is external), the administrator, the outsiders, an unknown id. */
const CALLERS = [null, ...USERS, ADMIN, OUTSIDER, EXTERNAL_OUTSIDER, 99];

const sequences = accessSequences();

const ids = (items: Iterable<{ id: number }>): number[] => [...items].map((item) => item.id);

/** The route's scan before: every project of the groups, in id order. */
const everyProjectOf = (state: State, groups: readonly Group[]): Project[] =>
  groups.flatMap((group) => [...projectsInNamespace(state.projects, group.id)]).sort((a, b) => a.id - b.id);

/** Each namespace's public and internal ids by the index and by a scan of every project. */
const namespaceSets = (state: State) => {
  const namespaces = [...new Set([...listProjects(state.projects)].map((p) => p.namespace_id))].sort((a, b) => a - b);
  // Namespaces that lost every project (deleted or transferred away) are asked too: their sets must be empty.
  const asked = [...new Set([...namespaces, ...ids(listGroups(state.groups)), ...[...Array(40).keys()]])].sort((a, b) => a - b);
  return {
    indexed: asked.map((ns) => [ns, [...idsVisibleInNamespace(state.projects, ns, false)], [...idsVisibleInNamespace(state.projects, ns, true)].sort((a, b) => a - b)]),
    scanned: asked.map((ns) => {
      const inNs = [...listProjects(state.projects)].filter((p) => p.namespace_id === ns);
      return [ns, ids(inNs.filter((p) => p.visibility === 'public')), ids(inNs.filter((p) => p.visibility !== 'private'))];
    }),
  };
};

describe("a group's project list (GET /groups/:id/projects, GroupDetail's projects)", () => {
  it('starts from candidates that, filtered, equal a filter over every project of the group, whatever happened before', async () => {
    await fc.assert(
      fc.asyncProperty(sequences, async (drawn) => {
        const { app, store, ok } = await makeApp();
        for (const name of ['a', 'b', 'c', 'd']) await ok(system, letterUser(name));
        await ok(system, letterUser('e', { external: true }));
        await app.execute(system, userCommand('root', { is_admin: true }));
        await app.execute(system, userCommand('stranger'));
        await app.execute(system, userCommand('visitor', { external: true }));
        await applySteps(app, drawn);
        const check = (state: State) => {
          for (const group of listGroups(state.groups)) {
            for (const groups of [[group], selfAndDescendants(state.groups, group)]) {
              const every = everyProjectOf(state, groups);
              for (const userId of CALLERS) {
                const candidates = groupProjectCandidates(state, userId, groups);
                // In id order, without repeats, and only projects of the groups.
                expect(ids(candidates)).toEqual([...new Set(ids(candidates))].sort((a, b) => a - b));
                expect(ids(candidates).every((id) => every.some((p) => p.id === id))).toBe(true);
                const readable = ids(every.filter((p) => canReadProject(state, userId, p)));
                expect(ids(candidates.filter((p) => canReadProject(state, userId, p)))).toEqual(readable);
                // Without a membership anywhere, the candidates are what the caller sees, not one project more.
                if (userId === null || userId === OUTSIDER || userId === EXTERNAL_OUTSIDER) expect(ids(candidates)).toEqual(readable);
              }
              // The administrator's candidates are every project of the groups.
              expect(ids(groupProjectCandidates(state, ADMIN, groups))).toEqual(ids(every));
            }
          }
          const { indexed, scanned } = namespaceSets(state);
          expect(indexed).toEqual(scanned);
        };
        check(app.state);
        const replayed = foldMutable(forgefold.decider, forgefold.decider.initialState(), (await store.readAll(0, 1_000_000)).map((e) => ({ type: e.type, data: e.data })) as never);
        check(replayed);
        expect(JSON.stringify([replayed.projects.publicByNamespace, replayed.projects.internalByNamespace])).toBe(
          JSON.stringify([app.state.projects.publicByNamespace, app.state.projects.internalByNamespace]),
        );
      }),
      { numRuns: 100 },
    );
  });
});

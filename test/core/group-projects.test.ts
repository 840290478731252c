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
import { callersWorld, expectCandidates, ids } from './candidates.js';
import { accessSequences, applySteps } from './random-access.js';

const sequences = accessSequences();

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
        const { app, store } = await callersWorld();
        await applySteps(app, drawn);
        const check = (state: State) => {
          for (const group of listGroups(state.groups)) {
            for (const groups of [[group], selfAndDescendants(state.groups, group)]) {
              const every = everyProjectOf(state, groups);
              expectCandidates(state, every, (userId) => groupProjectCandidates(state, userId, groups));
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

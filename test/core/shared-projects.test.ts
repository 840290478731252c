/**
 * A group's shared projects cost what the caller can see (issue 16): `sharedProjectCandidates` takes every project
 * shared with a group only from a caller with access to the group (an administrator, a member, a member of a group
 * shared into it); for anyone else it starts from the group's public (and internal) shared ids, kept per invited
 * group by the members evolve, and from the hidden ones (private, and internal for an external caller) either the
 * caller's own memberships reach or, when fewer, all of them (from the per-group private index). Over random command
 * sequences (hierarchies, memberships, shares, visibility changes, transfers, deletions, blocked users, share locks),
 * for anonymous, outsider, external, member and administrator callers, the candidates filtered by `canReadProject`
 * equal every project shared with the group filtered the same way (`GET /groups/:id/projects/shared`, `with_shared`
 * and GroupDetail's `shared_projects` before); and the per-group id sets equal a scan of the shares, live and after a
 * replay of the log.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  foldMutable,
  forgefold,
  idsSharedVisibleWithGroup,
  idsSharedWithGroupOf,
  listGroups,
  projectsSharedWithGroup,
  sharedProjectCandidates,
  type Group,
  type Project,
  type State,
} from '@forgefold/core';
import { callersWorld, expectCandidates, ids } from './candidates.js';
import { accessSequences, applySteps } from './random-access.js';

const sequences = accessSequences();

/** The routes' scan before: every project shared with the group, in id order. */
const everySharedWith = (state: State, group: Group): Project[] => [...projectsSharedWithGroup(state, group.id)].sort((a, b) => a.id - b.id);

/** Each group's public, internal and private shared ids by the indexes and by a scan of its shares (deleted groups asked too). */
const sharedSets = (state: State) => {
  const asked = [...new Set([...ids(listGroups(state.groups)), ...[...Array(40).keys()]])].sort((a, b) => a - b);
  return {
    indexed: asked.map((id) => [
      id,
      [...idsSharedVisibleWithGroup(state.members, id, false)],
      [...idsSharedVisibleWithGroup(state.members, id, true)].sort((a, b) => a - b),
      [...idsSharedWithGroupOf(state.members, id, 'private')],
    ]),
    scanned: asked.map((id) => {
      const shared = [...projectsSharedWithGroup(state, id)].sort((a, b) => a.id - b.id);
      return [id, ids(shared.filter((p) => p.visibility === 'public')), ids(shared.filter((p) => p.visibility !== 'private')), ids(shared.filter((p) => p.visibility === 'private'))];
    }),
  };
};

describe("a group's shared projects (GET /groups/:id/projects/shared, with_shared, GroupDetail's shared_projects)", () => {
  it('start from candidates that, filtered, equal a filter over every project shared with the group, whatever happened before', async () => {
    await fc.assert(
      fc.asyncProperty(sequences, async (drawn) => {
        const { app, store } = await callersWorld();
        await applySteps(app, drawn);
        const check = (state: State) => {
          for (const group of listGroups(state.groups)) {
            const every = everySharedWith(state, group);
            expectCandidates(state, every, (userId) => sharedProjectCandidates(state, userId, group));
          }
          const { indexed, scanned } = sharedSets(state);
          expect(indexed).toEqual(scanned);
        };
        check(app.state);
        const replayed = foldMutable(forgefold.decider, forgefold.decider.initialState(), (await store.readAll(0, 1_000_000)).map((e) => ({ type: e.type, data: e.data })) as never);
        check(replayed);
        const sets = (state: State) => JSON.stringify([state.members.sharedPublicByGroup, state.members.sharedInternalByGroup, state.members.sharedPrivateByGroup]);
        expect(sets(replayed)).toBe(sets(app.state));
      }),
      { numRuns: 100 },
    );
  });
});

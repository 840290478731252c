/**
 * The stars indexes (`ProjectsSlice.starrers` and `starred`, read by `starrersOf` and `projectsStarredBy`): the
 * starrers of a project and the projects a user starred, kept by evolve so that neither list scans every project.
 * Over random sequences of stars, unstars, project deletions and account deletions (`dependent: :destroy` on both
 * sides), both indexes hold the same stars as a model of the rows, `star_count` counts them, and a replay of the log
 * folds the same slice.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { findUser, findUserByUsername, foldMutable, forgefold, listProjects, projectsStarredBy, starrersOf, type State } from '@forgefold/core';
import { as, makeApp, system } from './fixtures.js';

const USERS = ['ann', 'ben', 'cat', 'dan'];

const step = fc.oneof(
  fc.record({ kind: fc.constant('star' as const), user: fc.nat(3), project: fc.nat(20) }),
  fc.record({ kind: fc.constant('unstar' as const), user: fc.nat(3), project: fc.nat(20) }),
  fc.record({ kind: fc.constant('create' as const) }),
  fc.record({ kind: fc.constant('deleteProject' as const), project: fc.nat(20) }),
  fc.record({ kind: fc.constant('deleteUser' as const), user: fc.nat(3) }),
);

/** Every project's starrers and every user's starred projects, by the indexes. */
const indexes = (state: State, userIds: readonly number[]) => ({
  starrers: Object.fromEntries([...listProjects(state.projects)].map((project) => [project.id, starrersOf(state.projects, project.id).map((row) => row.user_id)])),
  starred: Object.fromEntries(userIds.map((id) => [id, [...projectsStarredBy(state.projects, id)].map((project) => project.id)])),
});

describe('the stars indexes', () => {
  it('hold the stars a model of the rows holds, newest first, whatever was deleted', async () => {
    let starred = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 5, maxLength: 50 }), async (steps) => {
        const { app, store, ok, advance } = await makeApp();
        const userIds: number[] = [];
        for (const username of USERS) {
          await ok(system, { type: 'CreateUser', username, name: username, email: `${username}@example.com`, password_digest: null });
          userIds.push(findUserByUsername(app.state.users, username)!.id);
        }
        const group = await app.execute(system, { type: 'CreateGroup', name: 'Stars', path: 'stars', visibility: 'public' });
        if (E.isLeft(group)) throw new Error('no group');
        const namespaceId = app.state.sequences.namespace;
        // The model: the rows of users_star_projects, in id order.
        let rows: { user: number; project: number }[] = [];
        let made = 0;
        for (; made < 3; ) await ok(system, { type: 'CreateProject', path: `p${++made}`, namespace_id: namespaceId, visibility: 'public' });
        for (const s of steps) {
          advance(1000);
          const projects = [...listProjects(app.state.projects)];
          const project = projects.length > 0 && 'project' in s ? projects[s.project % projects.length]!.id : undefined;
          const user = 'user' in s ? userIds[s.user]! : undefined;
          const exists = user !== undefined && findUser(app.state.users, user) !== undefined;
          if (s.kind === 'create') await ok(system, { type: 'CreateProject', path: `p${++made}`, namespace_id: namespaceId, visibility: 'public' });
          else if (s.kind === 'star' && project !== undefined && exists) {
            await ok(as(user!), { type: 'StarProject', id: project });
            if (!rows.some((row) => row.user === user && row.project === project)) rows.push({ user: user!, project });
          } else if (s.kind === 'unstar' && project !== undefined && exists) {
            await ok(as(user!), { type: 'UnstarProject', id: project });
            rows = rows.filter((row) => !(row.user === user && row.project === project));
          } else if (s.kind === 'deleteProject' && project !== undefined) {
            await ok(system, { type: 'DeleteProject', id: project });
            rows = rows.filter((row) => row.project !== project);
          } else if (s.kind === 'deleteUser' && exists) {
            await ok(system, { type: 'DeleteUser', id: user! });
            rows = rows.filter((row) => row.user !== user);
          }
        }
        const events = (await store.readAll(0, 1_000_000)).map((e) => ({ type: e.type, data: e.data }));
        starred += events.filter((e) => e.type === 'ProjectStarred').length;
        const live = indexes(app.state, userIds);
        for (const project of listProjects(app.state.projects)) {
          const expected = rows.filter((row) => row.project === project.id).map((row) => row.user).reverse();
          expect(live.starrers[project.id]).toEqual(expected);
          expect(project.star_count).toBe(expected.length);
        }
        for (const id of userIds) {
          expect(live.starred[id]).toEqual(rows.filter((row) => row.user === id).map((row) => row.project).sort((a, b) => a - b));
        }
        const replayed = foldMutable(forgefold.decider, forgefold.decider.initialState(), events as never);
        expect(indexes(replayed, userIds)).toEqual(live);
        expect(JSON.stringify(replayed.projects)).toBe(JSON.stringify(app.state.projects));
      }),
      { numRuns: 60 },
    );
    // The sequences did star (a star the decider refused would leave the indexes untested).
    expect(starred).toBeGreaterThan(60);
  });
});

/**
 * The forks index (`ProjectsSlice.forksOf`, read by `forksOf`): `GET /projects/:id/forks` lists a project's direct
 * forks from it instead of scanning every project. Over random sequences of creations, forks (of forks too),
 * deletions and unlinks (`UnlinkFork`, which detaches a project and its direct forks), each project's indexed forks equal a scan for `forked_from_id`, live and after a replay of the log.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { foldMutable, forgefold, forksOf, listGroups, listProjects, type State } from '@forgefold/core';
import { makeApp, system } from './fixtures.js';

const step = fc.oneof(
  fc.record({ kind: fc.constant('create' as const) }),
  fc.record({ kind: fc.constant('fork' as const), source: fc.nat(30) }),
  fc.record({ kind: fc.constant('delete' as const), target: fc.nat(30) }),
  fc.record({ kind: fc.constant('unlink' as const), target: fc.nat(30) }),
);

/** Every project's direct forks, by the index and by a scan of every project, for every id ever used. */
const both = (state: State, upTo: number) => {
  const projects = [...listProjects(state.projects)];
  const indexed: Record<number, number[]> = {};
  const scanned: Record<number, number[]> = {};
  for (let id = 1; id <= upTo; id++) {
    indexed[id] = [...forksOf(state.projects, id)].map((project) => project.id);
    scanned[id] = projects.filter((project) => project.forked_from_id === id).map((project) => project.id);
  }
  return { indexed, scanned };
};

describe('the forks index', () => {
  it('equals a scan of every project for its forks, whatever was forked and deleted before', async () => {
    let forked = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 5, maxLength: 40 }), async (steps) => {
        const { app, store } = await makeApp();
        const group = await app.execute(system, { type: 'CreateGroup', name: 'Forks', path: 'forks', visibility: 'public' });
        if (E.isLeft(group)) throw new Error('no group');
        const namespaceId = [...listGroups(app.state.groups)][0]!.id;
        let made = 0;
        for (const s of steps) {
          const projects = [...listProjects(app.state.projects)];
          made += 1;
          if (s.kind === 'create') await app.execute(system, { type: 'CreateProject', path: `p${made}`, namespace_id: namespaceId, visibility: 'public' });
          else if (projects.length > 0 && s.kind === 'fork') {
            await app.execute(system, { type: 'ForkProject', id: projects[s.source % projects.length]!.id, namespace_id: namespaceId, path: `f${made}`, name: `F${made}` });
          } else if (projects.length > 0 && s.kind === 'delete') await app.execute(system, { type: 'DeleteProject', id: projects[s.target % projects.length]!.id });
          else if (projects.length > 0 && s.kind === 'unlink') await app.execute(system, { type: 'UnlinkFork', id: projects[s.target % projects.length]!.id });
        }
        forked += (await store.readAll(0, 1_000_000)).filter((e) => e.type === 'ProjectForked').length;
        const upTo = app.state.sequences.project + 1;
        const live = both(app.state, upTo);
        expect(live.indexed).toEqual(live.scanned);
        // forks_count counts what the index holds.
        for (const project of listProjects(app.state.projects)) expect(project.forks_count).toBe(live.indexed[project.id]!.length);
        const replayed = foldMutable(forgefold.decider, forgefold.decider.initialState(), (await store.readAll(0, 1_000_000)).map((e) => ({ type: e.type, data: e.data })) as never);
        const again = both(replayed, upTo);
        expect(again.indexed).toEqual(live.indexed);
        expect(JSON.stringify(replayed.projects.forksOf)).toBe(JSON.stringify(app.state.projects.forksOf));
      }),
      { numRuns: 60 },
    );
    // The sequences did fork (a fork the decider refused would leave the index untested).
    expect(forked).toBeGreaterThan(60);
  });
});

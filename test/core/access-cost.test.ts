/**
 * What reading a private group and a group's shared projects cost (issue 16, scale of reads), counted rather than
 * timed: the number of times the abilities read a slice of the state (`groups`, `projects`, `members`), which every
 * group visited, every project looked at and every membership lookup does. `canReadGroup` on a group the caller
 * cannot read walks the caller's whole reach once per state and user, not once per call (it is asked in loops: GET
 * /groups' filter, a project's `/members/all`); `sharedProjectCandidates` does not walk the caller's reach for a
 * group without private shares, and otherwise takes the smaller of the private shares and the caller's reach.
 */
import { describe, expect, it } from 'vitest';
import {
  canReadGroup,
  canReadProject,
  effectiveProjectMembers,
  findGroupByFullPath,
  findProjectByFullPath,
  findUserByIdOrUsername,
  groupCandidates,
  hasAccessInOrBelow,
  projectsSharedWithGroup,
  sharedProjectCandidates,
  type Project,
  type State,
} from '@forgefold/core';
import { makeApp, system, userCommand } from './fixtures.js';

type App = Awaited<ReturnType<typeof makeApp>>;

/** The state behind a proxy that counts reads of its slices, and the count. */
const counted = (state: State) => {
  const reads = { count: 0 };
  const proxy = new Proxy(state, {
    get: (target, key, receiver) => {
      if (key === 'groups' || key === 'projects' || key === 'members') reads.count++;
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
  return { state: proxy, reads };
};

const reads = (state: State, run: (state: State) => void): number => {
  const probe = counted(state);
  run(probe.state);
  return probe.reads.count;
};

const userId = (state: State, name: string) => findUserByIdOrUsername(state.users, name)!.id;
const group = (state: State, path: string) => findGroupByFullPath(state.groups, path)!;
const project = (state: State, path: string) => findProjectByFullPath(state.projects, path)!;

const createGroup = (ok: App['ok'], path: string, parentId?: number, visibility: 'private' | 'public' = 'private') =>
  ok(system, { type: 'CreateGroup', name: path.toUpperCase(), path, visibility, ...(parentId === undefined ? {} : { parent_id: parentId }) });

/** Private `rr` with `n` private subgroups, each holding a private project when `projects`; `uu` a Developer of `rr`. */
const wideReach = async (n: number, options: { readonly projects: boolean }) => {
  const made = await makeApp();
  const { app, ok } = made;
  await ok(system, userCommand('uu'));
  await createGroup(ok, 'rr');
  const rr = group(app.state, 'rr').id;
  for (let i = 0; i < n; i++) {
    await createGroup(ok, `s${i}`, rr);
    if (options.projects) await ok(system, { type: 'CreateProject', path: `p${i}`, namespace_id: group(app.state, `rr/s${i}`).id, visibility: 'private' });
  }
  await ok(system, { type: 'AddMember', source_type: 'Namespace', source_id: rr, user_id: userId(app.state, 'uu'), access_level: 30 });
  return made;
};

const N = 200;

describe('canReadGroup on a group the caller cannot read', () => {
  it('walks the caller\'s reach once per state, not once per call', async () => {
    const { app, ok } = await wideReach(N, { projects: false });
    await createGroup(ok, 'zz');
    const state = app.state;
    const uu = userId(state, 'uu');
    const zz = group(state, 'zz');
    const first = reads(state, (s) => expect(canReadGroup(s, uu, zz)).toBe(false));
    // The first call visits the caller's reach (every subgroup of `rr`)…
    expect(first).toBeGreaterThan(N);
    // …and the next ones cost a few lookups each.
    const next = reads(state, (s) => {
      for (let i = 0; i < 50; i++) expect(canReadGroup(s, uu, zz)).toBe(false);
    });
    expect(next).toBeLessThan(50 * 20);
    // A new state is asked again (the answer follows what changed).
    await ok(system, { type: 'CreateProject', path: 'pz', namespace_id: group(app.state, 'rr/s0').id, visibility: 'private' });
    await ok(system, { type: 'ShareProject', project_id: project(app.state, 'rr/s0/pz').id, group_id: zz.id, group_access: 10 });
    await ok(system, { type: 'AddMember', source_type: 'Namespace', source_id: zz.id, user_id: uu, access_level: 10 });
    expect(canReadGroup(app.state, uu, zz)).toBe(true);
  });

  it("GET /groups' filter over a caller's candidates costs their reach, not their reach per candidate", async () => {
    // `uu` is a member of `xx`, into which the private project of each of M private groups is shared.
    const M = 150;
    const { app, ok } = await makeApp();
    await ok(system, userCommand('uu'));
    await createGroup(ok, 'xx');
    const xx = group(app.state, 'xx').id;
    await ok(system, { type: 'AddMember', source_type: 'Namespace', source_id: xx, user_id: userId(app.state, 'uu'), access_level: 30 });
    for (let i = 0; i < M; i++) {
      await createGroup(ok, `g${i}`);
      await ok(system, { type: 'CreateProject', path: `p${i}`, namespace_id: group(app.state, `g${i}`).id, visibility: 'private' });
      await ok(system, { type: 'ShareProject', project_id: project(app.state, `g${i}/p${i}`).id, group_id: xx, group_access: 30 });
    }
    const state = app.state;
    const uu = userId(state, 'uu');
    let kept = 0;
    const cost = reads(state, (s) => {
      kept = groupCandidates(s, uu, false).filter((g) => canReadGroup(s, uu, g) && hasAccessInOrBelow(s, g, uu)).length;
    });
    expect(kept).toBe(M + 1);
    // A walk per candidate read the slices M × M times and more.
    expect(cost).toBeLessThan(100 * M);
  });

  it("a project's /members/all asks it once per listed member and walks the viewer's reach once", async () => {
    const { app, ok } = await wideReach(N, { projects: false });
    await createGroup(ok, 'zz');
    await createGroup(ok, 'hh', undefined, 'public');
    const hh = group(app.state, 'hh').id;
    const MEMBERS = 50;
    for (let i = 0; i < MEMBERS; i++) {
      await ok(system, userCommand(`member${i}`));
      await ok(system, { type: 'AddMember', source_type: 'Namespace', source_id: hh, user_id: userId(app.state, `member${i}`), access_level: 30 });
    }
    await ok(system, { type: 'CreateProject', path: 'app', namespace_id: hh, visibility: 'public' });
    await ok(system, { type: 'ShareProject', project_id: project(app.state, 'hh/app').id, group_id: group(app.state, 'zz').id, group_access: 30 });
    const state = app.state;
    const viewer = userId(state, 'uu');
    let rows = 0;
    const cost = reads(state, (s) => {
      rows = effectiveProjectMembers(s, project(s, 'hh/app'), (g) => canReadGroup(s, viewer, g)).length;
    });
    expect(rows).toBe(MEMBERS);
    expect(cost).toBeLessThan(N + 60 * MEMBERS);
  });
});

describe("a group's shared projects for a caller without access to the group", () => {
  it('skip the caller\'s reach when the group has no private shares', async () => {
    const { app, ok } = await wideReach(N, { projects: true });
    await createGroup(ok, 'hh', undefined, 'public');
    await ok(system, { type: 'CreateProject', path: 'open', namespace_id: group(app.state, 'hh').id, visibility: 'public' });
    await createGroup(ok, 'xx', undefined, 'public');
    await ok(system, { type: 'ShareProject', project_id: project(app.state, 'hh/open').id, group_id: group(app.state, 'xx').id, group_access: 30 });
    const state = app.state;
    const uu = userId(state, 'uu');
    for (const path of ['hh', 'xx']) {
      let found: number[] = [];
      const cost = reads(state, (s) => {
        found = sharedProjectCandidates(s, uu, group(s, path)).map((p) => p.id);
      });
      expect(found).toEqual(path === 'xx' ? [project(state, 'hh/open').id] : []);
      expect(cost).toBeLessThan(20);
    }
  });

  it("take the private shares when they are fewer than the caller's reach, and the reach when it is smaller", async () => {
    const { app, ok } = await wideReach(N, { projects: true });
    await createGroup(ok, 'hh', undefined, 'public');
    const hh = group(app.state, 'hh').id;
    // One private share of a project `uu` reaches (out of N), and M of projects only `vv` reaches (M in all).
    await ok(system, { type: 'ShareProject', project_id: project(app.state, 'rr/s7/p7').id, group_id: hh, group_access: 30 });
    const M = 40;
    await ok(system, userCommand('vv'));
    await createGroup(ok, 'other');
    const other = group(app.state, 'other').id;
    await ok(system, { type: 'AddMember', source_type: 'Namespace', source_id: other, user_id: userId(app.state, 'vv'), access_level: 30 });
    for (let i = 0; i < M; i++) {
      await ok(system, { type: 'CreateProject', path: `q${i}`, namespace_id: other, visibility: 'private' });
      await ok(system, { type: 'ShareProject', project_id: project(app.state, `other/q${i}`).id, group_id: hh, group_access: 30 });
    }
    // `ww` reaches one project, not shared.
    await ok(system, userCommand('ww'));
    await createGroup(ok, 'ws');
    await ok(system, { type: 'AddMember', source_type: 'Namespace', source_id: group(app.state, 'ws').id, user_id: userId(app.state, 'ww'), access_level: 30 });
    await ok(system, { type: 'CreateProject', path: 'wp', namespace_id: group(app.state, 'ws').id, visibility: 'private' });
    const state = app.state;
    const hhGroup = group(state, 'hh');
    const readable = (user: number) => [...projectsSharedWithGroup(state, hh)].filter((p) => canReadProject(state, user, p)).map((p) => p.id).sort((a, b) => a - b);
    expect(readable(userId(state, 'uu'))).toEqual([project(state, 'rr/s7/p7').id]);
    expect(readable(userId(state, 'vv'))).toHaveLength(M);
    expect(readable(userId(state, 'ww'))).toEqual([]);
    for (const [name, bound] of [
      // Reaches N groups and N projects: the M + 1 shares are taken, not the reach.
      ['uu', 4 * (M + 1)],
      // Reaches two nodes: its reach is taken, not the shares.
      ['ww', 40],
      // Reaches M + 1 nodes, as many as the shares: its reach.
      ['vv', 4 * (M + 1)],
    ] as const) {
      const user = userId(state, name);
      let candidates: Project[] = [];
      const cost = reads(state, (s) => {
        candidates = sharedProjectCandidates(s, user, hhGroup);
      });
      expect(candidates.filter((p) => canReadProject(state, user, p)).map((p) => p.id)).toEqual(readable(user));
      expect(cost).toBeLessThan(bound);
    }
  });
});

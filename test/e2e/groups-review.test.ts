/**
 * Review of the groups and projects audit (issue 16, branch review-groups): faults found in fid-groups, each with the
 * test that failed before its mend.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { createGroup, createPerson, createProject, type Person } from '../members/support.js';

let server: TestServer;
let alice: Person, bob: Person, carol: Person;

beforeAll(async () => {
  server = await startServer({ start: '2026-05-01T00:00:00.000Z' });
  alice = await createPerson(server, 'alice');
  bob = await createPerson(server, 'bob');
  carol = await createPerson(server, 'carol');
});
afterAll(async () => {
  await server.close();
});

const usernames = (body: { username: string }[]) => body.map((m) => m.username);

describe('share_with_group_lock and the members a project shows', () => {
  it('a locked group’s project shares add nobody to /members/all, /members/all/:user_id or the audit’s members', async () => {
    const home = await createGroup(server, alice, 'Keep');
    const project = await createProject(server, alice, 'Vault', home.id);
    const team = await createGroup(server, carol, 'Crew', undefined, 'internal');
    expect((await server.request('POST', `/api/v4/groups/${team.id}/members`, { token: carol.token, body: { user_id: bob.id, access_level: 30 } })).status).toBe(201);
    expect((await server.request('POST', `/api/v4/projects/${project.id}/share`, { token: alice.token, body: { group_id: team.id, group_access: 30 } })).status).toBe(201);
    const all = async (query = '') => (await server.request('GET', `/api/v4/projects/${project.id}/members/all${query}`, { token: alice.token })).body;
    const audit = async () => usernames((await server.request('GET', `/api/v4/audit/projects/${project.id}/members?at=2030-01-01T00:00:00Z`)).body);
    expect(usernames(await all())).toEqual(['alice', 'bob', 'carol']);
    expect(await audit()).toEqual(['alice', 'bob', 'carol']);

    expect((await server.request('PUT', `/api/v4/groups/${home.id}`, { token: alice.token, body: { share_with_group_lock: true } })).status).toBe(200);
    // The share grants nothing (ProjectTeam), so its members are no members of the project.
    expect((await server.request('GET', `/api/v4/projects/${project.id}`, { token: bob.token })).status).toBe(404);
    expect(usernames(await all())).toEqual(['alice']);
    expect(usernames(await all('?query=bob'))).toEqual([]);
    expect((await server.request('GET', `/api/v4/projects/${project.id}/members/all/${bob.id}`, { token: alice.token })).status).toBe(404);
    expect(await audit()).toEqual(['alice']);

    expect((await server.request('PUT', `/api/v4/groups/${home.id}`, { token: alice.token, body: { share_with_group_lock: false } })).status).toBe(200);
    expect(usernames(await all())).toEqual(['alice', 'bob', 'carol']);
    expect(await server.request('GET', `/api/v4/projects/${project.id}/members/all/${bob.id}`, { token: alice.token })).toMatchObject({ status: 200, body: { access_level: 30 } });
  });
});

describe('DELETE /projects/:id/fork and the project’s own forks', () => {
  it('unlinks the project’s direct forks too (UnlinkForkService: forked_to_members), for a fork and for a root', async () => {
    const dan = await createPerson(server, 'dan');
    const trunk = await server.request('POST', '/api/v4/projects', { token: alice.token, body: { name: 'Stem', visibility: 'public' } });
    const branch = await server.request('POST', `/api/v4/projects/${trunk.body.id}/fork`, { token: bob.token });
    const twig = await server.request('POST', `/api/v4/projects/${branch.body.id}/fork`, { token: carol.token });
    const leaf = await server.request('POST', `/api/v4/projects/${trunk.body.id}/fork`, { token: dan.token });
    expect([branch.status, twig.status, leaf.status]).toEqual([201, 201, 201]);
    const show = async (id: number) => (await server.request('GET', `/api/v4/projects/${id}`, { token: alice.token })).body;
    const forks = async (id: number) => (await server.request('GET', `/api/v4/projects/${id}/forks`, { token: alice.token })).body.map((p: { id: number }) => p.id);

    expect((await server.request('DELETE', `/api/v4/projects/${branch.body.id}/fork`, { token: bob.token })).status).toBe(204);
    expect('forked_from_project' in (await show(branch.body.id))).toBe(false);
    expect('forked_from_project' in (await show(twig.body.id))).toBe(false);
    expect((await show(branch.body.id)).forks_count).toBe(0);
    expect(await forks(branch.body.id)).toEqual([]);
    expect(await forks(trunk.body.id)).toEqual([leaf.body.id]);

    // A root of forks has a fork network: unlinking it detaches its forks (204), not a 304.
    expect((await server.request('DELETE', `/api/v4/projects/${trunk.body.id}/fork`, { token: alice.token })).status).toBe(204);
    expect('forked_from_project' in (await show(leaf.body.id))).toBe(false);
    expect((await show(trunk.body.id)).forks_count).toBe(0);
    const before = server.app.position;
    expect((await server.request('DELETE', `/api/v4/projects/${trunk.body.id}/fork`, { token: alice.token })).status).toBe(304);
    expect(server.app.position).toBe(before);
  });
});

describe('GET /projects and the caller’s personal namespace', () => {
  it('owned, membership and the default list find a project moved into the caller’s namespace (owned_projects)', async () => {
    const erin = await createPerson(server, 'erin');
    const shop = await createGroup(server, erin, 'Shop');
    const made = await createProject(server, erin, 'Crate', shop.id);
    const moved = await server.request('PUT', `/api/v4/projects/${made.id}/transfer`, { token: erin.token, body: { namespace: 'erin' } });
    expect(moved.status).toBe(200);
    expect(moved.body.path_with_namespace).toBe('erin/crate');
    expect((await server.request('GET', `/api/v4/projects/${made.id}/members`, { token: erin.token })).body).toEqual([]);
    const ids = async (query: string) => (await server.request('GET', `/api/v4/projects${query}`, { token: erin.token })).body.map((p: { id: number }) => p.id);
    expect(await ids('?owned=true')).toEqual([made.id]);
    expect(await ids('?membership=true')).toEqual([made.id]);
    // 14.7's project_authorizations hold a personal project as Maintainer (`select_as_maintainer_for_project_authorization`;
    // the Owner role came in 14.8): it is owned, but not at min_access_level=50.
    expect(await ids('?min_access_level=40')).toEqual([made.id]);
    expect(await ids('?min_access_level=50')).toEqual([]);
    expect(await ids('?visibility=private')).toEqual([made.id]);
  });
});

describe('fork targets', () => {
  it('are the groups of the caller’s own memberships (ForkTargetsFinder’s manageable_groups), not those shared with their groups', async () => {
    const gus = await createPerson(server, 'gus');
    const source = await server.request('POST', '/api/v4/projects', { token: alice.token, body: { name: 'Seed', visibility: 'public' } });
    const target = await createGroup(server, carol, 'Orchard2');
    const team = await createGroup(server, gus, 'Pickers', undefined, 'internal');
    expect((await server.request('POST', `/api/v4/groups/${target.id}/share`, { token: carol.token, body: { group_id: team.id, group_access: 40 } })).status).toBe(201);
    const before = server.app.position;
    const fork = await server.request('POST', `/api/v4/projects/${source.body.id}/fork`, { token: gus.token, body: { namespace_id: target.id } });
    expect({ status: fork.status, body: fork.body }).toEqual({ status: 404, body: { message: '404 Target Namespace Not Found' } });
    expect(server.app.position).toBe(before);
    // A Maintainer of the group's parent (a direct membership above it) may fork there.
    const sub = await server.request('POST', '/api/v4/groups', { token: carol.token, body: { name: 'Rows', path: 'rows', parent_id: target.id } });
    expect((await server.request('POST', `/api/v4/groups/${target.id}/members`, { token: carol.token, body: { user_id: bob.id, access_level: 40 } })).status).toBe(201);
    expect((await server.request('POST', `/api/v4/projects/${source.body.id}/fork`, { token: bob.token, body: { namespace_id: sub.body.id } })).status).toBe(201);
  });
});

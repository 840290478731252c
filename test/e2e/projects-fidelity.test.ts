/**
 * `GET /projects/:id` as python-gitlab reads it (issue 16): `shared_with_groups` (SharedGroupWithProject of the links
 * the viewer can see) and, for signed-in callers, ProjectWithAccess's `permissions`; and the 403 bodies of the
 * last-owner and LDAP-synced refusals as the reference notes record them (no reason: items 75, 180).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { createGroup, createPerson, type Person } from '../members/support.js';

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

describe('GET /projects/:id', () => {
  it('shows shared_with_groups and, to signed-in callers, permissions', async () => {
    const home = await createGroup(server, alice, 'Home', undefined, 'public');
    const project = await server.request('POST', '/api/v4/projects', { token: alice.token, body: { name: 'App', namespace_id: home.id, visibility: 'public' } });
    const id = project.body.id;
    const team = await createGroup(server, carol, 'Team', undefined, 'internal');
    const hidden = await createGroup(server, carol, 'Hidden');
    await server.request('POST', `/api/v4/groups/${team.id}/members`, { token: carol.token, body: { user_id: bob.id, access_level: 40 } });
    expect((await server.request('POST', `/api/v4/projects/${id}/share`, { token: alice.token, body: { group_id: team.id, group_access: 20, expires_at: '2026-12-31' } })).status).toBe(201);
    expect((await server.request('POST', `/api/v4/projects/${id}/share`, { body: { group_id: hidden.id, group_access: 30 } })).status).toBe(201);
    await server.request('POST', `/api/v4/projects/${id}/members`, { token: alice.token, body: { user_id: carol.id, access_level: 30 } });

    const asAlice = (await server.request('GET', `/api/v4/projects/${id}`, { token: alice.token })).body;
    expect(asAlice.shared_with_groups).toEqual([{ group_id: team.id, group_name: 'Team', group_full_path: 'team', group_access_level: 20, expires_at: '2026-12-31' }]);
    expect(asAlice.permissions).toEqual({ project_access: null, group_access: { access_level: 50, notification_level: 3 } });
    expect(Object.keys(asAlice).slice(-2)).toEqual(['shared_with_groups', 'permissions']);

    const asCarol = (await server.request('GET', `/api/v4/projects/${id}`, { token: carol.token })).body;
    expect(asCarol.shared_with_groups.map((g: { group_name: string }) => g.group_name)).toEqual(['Team', 'Hidden']);
    expect(asCarol.permissions).toEqual({ project_access: { access_level: 30, notification_level: 3 }, group_access: null });
    // Access through a share is neither a project nor a group membership.
    expect((await server.request('GET', `/api/v4/projects/${id}`, { token: bob.token })).body.permissions).toEqual({ project_access: null, group_access: null });
    const anonymous = await server.request('GET', `/api/v4/projects/${id}`, { token: null });
    expect(anonymous.status).toBe(200);
    expect('permissions' in anonymous.body).toBe(false);
    expect(anonymous.body.shared_with_groups.map((g: { group_name: string }) => g.group_name)).toEqual([]);
    // A personal project's owner is its direct maintainer.
    const mine = await server.request('POST', '/api/v4/projects', { token: bob.token, body: { name: 'Mine' } });
    expect(mine.status).toBe(201);
    expect((await server.request('GET', `/api/v4/projects/${mine.body.id}`, { token: bob.token })).body.permissions).toEqual({ project_access: { access_level: 40, notification_level: 3 }, group_access: null });
  });

  it('the last owner and LDAP-synced refusals are plain 403s, as the reference records', async () => {
    const group = await createGroup(server, alice, 'Solo');
    const raw = async (method: string, path: string, body?: unknown) => {
      const r = await server.request(method, path, { token: alice.token, ...(body === undefined ? {} : { body }) });
      return { status: r.status, text: r.text };
    };
    expect(await raw('DELETE', `/api/v4/groups/${group.id}/members/${alice.id}`)).toEqual({ status: 403, text: '{"message":"403 Forbidden"}' });
    expect(await raw('PUT', `/api/v4/groups/${group.id}/members/${alice.id}`, { access_level: 30 })).toEqual({ status: 403, text: '{"message":"403 Forbidden"}' });
    await server.request('POST', `/api/v4/groups/${group.id}/ldap_group_links`, { token: alice.token, body: { cn: 'devs', group_access: 30, provider: 'ldapmain' } });
    expect(await raw('POST', `/api/v4/groups/${group.id}/members`, { user_id: bob.id, access_level: 30 })).toEqual({ status: 403, text: '{"message":"403 Forbidden"}' });
  });
});

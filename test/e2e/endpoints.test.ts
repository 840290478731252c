/**
 * Endpoints that real clients' tests need (issue 16), each against lib/api/*.rb and its request spec:
 * descendant groups, a project's groups, a user's memberships and projects.
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

const names = (body: { name: string }[]) => body.map((g) => g.name);

describe('GET /groups/:id/descendant_groups', () => {
  it('lists every group below, at any depth, that the caller can see, by name', async () => {
    const top = await createGroup(server, alice, 'Top', undefined, 'public');
    const a = await createGroup(server, alice, 'Bee', top.id, 'public');
    await createGroup(server, alice, 'Cee', a.id, 'public');
    const hidden = await createGroup(server, alice, 'Aay', top.id, 'private');
    await createGroup(server, alice, 'Dee', hidden.id, 'private');
    expect(names((await server.request('GET', `/api/v4/groups/${top.id}/descendant_groups`, { token: alice.token })).body)).toEqual(['Aay', 'Bee', 'Cee', 'Dee']);
    expect(names((await server.request('GET', `/api/v4/groups/${top.id}/descendant_groups`, { token: bob.token })).body)).toEqual(['Bee', 'Cee']);
    expect(names((await server.request('GET', `/api/v4/groups/${top.id}/descendant_groups`, { token: null })).body)).toEqual(['Bee', 'Cee']);
    expect(names((await server.request('GET', `/api/v4/groups/${top.id}/descendant_groups?search=ee&sort=desc`, { token: alice.token })).body)).toEqual(['Dee', 'Cee', 'Bee']);
    expect((await server.request('GET', `/api/v4/groups/${hidden.id}/descendant_groups`, { token: bob.token })).status).toBe(404);
    // Subgroups stay one level deep.
    expect(names((await server.request('GET', `/api/v4/groups/${top.id}/subgroups`, { token: alice.token })).body)).toEqual(['Aay', 'Bee']);
  });
});

describe('GET /projects/:id/groups', () => {
  it('lists the project group and its ancestors, and with_shared the invited groups (PublicGroupDetails, newest first)', async () => {
    const base = await createGroup(server, alice, 'Base', undefined, 'internal');
    const sub = await createGroup(server, alice, 'Sub', base.id, 'internal');
    const project = await createProject(server, alice, 'Proj', sub.id);
    const guests = await createGroup(server, carol, 'Guests', undefined, 'internal');
    const secret = await createGroup(server, carol, 'Secret');
    await server.request('POST', `/api/v4/projects/${project.id}/share`, { token: alice.token, body: { group_id: guests.id, group_access: 30 } });
    await server.request('POST', `/api/v4/projects/${project.id}/share`, { body: { group_id: secret.id, group_access: 10 } });
    const plain = await server.request('GET', `/api/v4/projects/${project.id}/groups`, { token: alice.token });
    expect(plain.status).toBe(200);
    expect(plain.body).toEqual([
      { id: sub.id, web_url: `${server.baseUrl}/groups/base/sub`, name: 'Sub', avatar_url: null, full_name: 'Base / Sub', full_path: 'base/sub' },
      { id: base.id, web_url: `${server.baseUrl}/groups/base`, name: 'Base', avatar_url: null, full_name: 'Base', full_path: 'base' },
    ]);
    expect(names((await server.request('GET', `/api/v4/projects/${project.id}/groups?with_shared=true`, { token: alice.token })).body)).toEqual(['Guests', 'Sub', 'Base']);
    expect(names((await server.request('GET', `/api/v4/projects/${project.id}/groups?with_shared=true`, { token: carol.token })).body)).toEqual(['Secret', 'Guests', 'Sub', 'Base']);
    expect(names((await server.request('GET', `/api/v4/projects/${project.id}/groups?with_shared=true&shared_min_access_level=30`, { token: carol.token })).body)).toEqual(['Guests', 'Sub', 'Base']);
    expect(names((await server.request('GET', `/api/v4/projects/${project.id}/groups?search=ba&skip_groups[]=${sub.id}`, { token: alice.token })).body)).toEqual(['Base']);
    expect((await server.request('GET', `/api/v4/projects/${project.id}/groups`, { token: null })).status).toBe(404);
  });
});

describe('GET /users/:user_id/memberships', () => {
  it('lists a user\'s memberships for administrators (Entities::Membership), filtered by type', async () => {
    const dave = await createPerson(server, 'dave');
    const group = await createGroup(server, alice, 'Crew');
    const project = await createProject(server, alice, 'Ship', group.id);
    await server.request('POST', `/api/v4/groups/${group.id}/members`, { token: alice.token, body: { user_id: dave.id, access_level: 20 } });
    await server.request('POST', `/api/v4/projects/${project.id}/members`, { token: alice.token, body: { user_id: dave.id, access_level: 30 } });
    const all = await server.request('GET', `/api/v4/users/${dave.id}/memberships`);
    expect(all.status).toBe(200);
    expect(all.body).toEqual([
      { source_id: group.id, source_name: 'Crew', source_type: 'Namespace', access_level: 20 },
      { source_id: project.id, source_name: 'Ship', source_type: 'Project', access_level: 30 },
    ]);
    expect((await server.request('GET', `/api/v4/users/${dave.id}/memberships?type=Project`)).body.map((m: { source_type: string }) => m.source_type)).toEqual(['Project']);
    expect(await server.request('GET', `/api/v4/users/${dave.id}/memberships?type=Group`)).toMatchObject({ status: 400, body: { error: 'type does not have a valid value' } });
    expect(await server.request('GET', '/api/v4/users/9999/memberships')).toMatchObject({ status: 404, body: { message: '404 User Not Found' } });
    expect((await server.request('GET', `/api/v4/users/${dave.id}/memberships`, { token: dave.token })).status).toBe(403);
  });
});

describe('GET /users/:user_id/projects', () => {
  it('lists the projects of the user\'s namespace the caller can see, by id or username', async () => {
    const erin = await createPerson(server, 'erin');
    const open = await server.request('POST', '/api/v4/projects', { token: erin.token, body: { name: 'Open', visibility: 'public' } });
    await server.request('POST', '/api/v4/projects', { token: erin.token, body: { name: 'Closed' } });
    const asErin = await server.request('GET', `/api/v4/users/${erin.id}/projects`, { token: erin.token });
    expect(asErin.body.map((p: { path_with_namespace: string }) => p.path_with_namespace)).toEqual(['erin/closed', 'erin/open']);
    expect((await server.request('GET', '/api/v4/users/erin/projects?order_by=id&sort=asc', { token: bob.token })).body.map((p: { id: number }) => p.id)).toEqual([open.body.id]);
    expect((await server.request('GET', `/api/v4/users/${erin.id}/projects`, { token: null })).body.map((p: { name: string }) => p.name)).toEqual(['Open']);
    expect(await server.request('GET', '/api/v4/users/nobody/projects')).toMatchObject({ status: 404, body: { message: '404 User Not Found' } });
  });
});

describe('access requests', () => {
  for (const kind of ['groups', 'projects'] as const) {
    it(`${kind}: request, list, approve, deny and withdraw as spec/requests/api/access_requests_spec.rb`, async () => {
      const owner = await createPerson(server, `own-${kind}`);
      const dev = await createPerson(server, `dev-${kind}`);
      const requester = await createPerson(server, `req-${kind}`);
      const stranger = await createPerson(server, `str-${kind}`);
      const other = await createPerson(server, `oth-${kind}`);
      const group = await createGroup(server, owner, `Ar${kind}`, undefined, 'public');
      const source =
        kind === 'groups' ? group : (await server.request('POST', '/api/v4/projects', { token: owner.token, body: { name: `ar-${kind}`, namespace_id: group.id, visibility: 'public' } })).body;
      const base = `/api/v4/${kind}/${source.id}`;
      if (kind === 'projects') await server.request('POST', `${base}/members`, { token: owner.token, body: { user_id: owner.id, access_level: 40 } });
      await server.request('POST', `${base}/members`, { token: owner.token, body: { user_id: dev.id, access_level: 30 } });

      const asked = await server.request('POST', `${base}/access_requests`, { token: requester.token });
      expect(asked.status).toBe(201);
      expect(Object.keys(asked.body)).toEqual(['id', 'username', 'name', 'state', 'avatar_url', 'web_url', 'requested_at']);
      expect(asked.body).toMatchObject({ id: requester.id, username: requester.username, requested_at: '2026-05-01T00:00:00.000Z' });
      // Again: the model's uniqueness (400); a member: 403; nobody signed in: 401.
      expect(await server.request('POST', `${base}/access_requests`, { token: requester.token })).toMatchObject({ status: 400, body: { message: { user_id: ['already exists in source'] } } });
      expect((await server.request('POST', `${base}/access_requests`, { token: dev.token })).status).toBe(403);
      expect((await server.request('POST', `${base}/access_requests`, { token: null })).status).toBe(401);
      // An administrator has access already (GroupPolicy `has_access`: Owner's level; ProjectPolicy prevents `admin`).
      expect((await server.request('POST', `${base}/access_requests`)).status).toBe(403);
      // Requesters are not members.
      expect((await server.request('GET', `${base}/members/${requester.id}`, { token: owner.token })).status).toBe(404);

      for (const who of [dev, requester, stranger]) expect((await server.request('GET', `${base}/access_requests`, { token: who.token })).status).toBe(403);
      const list = await server.request('GET', `${base}/access_requests`, { token: owner.token });
      expect(list.status).toBe(200);
      expect(list.headers.get('x-total')).toBe('1');
      expect(list.body.map((r: { id: number }) => r.id)).toEqual([requester.id]);

      for (const who of [dev, requester, stranger]) expect((await server.request('PUT', `${base}/access_requests/${requester.id}/approve`, { token: who.token })).status).toBe(403);
      expect(await server.request('PUT', `${base}/access_requests/${stranger.id}/approve`, { token: owner.token })).toMatchObject({ status: 404, body: { message: '404 Not found' } });
      const approved = await server.request('PUT', `${base}/access_requests/${requester.id}/approve`, { token: owner.token, body: { access_level: 40 } });
      expect(approved).toMatchObject({ status: 201, body: { id: requester.id, username: requester.username, access_level: 40 } });
      expect((await server.request('GET', `${base}/members/${requester.id}`, { token: owner.token })).body.access_level).toBe(40);
      expect((await server.request('GET', `${base}/access_requests`, { token: owner.token })).body).toEqual([]);

      // Denied by an administrator, withdrawn by the requester; a member is not a requester (404).
      await server.request('POST', `${base}/access_requests`, { token: stranger.token });
      await server.request('POST', `${base}/access_requests`, { token: other.token });
      expect((await server.request('DELETE', `${base}/access_requests/${stranger.id}`, { token: dev.token })).status).toBe(403);
      expect((await server.request('DELETE', `${base}/access_requests/${dev.id}`, { token: owner.token })).status).toBe(404);
      expect((await server.request('DELETE', `${base}/access_requests/${stranger.id}`, { token: owner.token })).status).toBe(204);
      expect((await server.request('DELETE', `${base}/access_requests/${other.id}`, { token: other.token })).status).toBe(204);
      expect((await server.request('GET', `${base}/access_requests`, { token: owner.token })).body).toEqual([]);
      // Requests can be turned off (groups).
      if (kind === 'groups') {
        await server.request('PUT', base, { token: owner.token, body: { request_access_enabled: false } });
        expect((await server.request('POST', `${base}/access_requests`, { token: stranger.token })).status).toBe(403);
      }
    });
  }

  it('a private source is a 404 for strangers, and a source\'s deletion ends its requests', async () => {
    const owner = await createPerson(server, 'ar-owner');
    const asker = await createPerson(server, 'ar-asker');
    const hidden = await createGroup(server, owner, 'ArHidden');
    expect((await server.request('POST', `/api/v4/groups/${hidden.id}/access_requests`, { token: asker.token })).status).toBe(404);
    // A member of one of its projects reads the private group, but may not ask to join it (`~view_globally`).
    const inside = (await server.request('POST', '/api/v4/projects', { token: owner.token, body: { name: 'ar-inside', namespace_id: hidden.id } })).body;
    await server.request('POST', `/api/v4/projects/${inside.id}/members`, { token: owner.token, body: { user_id: asker.id, access_level: 30 } });
    expect((await server.request('GET', `/api/v4/groups/${hidden.id}`, { token: asker.token })).status).toBe(200);
    expect((await server.request('POST', `/api/v4/groups/${hidden.id}/access_requests`, { token: asker.token })).status).toBe(403);
    const open = await createGroup(server, owner, 'ArOpen', undefined, 'internal');
    await server.request('POST', `/api/v4/groups/${open.id}/access_requests`, { token: asker.token });
    await server.request('DELETE', `/api/v4/groups/${open.id}`, { token: owner.token });
    const history = await server.request('GET', `/api/v4/audit/membership_events?user_id=${asker.id}`);
    expect(history.body.map((e: { event: string; reason?: string }) => [e.event, e.reason ?? null])).toContainEqual(['AccessRequestDenied', 'source_deleted']);
  });
});

describe('group membership lock (EE)', () => {
  it('a locked group\'s projects take no new members (405); the group itself still does', async () => {
    const owner = await createPerson(server, 'lock-owner');
    const joiner = await createPerson(server, 'lock-joiner');
    const group = await server.request('POST', '/api/v4/groups', { token: owner.token, body: { name: 'Locked', path: 'locked', membership_lock: true } });
    expect(group.status).toBe(201);
    expect(group.body.membership_lock).toBe(true);
    const project = await createProject(server, owner, 'Vault', group.body.id);
    const members = `/api/v4/projects/${project.id}/members`;
    const before = server.app.position;
    const single = await server.request('POST', members, { token: owner.token, body: { user_id: joiner.id, access_level: 30 } });
    expect({ status: single.status, text: single.text }).toEqual({ status: 405, text: '{"message":"405 Method Not Allowed"}' });
    expect((await server.request('POST', members, { token: owner.token, body: { user_id: `${joiner.id},${alice.id}`, access_level: 30 } })).status).toBe(405);
    expect((await server.request('POST', `/api/v4/projects/${project.id}/invitations`, { token: owner.token, body: { email: 'someone@example.com', access_level: 30 } })).status).toBe(405);
    expect(server.app.position).toBe(before);
    // Permission and lookup failures come first.
    expect((await server.request('POST', members, { token: joiner.token, body: { user_id: joiner.id, access_level: 30 } })).status).toBe(404);
    expect((await server.request('POST', members, { token: owner.token, body: { user_id: 9999, access_level: 30 } })).status).toBe(404);
    // The group's own membership is not locked.
    expect((await server.request('POST', `/api/v4/groups/${group.body.id}/members`, { token: owner.token, body: { user_id: joiner.id, access_level: 30 } })).status).toBe(201);
    const unlocked = await server.request('PUT', `/api/v4/groups/${group.body.id}`, { token: owner.token, body: { membership_lock: false } });
    expect(unlocked.body.membership_lock).toBe(false);
    expect((await server.request('POST', members, { token: owner.token, body: { user_id: bob.id, access_level: 30 } })).status).toBe(201);
    // An update that changes nothing answers the group as it is and writes nothing (updated_at kept).
    const head = server.app.position;
    for (const body of [{}, { membership_lock: false, name: group.body.name }]) {
      const same = await server.request('PUT', `/api/v4/groups/${group.body.id}`, { token: owner.token, body });
      expect(same).toMatchObject({ status: 200, body: { id: group.body.id, membership_lock: false } });
    }
    expect((await server.request('PUT', `/api/v4/projects/${project.id}`, { token: owner.token, body: { name: 'Vault' } })).status).toBe(200);
    expect(server.app.position).toBe(head);
  });
});

describe('transfers', () => {
  it('PUT /projects/:id/transfer moves a project to a group or a personal namespace, as Projects::TransferService', async () => {
    const owner = await createPerson(server, 'tp-owner');
    const dev = await createPerson(server, 'tp-dev');
    const from = await createGroup(server, owner, 'TpFrom', undefined, 'public');
    const to = await createGroup(server, owner, 'TpTo', undefined, 'internal');
    await server.request('POST', `/api/v4/groups/${from.id}/members`, { token: owner.token, body: { user_id: dev.id, access_level: 40 } });
    const project = (await server.request('POST', '/api/v4/projects', { token: owner.token, body: { name: 'Moving', namespace_id: from.id, visibility: 'public' } })).body;
    const path = `/api/v4/projects/${project.id}/transfer`;
    // A maintainer may not (change_namespace is the owner's), and that comes before the namespace lookup.
    expect(await server.request('PUT', path, { token: dev.token, body: { namespace: 'nowhere' } })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await server.request('PUT', path, { token: owner.token, body: { namespace: 'nowhere' } })).toMatchObject({ status: 404, body: { message: '404 Namespace Not Found' } });
    expect(await server.request('PUT', path, { token: owner.token, body: { namespace: String(from.id) } })).toMatchObject({
      status: 400,
      body: { message: 'Failed to transfer project {:new_namespace=>["Transfer failed, please contact an admin."]}' },
    });
    const moved = await server.request('PUT', path, { token: owner.token, body: { namespace: 'tpto' } });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ id: project.id, path_with_namespace: 'tpto/moving', name_with_namespace: 'TpTo / Moving', visibility: 'internal', namespace: { id: to.id, kind: 'group', full_path: 'tpto' } });
    expect((await server.request('GET', '/api/v4/projects/tpfrom%2Fmoving', { token: owner.token })).status).toBe(404);
    expect((await server.request('GET', '/api/v4/projects/tpto%2Fmoving', { token: owner.token })).body.id).toBe(project.id);
    // Access follows the new hierarchy: the old group's maintainer has none there now.
    expect((await server.request('GET', `/api/v4/projects/${project.id}/members/all/${dev.id}`, { token: owner.token })).status).toBe(404);
    // A clash of path or name in the target.
    const twin = (await server.request('POST', '/api/v4/projects', { token: owner.token, body: { name: 'Moving', namespace_id: from.id } })).body;
    expect(await server.request('PUT', `/api/v4/projects/${twin.id}/transfer`, { token: owner.token, body: { namespace: to.id } })).toMatchObject({
      status: 400,
      body: { message: 'Failed to transfer project {:new_namespace=>["Project with same name or path in target namespace already exists"]}' },
    });
    // To the owner's personal namespace, by username.
    const home = await server.request('PUT', `/api/v4/projects/${twin.id}/transfer`, { token: owner.token, body: { namespace: 'tp-owner' } });
    expect(home.body).toMatchObject({ path_with_namespace: 'tp-owner/moving', namespace: { kind: 'user', full_path: 'tp-owner' } });
    expect((await server.request('PUT', `/api/v4/projects/${twin.id}/transfer`, { token: owner.token, body: { namespace: 'tp-dev' } })).status).toBe(404);
  });

  it('POST /groups/:id/transfer moves a group with its subtree, or promotes it, as Groups::TransferService', async () => {
    const owner = await createPerson(server, 'tg-owner');
    const helper = await createPerson(server, 'tg-helper');
    const a = await createGroup(server, owner, 'TgA', undefined, 'private');
    const b = await createGroup(server, owner, 'TgB', undefined, 'public');
    const child = await createGroup(server, owner, 'Kid', b.id, 'public');
    const grandchild = await createGroup(server, owner, 'Grand', child.id, 'public');
    const project = await createProject(server, owner, 'Deep', grandchild.id);
    await server.request('POST', `/api/v4/groups/${b.id}/members`, { token: owner.token, body: { user_id: helper.id, access_level: 30 } });
    const transfer = (id: number, body: unknown, token = owner.token) => server.request('POST', `/api/v4/groups/${id}/transfer`, { token, body });
    expect(await transfer(b.id, {})).toMatchObject({ status: 400, body: { message: 'Transfer failed: Group is already a root group.' } });
    expect(await transfer(child.id, { group_id: b.id })).toMatchObject({ status: 400, body: { message: 'Transfer failed: Group is already associated to the parent group.' } });
    expect(await transfer(child.id, { group_id: grandchild.id })).toMatchObject({ status: 400, body: { message: 'Transfer failed: Cannot transfer group to one of its subgroup.' } });
    expect(await transfer(child.id, { group_id: 9999 })).toMatchObject({ status: 404, body: { message: '404 Group Not Found' } });
    expect((await transfer(child.id, { group_id: a.id }, helper.token)).status).toBe(403);
    const moved = await transfer(child.id, { group_id: a.id });
    expect(moved.status).toBe(201);
    expect(moved.body).toMatchObject({ id: child.id, parent_id: a.id, full_path: 'tga/kid', full_name: 'TgA / Kid', visibility: 'private' });
    expect((await server.request('GET', `/api/v4/groups/${grandchild.id}`, { token: owner.token })).body).toMatchObject({ full_path: 'tga/kid/grand', visibility: 'private' });
    expect((await server.request('GET', `/api/v4/projects/${project.id}`, { token: owner.token })).body.path_with_namespace).toBe('tga/kid/grand/deep');
    // The helper's access came from B: gone with the move.
    expect((await server.request('GET', `/api/v4/groups/${child.id}/members/all`, { token: owner.token })).body.map((m: { username: string }) => m.username)).toEqual(['tg-owner']);
    // Promoted to the top: its owner stays; the path must be free at the top.
    const promoted = await transfer(grandchild.id, {});
    expect(promoted).toMatchObject({ status: 201, body: { parent_id: null, full_path: 'grand' } });
    await createGroup(server, owner, 'Dup', a.id);
    const dup = await createGroup(server, owner, 'Dup', child.id);
    expect(await transfer(dup.id, { group_id: a.id })).toMatchObject({ status: 400, body: { message: 'Transfer failed: The parent group already has a subgroup or a project with the same path.' } });
    // Billable follows: the owner counts in the new top-level group.
    expect((await server.request('GET', `/api/v4/groups/${grandchild.id}/billable_members`, { token: owner.token })).body.map((u: { username: string }) => u.username)).toEqual(['tg-owner']);
  });
});

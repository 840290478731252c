/** Membership endpoints over HTTP against a real server: statuses, bodies and orders of checks (reference §2). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { createGroup, createPerson, createProject, type Person } from './support.js';

let server: TestServer;
let alice: Person, bob: Person, carol: Person, dave: Person;
let parent: { id: number; full_path: string };
let child: { id: number; full_path: string };
let project: { id: number; path_with_namespace: string };
const DAY = 86_400_000;

beforeAll(async () => {
  server = await startServer({ start: '2026-03-01T10:00:00.000Z' });
  alice = await createPerson(server, 'alice');
  bob = await createPerson(server, 'bob');
  carol = await createPerson(server, 'carol');
  dave = await createPerson(server, 'dave');
  parent = await createGroup(server, alice, 'Parent');
  child = await createGroup(server, alice, 'Child', parent.id);
  project = await createProject(server, alice, 'Proj', child.id);
});
afterAll(async () => {
  await server.close();
});

const as = (p: Person | null) => ({ token: p ? p.token : null });

describe('members over HTTP', () => {
  it('authentication, lookup and parameter errors come in the platform order and words', async () => {
    expect(await server.request('GET', `/api/v4/groups/${parent.id}/members`, { token: null })).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    expect(await server.request('GET', `/api/v4/groups/${parent.id}/members`, as(bob))).toMatchObject({ status: 404, body: { message: '404 Group Not Found' } });
    expect(await server.request('GET', `/api/v4/groups/999/members`, as(alice))).toMatchObject({ status: 404, body: { message: '404 Group Not Found' } });
    expect(await server.request('GET', `/api/v4/projects/someproject/members`, as(alice))).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect(await server.request('POST', `/api/v4/groups/${parent.id}/members`, { ...as(alice), body: {} })).toMatchObject({ status: 400, body: { error: 'access_level is missing, user_id is missing' } });
    expect(await server.request('GET', `/api/v4/groups/${parent.id}/members/abc`, as(alice))).toMatchObject({ status: 400, body: { error: 'user_id is invalid' } });
    expect(await server.request('GET', `/api/v4/groups/${parent.id}/members/all?state=foo`, as(alice))).toMatchObject({ status: 400, body: { error: 'state does not have a valid value' } });
    expect(await server.request('GET', `/api/v4/groups/${encodeURIComponent(child.full_path)}/members`, as(alice))).toMatchObject({ status: 200 });
    expect(await server.request('GET', `/api/v4/groups/${child.full_path}/members`, as(alice))).toMatchObject({ status: 404, body: { error: '404 Not Found' } });
  });

  it('adds a member (201, Member entity), rejects duplicates (409), unknown users (404), invalid levels (400)', async () => {
    const added = await server.request('POST', `/api/v4/groups/${parent.id}/members`, { ...as(alice), body: { user_id: bob.id, access_level: 30 } });
    expect(added.status).toBe(201);
    expect(Object.keys(added.body)).toEqual(['id', 'username', 'name', 'state', 'avatar_url', 'web_url', 'access_level', 'created_at', 'created_by', 'expires_at', 'membership_state']);
    expect(added.body).toMatchObject({ id: bob.id, username: 'bob', access_level: 30, expires_at: null, membership_state: 'active', created_by: { username: 'alice' } });
    expect(await server.request('POST', `/api/v4/groups/${parent.id}/members`, { ...as(alice), body: { user_id: bob.id, access_level: 30 } })).toMatchObject({ status: 409, body: { message: 'Member already exists' } });
    expect(await server.request('POST', `/api/v4/groups/${parent.id}/members`, { ...as(alice), body: { user_id: 9999, access_level: 30 } })).toMatchObject({ status: 404, body: { message: '404 User Not Found' } });
    expect(await server.request('POST', `/api/v4/projects/${project.id}/members`, { ...as(alice), body: { user_id: carol.id, access_level: 50 } })).toMatchObject({ status: 400, body: { message: { access_level: ['is not included in the list'] } } });
    expect(await server.request('POST', `/api/v4/groups/${child.id}/members`, { ...as(alice), body: { user_id: bob.id, access_level: 20 } })).toMatchObject({
      status: 400,
      body: { message: { access_level: ['should be greater than or equal to Developer inherited membership from group Parent'] } },
    });
    expect(await server.request('POST', `/api/v4/groups/${parent.id}/members`, { ...as(alice), body: { user_id: carol.id, access_level: 30, expires_at: '2026-02-27' } })).toMatchObject({
      status: 400,
      body: { message: { expires_at: ['cannot be a date in the past'] } },
    });
    // A developer may not add members (403); the stranger does not see the private group (404).
    expect(await server.request('POST', `/api/v4/groups/${parent.id}/members`, { ...as(bob), body: { user_id: carol.id, access_level: 10 } })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await server.request('POST', `/api/v4/groups/${parent.id}/members`, { ...as(carol), body: { user_id: carol.id, access_level: 10 } })).toMatchObject({ status: 404 });
  });

  it('multiple adds answer a status hash; lists, filters and single gets', async () => {
    const multi = await server.request('POST', `/api/v4/projects/${project.id}/members`, { ...as(alice), body: { user_id: `${carol.id},${dave.id}`, access_level: 20 } });
    expect(multi).toMatchObject({ status: 201, body: { status: 'success' } });
    const failing = await server.request('POST', `/api/v4/projects/${project.id}/members`, { ...as(alice), body: { user_id: `${carol.id},${bob.id}`, access_level: 10 } });
    expect(failing).toMatchObject({ status: 201, body: { status: 'error' } });
    expect(failing.body.message).toContain('bob: Access level should be greater than or equal to Developer inherited membership from group Parent');
    const direct = await server.request('GET', `/api/v4/projects/${project.id}/members`, as(alice));
    expect(direct.body.map((m: { username: string }) => m.username)).toEqual(['carol', 'dave']);
    expect(direct.headers.get('x-total')).toBe('2');
    const all = await server.request('GET', `/api/v4/projects/${project.id}/members/all`, as(alice));
    expect(all.body.map((m: { username: string; access_level: number }) => [m.username, m.access_level])).toEqual([['alice', 50], ['bob', 30], ['carol', 10], ['dave', 20]]);
    expect((await server.request('GET', `/api/v4/projects/${project.id}/members/all?user_ids=${bob.id},${dave.id}`, as(alice))).body.map((m: { id: number }) => m.id)).toEqual([bob.id, dave.id]);
    expect((await server.request('GET', `/api/v4/projects/${project.id}/members/all?query=car`, as(alice))).body.map((m: { id: number }) => m.id)).toEqual([carol.id]);
    expect(await server.request('GET', `/api/v4/projects/${project.id}/members/${bob.id}`, as(alice))).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect(await server.request('GET', `/api/v4/projects/${project.id}/members/all/${bob.id}`, as(alice))).toMatchObject({ status: 200, body: { id: bob.id, access_level: 30 } });
    const groupAll = await server.request('GET', `/api/v4/groups/${child.id}/members/all?per_page=1&page=2`, as(bob));
    expect(groupAll.body.map((m: { id: number }) => m.id)).toEqual([bob.id]);
    expect(groupAll.headers.get('x-total')).toBe('2');
    expect(groupAll.headers.get('x-next-page')).toBe('');
  });

  it('updates and removes; last-owner protection; anyone may leave', async () => {
    expect(await server.request('PUT', `/api/v4/groups/${parent.id}/members/${bob.id}`, { ...as(alice), body: {} })).toMatchObject({ status: 400, body: { error: 'access_level is missing' } });
    expect(await server.request('PUT', `/api/v4/groups/${parent.id}/members/${bob.id}`, { ...as(alice), body: { access_level: 40, expires_at: '2026-03-05' } })).toMatchObject({ status: 200, body: { access_level: 40, expires_at: '2026-03-05' } });
    expect(await server.request('PUT', `/api/v4/groups/${parent.id}/members/${carol.id}`, { ...as(alice), body: { access_level: 40 } })).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect(await server.request('PUT', `/api/v4/groups/${parent.id}/members/${alice.id}`, { ...as(alice), body: { access_level: 40 } })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await server.request('DELETE', `/api/v4/groups/${parent.id}/members/${alice.id}`, as(alice))).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await server.request('DELETE', `/api/v4/groups/${parent.id}/members/${alice.id}`, as(bob))).toMatchObject({ status: 403 });
    expect(await server.request('DELETE', `/api/v4/groups/${parent.id}/members/${bob.id}`, { ...as(alice), headers: { 'If-Unmodified-Since': 'Sun, 01 Mar 2026 09:00:00 GMT' } })).toMatchObject({ status: 412, body: { message: '412 Precondition Failed' } });
    const left = await server.request('DELETE', `/api/v4/projects/${project.id}/members/${dave.id}`, as(dave));
    expect(left.status).toBe(204);
    expect(left.text).toBe('');
  });

  it('expiry takes effect from the clock, and MemberExpired records it (by the system)', async () => {
    server.advance(5 * DAY);
    // The first request after the expiry date sweeps: bob's access is gone, he no longer sees the private group.
    expect(await server.request('GET', `/api/v4/groups/${parent.id}/members`, as(bob))).toMatchObject({ status: 404 });
    const all = await server.request('GET', `/api/v4/groups/${parent.id}/members/all`, as(alice));
    expect(all.body.map((m: { id: number }) => m.id)).toEqual([alice.id]);
    expect(await server.request('GET', `/api/v4/groups/${parent.id}/members/${bob.id}`, as(alice))).toMatchObject({ status: 404 });
    const history = await server.request('GET', `/api/v4/audit/membership_events?user_id=${bob.id}`);
    expect(history.body.find((e: { event: string }) => e.event === 'MemberExpired')).toMatchObject({ actor_id: null, origin: 'system', expires_at: '2026-03-05' });
  });

  it('invitations: existing addresses become members, others invitations accepted at sign-up', async () => {
    expect(await server.request('POST', `/api/v4/groups/${parent.id}/invitations`, { ...as(alice), body: { email: 'x@example.com', access_level: 99 } })).toMatchObject({ status: 400, body: { error: 'access_level does not have a valid value' } });
    expect(await server.request('POST', `/api/v4/groups/${parent.id}/invitations`, { ...as(alice), body: { email: 'not-an-address', access_level: 10 } })).toMatchObject({ status: 400, body: { error: 'email contains an invalid email address' } });
    const invited = await server.request('POST', `/api/v4/groups/${parent.id}/invitations`, { ...as(alice), body: { email: `bob@example.com,newcomer@example.com`, access_level: 20 } });
    expect(invited).toMatchObject({ status: 201, body: { status: 'success' } });
    expect((await server.request('GET', `/api/v4/groups/${parent.id}/members/${bob.id}`, as(alice))).body.access_level).toBe(20);
    const list = await server.request('GET', `/api/v4/groups/${parent.id}/invitations`, as(alice));
    expect(list.body).toEqual([expect.objectContaining({ invite_email: 'newcomer@example.com', access_level: 20 })]);
    expect(await server.request('GET', `/api/v4/groups/${parent.id}/invitations`, as(bob))).toMatchObject({ status: 403 });
    expect(await server.request('PUT', `/api/v4/groups/${parent.id}/invitations/newcomer@example.com`, { ...as(alice), body: { access_level: 30 } })).toMatchObject({ status: 200, body: { access_level: 30 } });
    const again = await server.request('POST', `/api/v4/groups/${parent.id}/invitations`, { ...as(alice), body: { email: 'newcomer@example.com', access_level: 20 } });
    expect(again.body).toEqual({ status: 'error', message: { 'newcomer@example.com': "The member's email address has already been taken" } });
    const pending = await server.request('GET', `/api/v4/groups/${parent.id}/pending_members`, as(alice));
    expect(pending.body).toEqual([expect.objectContaining({ email: 'newcomer@example.com', invited: true, approved: true })]);
    expect((await server.request('GET', `/api/v4/groups/${parent.id}/members/all`, as(alice))).body.some((m: { id: number | null }) => m.id === null)).toBe(false);
    const newcomer = await createPerson(server, 'newcomer');
    expect((await server.request('GET', `/api/v4/groups/${parent.id}/members/${newcomer.id}`, as(alice))).body).toMatchObject({ access_level: 30 });
    expect((await server.request('GET', `/api/v4/groups/${parent.id}/invitations`, as(alice))).body).toEqual([]);
    await server.request('POST', `/api/v4/groups/${parent.id}/invitations`, { ...as(alice), body: { email: 'gone@example.com', access_level: 20 } });
    expect(await server.request('DELETE', `/api/v4/groups/${parent.id}/invitations/gone@example.com`, as(alice))).toMatchObject({ status: 204 });
    expect(await server.request('DELETE', `/api/v4/groups/${parent.id}/invitations/gone@example.com`, as(alice))).toMatchObject({ status: 404 });
  });

  it('shares: groups into groups and projects, with expiry; effective lists include the invited members', async () => {
    const other = await createGroup(server, carol, 'Other');
    expect(await server.request('POST', `/api/v4/groups/${parent.id}/share`, { ...as(alice), body: { group_id: other.id, group_access: 60 } })).toMatchObject({ status: 400, body: { error: 'group_access does not have a valid value' } });
    expect(await server.request('POST', `/api/v4/groups/${parent.id}/share`, { ...as(alice), body: { group_id: other.id, group_access: 20 } })).toMatchObject({ status: 404, body: { message: '404 Group Not Found' } });
    const shared = await server.request('POST', `/api/v4/groups/${parent.id}/share`, { body: { group_id: other.id, group_access: 20, expires_at: '2026-04-01' } });
    expect(shared.status).toBe(201);
    expect(shared.body.shared_with_groups).toEqual([{ group_id: other.id, group_name: 'Other', group_full_path: 'other', group_access_level: 20, expires_at: '2026-04-01' }]);
    expect(await server.request('POST', `/api/v4/groups/${parent.id}/share`, { body: { group_id: other.id, group_access: 20 } })).toMatchObject({ status: 409 });
    // Shown at the share's level (carol owns Other, shared at Reporter), and only to viewers who can see Other.
    const all = await server.request('GET', `/api/v4/groups/${parent.id}/members/all/${carol.id}`);
    expect(all.body).toMatchObject({ id: carol.id, access_level: 20 });
    expect(await server.request('GET', `/api/v4/groups/${parent.id}/members/all/${carol.id}`, as(alice))).toMatchObject({ status: 404 });
    // carol (owner of Other) reaches Parent as a Reporter: she reads it, but cannot manage its members.
    expect(await server.request('GET', `/api/v4/groups/${parent.id}/members`, as(carol))).toMatchObject({ status: 200 });
    expect(await server.request('POST', `/api/v4/groups/${parent.id}/members`, { ...as(carol), body: { user_id: dave.id, access_level: 10 } })).toMatchObject({ status: 403 });
    const projectShare = await server.request('POST', `/api/v4/projects/${project.id}/share`, { body: { group_id: other.id, group_access: 30 } });
    expect(projectShare).toMatchObject({ status: 201, body: { project_id: project.id, group_id: other.id, group_access: 30, expires_at: null } });
    expect(await server.request('DELETE', `/api/v4/projects/${project.id}/share/${other.id}`)).toMatchObject({ status: 204 });
    expect(await server.request('DELETE', `/api/v4/projects/${project.id}/share/${other.id}`)).toMatchObject({ status: 404, body: { message: '404 Group Link Not Found' } });
    expect(await server.request('DELETE', `/api/v4/groups/${parent.id}/share/${other.id}`, as(alice))).toMatchObject({ status: 204 });
  });

  it('billable members: who counts, types, removability, sorts, memberships, removal', async () => {
    expect(await server.request('GET', `/api/v4/groups/${child.id}/billable_members`, as(alice))).toMatchObject({ status: 400, body: { message: '400 Bad request' } });
    expect(await server.request('GET', `/api/v4/groups/${parent.id}/billable_members`, as(bob))).toMatchObject({ status: 400, body: { message: '400 Bad request' } });
    expect(await server.request('GET', `/api/v4/groups/${parent.id}/billable_members?sort=bogus`, as(alice))).toMatchObject({ status: 400, body: { error: 'sort does not have a valid value' } });
    const list = await server.request('GET', `/api/v4/groups/${parent.id}/billable_members`, as(alice));
    expect(list.status).toBe(200);
    const rows = list.body as { id: number; username: string; membership_type: string; removable: boolean }[];
    expect(rows.map((r) => r.username)).toEqual(['alice', 'bob', 'carol', 'newcomer']);
    expect(rows.find((r) => r.username === 'carol')).toMatchObject({ membership_type: 'project_member', removable: true });
    expect(Object.keys(rows[0]!)).toEqual(['id', 'username', 'name', 'state', 'avatar_url', 'web_url', 'email', 'last_activity_on', 'membership_type', 'removable', 'created_at']);
    for (const sort of ['access_level_asc', 'access_level_desc', 'last_joined', 'name_asc', 'name_desc', 'oldest_joined', 'oldest_sign_in', 'recent_sign_in', 'last_activity_on_asc', 'last_activity_on_desc']) {
      const sorted = await server.request('GET', `/api/v4/groups/${parent.id}/billable_members?sort=${sort}`, as(alice));
      expect(sorted.status).toBe(200);
      expect(sorted.body).toHaveLength(4);
    }
    expect((await server.request('GET', `/api/v4/groups/${parent.id}/billable_members?sort=name_desc`, as(alice))).body.map((r: { username: string }) => r.username)).toEqual(['newcomer', 'carol', 'bob', 'alice']);
    expect((await server.request('GET', `/api/v4/groups/${parent.id}/billable_members?sort=access_level_desc`, as(alice))).body[0].username).toBe('alice');
    expect((await server.request('GET', `/api/v4/groups/${parent.id}/billable_members?search=car`, as(alice))).body.map((r: { username: string }) => r.username)).toEqual(['carol']);
    const memberships = await server.request('GET', `/api/v4/groups/${parent.id}/billable_members/${carol.id}/memberships`, as(alice));
    expect(memberships.body).toEqual([expect.objectContaining({ source_id: project.id, source_full_name: 'Parent / Child / Proj', access_level: { string_value: 'Guest', integer_value: 10 } })]);
    expect(await server.request('GET', `/api/v4/groups/${parent.id}/billable_members/9999/memberships`, as(alice))).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect(await server.request('GET', `/api/v4/groups/${parent.id}/billable_members/${dave.id}/memberships`, as(alice))).toMatchObject({ status: 404, body: { message: '404 User Not Found' } });
    expect(await server.request('DELETE', `/api/v4/groups/${child.id}/billable_members/${carol.id}`, as(alice))).toMatchObject({ status: 400, body: { message: '400 Bad request - Invalid group provided, must be top-level' } });
    expect(await server.request('DELETE', `/api/v4/groups/${parent.id}/billable_members/${dave.id}`, as(alice))).toMatchObject({ status: 400, body: { message: '400 Bad request - No member found for the given user_id' } });
    expect(await server.request('DELETE', `/api/v4/groups/${parent.id}/billable_members/${alice.id}`, as(alice))).toMatchObject({ status: 400, body: { message: '400 Bad request - Gitlab::Access::AccessDeniedError' } });
    expect(await server.request('DELETE', `/api/v4/groups/${parent.id}/billable_members/${carol.id}`, as(alice))).toMatchObject({ status: 204 });
    expect((await server.request('GET', `/api/v4/groups/${parent.id}/billable_members`, as(alice))).body.map((r: { username: string }) => r.username)).toEqual(['alice', 'bob', 'newcomer']);
  });

  it('user cap: awaiting members, pending list, approve and approve_all by POST and PUT', async () => {
    expect(await server.request('PUT', `/api/v4/groups/${parent.id}`, { ...as(alice), body: { new_user_signups_cap: 3 } })).toMatchObject({ status: 200 });
    const added = await server.request('POST', `/api/v4/groups/${child.id}/members`, { ...as(alice), body: { user_id: dave.id, access_level: 30 } });
    expect(added.body).toMatchObject({ membership_state: 'awaiting' });
    expect((await server.request('GET', `/api/v4/groups/${parent.id}/members/all?state=awaiting`, as(alice))).body).toEqual([]);
    expect((await server.request('GET', `/api/v4/groups/${child.id}/members/all?state=awaiting`, as(alice))).body.map((m: { id: number }) => m.id)).toEqual([dave.id]);
    expect(await server.request('GET', `/api/v4/groups/${child.id}/members`, as(dave))).toMatchObject({ status: 404 });
    const pending = await server.request('GET', `/api/v4/groups/${parent.id}/pending_members`, as(alice));
    const entry = pending.body.find((p: { username?: string }) => p.username === 'dave');
    expect(entry).toMatchObject({ approved: false, invited: false, email: 'dave@example.com' });
    expect(await server.request('PUT', `/api/v4/groups/${parent.id}/members/99999/approve`, as(alice))).toMatchObject({ status: 404, body: { message: '404 Not Found' } });
    expect(await server.request('PUT', `/api/v4/groups/${child.id}/members/${entry.id}/approve`, as(alice))).toMatchObject({ status: 400 });
    expect(await server.request('POST', `/api/v4/groups/${parent.id}/members/${entry.id}/approve`, as(alice))).toMatchObject({ status: 204 });
    expect(await server.request('GET', `/api/v4/groups/${child.id}/members`, as(dave))).toMatchObject({ status: 200 });
    expect(await server.request('PUT', `/api/v4/groups/${parent.id}/members/approve_all`, as(alice))).toMatchObject({ status: 204 });
    expect(await server.request('POST', `/api/v4/groups/${parent.id}/members/approve_all`, as(bob))).toMatchObject({ status: 400 });
    await server.request('PUT', `/api/v4/groups/${parent.id}`, { ...as(alice), body: { new_user_signups_cap: null } });
  });

  it('override and LDAP: 403 without links; links, sync, override by POST, PUT and DELETE', async () => {
    expect(await server.request('POST', `/api/v4/groups/${parent.id}/members/${bob.id}/override`, as(alice))).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await server.request('POST', `/api/v4/groups/${parent.id}/ldap_group_links`, { ...as(alice), body: { group_access: 30, provider: 'ldapmain' } })).toMatchObject({ status: 400, body: { error: 'cn, filter are missing, exactly one parameter must be provided' } });
    expect(await server.request('POST', `/api/v4/groups/${parent.id}/ldap_group_links`, { ...as(bob), body: { cn: 'devs', group_access: 30, provider: 'ldapmain' } })).toMatchObject({ status: 403 });
    expect(await server.request('POST', `/api/v4/groups/${parent.id}/ldap_group_links`, { ...as(alice), body: { cn: 'devs', group_access: 30, provider: 'ldapmain' } })).toMatchObject({ status: 201, body: { cn: 'devs', group_access: 30, provider: 'ldapmain' } });
    expect(await server.request('GET', `/api/v4/groups/${parent.id}/ldap_group_links`, as(alice))).toMatchObject({ status: 200, body: [{ cn: 'devs' }] });
    const synced = await server.request('POST', `/api/v4/groups/${parent.id}/ldap_sync`, { ...as(alice), body: { entries: [{ provider: 'ldapmain', cn: 'devs', users: ['carol', dave.id] }] } });
    expect(synced).toMatchObject({ status: 200, body: { added: 2, updated: 0, removed: 0 } });
    expect((await server.request('GET', `/api/v4/groups/${parent.id}/members/${carol.id}`, as(alice))).body).toMatchObject({ access_level: 30, override: false });
    // An LDAP-synced group refuses new members by hand, and synced members' levels unless overridden.
    expect(await server.request('POST', `/api/v4/groups/${parent.id}/members`, { ...as(alice), body: { user_id: 9, access_level: 10 } })).toMatchObject({ status: 403 });
    expect(await server.request('PUT', `/api/v4/groups/${parent.id}/members/${carol.id}`, { ...as(alice), body: { access_level: 40 } })).toMatchObject({ status: 403 });
    expect(await server.request('POST', `/api/v4/groups/${parent.id}/members/${bob.id}/override`, as(alice))).toMatchObject({ status: 403 });
    expect(await server.request('POST', `/api/v4/groups/${parent.id}/members/9999/override`, as(alice))).toMatchObject({ status: 404 });
    expect(await server.request('POST', `/api/v4/groups/${parent.id}/members/${carol.id}/override`, as(alice))).toMatchObject({ status: 201, body: { override: true, access_level: 30 } });
    expect(await server.request('PUT', `/api/v4/groups/${parent.id}/members/${carol.id}`, { ...as(alice), body: { access_level: 40 } })).toMatchObject({ status: 200 });
    await server.request('POST', `/api/v4/groups/${parent.id}/ldap_sync`, { ...as(alice), body: { entries: [{ provider: 'ldapmain', cn: 'devs', users: ['carol'] }] } });
    expect((await server.request('GET', `/api/v4/groups/${parent.id}/members/${carol.id}`, as(alice))).body.access_level).toBe(40);
    expect(await server.request('DELETE', `/api/v4/groups/${parent.id}/members/${carol.id}/override`, as(alice))).toMatchObject({ status: 200, body: { override: false } });
    expect(await server.request('PUT', `/api/v4/groups/${parent.id}/members/${carol.id}/override`, as(alice))).toMatchObject({ status: 200, body: { override: true } });
    expect(await server.request('PUT', `/api/v4/groups/${parent.id}/members/${carol.id}/override`, { ...as(alice), body: { override: false } })).toMatchObject({ status: 200, body: { override: false } });
    await server.request('POST', `/api/v4/groups/${parent.id}/ldap_sync`, { ...as(alice), body: { entries: [{ provider: 'ldapmain', cn: 'devs', users: ['carol'] }] } });
    expect((await server.request('GET', `/api/v4/groups/${parent.id}/members/${carol.id}`, as(alice))).body.access_level).toBe(30);
    expect(await server.request('DELETE', `/api/v4/groups/${parent.id}/ldap_group_links/ldapmain/devs`, as(alice))).toMatchObject({ status: 204 });
    expect(await server.request('DELETE', `/api/v4/groups/${parent.id}/ldap_group_links/devs`, as(alice))).toMatchObject({ status: 404, body: { message: 'Linked LDAP group not found' } });
  });

  it('audit API: administrators only; history with actors; members as of a past time', async () => {
    expect(await server.request('GET', `/api/v4/audit/membership_events`, as(alice))).toMatchObject({ status: 403 });
    const history = await server.request('GET', `/api/v4/audit/membership_events?group_id=${parent.id}&per_page=100`);
    expect(history.status).toBe(200);
    expect(history.body[0]).toMatchObject({ event: 'MemberAdded', user_id: alice.id, access_level: 50, actor_id: alice.id, origin: 'api' });
    const asOf = await server.request('GET', `/api/v4/audit/groups/${parent.id}/members?at=2026-03-01T10:00:01Z`);
    expect(asOf.body.map((m: { username: string }) => m.username)).toContain('alice');
    expect(asOf.body.map((m: { username: string }) => m.username)).not.toContain('newcomer');
  });
});

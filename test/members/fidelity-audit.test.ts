/**
 * The members fidelity audit (issue 16, branch `fid-members`): answers compared with 14.7's lib/api/invitations.rb,
 * lib/api/access_requests.rb, lib/api/projects.rb (share), ee/lib/api/ldap_group_links.rb, the Invitation,
 * PendingMember and Member entities, over HTTP against a real server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { createGroup, createPerson, createProject, type Person } from './support.js';

let server: TestServer;
let alice: Person, bob: Person, carol: Person;

beforeAll(async () => {
  server = await startServer({ start: '2026-03-01T10:00:00.000Z' });
  alice = await createPerson(server, 'alice');
  bob = await createPerson(server, 'bob');
  carol = await createPerson(server, 'carol');
});
afterAll(async () => {
  await server.close();
});

const as = (p: Person | null) => ({ token: p ? p.token : null });
/** Before the resource was created or changed (the server's clock starts at 10:00). */
const EARLIER = { 'If-Unmodified-Since': 'Sun, 01 Mar 2026 09:00:00 GMT' };

describe('invitations', () => {
  it('PUT with nothing to change is 400 "400 Bad request" (after the 403 and the 404), and changes nothing', async () => {
    const group = await createGroup(server, alice, 'InvPut');
    const base = `/api/v4/groups/${group.id}/invitations`;
    expect((await server.request('POST', base, { ...as(alice), body: { email: 'new@example.com', access_level: 30 } })).body).toEqual({ status: 'success' });
    expect(await server.request('PUT', `${base}/new@example.com`, { ...as(alice), body: {} })).toMatchObject({ status: 400, body: { message: '400 Bad request' } });
    expect(await server.request('PUT', `${base}/nobody@example.com`, { ...as(alice), body: {} })).toMatchObject({ status: 404, body: { message: '404 Not Found' } });
    await server.request('POST', `/api/v4/groups/${group.id}/members`, { ...as(alice), body: { user_id: bob.id, access_level: 30 } });
    expect(await server.request('PUT', `${base}/new@example.com`, { ...as(bob), body: {} })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    const history = await server.request('GET', `/api/v4/audit/membership_events?group_id=${group.id}&per_page=100`);
    expect(history.body.map((e: { event: string }) => e.event)).toEqual(['MemberAdded', 'MemberAdded', 'MemberAdded']);
  });

  it('PUT answers the Member entity (`present_members`), without user keys for an invitation', async () => {
    const group = await createGroup(server, alice, 'InvEntity');
    const base = `/api/v4/groups/${group.id}/invitations`;
    await server.request('POST', base, { ...as(alice), body: { email: 'who@example.com', access_level: 30 } });
    const updated = await server.request('PUT', `${base}/who@example.com`, { ...as(alice), body: { access_level: 40, expires_at: '2026-04-01' } });
    expect(updated.status).toBe(200);
    expect(Object.keys(updated.body)).toEqual(['access_level', 'created_at', 'created_by', 'expires_at', 'membership_state']);
    expect(updated.body).toMatchObject({ access_level: 40, expires_at: '2026-04-01', created_by: { username: 'alice' }, membership_state: 'active' });
  });

  it('the list shows no `user_name` for an invitation without a user, and `query` is the exact address', async () => {
    const group = await createGroup(server, alice, 'InvList');
    const base = `/api/v4/groups/${group.id}/invitations`;
    await server.request('POST', base, { ...as(alice), body: { email: 'one@example.com,two@example.com', access_level: 30 } });
    const list = await server.request('GET', base, as(alice));
    expect(list.body.map((i: Record<string, unknown>) => Object.keys(i))).toEqual([
      ['access_level', 'created_at', 'expires_at', 'invite_email', 'created_by_name'],
      ['access_level', 'created_at', 'expires_at', 'invite_email', 'created_by_name'],
    ]);
    expect((await server.request('GET', `${base}?query=one@example.com`, as(alice))).body.map((i: { invite_email: string }) => i.invite_email)).toEqual(['one@example.com']);
    const partial = await server.request('GET', `${base}?query=one`, as(alice));
    expect(partial.body).toEqual([]);
    expect(partial.headers.get('x-total')).toBe('0');
    expect((await server.request('GET', `${base}?query=`, as(alice))).body).toHaveLength(2);
  });

  it('DELETE honours If-Unmodified-Since (`destroy_conditionally!`): 412 and the invitation stays', async () => {
    const group = await createGroup(server, alice, 'InvDel');
    const base = `/api/v4/groups/${group.id}/invitations`;
    await server.request('POST', base, { ...as(alice), body: { email: 'stay@example.com', access_level: 30 } });
    expect(await server.request('DELETE', `${base}/stay@example.com`, { ...as(alice), headers: EARLIER })).toMatchObject({ status: 412, body: { message: '412 Precondition Failed' } });
    expect((await server.request('GET', base, as(alice))).body).toHaveLength(1);
    expect((await server.request('DELETE', `${base}/stay@example.com`, as(alice))).status).toBe(204);
  });
});

describe('limits and bots', () => {
  it('more than 100 distinct addresses in one invitation is the service\'s error, and nothing is invited', async () => {
    const group = await createGroup(server, alice, 'InvMany');
    const base = `/api/v4/groups/${group.id}/invitations`;
    const emails = Array.from({ length: 101 }, (_, i) => `many${i}@example.com`).join(',');
    expect(await server.request('POST', base, { ...as(alice), body: { email: emails, access_level: 30 } })).toMatchObject({
      status: 201,
      body: { status: 'error', message: 'Too many users specified (limit is 100)' },
    });
    expect((await server.request('GET', base, as(alice))).body).toEqual([]);
    // 100 distinct addresses (one repeated) pass.
    const hundred = [...Array.from({ length: 100 }, (_, i) => `many${i}@example.com`), 'many0@example.com'].join(',');
    expect((await server.request('POST', base, { ...as(alice), body: { email: hundred, access_level: 30 } })).body).toEqual({ status: 'success' });
  });

  it('a project bot\'s membership is not updated through the members API (`~project_bot & can?(:admin_project_member)`): 403', async () => {
    const home = await createGroup(server, alice, 'BotHome');
    const project = await createProject(server, alice, 'BotProj', home.id);
    const token = await server.request('POST', `/api/v4/projects/${project.id}/access_tokens`, { ...as(alice), body: { name: 'bot', scopes: ['api'], access_level: 30 } });
    expect(token.status).toBe(201);
    const bot = token.body.user_id as number;
    expect(await server.request('PUT', `/api/v4/projects/${project.id}/members/${bot}`, { ...as(alice), body: { access_level: 20 } })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await server.request('PUT', `/api/v4/projects/${project.id}/members/${bot}`, { body: { access_level: 20 } })).toMatchObject({ status: 403 });
    expect((await server.request('GET', `/api/v4/projects/${project.id}/members/${bot}`, as(alice))).body.access_level).toBe(30);
    // A group access token's bot likewise (a `project_bot` user on the platform): neither updated nor removed.
    const groupToken = await server.request('POST', `/api/v4/groups/${home.id}/access_tokens`, { ...as(alice), body: { name: 'gbot', scopes: ['api'], access_level: 30 } });
    expect(groupToken.status).toBe(201);
    const groupBot = groupToken.body.user_id as number;
    expect(await server.request('PUT', `/api/v4/groups/${home.id}/members/${groupBot}`, { ...as(alice), body: { access_level: 20 } })).toMatchObject({ status: 403 });
    expect(await server.request('DELETE', `/api/v4/groups/${home.id}/members/${groupBot}`, as(alice))).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect((await server.request('GET', `/api/v4/groups/${home.id}/members/${groupBot}`, as(alice))).body.access_level).toBe(30);
  });

  it('the comma list leaves the last owner as they are and reports success (`add_user`: `can_update_member?` is false)', async () => {
    const group = await createGroup(server, alice, 'LastOwnerList');
    const base = `/api/v4/groups/${group.id}/members`;
    expect(await server.request('POST', base, { ...as(alice), body: { user_id: `${alice.id},${bob.id}`, access_level: 30 } })).toMatchObject({ status: 201, body: { status: 'success' } });
    expect((await server.request('GET', `${base}/${alice.id}`, as(alice))).body.access_level).toBe(50);
    expect((await server.request('GET', `${base}/${bob.id}`, as(alice))).body.access_level).toBe(30);
    // The administrator as well: GroupMemberPolicy's `last_owner` prevent beats every enable.
    expect(await server.request('POST', base, { body: { user_id: `${alice.id},${bob.id}`, access_level: 20 } })).toMatchObject({ status: 201, body: { status: 'success' } });
    expect((await server.request('GET', `${base}/${alice.id}`, as(alice))).body.access_level).toBe(50);
    expect((await server.request('GET', `${base}/${bob.id}`, as(alice))).body.access_level).toBe(20);
  });

  it('a token\'s bot asking for access elsewhere: its request row fails the bot uniqueness, 400 `render_validation_error!`', async () => {
    const home = await createGroup(server, alice, 'BotAsks');
    const project = await createProject(server, alice, 'BotAsksProj', home.id);
    const open = await createGroup(server, alice, 'BotAsksOpen', undefined, 'public');
    const token = await server.request('POST', `/api/v4/projects/${project.id}/access_tokens`, { ...as(alice), body: { name: 'bot', scopes: ['api'], access_level: 30 } });
    expect(token.status).toBe(201);
    expect(await server.request('POST', `/api/v4/groups/${open.id}/access_requests`, { token: token.body.token as string })).toMatchObject({
      status: 400,
      body: { message: { user_id: ['project bots cannot be added to other groups / projects'] } },
    });
    expect((await server.request('GET', `/api/v4/groups/${open.id}/access_requests`, as(alice))).body).toEqual([]);
  });

  it('a token\'s bot holds one membership (Member `validates :user_id, uniqueness:, if: :project_bot?`), group tokens\' bots included; it may leave its own', async () => {
    const home = await createGroup(server, alice, 'BotOne');
    const other = await createProject(server, alice, 'BotOther', home.id);
    const groupToken = await server.request('POST', `/api/v4/groups/${home.id}/access_tokens`, { ...as(alice), body: { name: 'gbot', scopes: ['api'], access_level: 30 } });
    expect(groupToken.status).toBe(201);
    const groupBot = groupToken.body.user_id as number;
    const projectMembers = `/api/v4/projects/${other.id}/members`;
    expect(await server.request('POST', projectMembers, { ...as(alice), body: { user_id: groupBot, access_level: 30 } })).toMatchObject({
      status: 400,
      body: { message: { user_id: ['project bots cannot be added to other groups / projects'] } },
    });
    // The comma list: refused elsewhere; its own membership is one the owner may not update, left as it is.
    const bots = await server.request('POST', projectMembers, { ...as(alice), body: { user_id: `${groupBot}`, access_level: 30 } });
    expect(bots.status).toBe(400);
    const again = await server.request('POST', `/api/v4/groups/${home.id}/members`, { ...as(alice), body: { user_id: `${groupBot},${bob.id}`, access_level: 10 } });
    expect(again).toMatchObject({ status: 201, body: { status: 'success' } });
    expect((await server.request('GET', `/api/v4/groups/${home.id}/members/${groupBot}`, as(alice))).body.access_level).toBe(30);
    expect((await server.request('GET', projectMembers, as(alice))).body.map((m: { id: number }) => m.id)).not.toContain(groupBot);
    // The validation is the model's, so an invitation to the bot's address is refused the same way.
    const email = (await server.request('GET', `/api/v4/users/${groupBot}`)).body.email as string;
    expect(await server.request('POST', `/api/v4/projects/${other.id}/invitations`, { ...as(alice), body: { email, access_level: 30 } })).toMatchObject({
      status: 201,
      body: { status: 'error', message: { [email]: 'User project bots cannot be added to other groups / projects' } },
    });
    expect((await server.request('GET', projectMembers, as(alice))).body.map((m: { id: number }) => m.id)).not.toContain(groupBot);
    // `target_is_self` enables `destroy_*_member` for the bot itself.
    expect((await server.request('DELETE', `/api/v4/groups/${home.id}/members/${groupBot}`, { token: groupToken.body.token as string })).status).toBe(204);
    expect((await server.request('GET', `/api/v4/groups/${home.id}/members/${groupBot}`, as(alice))).status).toBe(404);
  });
});

describe('access requests', () => {
  it('DELETE honours If-Unmodified-Since: 412 before the permission check, and the request stays', async () => {
    const group = await createGroup(server, alice, 'ArDel', undefined, 'public');
    const base = `/api/v4/groups/${group.id}/access_requests`;
    expect((await server.request('POST', base, as(carol))).status).toBe(201);
    expect(await server.request('DELETE', `${base}/${carol.id}`, { ...as(alice), headers: EARLIER })).toMatchObject({ status: 412, body: { message: '412 Precondition Failed' } });
    expect(await server.request('DELETE', `${base}/${carol.id}`, { ...as(bob), headers: EARLIER })).toMatchObject({ status: 412 });
    expect(await server.request('DELETE', `${base}/${carol.id}`, as(bob))).toMatchObject({ status: 403 });
    expect((await server.request('GET', base, as(alice))).body.map((r: { id: number }) => r.id)).toEqual([carol.id]);
    expect((await server.request('DELETE', `${base}/${carol.id}`, as(carol))).status).toBe(204);
  });
});

describe('project access requests follow the project\'s request_access_enabled', () => {
  it('PUT /projects/:id request_access_enabled=false is kept and shown, and refuses requests (ProjectPolicy prevents request_access)', async () => {
    const home = await createGroup(server, alice, 'ArProjHome', undefined, 'public');
    const project = await createProject(server, alice, 'ArProj', home.id);
    await server.request('PUT', `/api/v4/projects/${project.id}`, { ...as(alice), body: { visibility: 'public' } });
    const off = await server.request('PUT', `/api/v4/projects/${project.id}`, { ...as(alice), body: { request_access_enabled: false } });
    expect(off).toMatchObject({ status: 200, body: { request_access_enabled: false } });
    expect((await server.request('GET', `/api/v4/projects/${project.id}`, as(carol))).body.request_access_enabled).toBe(false);
    expect(await server.request('POST', `/api/v4/projects/${project.id}/access_requests`, as(carol))).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    // The same value again writes nothing; turned back on, the request goes through.
    const activity = async () => (await server.request('GET', `/api/v4/projects/${project.id}`, as(alice))).body.last_activity_at as string;
    const before = await activity();
    server.advance(60_000);
    expect((await server.request('PUT', `/api/v4/projects/${project.id}`, { ...as(alice), body: { request_access_enabled: false } })).status).toBe(200);
    expect(await activity()).toBe(before);
    expect((await server.request('PUT', `/api/v4/projects/${project.id}`, { ...as(alice), body: { request_access_enabled: true } })).body.request_access_enabled).toBe(true);
    expect((await server.request('POST', `/api/v4/projects/${project.id}/access_requests`, as(carol))).status).toBe(201);
  });

  it('POST /projects takes request_access_enabled too', async () => {
    const home = await createGroup(server, alice, 'ArCreateHome', undefined, 'public');
    const created = await server.request('POST', '/api/v4/projects', { ...as(alice), body: { name: 'Closed', namespace_id: home.id, visibility: 'public', request_access_enabled: false } });
    expect(created).toMatchObject({ status: 201, body: { request_access_enabled: false } });
    expect(await server.request('POST', `/api/v4/projects/${created.body.id}/access_requests`, as(carol))).toMatchObject({ status: 403 });
    const open = await server.request('POST', '/api/v4/projects', { ...as(alice), body: { name: 'Open', namespace_id: home.id, visibility: 'public', request_access_enabled: true } });
    expect(open.body.request_access_enabled).toBe(true);
    expect((await server.request('POST', `/api/v4/projects/${open.body.id}/access_requests`, as(carol))).status).toBe(201);
  });
});

describe('project shares', () => {
  it('DELETE honours If-Unmodified-Since (`destroy_conditionally!(link)`): 412 and the share stays', async () => {
    const home = await createGroup(server, alice, 'ShareHome');
    const team = await createGroup(server, alice, 'ShareTeam');
    const project = await createProject(server, alice, 'Shared', home.id);
    expect((await server.request('POST', `/api/v4/projects/${project.id}/share`, { ...as(alice), body: { group_id: team.id, group_access: 30 } })).status).toBe(201);
    expect(await server.request('DELETE', `/api/v4/projects/${project.id}/share/${team.id}`, { ...as(alice), headers: EARLIER })).toMatchObject({ status: 412, body: { message: '412 Precondition Failed' } });
    expect((await server.request('GET', `/api/v4/projects/${project.id}`, as(alice))).body.shared_with_groups).toHaveLength(1);
    expect((await server.request('DELETE', `/api/v4/projects/${project.id}/share/${team.id}`, as(alice))).status).toBe(204);
  });
});

describe('LDAP group links', () => {
  it('cn and filter are exactly_one_of; the query form of DELETE requires provider', async () => {
    const group = await createGroup(server, alice, 'Ldapish');
    const links = `/api/v4/groups/${group.id}/ldap_group_links`;
    expect(await server.request('POST', links, { ...as(alice), body: { group_access: 30, provider: 'ldapmain' } })).toMatchObject({
      status: 400,
      body: { error: 'cn, filter are missing, exactly one parameter must be provided' },
    });
    expect(await server.request('POST', links, { ...as(alice), body: { cn: 'a', filter: 'b', group_access: 30, provider: 'ldapmain' } })).toMatchObject({ status: 400, body: { error: 'cn, filter are mutually exclusive' } });
    expect((await server.request('POST', links, { ...as(alice), body: { cn: 'devs', group_access: 30, provider: 'ldapmain' } })).status).toBe(201);
    expect(await server.request('DELETE', `${links}?cn=devs`, as(alice))).toMatchObject({ status: 400, body: { error: 'provider is missing' } });
    expect(await server.request('DELETE', links, as(alice))).toMatchObject({ status: 400, body: { error: 'provider is missing, cn, filter are missing, exactly one parameter must be provided' } });
    expect((await server.request('GET', links, as(alice))).body).toHaveLength(1);
    expect((await server.request('DELETE', `${links}?cn=devs&provider=ldapmain`, as(alice))).status).toBe(204);
  });

  it('the group is found without a visibility check and the caller authorized (`find_group` + `authorize! :admin_group`): 403', async () => {
    const group = await createGroup(server, alice, 'LdapPrivate');
    const links = `/api/v4/groups/${group.id}/ldap_group_links`;
    expect(await server.request('GET', links, as(bob))).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await server.request('GET', `/api/v4/groups/99999/ldap_group_links`, as(bob))).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await server.request('POST', links, { ...as(bob), body: { cn: 'x', group_access: 30, provider: 'ldapmain' } })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await server.request('DELETE', `${links}/x`, as(bob))).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await server.request('GET', links, { token: null })).toMatchObject({ status: 401 });
  });
});

describe('entities', () => {
  it('PendingMember keys in the entity order: id, name, username, email, web_url, invited, avatar_url, approved', async () => {
    const group = await createGroup(server, alice, 'Pending');
    await server.request('POST', `/api/v4/groups/${group.id}/invitations`, { ...as(alice), body: { email: 'later@example.com', access_level: 30 } });
    await server.request('PUT', `/api/v4/groups/${group.id}`, { ...as(alice), body: { new_user_signups_cap: 1 } });
    expect((await server.request('POST', `/api/v4/groups/${group.id}/members`, { ...as(alice), body: { user_id: bob.id, access_level: 30 } })).body.membership_state).toBe('awaiting');
    const pending = await server.request('GET', `/api/v4/groups/${group.id}/pending_members`, as(alice));
    expect(pending.body.map((p: Record<string, unknown>) => Object.keys(p))).toEqual([
      ['id', 'name', 'username', 'email', 'web_url', 'invited', 'avatar_url', 'approved'],
      ['id', 'email', 'invited', 'avatar_url', 'approved'],
    ]);
  });

  it('show_seat_info reaches every route that presents members (`present_members` reads params[:show_seat_info])', async () => {
    const group = await createGroup(server, alice, 'Seats');
    const base = `/api/v4/groups/${group.id}/members`;
    const added = await server.request('POST', `${base}?show_seat_info=true`, { ...as(alice), body: { user_id: carol.id, access_level: 30 } });
    expect(added.body).toMatchObject({ is_using_seat: true });
    expect((await server.request('GET', `${base}/${carol.id}?show_seat_info=true`, as(alice))).body).toMatchObject({ is_using_seat: true });
    expect((await server.request('GET', `${base}/all/${carol.id}?show_seat_info=true`, as(alice))).body).toMatchObject({ is_using_seat: true });
    expect((await server.request('PUT', `${base}/${carol.id}?show_seat_info=true`, { ...as(alice), body: { access_level: 20 } })).body).toMatchObject({ is_using_seat: true });
    expect(Object.keys((await server.request('GET', `${base}/${carol.id}`, as(alice))).body)).not.toContain('is_using_seat');
  });
});

/**
 * Fidelity audit of the users and tokens endpoints against 14.7 (issue 16, branch `fid-users`): who may list users
 * and with which filters, the entity each caller gets, and the token list's and revocation's rules
 * (lib/api/users.rb, lib/api/personal_access_tokens.rb, app/finders/users_finder.rb, app/policies/global_policy.rb).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { createGroup, createPerson, createProject, type Person } from '../members/support.js';

let server: TestServer;
let alice: Person;
let bob: Person;
let ext: Person;
const HOUR = 3_600_000;

beforeAll(async () => {
  server = await startServer({ start: '2026-05-01T00:00:00.000Z' });
  server.advance(HOUR);
  alice = await createPerson(server, 'alice');
  server.advance(HOUR);
  bob = await createPerson(server, 'bob');
  server.advance(HOUR);
  ext = await createPerson(server, 'ext', { external: true });
  // Alice is a member of a project (through its group); bob and ext of none.
  const group = await createGroup(server, null, 'Team');
  await createProject(server, null, 'App', group.id);
  expect((await server.request('POST', `/api/v4/groups/${group.id}/members`, { body: { user_id: alice.id, access_level: 30 } })).status).toBe(201);
});
afterAll(async () => {
  await server.close();
});

const ids = (body: { id: number }[]) => body.map((user) => user.id);

describe('GET /users: who may list', () => {
  it('an anonymous caller must name a username (403 "Not authorized to access /api/v4/users"); a restricted public level refuses it', async () => {
    const all = await server.request('GET', '/api/v4/users', { token: null });
    expect({ status: all.status, text: all.text }).toEqual({ status: 403, text: '{"message":"403 Forbidden - Not authorized to access /api/v4/users"}' });
    const one = await server.request('GET', '/api/v4/users?username=BOB', { token: null });
    expect(one.status).toBe(200);
    expect(one.body).toEqual([{ id: bob.id, username: 'bob', name: 'BOB', state: 'active', avatar_url: null, web_url: expect.stringMatching(/\/bob$/) }]);
    expect((await server.request('GET', `/api/v4/users/${bob.id}`, { token: null })).status).toBe(200);
    // GlobalPolicy: `anonymous & restricted_public_level` prevents `read_users_list`; UserPolicy's `read_user` too.
    expect((await server.request('PUT', '/api/v4/application/settings', { body: { restricted_visibility_levels: ['public'] } })).status).toBe(200);
    try {
      const refused = await server.request('GET', '/api/v4/users?username=bob', { token: null });
      expect({ status: refused.status, text: refused.text }).toEqual({ status: 403, text: '{"message":"403 Forbidden - Not authorized to access /api/v4/users"}' });
      const hidden = await server.request('GET', `/api/v4/users/${bob.id}`, { token: null });
      expect({ status: hidden.status, text: hidden.text }).toEqual({ status: 404, text: '{"message":"404 User Not Found"}' });
      expect((await server.request('GET', '/api/v4/users?username=bob', { token: alice.token })).status).toBe(200);
      expect((await server.request('GET', `/api/v4/users/${bob.id}`, { token: alice.token })).status).toBe(200);
    } finally {
      expect((await server.request('PUT', '/api/v4/application/settings', { body: { restricted_visibility_levels: [] } })).status).toBe(200);
    }
  });
});

describe('GET /users: filters and order', () => {
  it("a non-administrator's order_by, sort, created_after/before and without_projects are dropped: newest id first", async () => {
    const expected = [ext.id, bob.id, alice.id, 1];
    const asked = await server.request('GET', '/api/v4/users?order_by=username&sort=asc&created_after=2026-05-01T02:30:00Z&without_projects=true', { token: alice.token });
    expect(asked.status).toBe(200);
    expect(ids(asked.body)).toEqual(expected);
    expect(Object.keys(asked.body[0]).sort()).toEqual(['avatar_url', 'id', 'name', 'state', 'username', 'web_url']);
  });

  it('administrators filter by created_after/created_before (inclusive), external, exclude_external, without_projects and two_factor', async () => {
    const list = async (query: string) => {
      const response = await server.request('GET', `/api/v4/users?${query}`);
      expect(response.status).toBe(200);
      return ids(response.body);
    };
    // root at 00:00, alice at 01:00, bob at 02:00, ext at 03:00.
    expect(await list('created_after=2026-05-01T02:00:00Z')).toEqual([ext.id, bob.id]);
    expect(await list('created_before=2026-05-01T02:00:00Z&created_after=2026-05-01T01:00:00Z')).toEqual([bob.id, alice.id]);
    expect(await list('external=true')).toEqual([ext.id]);
    expect(await list('exclude_external=true')).toEqual([bob.id, alice.id, 1]);
    // `User.without_projects`: no project authorization at all (root owns the group, alice is a member of it).
    expect(await list('without_projects=true')).toEqual([ext.id, bob.id]);
    // Nobody has two-factor authentication here.
    expect(await list('two_factor=enabled')).toEqual([]);
    expect(await list('two_factor=disabled')).toEqual([ext.id, bob.id, alice.id, 1]);
    expect(await list('order_by=username&sort=asc')).toEqual([alice.id, bob.id, ext.id, 1]);
    const bad = await server.request('GET', '/api/v4/users?created_after=yesterday');
    expect({ status: bad.status, text: bad.text }).toEqual({ status: 400, text: '{"error":"created_after is invalid"}' });
  });
});

describe('GET /users/:id: the entity by who asks', () => {
  it('the user themselves get User (no e-mail); administrators UserDetailsWithAdmin', async () => {
    const self = await server.request('GET', `/api/v4/users/${alice.id}`, { token: alice.token });
    expect(self.status).toBe(200);
    expect(self.body.email).toBeUndefined();
    expect(self.body.identities).toBeUndefined();
    expect(self.body).toMatchObject({ id: alice.id, username: 'alice', created_at: '2026-05-01T01:00:00.000Z', bot: false });
    // `GET /user` stays UserPublic.
    expect((await server.request('GET', '/api/v4/user', { token: alice.token })).body).toMatchObject({ email: 'alice@example.com', can_create_group: true });
    const admin = await server.request('GET', `/api/v4/users/${alice.id}`);
    expect(admin.body).toMatchObject({ is_admin: false, email: 'alice@example.com', highest_role: 30, current_sign_in_ip: null, last_sign_in_ip: null, sign_in_count: 0 });
    expect((await server.request('GET', `/api/v4/users/${bob.id}`)).body.highest_role).toBe(0);
    // The list and GET /user stay UserWithAdmin for an administrator.
    expect((await server.request('GET', '/api/v4/user')).body.highest_role).toBeUndefined();
    expect((await server.request('GET', `/api/v4/users?username=alice`)).body[0].highest_role).toBeUndefined();
  });
});

describe('personal access tokens', () => {
  it("GET /personal_access_tokens: a non-administrator naming another user is 401; administrators list impersonation tokens too", async () => {
    const own = await server.request('GET', `/api/v4/personal_access_tokens?user_id=${alice.id}`, { token: alice.token });
    expect(own.status).toBe(200);
    expect(own.body.map((token: { user_id: number }) => token.user_id)).toEqual([alice.id]);
    const other = await server.request('GET', `/api/v4/personal_access_tokens?user_id=${bob.id}`, { token: alice.token });
    expect({ status: other.status, text: other.text }).toEqual({ status: 401, text: '{"message":"401 Unauthorized"}' });
    const impersonation = await server.request('POST', `/api/v4/users/${bob.id}/impersonation_tokens`, { body: { name: 'imp', scopes: ['api'] } });
    expect(impersonation.status).toBe(201);
    const listed = await server.request('GET', `/api/v4/personal_access_tokens?user_id=${bob.id}`);
    expect(listed.body.map((token: { id: number }) => token.id)).toContain(impersonation.body.id);
    // The PersonalAccessToken entity: no `impersonation` key in this list.
    expect(listed.body.every((token: Record<string, unknown>) => !('impersonation' in token))).toBe(true);
    // Bob does not see it among his own (`impersonation: false` for non-administrators).
    const bobs = await server.request('GET', '/api/v4/personal_access_tokens', { token: bob.token });
    expect(bobs.body.map((token: { id: number }) => token.id)).not.toContain(impersonation.body.id);
  });

  it("a token needs a name and a scope (PersonalAccessToken's presence validations): 400, nothing written", async () => {
    const position = server.app.position;
    for (const path of [`/api/v4/users/${bob.id}/personal_access_tokens`, `/api/v4/users/${bob.id}/impersonation_tokens`]) {
      const blank = await server.request('POST', path, { body: { name: ' ', scopes: ['api'] } });
      expect({ status: blank.status, text: blank.text }).toEqual({ status: 400, text: '{"message":{"name":["can\'t be blank"]}}' });
      const none = await server.request('POST', path, { body: { name: 'x', scopes: [] } });
      expect({ status: none.status, text: none.text }).toEqual({ status: 400, text: '{"message":{"scopes":["can\'t be blank"]}}' });
    }
    expect(server.app.position).toBe(position);
  });

  it('DELETE /personal_access_tokens/:id revokes an impersonation token too, and a revoked token again answers 204 writing nothing', async () => {
    const impersonation = await server.request('POST', `/api/v4/users/${bob.id}/impersonation_tokens`, { body: { name: 'imp2', scopes: ['api'] } });
    const revoked = await server.request('DELETE', `/api/v4/personal_access_tokens/${impersonation.body.id}`);
    expect({ status: revoked.status, text: revoked.text }).toEqual({ status: 204, text: '' });
    expect((await server.request('GET', '/api/v4/user', { token: impersonation.body.token })).status).toBe(401);
    const position = server.app.position;
    expect((await server.request('DELETE', `/api/v4/personal_access_tokens/${impersonation.body.id}`)).status).toBe(204);
    expect((await server.request('DELETE', `/api/v4/users/${bob.id}/impersonation_tokens/${impersonation.body.id}`)).status).toBe(204);
    expect(server.app.position).toBe(position);
  });
});

describe('validations', () => {
  it("e-mails are stripped and lower-cased (Devise's case_insensitive_keys, strip_whitespace_keys); taken either way is 409", async () => {
    const created = await server.request('POST', '/api/v4/users', { body: { username: 'mixed', name: 'Mixed', email: '  Mixed.Case@Example.COM ', password: 'password123' } });
    expect(created.status).toBe(201);
    expect(created.body.email).toBe('mixed.case@example.com');
    const taken = await server.request('POST', '/api/v4/users', { body: { username: 'mixed2', name: 'Mixed', email: 'MIXED.case@example.com', password: 'password123' } });
    expect({ status: taken.status, text: taken.text }).toEqual({ status: 409, text: '{"message":"Email has already been taken"}' });
    const updated = await server.request('PUT', `/api/v4/users/${created.body.id}`, { body: { email: 'Other.Mixed@Example.com' } });
    expect(updated.body.email).toBe('other.mixed@example.com');
  });

  it("PUT /users/:id with a blank name, username or e-mail is the model's can't be blank; projects_limit is a non-negative integer", async () => {
    const position = server.app.position;
    const refused = async (body: Record<string, unknown>) => {
      const response = await server.request('PUT', `/api/v4/users/${bob.id}`, { body });
      return { status: response.status, text: response.text };
    };
    expect(await refused({ name: '' })).toEqual({ status: 400, text: '{"message":{"name":["can\'t be blank"]}}' });
    expect(await refused({ name: null })).toEqual({ status: 400, text: '{"message":{"name":["can\'t be blank"]}}' });
    expect(await refused({ username: '' })).toEqual({ status: 400, text: '{"message":{"username":["can\'t be blank"]}}' });
    expect(await refused({ email: '' })).toEqual({ status: 400, text: '{"message":{"email":["can\'t be blank"]}}' });
    expect(await refused({ projects_limit: -1 })).toEqual({ status: 400, text: '{"message":{"projects_limit":["must be greater than or equal to 0"]}}' });
    expect(await refused({ projects_limit: 2147483648 })).toEqual({ status: 400, text: '{"message":{"projects_limit":["must be less than or equal to 2147483647"]}}' });
    expect(server.app.position).toBe(position);
    const created = await server.request('POST', '/api/v4/users', { body: { username: 'blank', name: 'Blank', email: '', password: 'password123' } });
    expect({ status: created.status, text: created.text }).toEqual({ status: 400, text: '{"message":{"email":["can\'t be blank"]}}' });
  });

  it('public_email must be an address the user owns (User#owns_public_email): 400, nothing written', async () => {
    const position = server.app.position;
    const create = await server.request('POST', '/api/v4/users', { body: { username: 'pub', name: 'Pub', email: 'pub@example.com', password: 'password123', public_email: 'someone@example.com' } });
    expect({ status: create.status, text: create.text }).toEqual({ status: 400, text: '{"message":{"public_email":["is not an email you own"]}}' });
    const update = await server.request('PUT', `/api/v4/users/${bob.id}`, { body: { public_email: 'alice@example.com' } });
    expect({ status: update.status, text: update.text }).toEqual({ status: 400, text: '{"message":{"public_email":["is not an email you own"]}}' });
    expect(server.app.position).toBe(position);
    const own = await server.request('PUT', `/api/v4/users/${bob.id}`, { body: { public_email: 'bob@example.com' } });
    expect(own.status).toBe(200);
    expect(own.body.public_email).toBe('bob@example.com');
    // A blank one is always allowed (it clears the public address).
    expect((await server.request('PUT', `/api/v4/users/${bob.id}`, { body: { public_email: '' } })).body.public_email).toBe('');
  });
});

describe('last_used_at', () => {
  it('a token that authenticates a request shows when, updated at most once a day (PersonalAccessTokens::LastUsedService)', async () => {
    const carl = await createPerson(server, 'carl');
    // The use is recorded off the request path: read it once it is written.
    const lastUsed = async (): Promise<{ created_at: string; last_used_at: string | null }> =>
      (await server.request('GET', `/api/v4/personal_access_tokens?user_id=${carl.id}`)).body[0];
    const settle = async (wanted: (value: string | null) => boolean) => {
      for (let i = 0; i < 100 && !wanted((await lastUsed()).last_used_at); i++) await new Promise((resolve) => setTimeout(resolve, 10));
      return lastUsed();
    };
    expect((await lastUsed()).last_used_at).toBeNull();
    expect((await server.request('GET', '/api/v4/user', { token: carl.token })).status).toBe(200);
    const first = await settle((value) => value !== null);
    expect(first.last_used_at).toBe(first.created_at);
    server.advance(HOUR);
    const position = server.app.position;
    expect((await server.request('GET', '/api/v4/user', { token: carl.token })).status).toBe(200);
    expect((await lastUsed()).last_used_at).toBe(first.created_at);
    expect(server.app.position).toBe(position);
    server.advance(24 * HOUR);
    expect((await server.request('GET', '/api/v4/user', { token: carl.token })).status).toBe(200);
    const later = await settle((value) => value !== first.created_at);
    expect(Date.parse(later.last_used_at!)).toBe(Date.parse(first.created_at) + 25 * HOUR);
  });
});

describe('deactivate and activate', () => {
  it('POST /users/:id/deactivate and /activate answer as lib/api/users.rb; a deactivated user is refused, unblocked by activate only', async () => {
    const dora = await createPerson(server, 'dora');
    const raw = async (method: string, path: string, token?: string) => {
      const response = await server.request(method, path, token === undefined ? {} : { token });
      return { status: response.status, text: response.text };
    };
    expect(await raw('POST', `/api/v4/users/${dora.id}/deactivate`, alice.token)).toEqual({ status: 403, text: '{"message":"403 Forbidden"}' });
    expect(await raw('POST', '/api/v4/users/9999/deactivate')).toEqual({ status: 404, text: '{"message":"404 User Not Found"}' });
    expect(await raw('POST', `/api/v4/users/${dora.id}/activate`)).toEqual({ status: 201, text: 'false' });
    expect(await raw('POST', `/api/v4/users/${dora.id}/deactivate`)).toEqual({ status: 201, text: 'true' });
    expect((await server.request('GET', `/api/v4/users/${dora.id}`)).body.state).toBe('deactivated');
    const refused = await server.request('GET', '/api/v4/user', { token: dora.token });
    expect({ status: refused.status, text: refused.text }).toEqual({
      status: 403,
      text: '{"message":"403 Forbidden - Your account has been deactivated by your administrator. Please log back in from a web browser to reactivate your account."}',
    });
    const position = server.app.position;
    expect(await raw('POST', `/api/v4/users/${dora.id}/deactivate`)).toEqual({ status: 201, text: 'null' });
    expect(await raw('POST', `/api/v4/users/${dora.id}/unblock`)).toEqual({ status: 403, text: '{"message":"403 Forbidden - Deactivated users cannot be unblocked by the API"}' });
    expect(server.app.position).toBe(position);
    expect(await raw('POST', `/api/v4/users/${dora.id}/activate`)).toEqual({ status: 201, text: 'true' });
    expect((await server.request('GET', '/api/v4/user', { token: dora.token })).status).toBe(200);
    // Active within the last 90 days (the request above): no deactivation.
    expect(await raw('POST', `/api/v4/users/${dora.id}/deactivate`)).toEqual({
      status: 403,
      text: '{"message":"403 Forbidden - The user you are trying to deactivate has been active in the past 90 days and cannot be deactivated"}',
    });
    expect(await raw('POST', `/api/v4/users/${dora.id}/block`)).toEqual({ status: 201, text: 'true' });
    expect(await raw('POST', `/api/v4/users/${dora.id}/deactivate`)).toEqual({ status: 403, text: '{"message":"403 Forbidden - A blocked user cannot be deactivated by the API"}' });
    expect(await raw('POST', `/api/v4/users/${dora.id}/activate`)).toEqual({ status: 403, text: '{"message":"403 Forbidden - A blocked user must be unblocked to be activated"}' });
  });
});

describe('search', () => {
  it('User.search: words of three or more characters match anywhere, shorter queries only whole; e-mails exactly; ordered by exact matches then name for non-administrators', async () => {
    const mk = async (username: string, name: string) => (await server.request('POST', '/api/v4/users', { body: { username, name, email: `${username}@example.org`, password: 'password123' } })).body.id as number;
    const zed = await mk('zed-jones', 'Zed Jones');
    const jo = await mk('jo', 'Jo');
    const jon = await mk('jonjo', 'Jon Jonas');
    const search = async (query: string, token = alice.token) => ids((await server.request('GET', `/api/v4/users?search=${encodeURIComponent(query)}`, { token })).body);
    // "jo" is shorter than three characters: only a whole name or username equal to it.
    expect(await search('jo')).toEqual([jo]);
    expect(await search('JO')).toEqual([jo]);
    // "jon" matches inside names and usernames, ordered by name; a username equal to the query comes first.
    expect(await search('jon')).toEqual([jon, zed]);
    const jones = await mk('jones', 'Zzz Jonesy');
    expect(await search('jones')).toEqual([jones, zed]);
    expect(await search('jonjo')).toEqual([jon]);
    // Every word of three characters or more must match; shorter words are dropped.
    expect(await search('jones zed')).toEqual([zed]);
    expect(await search('jo zed')).toEqual([zed]);
    expect(await search('zed.jones@example.org')).toEqual([]);
    expect(await search('zed-jones@example.org')).toEqual([zed]);
    expect(await search('@jonjo')).toEqual([jon]);
    // Administrators' order_by and sort apply (id desc by default).
    expect(await search('jon', server.rootToken)).toEqual([jones, jon, zed]);
    expect(ids((await server.request('GET', '/api/v4/users?search=jon&order_by=id&sort=asc')).body)).toEqual([zed, jon, jones]);
  });
});

describe('profile attributes', () => {
  it('POST and PUT /users keep the profile attributes (optional_attributes) and show them; a private profile hides created_at and the follow counts from others', async () => {
    const created = await server.request('POST', '/api/v4/users', {
      body: { username: 'prof', name: 'Prof', email: 'prof@example.com', password: 'password123', note: 'hired 2026', bio: 'Hi', skype: 'sk', website_url: 'https://example.com', theme_id: 2 },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ note: 'hired 2026', bio: 'Hi', skype: 'sk', linkedin: '', website_url: 'https://example.com', theme_id: 2, color_scheme_id: 1, private_profile: false, location: null });
    const id = created.body.id as number;
    const updated = await server.request('PUT', `/api/v4/users/${id}`, { body: { location: 'Lyon', organization: 'Acme', pronouns: 'they/them', color_scheme_id: 3, private_profile: true, note: null } });
    expect(updated.body).toMatchObject({ location: 'Lyon', organization: 'Acme', pronouns: 'they/them', color_scheme_id: 3, private_profile: true, note: null, bio: 'Hi' });
    const seen = await server.request('GET', `/api/v4/users/${id}`, { token: alice.token });
    expect(seen.body).toMatchObject({ bio: 'Hi', location: 'Lyon' });
    expect(seen.body.created_at).toBeUndefined();
    expect(seen.body.followers).toBeUndefined();
    expect((await server.request('GET', `/api/v4/users/${id}`)).body.created_at).toBe(created.body.created_at);
    const bad = await server.request('PUT', `/api/v4/users/${id}`, { body: { theme_id: 99, color_scheme_id: 0 } });
    expect({ status: bad.status, text: bad.text }).toEqual({ status: 400, text: '{"message":{"theme_id":["99 is not a valid theme"],"color_scheme_id":["0 is not a valid color scheme"]}}' });
  });
});

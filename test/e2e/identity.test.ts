/** The API server's conventions and identity endpoints, against a real server, with raw requests. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
const DAY = 86_400_000;

beforeAll(async () => {
  server = await startServer({ start: '2026-03-01T10:00:00.000Z' });
});
afterAll(async () => {
  await server.close();
});

const createUser = async (username: string, extra: Record<string, unknown> = {}) => {
  const response = await server.request('POST', '/api/v4/users', { body: { username, name: username, email: `${username}@example.com`, password: 'password123', ...extra } });
  expect(response.status).toBe(201);
  return response.body as { id: number; username: string };
};

const tokenFor = async (userId: number, scopes: string[] = ['api'], extra: Record<string, unknown> = {}) => {
  const response = await server.request('POST', `/api/v4/users/${userId}/personal_access_tokens`, { body: { name: 't', scopes, ...extra } });
  expect(response.status).toBe(201);
  return response.body as { id: number; token: string };
};

describe('conventions', () => {
  it('answers unknown routes, wrong methods and v3 exactly as the platform', async () => {
    const unknown = await server.request('GET', '/api/v4/nothing/here');
    expect(unknown.status).toBe(404);
    expect(unknown.text).toBe('{"error":"404 Not Found"}');
    const wrong = await server.request('PATCH', '/api/v4/groups');
    expect(wrong.status).toBe(405);
    const v3 = await server.request('GET', '/api/v3/projects');
    expect(v3.status).toBe(410);
    expect(v3.body).toEqual({ error: 'API V3 is no longer supported. Use API V4 instead.' });
  });

  it('sends the exact JSON headers and supports HEAD', async () => {
    const response = await server.request('GET', '/api/v4/version');
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(response.body).toEqual({ version: '14.7.0-ee', revision: 'forgefold' });
    const head = await fetch(`${server.baseUrl}/api/v4/version`, { method: 'HEAD', headers: { 'PRIVATE-TOKEN': server.rootToken } });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('accepts tokens in every place the platform reads them, and 401s without one', async () => {
    for (const [path, headers] of [
      ['/api/v4/user', { 'PRIVATE-TOKEN': server.rootToken }],
      ['/api/v4/user', { Authorization: `Bearer ${server.rootToken}` }],
      [`/api/v4/user?private_token=${server.rootToken}`, {}],
      [`/api/v4/user?access_token=${server.rootToken}`, {}],
    ] as const) {
      const response = await server.request('GET', path, { token: null, headers });
      expect(response.status).toBe(200);
      expect(response.body.username).toBe('root');
    }
    const anonymous = await server.request('GET', '/api/v4/user', { token: null });
    expect(anonymous.status).toBe(401);
    expect(anonymous.text).toBe('{"message":"401 Unauthorized"}');
    const unknown = await server.request('GET', '/api/v4/user', { token: 'glpat-nope' });
    expect(unknown.status).toBe(401);
  });

  it('ETag and If-None-Match answer 304; If-Unmodified-Since before a change answers 412 and deletes nothing', async () => {
    const first = await server.request('GET', '/api/v4/user');
    const etag = first.headers.get('etag')!;
    const again = await server.request('GET', '/api/v4/user', { headers: { 'If-None-Match': etag } });
    expect(again.status).toBe(304);
    const group = await server.request('POST', '/api/v4/groups', { body: { name: 'Cond', path: 'cond' } });
    const stale = await server.request('DELETE', `/api/v4/groups/${group.body.id}`, { headers: { 'If-Unmodified-Since': new Date(Date.parse('2026-02-01T00:00:00Z')).toUTCString() } });
    expect(stale.status).toBe(412);
    expect(stale.body).toEqual({ message: '412 Precondition Failed' });
    expect((await server.request('GET', `/api/v4/groups/${group.body.id}`)).status).toBe(200);
    const gone = await server.request('DELETE', `/api/v4/groups/${group.body.id}`);
    expect(gone.status).toBe(202);
    expect(gone.body).toEqual({ message: '202 Accepted' });
  });
});

describe('users', () => {
  it('creates users as an administrator only, with the platform errors', async () => {
    const missing = await server.request('POST', '/api/v4/users', { body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: 'email is missing, name is missing, username is missing, password, reset_password, force_random_password are missing, at least one parameter must be provided' });
    const alice = await createUser('alice');
    const duplicateEmail = await server.request('POST', '/api/v4/users', { body: { username: 'other', name: 'o', email: 'ALICE@example.com', password: 'password123' } });
    expect(duplicateEmail).toMatchObject({ status: 409, body: { message: 'Email has already been taken' } });
    const duplicateName = await server.request('POST', '/api/v4/users', { body: { username: 'Alice', name: 'o', email: 'o@example.com', password: 'password123' } });
    expect(duplicateName).toMatchObject({ status: 409, body: { message: 'Username has already been taken' } });
    const shortPassword = await server.request('POST', '/api/v4/users', { body: { username: 'p', name: 'p', email: 'p@example.com', password: 'short' } });
    expect(shortPassword).toMatchObject({ status: 400, body: { message: { password: ['is too short (minimum is 8 characters)'] } } });
    const aliceToken = (await tokenFor(alice.id)).token;
    const denied = await server.request('POST', '/api/v4/users', { token: aliceToken, body: { username: 'q', name: 'q', email: 'q@example.com', password: 'password123' } });
    expect(denied).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    // GET /users/:id is Entities::User for anyone but an administrator, the user themselves included (no e-mail).
    const shown = await server.request('GET', `/api/v4/users/${alice.id}`, { token: aliceToken });
    expect(shown.body).toMatchObject({ id: alice.id, username: 'alice' });
    expect(shown.body.email).toBeUndefined();
    expect(shown.body.is_admin).toBeUndefined();
    expect((await server.request('GET', '/api/v4/users/999999')).body).toEqual({ message: '404 User Not Found' });
  });

  it('blocks a user: their token then answers 403 with the reason', async () => {
    const bob = await createUser('bob');
    const token = (await tokenFor(bob.id)).token;
    expect((await server.request('POST', `/api/v4/users/${bob.id}/block`)).status).toBe(201);
    const blocked = await server.request('GET', '/api/v4/user', { token });
    expect(blocked).toMatchObject({ status: 403, body: { message: '403 Forbidden - Your account has been blocked.' } });
    await server.request('POST', `/api/v4/users/${bob.id}/unblock`);
    expect((await server.request('GET', '/api/v4/user', { token })).status).toBe(200);
  });
});

describe('tokens', () => {
  it('shows a token value only at creation and stores no value', async () => {
    const carol = await createUser('carol');
    const created = await tokenFor(carol.id, ['api', 'read_user'], { expires_at: '2026-03-05' });
    expect(created.token).toMatch(/^glpat-/);
    const listed = await server.request('GET', `/api/v4/personal_access_tokens?user_id=${carol.id}`);
    expect(listed.body).toHaveLength(1);
    expect(listed.body[0]).toMatchObject({ id: created.id, name: 't', revoked: false, active: true, scopes: ['api', 'read_user'], expires_at: '2026-03-05' });
    expect(listed.body[0].token).toBeUndefined();
    expect(JSON.stringify(server.app.state)).not.toContain(created.token);
  });

  it('rejects invalid scopes, enforces read_api and read_user, and reports insufficient scope', async () => {
    const dave = await createUser('dave');
    const invalid = await server.request('POST', `/api/v4/users/${dave.id}/personal_access_tokens`, { body: { name: 'x', scopes: ['everything'] } });
    expect(invalid).toMatchObject({ status: 400, body: { error: 'scopes does not have a valid value' } });
    const readApi = (await tokenFor(dave.id, ['read_api'])).token;
    expect((await server.request('GET', '/api/v4/groups', { token: readApi })).status).toBe(200);
    const write = await server.request('POST', '/api/v4/groups', { token: readApi, body: { name: 'x', path: 'x' } });
    expect(write.status).toBe(403);
    expect(write.body).toEqual({ error: 'insufficient_scope', error_description: 'The request requires higher privileges than provided by the access token.', scope: 'api read_api' });
    const readUser = (await tokenFor(dave.id, ['read_user'])).token;
    expect((await server.request('GET', '/api/v4/user', { token: readUser })).status).toBe(200);
    expect((await server.request('GET', '/api/v4/groups', { token: readUser })).status).toBe(403);
  });

  it('expired and revoked tokens get the platform invalid_token bodies', async () => {
    const erin = await createUser('erin');
    const expiring = await tokenFor(erin.id, ['api'], { expires_at: '2026-03-02' });
    const revoked = await tokenFor(erin.id, ['api']);
    expect((await server.request('DELETE', `/api/v4/personal_access_tokens/${revoked.id}`)).status).toBe(204);
    const revokedUse = await server.request('GET', '/api/v4/user', { token: revoked.token });
    expect(revokedUse).toMatchObject({ status: 401, body: { error: 'invalid_token', error_description: 'Token was revoked. You have to re-authorize from the user.' } });
    expect((await server.request('GET', '/api/v4/user', { token: expiring.token })).status).toBe(200);
    server.advance(2 * DAY);
    const expired = await server.request('GET', '/api/v4/user', { token: expiring.token });
    expect(expired).toMatchObject({ status: 401, body: { error: 'invalid_token', error_description: 'Token is expired. You can either do re-authorization or token refresh.' } });
  });

  it('impersonation tokens act as the user and record the administrator as the real actor', async () => {
    const fred = await createUser('fred');
    const created = await server.request('POST', `/api/v4/users/${fred.id}/impersonation_tokens`, { body: { name: 'imp', scopes: ['api'] } });
    expect(created).toMatchObject({ status: 201, body: { impersonation: true, user_id: fred.id } });
    const recorded: { type: string; metadata: unknown }[] = [];
    const stop = server.app.onCommitted((events) => recorded.push(...events));
    const group = await server.request('POST', '/api/v4/groups', { token: created.body.token, body: { name: 'Fred', path: 'fred-group' } });
    stop();
    expect(group.status).toBe(201);
    expect(recorded.find((event) => event.type === 'GroupCreated')?.metadata).toMatchObject({ actorId: fred.id, sudoFromId: 1, origin: 'api' });
    const shown = await server.request('GET', `/api/v4/users/${fred.id}/impersonation_tokens/${created.body.id}`);
    expect(shown.body.token).toBeUndefined();
    expect((await server.request('DELETE', `/api/v4/users/${fred.id}/impersonation_tokens/${created.body.id}`)).status).toBe(204);
  });

  it('project access tokens create a bot member at the chosen level', async () => {
    const project = await server.request('POST', '/api/v4/projects', { body: { name: 'botty' } });
    const created = await server.request('POST', `/api/v4/projects/${project.body.id}/access_tokens`, { body: { name: 'ci', scopes: ['api'], access_level: 30 } });
    expect(created).toMatchObject({ status: 201, body: { name: 'ci', access_level: 30, scopes: ['api'] } });
    const bot = await server.request('GET', `/api/v4/users/${created.body.user_id}`);
    expect(bot.body).toMatchObject({ username: `project_${project.body.id}_bot`, bot: true });
    const asBot = await server.request('GET', `/api/v4/projects/${project.body.id}`, { token: created.body.token });
    expect(asBot.status).toBe(200);
    const listed = await server.request('GET', `/api/v4/projects/${project.body.id}/access_tokens`);
    expect(listed.body.map((t: { id: number }) => t.id)).toEqual([created.body.id]);
    expect((await server.request('DELETE', `/api/v4/projects/${project.body.id}/access_tokens/${created.body.id}`)).status).toBe(204);
    expect((await server.request('GET', `/api/v4/projects/${project.body.id}`, { token: created.body.token })).status).toBe(401);
    // Revoked, the token is gone with its bot: a second revocation finds nothing and writes nothing.
    const head = server.app.position;
    const again = await server.request('DELETE', `/api/v4/projects/${project.body.id}/access_tokens/${created.body.id}`);
    expect(again).toMatchObject({ status: 400, body: { message: '400 Bad request - Failed to find project access token' } });
    expect(server.app.position).toBe(head);
  });
});

describe('sudo', () => {
  it('runs as the target with the checks in the platform order', async () => {
    const gina = await createUser('gina');
    const ginaToken = (await tokenFor(gina.id)).token;
    const recorded: { type: string; metadata: unknown }[] = [];
    const stop = server.app.onCommitted((events) => recorded.push(...events));
    const sudoGroup = await server.request('POST', '/api/v4/groups', { headers: { Sudo: 'gina' }, body: { name: 'Ginas', path: 'ginas' } });
    stop();
    expect(sudoGroup.status).toBe(201);
    // The event records the user the request ran as and the administrator behind it.
    expect(recorded.find((event) => event.type === 'GroupCreated')?.metadata).toMatchObject({ actorId: gina.id, sudoFromId: 1 });
    const asGina = await server.request('GET', '/api/v4/user', { headers: { Sudo: 'GINA' } });
    expect(asGina.body.username).toBe('gina');
    expect((await server.request('GET', `/api/v4/user?sudo=${gina.id}`)).body.username).toBe('gina');
    const notAdmin = await server.request('GET', '/api/v4/user', { token: ginaToken, headers: { Sudo: 'root' } });
    expect(notAdmin).toMatchObject({ status: 403, body: { message: '403 Forbidden - Must be admin to use sudo' } });
    const rootApiOnly = (await tokenFor(1, ['api'])).token;
    const noScope = await server.request('GET', '/api/v4/user', { token: rootApiOnly, headers: { Sudo: 'gina' } });
    expect(noScope).toMatchObject({ status: 403, body: { error: 'insufficient_scope', scope: 'sudo' } });
    const missing = await server.request('GET', '/api/v4/user', { headers: { Sudo: 'Nobody' } });
    expect(missing).toMatchObject({ status: 404, body: { message: "404 User with ID or username 'Nobody' Not Found" } });
  });
});

describe('sudo never widens a token (hardening issue)', () => {
  it('refuses writes through sudo with read_api+sudo, sudo-only and read_user+sudo tokens', async () => {
    const ivy = await createUser('ivy');
    const group = await server.request('POST', '/api/v4/groups', { body: { name: 'Ivys', path: 'ivys' } });
    expect(group.status).toBe(201);
    const readApiSudo = (await tokenFor(1, ['read_api', 'sudo'])).token;
    const addOwner = await server.request('POST', `/api/v4/groups/${group.body.id}/members`, { token: readApiSudo, headers: { Sudo: 'root' }, body: { user_id: ivy.id, access_level: 50 } });
    expect(addOwner).toMatchObject({ status: 403, body: { error: 'insufficient_scope', scope: 'api read_api' } });
    // Reads through sudo still work with read_api.
    expect((await server.request('GET', `/api/v4/groups/${group.body.id}/members`, { token: readApiSudo, headers: { Sudo: 'root' } })).status).toBe(200);
    const sudoOnly = (await tokenFor(1, ['sudo'])).token;
    expect((await server.request('GET', `/api/v4/groups/${group.body.id}/members`, { token: sudoOnly, headers: { Sudo: 'root' } })).status).toBe(403);
    expect((await server.request('POST', `/api/v4/groups/${group.body.id}/members`, { token: sudoOnly, headers: { Sudo: 'root' }, body: { user_id: ivy.id, access_level: 30 } })).status).toBe(403);
    const readUserSudo = (await tokenFor(1, ['read_user', 'sudo'])).token;
    const mint = await server.request('POST', '/api/v4/users/1/personal_access_tokens', { token: readUserSudo, headers: { Sudo: 'root' }, body: { name: 'x', scopes: ['api', 'sudo'] } });
    expect(mint).toMatchObject({ status: 403, body: { error: 'insufficient_scope' } });
    const members = await server.request('GET', `/api/v4/groups/${group.body.id}/members`);
    expect(members.body.map((m: { id: number }) => m.id)).not.toContain(ivy.id);
  });
});

describe('OAuth', () => {
  it('issues, refreshes and expires access tokens from the password grant', async () => {
    const hankUser = await createUser('hank');
    const bad = await fetch(`${server.baseUrl}/oauth/token`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ grant_type: 'password', username: 'hank', password: 'wrong-password' }) });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toBe('invalid_grant');
    // `User.by_login`: a username or an e-mail, never an id; scopes the server knows.
    const grant = (body: Record<string, string>) =>
      fetch(`${server.baseUrl}/oauth/token`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ grant_type: 'password', password: 'password123', ...body }) });
    const byId = await grant({ username: String(hankUser.id) });
    expect([byId.status, ((await byId.json()) as { error: string }).error]).toEqual([400, 'invalid_grant']);
    const byEmail = await grant({ username: 'HANK@example.com' });
    expect(byEmail.status).toBe(200);
    const unknownScope = await grant({ username: 'hank', scope: 'api nonsense' });
    expect([unknownScope.status, await unknownScope.json()]).toEqual([400, { error: 'invalid_scope', error_description: 'The requested scope is invalid, unknown, or malformed.' }]);
    expect((await grant({ username: 'hank', scope: 'read_user openid profile email' })).status).toBe(200);
    const blankScope = await grant({ username: 'hank', scope: ' ' });
    expect([blankScope.status, ((await blankScope.json()) as { scope: string }).scope]).toEqual([200, 'api']);
    const response = await fetch(`${server.baseUrl}/oauth/token`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'grant_type=password&username=hank&password=password123' });
    expect(response.status).toBe(200);
    const token = (await response.json()) as { access_token: string; refresh_token: string; expires_in: number; token_type: string };
    expect(token).toMatchObject({ token_type: 'Bearer', expires_in: 7200, scope: 'api' });
    const me = await server.request('GET', '/api/v4/user', { token: null, headers: { Authorization: `Bearer ${token.access_token}` } });
    expect(me.body.username).toBe('hank');
    await server.app.whenIdle(); // today's activity recorded: the next read is cached
    const again = await server.request('GET', '/api/v4/user', { token: null, headers: { Authorization: `Bearer ${token.access_token}` } });
    expect(again.body.username).toBe('hank');
    server.advance(7201 * 1000);
    const expired = await server.request('GET', `/api/v4/user?access_token=${token.access_token}`, { token: null });
    expect(expired.status).toBe(401);
    // The very request that was answered (and cached) before expiry: an OAuth token expires by the second,
    // not by the day, so no cached reply may outlive it.
    const repeated = await server.request('GET', '/api/v4/user', { token: null, headers: { Authorization: `Bearer ${token.access_token}` } });
    expect(repeated.status).toBe(401);
    const refreshed = await fetch(`${server.baseUrl}/oauth/token`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ grant_type: 'refresh_token', refresh_token: token.refresh_token }) });
    const next = (await refreshed.json()) as { access_token: string };
    expect((await server.request('GET', '/api/v4/user', { token: null, headers: { Authorization: `Bearer ${next.access_token}` } })).status).toBe(200);
    const reused = await fetch(`${server.baseUrl}/oauth/token`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ grant_type: 'refresh_token', refresh_token: token.refresh_token }) });
    expect(reused.status).toBe(400);
  });
});

describe('groups and projects', () => {
  it('answers a private group with 404 to a stranger, resolves encoded full paths, and creates subgroups', async () => {
    const ivan = await createUser('ivan');
    const ivanToken = (await tokenFor(ivan.id)).token;
    const parent = await server.request('POST', '/api/v4/groups', { body: { name: 'Parent', path: 'parent' } });
    expect(parent.body).toMatchObject({ name: 'Parent', full_path: 'parent', visibility: 'private', parent_id: null, projects: [], shared_with_groups: [] });
    const child = await server.request('POST', '/api/v4/groups', { body: { name: 'Child', path: 'child', parent_id: parent.body.id } });
    expect(child.body.full_path).toBe('parent/child');
    expect((await server.request('GET', '/api/v4/groups/parent%2Fchild')).body.id).toBe(child.body.id);
    expect((await server.request('GET', '/api/v4/groups/parent/child')).text).toBe('{"error":"404 Not Found"}');
    expect((await server.request('GET', `/api/v4/groups/${parent.body.id}`, { token: ivanToken })).body).toEqual({ message: '404 Group Not Found' });
    const taken = await server.request('POST', '/api/v4/groups', { body: { name: 'Parent', path: 'parent' } });
    expect(taken).toMatchObject({ status: 400, body: { message: 'Failed to save group {:path=>["has already been taken"]}' } });
    const noParent = await server.request('POST', '/api/v4/groups', { token: ivanToken, body: { name: 'X', path: 'x', parent_id: parent.body.id } });
    expect(noParent.body).toEqual({ message: '404 Group Not Found' });
    const subgroups = await server.request('GET', `/api/v4/groups/${parent.body.id}/subgroups`);
    expect(subgroups.body.map((g: { id: number }) => g.id)).toEqual([child.body.id]);
    const missing = await server.request('POST', '/api/v4/groups', { body: {} });
    expect(missing.body).toEqual({ error: 'name is missing, path is missing' });
  });

  it('creates personal projects and projects in groups; a non-numeric id without a slash finds nothing', async () => {
    const personal = await server.request('POST', '/api/v4/projects', { body: { name: 'My Project' } });
    expect(personal.body).toMatchObject({ path: 'my-project', path_with_namespace: 'root/my-project', namespace: { kind: 'user', full_path: 'root' } });
    expect((await server.request('GET', '/api/v4/projects/root%2Fmy-project')).body.id).toBe(personal.body.id);
    expect((await server.request('GET', '/api/v4/projects/my-project')).body).toEqual({ message: '404 Project Not Found' });
    const jane = await createUser('jane');
    const forJane = await server.request('POST', `/api/v4/projects/user/${jane.id}`, { body: { path: 'janes' } });
    expect(forJane.body).toMatchObject({ path_with_namespace: 'jane/janes', owner: { username: 'jane' } });
    const both = await server.request('POST', '/api/v4/projects', { body: {} });
    expect(both.body).toEqual({ error: 'name, path are missing, at least one parameter must be provided' });
  });

  it('pages projects with offset headers and keyset links', async () => {
    const group = await server.request('POST', '/api/v4/groups', { body: { name: 'Many', path: 'many' } });
    for (let i = 0; i < 25; i++) await server.request('POST', '/api/v4/projects', { body: { path: `p${i}`, namespace_id: group.body.id } });
    const page = await server.request('GET', '/api/v4/projects?per_page=10&page=2&order_by=id&sort=asc');
    expect(page.headers.get('x-page')).toBe('2');
    expect(page.headers.get('x-per-page')).toBe('10');
    expect(page.headers.get('x-prev-page')).toBe('1');
    expect(page.headers.get('x-next-page')).toBe('3');
    const total = Number(page.headers.get('x-total'));
    expect(page.headers.get('x-total-pages')).toBe(String(Math.ceil(total / 10)));
    expect(page.headers.get('link')).toMatch(/rel="prev".*rel="next".*rel="first".*rel="last"/);
    const keysetNoOrder = await server.request('GET', '/api/v4/projects?pagination=keyset');
    expect(keysetNoOrder).toMatchObject({ status: 405, body: { error: 'Keyset pagination is not yet available for this type of request' } });
    const seen: number[] = [];
    let next: string | null = `/api/v4/projects?pagination=keyset&order_by=id&sort=asc&per_page=7`;
    while (next) {
      const response = await server.request('GET', next);
      seen.push(...response.body.map((p: { id: number }) => p.id));
      const link = response.headers.get('link');
      next = link ? new URL(/<([^>]+)>; rel="next"/.exec(link)![1]!).pathname + new URL(/<([^>]+)>; rel="next"/.exec(link)![1]!).search : null;
      if (response.body.length === 0) expect(link).toBeNull();
    }
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(seen).toHaveLength(total);
  });
});

describe('keyset pagination of groups', () => {
  it('pages public groups by name for anonymous callers, following the Link, and refuses signed-in callers', async () => {
    // Names in an order unrelated to ids.
    for (const name of ['zeta', 'alpha', 'mu', 'beta', 'omega', 'kappa', 'delta']) {
      expect((await server.request('POST', '/api/v4/groups', { body: { name: `Pub ${name}`, path: `pub-${name}`, visibility: 'public' } })).status).toBe(201);
    }
    const names: string[] = [];
    let next: string | null = '/api/v4/groups?pagination=keyset&order_by=name&sort=asc&per_page=3';
    while (next) {
      const page = await server.request('GET', next, { token: null });
      expect(page.status).toBe(200);
      names.push(...page.body.map((group: { name: string }) => group.name));
      const link = page.headers.get('link');
      const url = link ? /<([^>]+)>; rel="next"/.exec(link)?.[1] : undefined;
      next = url ? new URL(url).pathname + new URL(url).search : null;
    }
    const publicNames = names.filter((name) => name.startsWith('Pub '));
    expect(publicNames).toEqual([...publicNames].sort());
    expect(publicNames).toHaveLength(7);
    const signedIn = await server.request('GET', '/api/v4/groups?pagination=keyset&order_by=name&sort=asc');
    expect(signedIn.status).toBe(405);
  });
});

describe('group detail', () => {
  it('lists the groups a group is shared with', async () => {
    const shared = await server.request('POST', '/api/v4/groups', { body: { name: 'Shared', path: 'shared-detail' } });
    const invited = await server.request('POST', '/api/v4/groups', { body: { name: 'Invited', path: 'invited-detail' } });
    const share = await server.request('POST', `/api/v4/groups/${shared.body.id}/share`, { body: { group_id: invited.body.id, group_access: 30 } });
    expect(share.status).toBe(201);
    const detail = await server.request('GET', `/api/v4/groups/${shared.body.id}`);
    expect(detail.body.shared_with_groups).toEqual([
      { group_id: invited.body.id, group_name: 'Invited', group_full_path: 'invited-detail', group_access_level: 30, expires_at: null },
    ]);
  });
});

describe('group access tokens', () => {
  it('create a group bot member, authenticate as it, list without values, and revoke (deleting the bot)', async () => {
    const group = await server.request('POST', '/api/v4/groups', { body: { name: 'Bots', path: 'bots-group' } });
    const created = await server.request('POST', `/api/v4/groups/${group.body.id}/access_tokens`, { body: { name: 'deploy', scopes: ['read_api'], access_level: 20 } });
    expect(created).toMatchObject({ status: 201, body: { name: 'deploy', access_level: 20, scopes: ['read_api'], active: true } });
    expect(created.body.token).toMatch(/^glpat-/);
    const bot = await server.request('GET', `/api/v4/users/${created.body.user_id}`);
    expect(bot.body).toMatchObject({ username: `group_${group.body.id}_bot`, bot: true });
    expect((await server.request('GET', `/api/v4/groups/${group.body.id}`, { token: created.body.token })).status).toBe(200);
    // read_api: reads only.
    expect((await server.request('PUT', `/api/v4/groups/${group.body.id}`, { token: created.body.token, body: { description: 'x' } })).status).toBe(403);
    const listed = await server.request('GET', `/api/v4/groups/${group.body.id}/access_tokens`);
    expect(listed.body).toHaveLength(1);
    expect(listed.body[0].token).toBeUndefined();
    expect((await server.request('DELETE', `/api/v4/groups/${group.body.id}/access_tokens/${created.body.id}`)).status).toBe(204);
    expect((await server.request('GET', `/api/v4/groups/${group.body.id}`, { token: created.body.token })).status).toBe(401);
    expect((await server.request('GET', `/api/v4/users/${created.body.user_id}`)).status).toBe(404);
  });
});

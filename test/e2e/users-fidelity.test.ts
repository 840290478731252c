/**
 * The users API as real clients found it (issue 16, python-gitlab's functional tests): exact statuses and bodies
 * of block and unblock, identities, ban and unban, memberships and a user's projects (lib/api/users.rb).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { createPerson, type Person } from '../members/support.js';

let server: TestServer;
let bob: Person;

beforeAll(async () => {
  server = await startServer({ start: '2026-05-01T00:00:00.000Z' });
  bob = await createPerson(server, 'bob');
});
afterAll(async () => {
  await server.close();
});

/** The raw answer: status and the exact body text. */
const raw = async (method: string, path: string, body?: unknown) => {
  const response = await server.request(method, path, body === undefined ? {} : { body });
  return { status: response.status, text: response.text };
};

describe('block and unblock', () => {
  it('answer true on a change, null when blocking a blocked user, false when unblocking an active one (all 201)', async () => {
    expect(await raw('POST', `/api/v4/users/${bob.id}/unblock`)).toEqual({ status: 201, text: 'false' });
    expect(await raw('POST', `/api/v4/users/${bob.id}/block`)).toEqual({ status: 201, text: 'true' });
    const position = server.app.position;
    expect(await raw('POST', `/api/v4/users/${bob.id}/block`)).toEqual({ status: 201, text: 'null' });
    expect(server.app.position).toBe(position);
    expect(await raw('POST', `/api/v4/users/${bob.id}/unblock`)).toEqual({ status: 201, text: 'true' });
    expect(await raw('POST', `/api/v4/users/${bob.id}/unblock`)).toEqual({ status: 201, text: 'false' });
    expect(await raw('POST', '/api/v4/users/9999/block')).toEqual({ status: 404, text: '{"message":"404 User Not Found"}' });
  });
});

describe('identities', () => {
  it('PUT /users/:id with provider and extern_uid creates the identity; DELETE …/identities/:provider removes it', async () => {
    const carol = await createPerson(server, 'carol');
    const put = await server.request('PUT', `/api/v4/users/${carol.id}`, { body: { provider: 'github', extern_uid: '4242' } });
    expect(put.status).toBe(200);
    expect(put.body.identities).toEqual([{ provider: 'github', extern_uid: '4242' }]);
    // The same provider again changes the extern_uid; another provider is added after it.
    await server.request('PUT', `/api/v4/users/${carol.id}`, { body: { provider: 'github', extern_uid: '4343' } });
    await server.request('PUT', `/api/v4/users/${carol.id}`, { body: { provider: 'ldapmain', extern_uid: 'cn=carol,dc=example' } });
    expect((await server.request('GET', `/api/v4/users/${carol.id}`)).body.identities).toEqual([
      { provider: 'github', extern_uid: '4343' },
      { provider: 'ldapmain', extern_uid: 'cn=carol,dc=example' },
    ]);
    // What the user sees of themselves, and the administrator's lookup by identity.
    expect((await server.request('GET', '/api/v4/user', { token: carol.token })).body.identities).toHaveLength(2);
    const found = await server.request('GET', '/api/v4/users?extern_uid=4343&provider=github');
    expect(found.body.map((u: { id: number }) => u.id)).toEqual([carol.id]);
    expect((await server.request('GET', '/api/v4/users?extern_uid=4343&provider=github', { token: carol.token })).status).toBe(403);
    // Both or neither; an extern_uid belongs to one user per provider.
    expect(await raw('PUT', `/api/v4/users/${carol.id}`, { provider: 'github' })).toEqual({ status: 400, text: '{"error":"extern_uid, provider provide all or none of parameters"}' });
    expect(await raw('PUT', `/api/v4/users/${bob.id}`, { provider: 'github', extern_uid: '4343' })).toEqual({ status: 400, text: '{"message":{"extern_uid":["has already been taken"]}}' });
    expect(await raw('DELETE', `/api/v4/users/${carol.id}/identities/github`)).toEqual({ status: 204, text: '' });
    expect((await server.request('GET', `/api/v4/users/${carol.id}`)).body.identities).toEqual([{ provider: 'ldapmain', extern_uid: 'cn=carol,dc=example' }]);
    expect(await raw('DELETE', `/api/v4/users/${carol.id}/identities/github`)).toEqual({ status: 404, text: '{"message":"404 Identity Not Found"}' });
    expect(await raw('DELETE', '/api/v4/users/9999/identities/github')).toEqual({ status: 404, text: '{"message":"404 User Not Found"}' });
    expect((await server.request('DELETE', `/api/v4/users/${carol.id}/identities/ldapmain`, { token: carol.token })).status).toBe(403);
    // POST /users takes them too.
    const dan = await server.request('POST', '/api/v4/users', { body: { username: 'dan', name: 'Dan', email: 'dan@example.com', password: 'password123', provider: 'github', extern_uid: '77' } });
    expect(dan.body.identities).toEqual([{ provider: 'github', extern_uid: '77' }]);
  });
});

describe('identities and updated_at', () => {
  it("an identity set or removed alone leaves the account's updated_at (the identity is a row of its own)", async () => {
    const frank = await createPerson(server, 'frank');
    server.advance(60_000);
    const gina = await createPerson(server, 'gina');
    server.advance(60_000);
    const order = async () =>
      ((await server.request('GET', '/api/v4/users?order_by=updated_at&sort=asc&per_page=100')).body as { id: number }[]).map((user) => user.id).filter((id) => id === frank.id || id === gina.id);
    expect(await order()).toEqual([frank.id, gina.id]);
    expect((await server.request('PUT', `/api/v4/users/${frank.id}`, { body: { provider: 'github', extern_uid: 'frank-1' } })).status).toBe(200);
    expect(await order()).toEqual([frank.id, gina.id]);
    expect((await server.request('DELETE', `/api/v4/users/${frank.id}/identities/github`)).status).toBe(204);
    expect(await order()).toEqual([frank.id, gina.id]);
    // A change to the account itself moves it.
    expect((await server.request('PUT', `/api/v4/users/${frank.id}`, { body: { name: 'Frank F' } })).status).toBe(200);
    expect(await order()).toEqual([gina.id, frank.id]);
  });
});

describe('ban and unban', () => {
  it('ban an active user and unban a banned one (201 true); otherwise 403 with the service message', async () => {
    const eve = await createPerson(server, 'eve');
    expect(await raw('POST', `/api/v4/users/${eve.id}/unban`)).toEqual({ status: 403, text: '{"message":"You cannot unban active users."}' });
    expect(await raw('POST', `/api/v4/users/${eve.id}/ban`)).toEqual({ status: 201, text: 'true' });
    expect((await server.request('GET', `/api/v4/users/${eve.id}`)).body.state).toBe('banned');
    expect(await raw('POST', `/api/v4/users/${eve.id}/ban`)).toEqual({ status: 403, text: '{"message":"You cannot ban banned users."}' });
    // Banned is blocked wherever the platform asks `blocked?`: no API access, and blocking again does nothing.
    expect(await server.request('GET', '/api/v4/user', { token: eve.token })).toMatchObject({ status: 403, body: { message: '403 Forbidden - Your account has been blocked.' } });
    expect(await raw('POST', `/api/v4/users/${eve.id}/block`)).toEqual({ status: 201, text: 'null' });
    expect(await raw('POST', `/api/v4/users/${eve.id}/unban`)).toEqual({ status: 201, text: 'true' });
    expect((await server.request('GET', '/api/v4/user', { token: eve.token })).status).toBe(200);
    await raw('POST', `/api/v4/users/${eve.id}/block`);
    expect(await raw('POST', `/api/v4/users/${eve.id}/ban`)).toEqual({ status: 403, text: '{"message":"You cannot ban blocked users."}' });
    await raw('POST', `/api/v4/users/${eve.id}/unblock`);
    // Unblock lifts a ban too (`user.activate`).
    await raw('POST', `/api/v4/users/${eve.id}/ban`);
    expect(await raw('POST', `/api/v4/users/${eve.id}/unblock`)).toEqual({ status: 201, text: 'true' });
    expect(await raw('POST', '/api/v4/users/9999/ban')).toEqual({ status: 404, text: '{"message":"404 User Not Found"}' });
    expect((await server.request('POST', `/api/v4/users/${bob.id}/ban`, { token: eve.token })).status).toBe(403);
  });
});

/**
 * Token creation and scope answers as the platform gives them (issue 16): `scopes` as a comma list (reference
 * #139), and the accepted scopes listed in insufficient_scope as `scopes_registered_for_endpoint` builds them (the
 * endpoint class's own registrations first, then `api read_api`, whatever the method).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { createPerson, type Person } from '../members/support.js';

let server: TestServer;
let alice: Person;

beforeAll(async () => {
  server = await startServer({ start: '2026-05-01T00:00:00.000Z' });
  alice = await createPerson(server, 'alice');
});
afterAll(async () => {
  await server.close();
});

const insufficient = (scope: string) => ({ error: 'insufficient_scope', error_description: 'The request requires higher privileges than provided by the access token.', scope });

const tokenWith = async (scopes: string[]): Promise<string> => {
  const created = await server.request('POST', `/api/v4/users/${alice.id}/personal_access_tokens`, { body: { name: scopes.join('+'), scopes } });
  expect(created.status).toBe(201);
  return created.body.token;
};

describe('personal access token scopes', () => {
  it('accepts a comma list (JSON and form) as the platform does', async () => {
    const path = `/api/v4/users/${alice.id}/personal_access_tokens`;
    const json = await server.request('POST', path, { body: { name: 'a', scopes: 'api,sudo' } });
    expect(json.status).toBe(201);
    expect(json.body.scopes).toEqual(['api', 'sudo']);
    const form = await fetch(`${server.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': server.rootToken, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'name=b&scopes=read_api,%20read_user',
    });
    expect(form.status).toBe(201);
    expect(((await form.json()) as { scopes: string[] }).scopes).toEqual(['read_api', 'read_user']);
    const array = await server.request('POST', path, { body: { name: 'c', scopes: ['api', 'read_user'] } });
    expect(array.body.scopes).toEqual(['api', 'read_user']);
    const before = server.app.position;
    expect(await server.request('POST', path, { body: { name: 'd', scopes: 'api,nope' } })).toMatchObject({ status: 400, body: { error: 'scopes does not have a valid value' } });
    expect(server.app.position).toBe(before);
  });

  it('insufficient_scope lists the endpoint class scopes first, then api and read_api', async () => {
    const readApi = await tokenWith(['read_api']);
    const readUser = await tokenWith(['read_user']);
    expect(await server.request('POST', '/api/v4/groups', { token: readApi, body: { name: 'G', path: 'g' } })).toMatchObject({ status: 403, body: insufficient('api read_api') });
    // API::Users registers read_user (for GET only): its writes still list it, first.
    expect(await server.request('PUT', `/api/v4/users/${alice.id}`, { token: readApi, body: { name: 'A' } })).toMatchObject({ status: 403, body: insufficient('read_user api read_api') });
    expect(await server.request('PUT', `/api/v4/users/${alice.id}`, { token: readUser, body: { name: 'A' } })).toMatchObject({ status: 403, body: insufficient('read_user api read_api') });
    expect(await server.request('POST', `/api/v4/users/${alice.id}/block`, { token: readUser })).toMatchObject({ status: 403, body: insufficient('read_user api read_api') });
    expect(await server.request('GET', '/api/v4/groups', { token: readUser })).toMatchObject({ status: 403, body: insufficient('api read_api') });
    expect((await server.request('GET', '/api/v4/users', { token: readUser })).status).toBe(200);
    expect((await server.request('GET', '/api/v4/user', { token: readUser })).status).toBe(200);
    expect((await server.request('GET', `/api/v4/users/${alice.id}`, { token: readApi })).status).toBe(200);
  });
});

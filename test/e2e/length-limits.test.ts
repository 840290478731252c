/**
 * The platform's model limits (issue 16): names, paths, usernames and e-mails at most 255 characters, a
 * project's description 2000, counted in characters (code points); an over-long field is the model's 400 (or
 * the endpoint's own failure shape) and changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { createGroup, createPerson, type Person } from '../members/support.js';
import { scimClient, setupScimGroup } from '../scim/support.js';

let server: TestServer;
let alice: Person;
let group: { id: number; full_path: string };

const TOO_LONG = 'is too long (maximum is 255 characters)';
const x = (n: number) => 'x'.repeat(n);

beforeAll(async () => {
  server = await startServer({ start: '2026-05-01T00:00:00.000Z' });
  alice = await createPerson(server, 'alice');
  group = await createGroup(server, alice, 'Limits');
});
afterAll(async () => {
  await server.close();
});

/** Sends a request that must fail and asserts that nothing was recorded. */
const refused = async (method: string, path: string, body: unknown, token: string = server.rootToken) => {
  const before = server.app.position;
  const response = await server.request(method, path, { body, token });
  expect(server.app.position).toBe(before);
  return { status: response.status, body: response.body };
};

describe('length limits', () => {
  it('users: name, username, e-mail and public e-mail at most 255 characters', async () => {
    const user = { email: 'long@example.com', name: 'Long', username: 'long', password: 'password123' };
    expect(await refused('POST', '/api/v4/users', { ...user, name: x(256) })).toEqual({ status: 400, body: { message: { name: [TOO_LONG] } } });
    expect(await refused('POST', '/api/v4/users', { ...user, name: x(1_000_000) })).toEqual({ status: 400, body: { message: { name: [TOO_LONG] } } });
    expect(await refused('POST', '/api/v4/users', { ...user, username: x(256) })).toEqual({ status: 400, body: { message: { username: [TOO_LONG] } } });
    expect(await refused('POST', '/api/v4/users', { ...user, email: `${x(244)}@example.com` })).toEqual({ status: 400, body: { message: { email: [TOO_LONG] } } });
    expect(await refused('POST', '/api/v4/users', { ...user, public_email: `${x(244)}@example.com` })).toEqual({ status: 400, body: { message: { public_email: [TOO_LONG] } } });
    // Characters, not UTF-16 units: 255 emoji are 510 units and fit.
    const emoji = '😀'.repeat(255);
    const created = await server.request('POST', '/api/v4/users', { body: { ...user, name: emoji, username: x(255) } });
    expect(created.status).toBe(201);
    expect(created.body.name).toBe(emoji);
    expect(await refused('PUT', `/api/v4/users/${created.body.id}`, { name: `${emoji}😀` })).toEqual({ status: 400, body: { message: { name: [TOO_LONG] } } });
  });

  it('groups: name, path and description at most 255 characters', async () => {
    expect(await refused('POST', '/api/v4/groups', { name: x(1_000_000), path: 'big' })).toEqual({ status: 400, body: { message: 'Failed to save group {:name=>["is too long (maximum is 255 characters)"]}' } });
    expect(await refused('POST', '/api/v4/groups', { name: 'Big', path: x(256) })).toEqual({ status: 400, body: { message: 'Failed to save group {:path=>["is too long (maximum is 255 characters)"]}' } });
    expect(await refused('POST', '/api/v4/groups', { name: 'Big', path: 'big', description: x(256) })).toEqual({
      status: 400,
      body: { message: 'Failed to save group {:description=>["is too long (maximum is 255 characters)"]}' },
    });
    expect(await refused('PUT', `/api/v4/groups/${group.id}`, { name: x(256), description: x(300) }, alice.token)).toEqual({ status: 400, body: { message: { name: [TOO_LONG], description: [TOO_LONG] } } });
    expect((await server.request('POST', '/api/v4/groups', { body: { name: x(255), path: 'y'.repeat(255), description: x(255) } })).status).toBe(201);
  });

  it('projects: name and path at most 255 characters, description 2000', async () => {
    expect(await refused('POST', '/api/v4/projects', { name: x(256), namespace_id: group.id }, alice.token)).toEqual({ status: 400, body: { message: { name: [TOO_LONG], path: [TOO_LONG] } } });
    expect(await refused('POST', '/api/v4/projects', { name: 'p', path: x(256), namespace_id: group.id }, alice.token)).toEqual({ status: 400, body: { message: { path: [TOO_LONG] } } });
    expect(await refused('POST', '/api/v4/projects', { name: 'p', description: x(2001), namespace_id: group.id }, alice.token)).toEqual({
      status: 400,
      body: { message: { description: ['is too long (maximum is 2000 characters)'] } },
    });
    const project = await server.request('POST', '/api/v4/projects', { token: alice.token, body: { name: 'p', description: x(2000), namespace_id: group.id } });
    expect(project.status).toBe(201);
    expect(await refused('PUT', `/api/v4/projects/${project.body.id}`, { name: x(256) }, alice.token)).toEqual({ status: 400, body: { message: { name: [TOO_LONG] } } });
  });

  it('tokens, invitations and LDAP links', async () => {
    expect(await refused('POST', `/api/v4/users/${alice.id}/personal_access_tokens`, { name: x(256), scopes: ['api'] })).toEqual({ status: 400, body: { message: { name: [TOO_LONG] } } });
    expect(await refused('POST', `/api/v4/groups/${group.id}/access_tokens`, { name: x(256), scopes: ['api'] }, alice.token)).toEqual({ status: 400, body: { message: { name: [TOO_LONG] } } });
    const address = `${x(250)}@example.com`;
    expect(await refused('POST', `/api/v4/groups/${group.id}/invitations`, { email: address, access_level: 30 }, alice.token)).toEqual({
      status: 201,
      body: { status: 'error', message: { [address]: `Invite email ${TOO_LONG}` } },
    });
    expect(await refused('POST', `/api/v4/groups/${group.id}/ldap_group_links`, { cn: x(256), group_access: 30, provider: 'ldapmain' }, alice.token)).toEqual({ status: 409, body: { message: `Cn ${TOO_LONG}` } });
    expect(await refused('POST', `/api/v4/groups/${group.id}/ldap_group_links`, { cn: 'ok', group_access: 30, provider: x(300) }, alice.token)).toEqual({ status: 409, body: { message: `Provider ${TOO_LONG}` } });
  });

  it('SCIM provisioning: the user fields and the external id', async () => {
    const scim = scimClient(await setupScimGroup(server, 'scimlimits'));
    const user = { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], externalId: 'e1', userName: 'eve', active: true, name: { formatted: 'Eve' }, emails: [{ type: 'work', value: 'eve@example.com', primary: true }] };
    const before = server.app.position;
    const long = await scim('POST', '/Users', { body: { ...user, externalId: x(256), name: { formatted: x(300) } } });
    expect(long.status).toBe(400);
    expect(long.body).toMatchObject({ scimType: 'invalidValue', detail: `externalId ${TOO_LONG}; name ${TOO_LONG}` });
    expect(server.app.position).toBe(before);
    expect((await scim('POST', '/Users', { body: user })).status).toBe(201);
  });
});

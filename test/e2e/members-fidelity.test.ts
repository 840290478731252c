/**
 * Membership lists read against the reference notes (issue 16): `with_saml_identity` (reference #54), accepted
 * invitations (#110), and access through shares capped at the share's level.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { createGroup, createPerson, createProject, type Person } from '../members/support.js';
import { scimClient, setupScimGroup } from '../scim/support.js';

let server: TestServer;
let alice: Person, bob: Person;

beforeAll(async () => {
  server = await startServer({ start: '2026-05-01T00:00:00.000Z' });
  alice = await createPerson(server, 'alice');
  bob = await createPerson(server, 'bob');
});
afterAll(async () => {
  await server.close();
});

const usernames = (body: { username: string }[]) => body.map((m) => m.username);

describe('with_saml_identity on the direct members list', () => {
  it('keeps members with a SAML identity, for callers who may read them; ignored otherwise', async () => {
    const group = await setupScimGroup(server, 'samlco');
    const scim = scimClient(group);
    const eve = await scim('POST', '/Users', {
      body: { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], externalId: 'eve-1', userName: 'eve', active: true, name: { formatted: 'Eve' }, emails: [{ type: 'work', value: 'eve@example.com', primary: true }] },
    });
    expect(eve.status).toBe(201);
    expect((await server.request('POST', `/api/v4/groups/${group.id}/members`, { body: { user_id: bob.id, access_level: 30 } })).status).toBe(201);
    const members = `/api/v4/groups/${group.id}/members`;
    const all = await server.request('GET', members);
    expect(usernames(all.body)).toEqual(['root', 'eve', 'bob']);
    const saml = await server.request('GET', `${members}?with_saml_identity=true`);
    expect(saml.status).toBe(200);
    expect(usernames(saml.body)).toEqual(['eve']);
    expect(saml.headers.get('x-total')).toBe('1');
    expect(usernames((await server.request('GET', `${members}?with_saml_identity=false`)).body)).toEqual(['root', 'eve', 'bob']);
    // A developer may not read SAML identities: the parameter is ignored.
    expect(usernames((await server.request('GET', `${members}?with_saml_identity=true`, { token: bob.token })).body)).toEqual(['root', 'eve', 'bob']);
    // With SSO disabled, nobody reads them.
    await server.request('PUT', `/api/v4/groups/${group.id}/saml_provider`, { body: { enabled: false } });
    expect(usernames((await server.request('GET', `${members}?with_saml_identity=true`)).body)).toEqual(['root', 'eve', 'bob']);
  });
});

describe('accepted invitations', () => {
  it('leave pending_members and are no longer invited (the platform tests the invite token, which acceptance clears)', async () => {
    const group = await createGroup(server, alice, 'Inviting');
    const invited = await server.request('POST', `/api/v4/groups/${group.id}/invitations`, { token: alice.token, body: { email: 'zed@example.com,yan@example.com', access_level: 30 } });
    expect(invited.body).toEqual({ status: 'success' });
    const pending = async () => (await server.request('GET', `/api/v4/groups/${group.id}/pending_members`, { token: alice.token })).body as { email: string; invited: boolean }[];
    expect((await pending()).map((m) => [m.email, m.invited])).toEqual([
      ['yan@example.com', true],
      ['zed@example.com', true],
    ]);
    // Zed's account is created with the invited address: the invitation becomes the membership.
    const zed = await createPerson(server, 'zed');
    expect((await pending()).map((m) => [m.email, m.invited])).toEqual([['yan@example.com', true]]);
    expect((await server.request('GET', `/api/v4/groups/${group.id}/invitations`, { token: alice.token })).body.map((i: { invite_email: string }) => i.invite_email)).toEqual(['yan@example.com']);
    expect((await server.request('GET', `/api/v4/groups/${group.id}/members/${zed.id}`, { token: alice.token })).body).toMatchObject({ username: 'zed', access_level: 30 });
  });
});

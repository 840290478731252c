/**
 * Microsoft Entra ID's request sequence, replayed from an empty group to deprovisioning and re-provisioning. The
 * requests are those of Microsoft's "Tutorial: Develop and plan provisioning for a SCIM endpoint in Microsoft
 * Entra ID" (learn.microsoft.com/entra/identity/app-provisioning/use-scim-to-provision-users-and-groups, "User
 * operations"): the unencoded `filter=userName eq "…"` query, the create POST with the enterprise extension schema
 * and `roles: []`, GET by id, the multi-valued PATCH (`emails[type eq "work"].value` + `name.familyName`, op
 * "Replace"), the single-valued PATCH of `userName`, "Disable User" (`active` false), and DELETE. Re-provisioning
 * uses the `active` value the platform's Entra mapping sends (`Switch([IsSoftDeleted], , "False", "True", "True",
 * "False")`, i.e. the strings "True"/"False").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { expectScimError, membershipOf, scimClient, setupScimGroup, type ScimClient, type ScimGroup } from './support.js';

let server: TestServer;
let group: ScimGroup;
let scim: ScimClient;

beforeAll(async () => {
  server = await startServer();
  group = await setupScimGroup(server, 'contoso', { default_membership_role: 20 });
  scim = scimClient(group);
});
afterAll(async () => {
  await server?.close();
});

const userName = 'Test_User_ab6490ee-1e48-479e-a20b-2d77186b5dd1';
const email = 'Test_User_fd0ea19b-0777-472c-9f96-4f70d2226f2e@testuser.com';
const createBody = {
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:User', 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'],
  externalId: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef',
  userName,
  active: true,
  emails: [{ primary: true, type: 'work', value: email }],
  meta: { resourceType: 'User' },
  name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
  roles: [],
};
/** Entra sends the filter unencoded apart from what the HTTP client must encode (here: spaces, quotes). */
const query = (filter: string) => `/Users?filter=${filter.replace(/ /g, '%20').replace(/"/g, '%22')}`;

describe('Microsoft Entra ID provisioning scenario', () => {
  let id: string;

  it('1. Test Connection / matching query on an empty group: zero results, a ListResponse', async () => {
    const res = await scim('GET', query(`userName eq "${userName}"`));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/scim+json');
    expect(res.body).toMatchObject({ schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'], totalResults: 0, Resources: [], startIndex: 1 });
  });

  it('2. Create User: 201 with id, externalId, userName and meta', async () => {
    const res = await scim('POST', '/Users', { body: createBody });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      externalId: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef',
      userName,
      active: true,
      name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
      // The account's e-mail as the User model saves it: lower-cased (Devise's case_insensitive_keys).
      emails: [{ value: email.toLowerCase(), type: 'work', primary: true }],
      meta: { resourceType: 'User' },
    });
    id = res.body.id;
    expect(membershipOf(server.app.state, group.id, email)).toMatchObject({ access_level: 20 });
  });

  it('3. Get User, and Get User by query (also with a different case, as the SCIM validator checks)', async () => {
    expect((await scim('GET', `/Users/${id}`)).body.userName).toBe(userName);
    const byQuery = await scim('GET', query(`userName eq "${userName}"`));
    expect(byQuery.body).toMatchObject({ totalResults: 1, Resources: [{ id, userName }] });
    expect((await scim('GET', query(`userName eq "${userName.toUpperCase()}"`))).body.totalResults).toBe(1);
    expect((await scim('GET', query('externalId eq "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef"'))).body.totalResults).toBe(1);
    expect((await scim('GET', query(`emails[type eq "work"].value eq "${email}"`))).body.totalResults).toBe(1);
    const none = await scim('GET', query('userName eq "non-existent user"'));
    expect(none.body).toMatchObject({ totalResults: 0, Resources: [] });
    expectScimError(await scim('GET', '/Users/5171a35d82074e068ce2'), 404);
  });

  it('4. Update User [multi-valued properties]: work e-mail and family name', async () => {
    const res = await scim('PATCH', `/Users/${id}`, {
      body: {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        Operations: [
          { op: 'Replace', path: 'emails[type eq "work"].value', value: 'updatedEmail@microsoft.com' },
          { op: 'Replace', path: 'name.familyName', value: 'updatedFamilyName' },
        ],
      },
    });
    expect(res.status).toBe(204);
    const user = (await scim('GET', `/Users/${id}`)).body;
    expect(user.emails).toEqual([{ type: 'work', value: 'updatedemail@microsoft.com', primary: true }]);
    expect(user.name.familyName).toBe('updatedFamilyName');
  });

  it('5. Update User [single-valued properties]: userName', async () => {
    const res = await scim('PATCH', `/Users/${id}`, {
      body: { schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [{ op: 'Replace', path: 'userName', value: '5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com' }] },
    });
    expect(res.status).toBe(204);
    expect((await scim('GET', `/Users/${id}`)).body.userName).toBe('5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com');
    expect((await scim('GET', query('userName eq "5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com"'))).body.totalResults).toBe(1);
    expect((await scim('GET', query(`userName eq "${userName}"`))).body.totalResults).toBe(0);
  });

  it('6. Disable User: active false → 204, membership removed, resource readable with active false', async () => {
    const res = await scim('PATCH', `/Users/${id}`, {
      body: { Operations: [{ op: 'Replace', path: 'active', value: false }], schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'] },
    });
    expect(res.status).toBe(204);
    expect(membershipOf(server.app.state, group.id, 'updatedEmail@microsoft.com')).toBeUndefined();
    expect((await scim('GET', `/Users/${id}`)).body.active).toBe(false);
  });

  it('7. Re-enable (soft delete undone): active "True" → membership restored at the default role', async () => {
    const res = await scim('PATCH', `/Users/${id}`, {
      body: { schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [{ op: 'Replace', path: 'active', value: 'True' }] },
    });
    expect(res.status).toBe(204);
    expect(membershipOf(server.app.state, group.id, 'updatedEmail@microsoft.com')).toMatchObject({ access_level: 20, state: 'active' });
    expect((await scim('GET', `/Users/${id}`)).body.active).toBe(true);
  });

  it('8. soft delete again ("False"), then Delete User: 204, and the resource is gone', async () => {
    expect((await scim('PATCH', `/Users/${id}`, { body: { Operations: [{ op: 'Replace', path: 'active', value: 'False' }] } })).status).toBe(204);
    const res = await scim('DELETE', `/Users/${id}`);
    expect(res.status).toBe(204);
    expectScimError(await scim('GET', `/Users/${id}`), 404);
    expect((await scim('GET', '/Users')).body.totalResults).toBe(0);
  });

  it('9. re-provisioning after the hard delete creates the identity again for the same account', async () => {
    const res = await scim('POST', '/Users', { body: { ...createBody, emails: [{ primary: true, type: 'work', value: 'updatedEmail@microsoft.com' }] } });
    expect(res.status).toBe(201);
    expect(membershipOf(server.app.state, group.id, 'updatedEmail@microsoft.com')).toMatchObject({ access_level: 20 });
  });
});

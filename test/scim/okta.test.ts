/**
 * Okta's request sequence, replayed from an empty group to deprovisioning and re-provisioning. Requests are the
 * ones in Okta's "SCIM 2.0 Protocol Reference" / "Build a SCIM provisioning integration" developer guide
 * (developer.okta.com/docs/reference/scim/scim-20/): the existence check `filter=userName eq "…"` with
 * `startIndex=1&count=100`, the create POST (with `password`, `locale`, `groups`), GET by id, the GET + PUT update,
 * the `{"op":"replace","value":{"active":false}}` deactivation PATCH, and the import listing `startIndex=1&count=100`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { membershipOf, scimClient, setupScimGroup, type ScimClient, type ScimGroup } from './support.js';

let server: TestServer;
let group: ScimGroup;
let scim: ScimClient;

beforeAll(async () => {
  server = await startServer();
  group = await setupScimGroup(server, 'okta-org');
  scim = scimClient(group);
});
afterAll(async () => {
  await server?.close();
});

// Okta's documented create request body, verbatim.
const createBody = {
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
  userName: 'test.user@okta.local',
  name: { givenName: 'Test', familyName: 'User' },
  emails: [{ primary: true, value: 'test.user@okta.local', type: 'work' }],
  displayName: 'Test User',
  locale: 'en-US',
  externalId: '00ujl29u0le5T6Aj10h7',
  groups: [],
  password: '1mz050nq',
  active: true,
};

const existenceCheck = '/Users?filter=userName%20eq%20%22test.user%40okta.local%22&startIndex=1&count=100';

describe('Okta provisioning scenario', () => {
  let id: string;

  it('1. Test API Credentials / existence check on an empty group: an empty ListResponse with integer paging fields', async () => {
    const res = await scim('GET', existenceCheck, { headers: { 'User-Agent': 'Okta SCIM Client 1.0.0' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'], totalResults: 0, itemsPerPage: 0, startIndex: 1, Resources: [] });
  });

  it('2. POST /Users creates the user and answers 201 with a non-empty body carrying the id Okta stores', async () => {
    const res = await scim('POST', '/Users', { body: createBody, contentType: 'application/json' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ userName: 'test.user@okta.local', active: true, emails: [{ value: 'test.user@okta.local', primary: true, type: 'work' }], name: { givenName: 'Test', familyName: 'User' } });
    id = res.body.id;
    expect(id).toBe('00ujl29u0le5T6Aj10h7');
    expect(membershipOf(server.app.state, group.id, 'test.user@okta.local')).toMatchObject({ access_level: 30, state: 'active' });
    expect(JSON.stringify(res.body)).not.toContain('1mz050nq');
  });

  it('3. the existence check now finds the user', async () => {
    const res = await scim('GET', existenceCheck);
    expect(res.body).toMatchObject({ totalResults: 1, itemsPerPage: 1, startIndex: 1, Resources: [{ id, userName: 'test.user@okta.local' }] });
  });

  it('4. GET /Users/{id}, then the PUT update Okta sends (its body has no externalId, a middleName, display)', async () => {
    const current = await scim('GET', `/Users/${id}`);
    expect(current.status).toBe(200);
    const res = await scim('PUT', `/Users/${id}`, {
      body: {
        schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
        id,
        userName: 'test.user@okta.local',
        name: { givenName: 'Another', middleName: 'Excited', familyName: 'User' },
        emails: [{ primary: true, value: 'test.user@okta.local', type: 'work', display: 'test.user@okta.local' }],
        active: true,
        groups: [],
        meta: { resourceType: 'User' },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, userName: 'test.user@okta.local', name: { givenName: 'Another', familyName: 'User', formatted: 'Another User' }, active: true });
  });

  it('5. deactivation: PATCH with a path-less replace of active=false → 204; membership gone, user still listed inactive', async () => {
    const res = await scim('PATCH', `/Users/${id}`, {
      body: { schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [{ op: 'replace', value: { active: false } }] },
    });
    expect(res.status).toBe(204);
    expect(membershipOf(server.app.state, group.id, 'test.user@okta.local')).toBeUndefined();
    const check = await scim('GET', existenceCheck);
    expect(check.body.Resources).toMatchObject([{ id, active: false }]);
  });

  it('6. re-assignment: the existence check finds the inactive user, Okta reactivates with active=true', async () => {
    const check = await scim('GET', existenceCheck);
    expect(check.body.totalResults).toBe(1);
    const res = await scim('PATCH', `/Users/${check.body.Resources[0].id}`, {
      body: { schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [{ op: 'replace', value: { active: true } }] },
    });
    expect(res.status).toBe(204);
    expect(membershipOf(server.app.state, group.id, 'test.user@okta.local')).toMatchObject({ access_level: 30, state: 'active' });
    expect((await scim('GET', `/Users/${id}`)).body.active).toBe(true);
  });

  it('7. a repeated create for the same person is idempotent (201, same id)', async () => {
    const res = await scim('POST', '/Users', { body: createBody });
    expect(res.status).toBe(201);
    expect(res.body.id).toBe(id);
  });

  it('8. import: GET /Users?startIndex=1&count=100 pages through every user in a stable order', async () => {
    for (let i = 0; i < 120; i++) {
      const res = await scim('POST', '/Users', { body: { ...createBody, userName: `person${i}@okta.local`, emails: [{ primary: true, value: `person${i}@okta.local`, type: 'work' }], externalId: `00u${i}` } });
      expect(res.status).toBe(201);
    }
    const first = await scim('GET', '/Users?startIndex=1&count=100');
    expect(first.body).toMatchObject({ totalResults: 121, itemsPerPage: 100, startIndex: 1 });
    const second = await scim('GET', '/Users?startIndex=101&count=100');
    expect(second.body).toMatchObject({ totalResults: 121, itemsPerPage: 21, startIndex: 101 });
    const ids = [...first.body.Resources, ...second.body.Resources].map((r: { id: string }) => r.id);
    expect(new Set(ids).size).toBe(121);
    expect(ids[0]).toBe(id);
  });
});

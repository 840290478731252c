/** Errors raised by the HTTP layer itself under the SCIM root come in the SCIM error schema. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let token: string;

beforeAll(async () => {
  server = await startServer();
  await server.request('POST', '/api/v4/groups', { body: { name: 'Idp', path: 'idp' } });
  const saml = await server.request('PUT', '/api/v4/groups/idp/saml_provider', {
    body: { enabled: true, sso_url: 'https://idp.example.com/sso', certificate_fingerprint: 'a'.repeat(40), default_membership_role: 30 },
  });
  expect(saml.status).toBe(200);
  token = (await server.request('POST', '/api/v4/groups/idp/scim_token')).body.scim_token;
});
afterAll(async () => {
  await server.close();
});

const scim = (method: string, path: string, body?: string) =>
  fetch(`${server.baseUrl}/api/scim/v2/groups/idp${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/scim+json' },
    ...(body !== undefined ? { body } : {}),
  });

describe('SCIM adapter errors', () => {
  it('answers an unknown path, a wrong method and a malformed body with the SCIM error schema', async () => {
    for (const [response, status] of [
      [await scim('GET', '/Groups'), 404],
      [await scim('PATCH', '/Users'), 405],
      [await scim('POST', '/Users', '{not json'), 400],
    ] as const) {
      expect(response.status).toBe(status);
      expect(response.headers.get('content-type')).toBe('application/scim+json');
      const body = (await response.json()) as { schemas: string[]; status: string; detail: string };
      expect(body.schemas).toEqual(['urn:ietf:params:scim:api:messages:2.0:Error']);
      expect(body.status).toBe(String(status));
      expect(body.detail.length).toBeGreaterThan(0);
    }
  });
});

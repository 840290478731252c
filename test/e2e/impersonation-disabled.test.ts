/** FORGEFOLD_IMPERSONATION=false (the platform's impersonation_enabled: false) refuses impersonation tokens. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startServer({ config: { impersonationEnabled: false } });
});
afterAll(async () => {
  await server.close();
});

describe('impersonation disabled', () => {
  it('answers an impersonation token with the invalid_token body, and personal tokens still work', async () => {
    const user = await server.request('POST', '/api/v4/users', { body: { username: 'lee', name: 'Lee', email: 'lee@example.com', password: 'password123' } });
    const impersonation = await server.request('POST', `/api/v4/users/${user.body.id}/impersonation_tokens`, { body: { name: 'imp', scopes: ['api'] } });
    expect(impersonation.status).toBe(201);
    const refused = await server.request('GET', '/api/v4/user', { token: impersonation.body.token });
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ error: 'invalid_token', error_description: 'Token is an impersonation token but impersonation was disabled.' });
    const personal = await server.request('POST', `/api/v4/users/${user.body.id}/personal_access_tokens`, { body: { name: 'pat', scopes: ['api'] } });
    expect((await server.request('GET', '/api/v4/user', { token: personal.body.token })).body.username).toBe('lee');
  });
});

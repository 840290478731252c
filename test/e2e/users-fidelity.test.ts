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

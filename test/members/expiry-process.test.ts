/**
 * Membership expiry is a module process run by the scheduler, not a sweep on read: requests after the expiry date
 * record nothing until the scheduler ticks; then the system records MemberExpired and the membership is gone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { createGroup, createPerson, type Person } from './support.js';

let server: TestServer;
let alice: Person, bob: Person;
let group: { id: number; full_path: string };
const DAY = 86_400_000;

beforeAll(async () => {
  server = await startServer({ start: '2026-03-01T10:00:00.000Z' });
  alice = await createPerson(server, 'alice');
  bob = await createPerson(server, 'bob');
  group = await createGroup(server, alice, 'Team');
});
afterAll(async () => {
  await server.close();
});

const expiredEvents = async () => {
  const history = await server.request('GET', `/api/v4/audit/membership_events?user_id=${bob.id}`);
  return (history.body as { event: string }[]).filter((e) => e.event === 'MemberExpired');
};

describe('membership expiry process', () => {
  it('reads do not sweep; the scheduler tick does', async () => {
    expect(await server.request('POST', `/api/v4/groups/${group.id}/members`, { token: alice.token, body: { user_id: bob.id, access_level: 30, expires_at: '2026-03-02' } })).toMatchObject({ status: 201 });
    server.advance(2 * DAY, { tick: false });
    // Every kind of membership read, and a write: none of them records the expiry.
    await server.request('GET', `/api/v4/groups/${group.id}/members`, { token: alice.token });
    await server.request('GET', `/api/v4/groups/${group.id}/members/all`, { token: alice.token });
    await server.request('GET', `/api/v4/groups/${group.id}/members/${bob.id}`, { token: alice.token });
    await server.request('GET', `/api/v4/groups/${group.id}/billable_members`, { token: alice.token });
    expect(await expiredEvents()).toEqual([]);

    server.processes.tick(60_000);
    await server.processes.settled();
    expect(await expiredEvents()).toEqual([expect.objectContaining({ actor_id: null, origin: 'system', expires_at: '2026-03-02' })]);
    expect(await server.request('GET', `/api/v4/groups/${group.id}/members/${bob.id}`, { token: alice.token })).toMatchObject({ status: 404 });
    // A second tick on the same day records nothing more.
    server.processes.tick(60_000);
    await server.processes.settled();
    expect(await expiredEvents()).toHaveLength(1);
  });
});

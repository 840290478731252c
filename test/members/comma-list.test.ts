/**
 * `POST /:source/:id/members` with a comma list in `user_id`, over HTTP against a real server, as 14.7's
 * `Members::CreateService` and `parse_users_list` answer it: ids and e-mail addresses count, an address of nobody is
 * an invitation, anything else is dropped without a word; failures are one sentence, still 201.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { createGroup, createPerson, createProject, type Person } from './support.js';

let server: TestServer;
let alice: Person, bob: Person, carol: Person, dave: Person;

beforeAll(async () => {
  server = await startServer({ start: '2026-03-01T10:00:00.000Z' });
  alice = await createPerson(server, 'alice');
  bob = await createPerson(server, 'bob');
  carol = await createPerson(server, 'carol');
  dave = await createPerson(server, 'dave');
});
afterAll(async () => {
  await server.close();
});

const as = (p: Person) => ({ token: p.token });
const usernames = (body: { username: string }[]): string[] => body.map((m) => m.username);

describe('a comma list of user_id', () => {
  it('drops usernames, unknown ids and items with blanks around them, and says nothing of them', async () => {
    const group = await createGroup(server, alice, 'CommaDrop');
    const base = `/api/v4/groups/${group.id}/members`;
    const added = await server.request('POST', base, { ...as(alice), body: { user_id: `bob,${carol.id}, ${dave.id},99999`, access_level: 30 } });
    expect(added).toMatchObject({ status: 201 });
    expect(added.body).toEqual({ status: 'success' });
    expect(usernames((await server.request('GET', base, as(alice))).body)).toEqual(['alice', 'carol']);
    // Nothing to add at all is still a success; only an empty split is "No users specified.".
    expect((await server.request('POST', base, { ...as(alice), body: { user_id: 'bob, dave', access_level: 30 } })).body).toEqual({ status: 'success' });
    expect(await server.request('POST', base, { ...as(alice), body: { user_id: ',,', access_level: 30 } })).toMatchObject({ status: 201, body: { status: 'error', message: 'No users specified.' } });
    const many = Array.from({ length: 101 }, (_, i) => `${i + 1000}`).join(',');
    expect(await server.request('POST', base, { ...as(alice), body: { user_id: many, access_level: 30 } })).toMatchObject({ status: 201, body: { status: 'error', message: 'Too many users specified (limit is 100)' } });
    expect(usernames((await server.request('GET', base, as(alice))).body)).toEqual(['alice', 'carol']);
  });

  it('adds the user of a known address (any case) and invites an unknown one, who joins on sign-up', async () => {
    const group = await createGroup(server, alice, 'CommaMail');
    const base = `/api/v4/groups/${group.id}/members`;
    const answer = await server.request('POST', base, { ...as(alice), body: { user_id: `BOB@Example.com,newbie@example.org,not-an-address,${dave.id}`, access_level: 20 } });
    expect(answer).toMatchObject({ status: 201 });
    expect(answer.body).toEqual({ status: 'success' });
    const members = await server.request('GET', base, as(alice));
    expect(members.body.map((m: { username: string; access_level: number }) => [m.username, m.access_level])).toEqual([['alice', 50], ['bob', 20], ['dave', 20]]);
    const invitations = await server.request('GET', `/api/v4/groups/${group.id}/invitations`, as(alice));
    expect(invitations.body.map((i: { invite_email: string; access_level: number }) => [i.invite_email, i.access_level])).toEqual([['newbie@example.org', 20]]);
    const newbie = await createPerson(server, 'newbie', { email: 'newbie@example.org' });
    expect(await server.request('GET', `${base}/${newbie.id}`, as(alice))).toMatchObject({ status: 200, body: { username: 'newbie', access_level: 20 } });
  });

  it('reports each failure as one sentence, 201: users by username, addresses of nobody bare', async () => {
    const parent = await createGroup(server, alice, 'CommaFail');
    const project = await createProject(server, alice, 'CommaProj', parent.id);
    await server.request('POST', `/api/v4/groups/${parent.id}/members`, { ...as(alice), body: { user_id: bob.id, access_level: 30 } });
    const base = `/api/v4/projects/${project.id}/members`;
    expect((await server.request('POST', base, { ...as(alice), body: { user_id: `${carol.id},old@example.org`, access_level: 20 } })).body).toEqual({ status: 'success' });
    const failing = await server.request('POST', base, { ...as(alice), body: { user_id: `carol@example.com,OLD@example.org,${bob.id},${dave.id}`, access_level: 10 } });
    expect(failing.status).toBe(201);
    expect(failing.body).toEqual({
      status: 'error',
      message:
        "carol: User already exists in source, The member's email address has already been taken, and bob: Access level should be greater than or equal to Developer inherited membership from group CommaFail",
    });
    // What could be added was: dave.
    expect(usernames((await server.request('GET', base, as(alice))).body)).toEqual(['carol', 'dave']);
  });

  it('saves row after row: a member named by address and by id is updated once, every owner named leaves the last one', async () => {
    const group = await createGroup(server, alice, 'CommaRows');
    const base = `/api/v4/groups/${group.id}/members`;
    const levels = async () => (await server.request('GET', base, as(alice))).body.map((m: { username: string; access_level: number; expires_at: string | null }) => [m.username, m.access_level, m.expires_at]);
    await server.request('POST', base, { ...as(alice), body: { user_id: bob.id, access_level: 50 } });
    await server.request('POST', base, { ...as(alice), body: { user_id: carol.id, access_level: 20, expires_at: '2026-09-01' } });
    // carol by address and by id: the address reaches the row found for the id (no "User already exists in source");
    // no expires_at clears hers. alice and bob, both owners: alice goes first, then bob is the last owner and stays.
    const answer = await server.request('POST', base, { ...as(alice), body: { user_id: `${alice.id},carol@example.com,${bob.id},${carol.id}`, access_level: 30 } });
    expect(answer).toMatchObject({ status: 201, body: { status: 'success' } });
    expect(await levels()).toEqual([['alice', 30, null], ['bob', 50, null], ['carol', 30, null]]);
  });

  it('leaves the single user_id as it was: an unknown id, a username or an address alone is 404 User', async () => {
    const group = await createGroup(server, alice, 'CommaSingle');
    const base = `/api/v4/groups/${group.id}/members`;
    for (const user_id of [99999, 'bob', 'bob@example.com']) {
      expect(await server.request('POST', base, { ...as(alice), body: { user_id, access_level: 30 } })).toMatchObject({ status: 404, body: { message: '404 User Not Found' } });
    }
    expect(await server.request('POST', base, { ...as(alice), body: { user_id: `${bob.id}`, access_level: 30 } })).toMatchObject({ status: 201, body: { username: 'bob' } });
    expect(await server.request('POST', base, { ...as(alice), body: { user_id: bob.id, access_level: 30 } })).toMatchObject({ status: 409, body: { message: 'Member already exists' } });
  });
});

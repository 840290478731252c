/**
 * Review of the users and tokens audit (issue 16, branch `review-users`): faults found in `fid-users`, each with the
 * test that failed before its mend (see docs/decisions.md, "Review of the users and tokens audit").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { createGroup, createPerson, type Person } from '../members/support.js';

let server: TestServer;
let alice: Person;
const HOUR = 3_600_000;

beforeAll(async () => {
  server = await startServer({ start: '2026-05-01T00:00:00.000Z' });
  server.advance(HOUR);
  alice = await createPerson(server, 'alice');
});
afterAll(async () => {
  await server.close();
});

/** The token's `last_used_at` as an administrator lists it. */
const lastUsed = async (userId: number): Promise<string | null> => (await server.request('GET', `/api/v4/personal_access_tokens?user_id=${userId}`)).body[0].last_used_at;

/** Lets what a request set running off its path (activity, a token's use) be written. */
const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 20));
};

describe("UserPolicy's read_user_profile", () => {
  it("a blocked or banned user's created_at and follow counts are hidden from others, shown to administrators", async () => {
    const bert = await createPerson(server, 'bert');
    const seen = async () => (await server.request('GET', `/api/v4/users/${bert.id}`, { token: alice.token })).body;
    expect((await seen()).created_at).toBeDefined();
    expect((await server.request('POST', `/api/v4/users/${bert.id}/block`)).status).toBe(201);
    expect(await seen()).toMatchObject({ id: bert.id, state: 'blocked' });
    expect((await seen()).created_at).toBeUndefined();
    expect((await seen()).followers).toBeUndefined();
    expect((await seen()).following).toBeUndefined();
    expect((await server.request('GET', `/api/v4/users/${bert.id}`)).body.created_at).toBeDefined();
    expect((await server.request('POST', `/api/v4/users/${bert.id}/unblock`)).status).toBe(201);
    expect((await seen()).created_at).toBeDefined();
    // `blocked?` holds for a banned user too.
    expect((await server.request('POST', `/api/v4/users/${bert.id}/ban`)).status).toBe(201);
    expect((await seen()).created_at).toBeUndefined();
  });
});

describe('a refused request records no use of its token', () => {
  it('insufficient scope, sudo without the right and an administrators-only route: no AccessTokenUsed, no activity', async () => {
    const carol = await createPerson(server, 'carol');
    const readOnly = await server.request('POST', `/api/v4/users/${carol.id}/personal_access_tokens`, { body: { name: 'ro', scopes: ['read_user'] } });
    expect(readOnly.status).toBe(201);
    const tokens = async () => (await server.request('GET', `/api/v4/personal_access_tokens?user_id=${carol.id}`)).body as { id: number; last_used_at: string | null }[];
    const position = server.app.position;
    // read_user does not reach POST /projects: 403 insufficient_scope.
    expect((await server.request('POST', '/api/v4/projects', { token: readOnly.body.token, body: { name: 'x' } })).status).toBe(403);
    // A non-administrator's sudo, and an administrators' route.
    expect((await server.request('GET', '/api/v4/user', { token: carol.token, headers: { Sudo: 'alice' } })).status).toBe(403);
    expect((await server.request('GET', '/api/v4/users/1/impersonation_tokens', { token: carol.token })).status).toBe(403);
    await settle();
    expect(server.app.position).toBe(position);
    expect((await tokens()).map((token) => token.last_used_at)).toEqual([null, null]);
    expect((await server.request('GET', `/api/v4/users/${carol.id}`)).body.last_activity_on).toBeNull();
    // An admitted request records both.
    expect((await server.request('GET', '/api/v4/user', { token: readOnly.body.token })).status).toBe(200);
    for (let i = 0; i < 100 && (await tokens()).every((token) => token.last_used_at === null); i++) await settle();
    expect((await tokens()).filter((token) => token.last_used_at !== null).map((token) => token.id)).toEqual([readOnly.body.id]);
  });
});

describe('maintenance mode', () => {
  it('records no use of a token and no activity (EE Gitlab::Database.read_only? holds in maintenance mode)', async () => {
    const dave = await createPerson(server, 'dave');
    expect((await server.request('PUT', '/api/v4/application/settings', { body: { maintenance_mode: true } })).status).toBe(200);
    try {
      const position = server.app.position;
      expect((await server.request('GET', '/api/v4/user', { token: dave.token })).status).toBe(200);
      await settle();
      expect(server.app.position).toBe(position);
      expect(await lastUsed(dave.id)).toBeNull();
    } finally {
      expect((await server.request('PUT', '/api/v4/application/settings', { body: { maintenance_mode: false } })).status).toBe(200);
    }
    expect((await server.request('GET', `/api/v4/users/${dave.id}`)).body.last_activity_on).toBeNull();
  });
});

describe('a blank search is no filter (`present?`)', () => {
  it('GET /users?search=%20 lists everyone, as does GET /groups/:id/members?query=%20; "@" alone finds no one', async () => {
    const everyone = (await server.request('GET', '/api/v4/users?per_page=100')).body as { id: number }[];
    const blank = await server.request('GET', '/api/v4/users?per_page=100&search=%20%20');
    expect(blank.status).toBe(200);
    expect((blank.body as { id: number }[]).map((user) => user.id)).toEqual(everyone.map((user) => user.id));
    expect(((await server.request('GET', '/api/v4/users?per_page=100&search=%20', { token: alice.token })).body as unknown[]).length).toBe(everyone.length);
    expect((await server.request('GET', '/api/v4/users?search=%40')).body).toEqual([]);
    const group = await createGroup(server, alice, 'Blanks');
    const members = await server.request('GET', `/api/v4/groups/${group.id}/members?query=%20`, { token: alice.token });
    expect((members.body as { id: number }[]).map((member) => member.id)).toEqual([alice.id]);
    const all = await server.request('GET', `/api/v4/groups/${group.id}/members/all?query=%20`, { token: alice.token });
    expect((all.body as { id: number }[]).map((member) => member.id)).toEqual([alice.id]);
  });
});

describe("member search keeps User.search's order", () => {
  it('GET /groups/:id/members and /members/all with a query: exact username first, then by name (retrieve_members merges User.search)', async () => {
    const group = await createGroup(server, alice, 'Ordered');
    for (const username of ['revz', 'rev', 'reva']) {
      const person = await createPerson(server, username);
      expect((await server.request('POST', `/api/v4/groups/${group.id}/members`, { token: alice.token, body: { user_id: person.id, access_level: 30 } })).status).toBe(201);
    }
    const names = (body: { username: string }[]) => body.map((member) => member.username);
    expect(names((await server.request('GET', `/api/v4/groups/${group.id}/members?query=rev`, { token: alice.token })).body)).toEqual(['rev', 'reva', 'revz']);
    expect(names((await server.request('GET', `/api/v4/groups/${group.id}/members/all?query=rev`, { token: alice.token })).body)).toEqual(['rev', 'reva', 'revz']);
    // Without a query, member-id order as before.
    expect(names((await server.request('GET', `/api/v4/groups/${group.id}/members`, { token: alice.token })).body)).toEqual(['alice', 'revz', 'rev', 'reva']);
  });
});

describe("a token's use falls due within a day of the last one, and the response cache does not hide it", () => {
  it('a repeated read answered from the cache earlier the same day still records the use once it is due', async () => {
    const erin = await createPerson(server, 'erin');
    const wait = async (wanted: (value: string | null) => boolean) => {
      for (let i = 0; i < 100 && !wanted(await lastUsed(erin.id)); i++) await settle();
      return lastUsed(erin.id);
    };
    // First use at 10:00 of a day: recorded at once.
    const now = Date.parse((await server.request('GET', `/api/v4/personal_access_tokens?user_id=${erin.id}`)).body[0].created_at);
    const ten = new Date(now);
    ten.setUTCHours(10, 0, 0, 0);
    if (ten.getTime() <= now) ten.setUTCDate(ten.getUTCDate() + 1);
    server.advance(ten.getTime() - now);
    expect((await server.request('GET', '/api/v4/user', { token: erin.token })).status).toBe(200);
    const first = await wait((value) => value !== null);
    expect(first).not.toBeNull();
    // The next day at 08:00: another route records the day's activity (not the token's use, not yet due)…
    server.advance(22 * HOUR);
    expect((await server.request('GET', '/api/v4/user?other=1', { token: erin.token })).status).toBe(200);
    // (The administrator's own activity and token use of the day are recorded now too, not between the reads below.)
    expect(await lastUsed(erin.id)).toBe(first);
    await settle();
    // …then the same read twice, an hour apart: still not due.
    server.advance(HOUR);
    expect((await server.request('GET', '/api/v4/user', { token: erin.token })).status).toBe(200);
    await settle();
    expect(await lastUsed(erin.id)).toBe(first);
    // 25 hours after the first use the same read falls due: recorded, though a reply for it was cached today.
    server.advance(2 * HOUR);
    expect((await server.request('GET', '/api/v4/user', { token: erin.token })).status).toBe(200);
    const later = await wait((value) => value !== first);
    expect(Date.parse(later!)).toBe(Date.parse(first!) + 25 * HOUR);
  });
});

describe('PUT /users/:id giving what the account already holds', () => {
  it('the profile defaults and the account settings defaults change nothing: no event', async () => {
    const fay = await createPerson(server, 'fay');
    const position = server.app.position;
    server.advance(HOUR);
    const put = await server.request('PUT', `/api/v4/users/${fay.id}`, {
      body: { bio: '', skype: '', linkedin: '', twitter: '', website_url: '', note: null, location: null, organization: null, pronouns: null, private_profile: false, theme_id: 1, color_scheme_id: 1, projects_limit: 100000, can_create_group: true, external: false },
    });
    expect(put.status).toBe(200);
    expect(server.app.position).toBe(position);
    // A real change is still recorded.
    expect((await server.request('PUT', `/api/v4/users/${fay.id}`, { body: { bio: 'Hello' } })).body.bio).toBe('Hello');
    expect(server.app.position).toBeGreaterThan(position);
  });
});

/**
 * `POST /:source/:id/invitations` over HTTP as 14.7's `Members::InviteService` (a `Members::CreateService` over
 * `add_users`) answers: the model's messages keyed by address (spec/requests/api/invitations_spec.rb), and the
 * instance's sign-up rules (`Member#signup_email_valid?`) on new invitations, here and in a comma list of
 * `POST /:source/:id/members`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { createGroup, createPerson, createProject, type Person } from './support.js';

let server: TestServer;
let alice: Person, bob: Person, carol: Person;

beforeAll(async () => {
  server = await startServer({ start: '2026-03-01T10:00:00.000Z' });
  alice = await createPerson(server, 'alice');
  bob = await createPerson(server, 'bob');
  carol = await createPerson(server, 'carol');
});
afterAll(async () => {
  await server.close();
});

const as = (p: Person) => ({ token: p.token });
const settings = (body: Record<string, unknown>) => server.request('PUT', '/api/v4/application/settings', { body });

describe('POST …/invitations', () => {
  it('an empty address list is 201 "Emails cannot be blank"; a missing one 400', async () => {
    const group = await createGroup(server, alice, 'InviteBlank');
    const url = `/api/v4/groups/${group.id}/invitations`;
    for (const email of ['', ',,']) {
      expect(await server.request('POST', url, { ...as(alice), body: { email, access_level: 30 } })).toMatchObject({ status: 201, body: { status: 'error', message: 'Emails cannot be blank' } });
    }
    expect(await server.request('POST', url, { ...as(alice), body: { access_level: 30 } })).toMatchObject({ status: 400 });
  });

  it('a member or an access requester named by address fails the uniqueness; an invited address the invitation one', async () => {
    const group = await createGroup(server, alice, 'InviteTaken', undefined, 'public');
    const base = `/api/v4/groups/${group.id}`;
    expect(await server.request('POST', `${base}/members`, { ...as(alice), body: { user_id: bob.id, access_level: 30 } })).toMatchObject({ status: 201 });
    expect(await server.request('POST', `${base}/access_requests`, as(carol))).toMatchObject({ status: 201 });
    expect(await server.request('POST', `${base}/invitations`, { ...as(alice), body: { email: 'new@example.com', access_level: 30 } })).toMatchObject({ status: 201, body: { status: 'success' } });
    const again = await server.request('POST', `${base}/invitations`, { ...as(alice), body: { email: 'BOB@example.com,carol@example.com,new@example.com', access_level: 40 } });
    expect(again).toMatchObject({ status: 201 });
    expect(again.body).toEqual({
      status: 'error',
      message: { 'bob@example.com': 'User already exists in source', 'carol@example.com': 'User already exists in source', 'new@example.com': "The member's email address has already been taken" },
    });
    // Nothing changed: bob keeps his level, carol is still only asking, the invitation keeps its level.
    expect((await server.request('GET', `${base}/members/${bob.id}`, as(alice))).body.access_level).toBe(30);
    expect(await server.request('GET', `${base}/members/${carol.id}`, as(alice))).toMatchObject({ status: 404 });
    expect((await server.request('GET', `${base}/access_requests`, as(alice))).body.map((r: { username: string }) => r.username)).toEqual(['carol']);
    expect((await server.request('GET', `${base}/invitations`, as(alice))).body).toEqual([expect.objectContaining({ invite_email: 'new@example.com', access_level: 30 })]);
  });

  it('the sign-up allowlist and denylist refuse new invitations on both paths; existing users and a disabled denylist pass', async () => {
    const group = await createGroup(server, alice, 'InviteRules');
    const project = await createProject(server, alice, 'rules', group.id);
    try {
      expect(await settings({ domain_denylist_enabled: true, domain_denylist: ['spam.test'] })).toMatchObject({ status: 200 });
      const denied = await server.request('POST', `/api/v4/projects/${project.id}/invitations`, { ...as(alice), body: { email: 'x@SPAM.test,y@ok.test', access_level: 30 } });
      expect(denied.body).toEqual({ status: 'error', message: { 'x@SPAM.test': 'User is not allowed for this project. Check with your administrator.' } });
      // An administrator inviting is told where the rule is set (the text as `html_escape_once` leaves it).
      const byRoot = await server.request('POST', `/api/v4/groups/${group.id}/invitations`, { body: { email: 'z@spam.test', access_level: 30 } });
      expect(byRoot.body).toEqual({ status: 'error', message: { 'z@spam.test': 'User is not allowed for this group. Go to the &#39;Admin area &gt; Sign-up restrictions&#39;, and check the &#39;Domain denylist&#39;.' } });
      expect(await settings({ domain_denylist_enabled: false, domain_allowlist: ['example.com'] })).toMatchObject({ status: 200 });
      const comma = await server.request('POST', `/api/v4/groups/${group.id}/members`, { ...as(alice), body: { user_id: `w@spam.test,v@example.com,${bob.id}`, access_level: 30 } });
      expect(comma.body).toEqual({ status: 'error', message: 'User is not allowed for this group. Check with your administrator.' });
      // carol@example.com is a user: no invitation row is built, so no sign-up rule applies.
      const user = await server.request('POST', `/api/v4/projects/${project.id}/invitations`, { ...as(alice), body: { email: 'carol@example.com,u@other.test', access_level: 30 } });
      expect(user.body).toEqual({ status: 'error', message: { 'u@other.test': 'User is not allowed for this project. Check with your administrator.' } });
      const invited = (await server.request('GET', `/api/v4/groups/${group.id}/invitations`, as(alice))).body.map((i: { invite_email: string }) => i.invite_email);
      expect(invited).toEqual(['v@example.com']);
      expect((await server.request('GET', `/api/v4/projects/${project.id}/invitations`, as(alice))).body.map((i: { invite_email: string }) => i.invite_email)).toEqual(['y@ok.test']);
    } finally {
      await settings({ domain_denylist_enabled: false, domain_allowlist: [] });
    }
  });
});

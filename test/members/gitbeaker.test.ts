/** GroupMembers and ProjectMembers through an unmodified @gitbeaker/rest client against a real server. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { startServer, type TestServer } from '../support/server.js';
import { createGroup, createPerson, createProject, type Person } from './support.js';

let server: TestServer;
let root: InstanceType<typeof Gitlab>;
let owner: InstanceType<typeof Gitlab>;
let alice: Person, bob: Person, carol: Person;

beforeAll(async () => {
  server = await startServer({ start: '2026-03-01T10:00:00.000Z' });
  root = new Gitlab({ host: server.baseUrl, token: server.rootToken });
  alice = await createPerson(server, 'alice');
  bob = await createPerson(server, 'bob');
  carol = await createPerson(server, 'carol');
  owner = new Gitlab({ host: server.baseUrl, token: alice.token });
});
afterAll(async () => {
  await server.close();
});

describe('@gitbeaker/rest GroupMembers and ProjectMembers', () => {
  it('adds, lists (direct and inherited), shows, edits and removes members', async () => {
    const group = await createGroup(server, alice, 'Gb');
    const sub = await createGroup(server, alice, 'Sub', group.id);
    const project = await createProject(server, alice, 'Repo', sub.id);
    const added = await owner.GroupMembers.add(group.id, 30, { userId: bob.id });
    expect(added).toMatchObject({ id: bob.id, access_level: 30 });
    await owner.ProjectMembers.add(project.id, 20, { userId: carol.id, expiresAt: '2026-12-31' });
    const direct = await owner.GroupMembers.all(group.id);
    expect(direct.map((m) => m.username)).toEqual(['alice', 'bob']);
    const inherited = await owner.ProjectMembers.all(project.id, { includeInherited: true });
    expect(inherited.map((m) => [m.username, m.access_level])).toEqual([['alice', 50], ['bob', 30], ['carol', 20]]);
    expect((await owner.ProjectMembers.show(project.id, bob.id, { includeInherited: true })).access_level).toBe(30);
    await expect(owner.ProjectMembers.show(project.id, bob.id)).rejects.toThrow(/Not Found|404/i);
    const edited = await owner.ProjectMembers.edit(project.id, carol.id, 40);
    expect(edited.access_level).toBe(40);
    await owner.GroupMembers.remove(group.id, bob.id);
    expect((await owner.GroupMembers.all(group.id)).map((m) => m.username)).toEqual(['alice']);
    await expect(owner.GroupMembers.remove(group.id, alice.id)).rejects.toThrow(/Forbidden|403/);
    // Pagination through all(): 45 members, 20 per page.
    for (let i = 0; i < 43; i++) {
      const person = await server.request('POST', '/api/v4/users', { body: { username: `u${i}`, name: `U${i}`, email: `u${i}@example.com`, password: 'password123' } });
      await owner.GroupMembers.add(sub.id, 10, { userId: person.body.id });
    }
    const everyone = await owner.GroupMembers.all(sub.id, { includeInherited: true, perPage: 20 });
    expect(everyone).toHaveLength(44);
  });

  it('billable and pending members, approval, billable removal and override flags', async () => {
    const group = await createGroup(server, alice, 'Seats');
    await owner.GroupMembers.add(group.id, 30, { userId: bob.id });
    const billable = await owner.GroupMembers.allBillable(group.id);
    expect(billable.map((b) => b.username)).toEqual(['alice', 'bob']);
    const memberships = await owner.GroupMembers.allBillableMemberships(group.id, bob.id);
    expect(memberships).toHaveLength(1);
    await server.request('PUT', `/api/v4/groups/${group.id}`, { token: alice.token, body: { new_user_signups_cap: 2 } });
    await owner.GroupMembers.add(group.id, 20, { userId: carol.id });
    const pending = await owner.GroupMembers.allPending(group.id);
    expect(pending.map((p) => p.username)).toEqual(['carol']);
    await owner.GroupMembers.approveAll(group.id);
    expect((await owner.GroupMembers.allPending(group.id))).toEqual([]);
    await owner.GroupMembers.removeBillable(group.id, carol.id);
    expect((await owner.GroupMembers.allBillable(group.id)).map((b) => b.username)).toEqual(['alice', 'bob']);
    await expect(owner.GroupMembers.setOverrideFlag(group.id, bob.id)).rejects.toThrow(/Forbidden|403/);
    await root.GroupLDAPLinks.add(group.id, 30, 'ldapmain', { cn: 'devs' });
    await server.request('POST', `/api/v4/groups/${group.id}/ldap_sync`, { body: { entries: [{ provider: 'ldapmain', cn: 'devs', users: ['carol'] }] } });
    const flagged = await owner.GroupMembers.setOverrideFlag(group.id, carol.id);
    expect(flagged).toMatchObject({ override: true });
    expect(await owner.GroupMembers.removeOverrideFlag(group.id, carol.id)).toMatchObject({ override: false });
  });
});

/**
 * Membership lists read against the reference notes (issue 16): `with_saml_identity` (reference #54), accepted
 * invitations (#110), and access through shares capped at the share's level.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { createGroup, createPerson, createProject, type Person } from '../members/support.js';
import { scimClient, setupScimGroup } from '../scim/support.js';

let server: TestServer;
let alice: Person, bob: Person;

beforeAll(async () => {
  server = await startServer({ start: '2026-05-01T00:00:00.000Z' });
  alice = await createPerson(server, 'alice');
  bob = await createPerson(server, 'bob');
});
afterAll(async () => {
  await server.close();
});

const usernames = (body: { username: string }[]) => body.map((m) => m.username);

describe('with_saml_identity on the direct members list', () => {
  it('keeps members with a SAML identity, for callers who may read them; ignored otherwise', async () => {
    const group = await setupScimGroup(server, 'samlco');
    const scim = scimClient(group);
    const eve = await scim('POST', '/Users', {
      body: { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], externalId: 'eve-1', userName: 'eve', active: true, name: { formatted: 'Eve' }, emails: [{ type: 'work', value: 'eve@example.com', primary: true }] },
    });
    expect(eve.status).toBe(201);
    expect((await server.request('POST', `/api/v4/groups/${group.id}/members`, { body: { user_id: bob.id, access_level: 30 } })).status).toBe(201);
    const members = `/api/v4/groups/${group.id}/members`;
    const all = await server.request('GET', members);
    expect(usernames(all.body)).toEqual(['root', 'eve', 'bob']);
    const saml = await server.request('GET', `${members}?with_saml_identity=true`);
    expect(saml.status).toBe(200);
    expect(usernames(saml.body)).toEqual(['eve']);
    expect(saml.headers.get('x-total')).toBe('1');
    expect(usernames((await server.request('GET', `${members}?with_saml_identity=false`)).body)).toEqual(['root', 'eve', 'bob']);
    // A developer may not read SAML identities: the parameter is ignored.
    expect(usernames((await server.request('GET', `${members}?with_saml_identity=true`, { token: bob.token })).body)).toEqual(['root', 'eve', 'bob']);
    // With SSO disabled, nobody reads them.
    await server.request('PUT', `/api/v4/groups/${group.id}/saml_provider`, { body: { enabled: false } });
    expect(usernames((await server.request('GET', `${members}?with_saml_identity=true`)).body)).toEqual(['root', 'eve', 'bob']);
  });
});

describe('accepted invitations', () => {
  it('leave pending_members and are no longer invited (the platform tests the invite token, which acceptance clears)', async () => {
    const group = await createGroup(server, alice, 'Inviting');
    const invited = await server.request('POST', `/api/v4/groups/${group.id}/invitations`, { token: alice.token, body: { email: 'zed@example.com,yan@example.com', access_level: 30 } });
    expect(invited.body).toEqual({ status: 'success' });
    const pending = async () => (await server.request('GET', `/api/v4/groups/${group.id}/pending_members`, { token: alice.token })).body as { email: string; invited: boolean }[];
    expect((await pending()).map((m) => [m.email, m.invited])).toEqual([
      ['yan@example.com', true],
      ['zed@example.com', true],
    ]);
    // Zed's account is created with the invited address: the invitation becomes the membership.
    const zed = await createPerson(server, 'zed');
    expect((await pending()).map((m) => [m.email, m.invited])).toEqual([['yan@example.com', true]]);
    expect((await server.request('GET', `/api/v4/groups/${group.id}/invitations`, { token: alice.token })).body.map((i: { invite_email: string }) => i.invite_email)).toEqual(['yan@example.com']);
    expect((await server.request('GET', `/api/v4/groups/${group.id}/members/${zed.id}`, { token: alice.token })).body).toMatchObject({ username: 'zed', access_level: 30 });
  });
});

describe('access through shares', () => {
  it('a project shared with a group at Reporter shows that group\'s Maintainer at 20 (members/all, audit) and lets them do what a Reporter does', async () => {
    const carol = await createPerson(server, 'carol');
    const home = await createGroup(server, alice, 'Home');
    const project = await createProject(server, alice, 'Shared', home.id);
    const team = await createGroup(server, carol, 'Team', undefined, 'internal');
    expect((await server.request('POST', `/api/v4/groups/${team.id}/members`, { token: carol.token, body: { user_id: bob.id, access_level: 40 } })).status).toBe(201);
    expect((await server.request('POST', `/api/v4/projects/${project.id}/share`, { token: alice.token, body: { group_id: team.id, group_access: 20 } })).status).toBe(201);
    const one = await server.request('GET', `/api/v4/projects/${project.id}/members/all/${bob.id}`, { token: alice.token });
    expect(one).toMatchObject({ status: 200, body: { username: 'bob', access_level: 20 } });
    const all = await server.request('GET', `/api/v4/projects/${project.id}/members/all`, { token: alice.token });
    expect(all.body.map((m: { username: string; access_level: number }) => [m.username, m.access_level])).toEqual([
      ['alice', 50],
      ['bob', 20],
      ['carol', 20],
    ]);
    const audit = await server.request('GET', `/api/v4/audit/projects/${project.id}/members?at=2026-05-01T00:00:00Z`);
    expect(audit.body.filter((m: { username: string }) => m.username === 'bob')).toMatchObject([{ access_level: 20, membership: 'shared' }]);
    // A Reporter reads the project, and may not add members (a Maintainer's act) nor change it.
    expect((await server.request('GET', `/api/v4/projects/${project.id}`, { token: bob.token })).status).toBe(200);
    expect((await server.request('POST', `/api/v4/projects/${project.id}/members`, { token: bob.token, body: { user_id: carol.id, access_level: 10 } })).status).toBe(403);
    expect((await server.request('PUT', `/api/v4/projects/${project.id}`, { token: bob.token, body: { description: 'x' } })).status).toBe(403);
    // A group shared at Developer: its Owner is a Developer there (shown so, and may not change the group).
    const host = await createGroup(server, alice, 'Host');
    expect((await server.request('POST', `/api/v4/groups/${host.id}/share`, { token: alice.token, body: { group_id: team.id, group_access: 30 } })).status).toBe(201);
    expect(await server.request('GET', `/api/v4/groups/${host.id}/members/all/${carol.id}`, { token: alice.token })).toMatchObject({ status: 200, body: { access_level: 30 } });
    expect((await server.request('PUT', `/api/v4/groups/${host.id}`, { token: carol.token, body: { description: 'x' } })).status).toBe(403);
  });

  it('a group\'s /members/all lists members of groups shared into it only when the viewer can see those groups', async () => {
    const dave = await createPerson(server, 'dave');
    const erin = await createPerson(server, 'erin');
    const open = await createGroup(server, alice, 'Open');
    await server.request('POST', `/api/v4/groups/${open.id}/members`, { token: alice.token, body: { user_id: dave.id, access_level: 30 } });
    const secret = await createGroup(server, erin, 'Secret');
    expect((await server.request('POST', `/api/v4/groups/${open.id}/share`, { token: alice.token, body: { group_id: secret.id, group_access: 30 } })).status).toBe(404);
    // Shared by an administrator (who can see both); Alice, owner of Open, cannot see the private Secret group.
    expect((await server.request('POST', `/api/v4/groups/${open.id}/share`, { body: { group_id: secret.id, group_access: 30 } })).status).toBe(201);
    const names = async (token: string) => {
      const r = await server.request('GET', `/api/v4/groups/${open.id}/members/all`, { token });
      return { names: usernames(r.body), total: r.headers.get('x-total') };
    };
    expect(await names(dave.token)).toEqual({ names: ['alice', 'dave'], total: '2' });
    expect(await names(erin.token)).toEqual({ names: ['alice', 'dave', 'erin'], total: '3' });
    expect(await names(server.rootToken)).toEqual({ names: ['alice', 'dave', 'erin'], total: '3' });
    expect((await server.request('GET', `/api/v4/groups/${open.id}/members/all/${erin.id}`, { token: dave.token })).status).toBe(404);
    expect((await server.request('GET', `/api/v4/groups/${open.id}/members/all/${erin.id}`, { token: erin.token })).body).toMatchObject({ access_level: 30 });
  });
});

describe('access through a project share for the invited group\'s ancestors and shares (ProjectAuthorizations)', () => {
  it('a member of the invited group\'s parent, and of a group shared into the invited group, reach the project at min(access, group_access)', async () => {
    const owner = await createPerson(server, 'sa-owner');
    const lead = await createPerson(server, 'sa-lead');
    const upper = await createPerson(server, 'sa-upper');
    const outside = await createPerson(server, 'sa-outside');
    const home = await createGroup(server, owner, 'SAHome');
    const project = await createProject(server, owner, 'SAShared', home.id);
    const parent = await createGroup(server, lead, 'SAParent', undefined, 'internal');
    const team = await createGroup(server, lead, 'SATeam', parent.id, 'internal');
    const x = await createGroup(server, lead, 'SAX');
    expect((await server.request('POST', `/api/v4/groups/${parent.id}/members`, { token: lead.token, body: { user_id: upper.id, access_level: 40 } })).status).toBe(201);
    expect((await server.request('POST', `/api/v4/groups/${x.id}/members`, { token: lead.token, body: { user_id: outside.id, access_level: 40 } })).status).toBe(201);
    expect((await server.request('POST', `/api/v4/groups/${team.id}/share`, { token: lead.token, body: { group_id: x.id, group_access: 30 } })).status).toBe(201);
    expect((await server.request('POST', `/api/v4/projects/${project.id}/share`, { token: owner.token, body: { group_id: team.id, group_access: 20 } })).status).toBe(201);
    for (const person of [upper, outside]) {
      // Reads the private project, acts as a Reporter (a project snippet), not as a Developer or a Maintainer.
      expect((await server.request('GET', `/api/v4/projects/${project.id}`, { token: person.token })).status).toBe(200);
      const listed = await server.request('GET', '/api/v4/projects?membership=true', { token: person.token });
      expect(listed.body.map((p: { id: number }) => p.id)).toContain(project.id);
      expect((await server.request('POST', `/api/v4/projects/${project.id}/snippets`, { token: person.token, body: { title: 's', file_name: 's.txt', content: 'x', visibility: 'private' } })).status).toBe(201);
      expect((await server.request('PUT', `/api/v4/projects/${project.id}`, { token: person.token, body: { description: 'x' } })).status).toBe(403);
    }
    // /members/all lists the invited group and its ancestors (MembersFinder#project_invited_groups), capped here.
    expect(await server.request('GET', `/api/v4/projects/${project.id}/members/all/${upper.id}`, { token: owner.token })).toMatchObject({ status: 200, body: { username: 'sa-upper', access_level: 20 } });
    const all = await server.request('GET', `/api/v4/projects/${project.id}/members/all`, { token: owner.token });
    expect(all.body.map((m: { username: string; access_level: number }) => [m.username, m.access_level])).toEqual([
      ['sa-owner', 50],
      ['sa-lead', 20],
      ['sa-upper', 20],
    ]);
    // Groups shared into the invited group are not listed (only `base_and_ancestors` of the invited groups).
    expect((await server.request('GET', `/api/v4/projects/${project.id}/members/all/${outside.id}`, { token: owner.token })).status).toBe(404);
    const audit = await server.request('GET', `/api/v4/audit/projects/${project.id}/members?at=2026-05-01T00:00:00Z`);
    expect(audit.body.filter((m: { username: string }) => m.username === 'sa-upper')).toMatchObject([{ access_level: 20 }]);
    // Both hold a project authorization now (`User.without_projects`, asked by an administrator).
    const without = await server.request('GET', '/api/v4/users?without_projects=true&per_page=100');
    expect(without.body.map((u: { id: number }) => u.id)).not.toContain(upper.id);
    expect(without.body.map((u: { id: number }) => u.id)).not.toContain(outside.id);
  });
});

describe('a project share opens the private groups above the project (GroupPolicy `has_projects`)', () => {
  it('those the share reaches read the project\'s private group and its ancestors, and find them in GET /groups', async () => {
    const owner = await createPerson(server, 'hp-owner');
    const member = await createPerson(server, 'hp-member');
    const upper = await createPerson(server, 'hp-upper');
    const stranger = await createPerson(server, 'hp-stranger');
    const root = await createGroup(server, owner, 'HPRoot');
    const home = await createGroup(server, owner, 'HPHome', root.id);
    const sibling = await createGroup(server, owner, 'HPSibling', root.id);
    const project = await createProject(server, owner, 'HPShared', home.id);
    const parent = await createGroup(server, owner, 'HPParent');
    const team = await createGroup(server, owner, 'HPTeam', parent.id);
    expect((await server.request('POST', `/api/v4/groups/${team.id}/members`, { token: owner.token, body: { user_id: member.id, access_level: 30 } })).status).toBe(201);
    expect((await server.request('POST', `/api/v4/groups/${parent.id}/members`, { token: owner.token, body: { user_id: upper.id, access_level: 30 } })).status).toBe(201);
    expect((await server.request('POST', `/api/v4/projects/${project.id}/share`, { token: owner.token, body: { group_id: team.id, group_access: 10 } })).status).toBe(201);
    for (const person of [member, upper]) {
      // `group_projects_for` (owned projects of the group and its subgroups, `public_or_visible_to_user`): the shared
      // project is a project authorization, so the group holding it and the groups above it are readable.
      expect((await server.request('GET', `/api/v4/groups/${home.id}`, { token: person.token })).status).toBe(200);
      expect((await server.request('GET', `/api/v4/groups/${root.id}`, { token: person.token })).status).toBe(200);
      expect((await server.request('GET', `/api/v4/groups/${sibling.id}`, { token: person.token })).status).toBe(404);
      // GroupsFinder: `authorized_groups` (the namespaces of authorized projects) and their ancestors.
      const listed = (await server.request('GET', '/api/v4/groups?per_page=100', { token: person.token })).body.map((g: { id: number }) => g.id);
      expect(listed).toEqual(expect.arrayContaining([root.id, home.id]));
      expect(listed).not.toContain(sibling.id);
      // Reading the group is not acting in it.
      expect((await server.request('PUT', `/api/v4/groups/${home.id}`, { token: person.token, body: { description: 'x' } })).status).toBe(403);
    }
    expect((await server.request('GET', `/api/v4/groups/${home.id}`, { token: stranger.token })).status).toBe(404);
  });
});

describe('a group share into a subgroup holding a project opens the groups above it (GroupPolicy `has_projects`)', () => {
  it('the invited group\'s members read the subgroup\'s ancestors and find them in GET /groups; its siblings stay closed', async () => {
    const owner = await createPerson(server, 'hg-owner');
    const member = await createPerson(server, 'hg-member');
    const root = await createGroup(server, owner, 'HGRoot');
    const shared = await createGroup(server, owner, 'HGShared', root.id);
    const sibling = await createGroup(server, owner, 'HGSibling', root.id);
    await createProject(server, owner, 'HGProject', shared.id, 'private');
    const team = await createGroup(server, owner, 'HGTeam');
    expect((await server.request('POST', `/api/v4/groups/${team.id}/members`, { token: owner.token, body: { user_id: member.id, access_level: 30 } })).status).toBe(201);
    expect((await server.request('POST', `/api/v4/groups/${shared.id}/share`, { token: owner.token, body: { group_id: team.id, group_access: 30 } })).status).toBe(201);
    // `Gitlab::ProjectAuthorizations` authorizes the projects of a group shared with one of the user's groups, so
    // `group_projects_for(root)` finds one: `has_projects` enables `read_group` on the root.
    expect((await server.request('GET', `/api/v4/groups/${root.id}`, { token: member.token })).status).toBe(200);
    expect((await server.request('GET', `/api/v4/groups/${sibling.id}`, { token: member.token })).status).toBe(404);
    const listed = (await server.request('GET', '/api/v4/groups?per_page=100', { token: member.token })).body.map((g: { id: number }) => g.id);
    expect(listed).toEqual(expect.arrayContaining([root.id, shared.id, team.id]));
    expect(listed).not.toContain(sibling.id);
    expect((await server.request('PUT', `/api/v4/groups/${root.id}`, { token: member.token, body: { description: 'x' } })).status).toBe(403);
  });
});

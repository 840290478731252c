/**
 * What a permission audit found (issue 16; docs/decisions.md, "What a permission audit found").
 *
 * External accounts: what is internal is visible by its visibility to signed-in users who are not
 * external (GroupPolicy `logged_in_viewable`, ProjectPolicy `internal_access`, ProjectSnippetPolicy
 * `internal & ~external_user`); an external account sees it only as a member. And `can_create_group`, which
 * `User#ensure_user_rights_and_limits` forces off for them, refuses top-level groups.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { createGroup, createPerson, createProject, type Person } from '../members/support.js';

let server: TestServer;
let owner: Person, insider: Person, outsider: Person, member: Person;

beforeAll(async () => {
  server = await startServer({ start: '2026-05-01T00:00:00.000Z' });
  owner = await createPerson(server, 'ext-owner');
  insider = await createPerson(server, 'ext-insider');
  outsider = await createPerson(server, 'ext-outsider', { external: true });
  member = await createPerson(server, 'ext-member', { external: true });
});
afterAll(async () => {
  await server.close();
});

describe('external accounts', () => {
  it('do not see internal groups, projects, their files and snippets unless they are members', async () => {
    const group = await createGroup(server, owner, 'Inside', undefined, 'internal');
    const project = await createProject(server, owner, 'Plans', group.id);
    expect((await server.request('PUT', `/api/v4/projects/${project.id}`, { token: owner.token, body: { visibility: 'internal' } })).status).toBe(200);
    const file = await server.request('POST', `/api/v4/projects/${project.id}/repository/files/plan.txt`, { token: owner.token, body: { branch: 'main', content: 'secret', commit_message: 'Plan' } });
    expect(file.status).toBe(201);
    const snippet = await server.request('POST', `/api/v4/projects/${project.id}/snippets`, { token: owner.token, body: { title: 's', file_name: 's.txt', content: 'x', visibility: 'internal' } });
    expect(snippet.status).toBe(201);
    const reads = [
      `/api/v4/groups/${group.id}`,
      `/api/v4/projects/${project.id}`,
      `/api/v4/projects/${project.id}/repository/files/plan.txt/raw?ref=main`,
      `/api/v4/projects/${project.id}/snippets/${snippet.body.id}`,
    ];
    for (const path of reads) {
      expect((await server.request('GET', path, { token: insider.token })).status, path).toBe(200);
      expect((await server.request('GET', path, { token: outsider.token })).status, path).toBe(404);
    }
    const listed = async (who: Person, path: string) => ((await server.request('GET', path, { token: who.token })).body as { id: number }[]).map((entry) => entry.id);
    expect(await listed(insider, '/api/v4/projects?per_page=100')).toContain(project.id);
    expect(await listed(outsider, '/api/v4/projects?per_page=100')).not.toContain(project.id);
    expect(await listed(outsider, '/api/v4/groups?per_page=100')).not.toContain(group.id);
    // A member sees it, external or not; an external Guest holds a Guest's abilities only (no `internal_access`: the
    // code is a Reporter's, as on a private project).
    expect((await server.request('POST', `/api/v4/projects/${project.id}/members`, { token: owner.token, body: { user_id: member.id, access_level: 10 } })).status).toBe(201);
    expect((await server.request('GET', `/api/v4/projects/${project.id}`, { token: member.token })).status).toBe(200);
    expect((await server.request('GET', reads[2]!, { token: member.token })).status).toBe(403);
    expect((await server.request('PUT', `/api/v4/projects/${project.id}/members/${member.id}`, { token: owner.token, body: { access_level: 20 } })).status).toBe(200);
    for (const path of reads.slice(1)) expect((await server.request('GET', path, { token: member.token })).status, path).toBe(200);
    // The owner of a personal namespace reads a project moved there, external or not (no membership comes with it).
    const moved = await createProject(server, owner, 'Moved', group.id);
    expect((await server.request('PUT', `/api/v4/projects/${moved.id}`, { token: owner.token, body: { visibility: 'internal' } })).status).toBe(200);
    expect((await server.request('PUT', `/api/v4/projects/${moved.id}/transfer`, { body: { namespace: outsider.username } })).status).toBe(200);
    expect((await server.request('GET', `/api/v4/projects/${moved.id}`, { token: outsider.token })).status).toBe(200);
  });

  it('create no top-level group; an account with can_create_group off neither', async () => {
    const refused = await server.request('POST', '/api/v4/groups', { token: outsider.token, body: { name: 'Mine', path: 'mine-ext' } });
    expect(refused).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    // `ensure_user_rights_and_limits`: shown and applied as no personal project and no group.
    expect((await server.request('GET', `/api/v4/users/${outsider.id}`)).body).toMatchObject({ external: true, projects_limit: 0, can_create_group: false });
    expect(await server.request('POST', '/api/v4/projects', { token: outsider.token, body: { name: 'mine' } })).toMatchObject({
      status: 403,
      body: { message: ['Personal project creation is not allowed. Please contact your administrator with questions'] },
    });
    const locked = await createPerson(server, 'no-groups', { can_create_group: false });
    expect((await server.request('POST', '/api/v4/groups', { token: locked.token, body: { name: 'Mine', path: 'mine-locked' } })).status).toBe(403);
    expect((await server.request('POST', '/api/v4/groups', { token: insider.token, body: { name: 'Mine', path: 'mine-ok' } })).status).toBe(201);
  });
});

describe('a project’s owner abilities', () => {
  it('a Maintainer may not rename it or give a visibility, and nothing of the request is saved', async () => {
    const group = await createGroup(server, owner, 'Owned', undefined, 'private');
    const project = await createProject(server, owner, 'Kept', group.id);
    const maintainer = await createPerson(server, 'maint-audit');
    expect((await server.request('POST', `/api/v4/projects/${project.id}/members`, { token: owner.token, body: { user_id: maintainer.id, access_level: 40 } })).status).toBe(201);
    expect((await server.request('POST', `/api/v4/projects/${project.id}/repository/files/a.txt`, { token: owner.token, body: { branch: 'main', content: 'a', commit_message: 'A' } })).status).toBe(201);
    expect((await server.request('POST', `/api/v4/projects/${project.id}/repository/branches`, { token: owner.token, body: { branch: 'dev', ref: 'main' } })).status).toBe(201);
    // The maintainer's activity of the day is recorded first (off the request path), so that the position below moves
    // only for what the refused requests would write.
    await server.request('GET', `/api/v4/projects/${project.id}`, { token: maintainer.token });
    await server.app.whenIdle();
    const head = server.app.position;
    for (const body of [{ name: 'Renamed' }, { visibility: 'private' }, { visibility: 'public' }, { default_branch: 'dev', name: 'Renamed' }]) {
      const refused = await server.request('PUT', `/api/v4/projects/${project.id}`, { token: maintainer.token, body });
      expect(refused, JSON.stringify(body)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    }
    expect(server.app.position).toBe(head);
    expect((await server.request('GET', `/api/v4/projects/${project.id}`, { token: owner.token })).body).toMatchObject({ name: 'Kept', default_branch: 'main', visibility: 'private' });
    // The owner may; the Maintainer keeps the rest of `admin_project`.
    expect((await server.request('PUT', `/api/v4/projects/${project.id}`, { token: maintainer.token, body: { description: 'd' } })).status).toBe(200);
    expect((await server.request('PUT', `/api/v4/projects/${project.id}`, { token: owner.token, body: { name: 'Renamed', visibility: 'internal' } })).body).toMatchObject({ name: 'Renamed', visibility: 'internal' });
  });
});

/**
 * The group settings that govern creation and sharing (issue 16, branch fid-groups): `project_creation_level` and
 * `subgroup_creation_level` (lib/api/helpers/groups_helpers.rb, GroupPolicy's `create_projects` and
 * `create_subgroup`), `share_with_group_lock` (Namespace's lock callbacks, `POST /projects/:id/share`), and the
 * permissions that follow them: project creation ("namespace is not valid"), transfers (`transfer_projects`) and forks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { createGroup, createPerson, createProject, type Person } from '../members/support.js';

let server: TestServer;
let alice: Person, bob: Person, carol: Person;

beforeAll(async () => {
  server = await startServer({ start: '2026-05-01T00:00:00.000Z' });
  alice = await createPerson(server, 'alice');
  bob = await createPerson(server, 'bob');
  carol = await createPerson(server, 'carol');
});
afterAll(async () => {
  await server.close();
});

const addMember = async (groupId: number, user: Person, level: number) => {
  expect((await server.request('POST', `/api/v4/groups/${groupId}/members`, { body: { user_id: user.id, access_level: level } })).status).toBe(201);
};

/** A project's id, made by `owner` (Alice by default) in `namespaceId`. */
const mk = async (name: string, namespaceId: number, visibility: string, owner = alice): Promise<number> => (await createProject(server, owner, name, namespaceId, visibility)).id;

/** A request that must be refused with exactly this answer and record nothing. */
const refused = async (method: string, path: string, token: string | null, body: unknown, status: number, answer: unknown) => {
  const before = server.app.position;
  const response = await server.request(method, path, { token, body });
  expect({ status: response.status, body: response.body }).toEqual({ status, body: answer });
  expect(server.app.position).toBe(before);
};

describe('project_creation_level and subgroup_creation_level', () => {
  it('are accepted by POST and PUT /groups, shown by the entity, and checked against their values', async () => {
    const created = await server.request('POST', '/api/v4/groups', { token: alice.token, body: { name: 'Levels', path: 'levels', project_creation_level: 'noone', subgroup_creation_level: 'owner' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ project_creation_level: 'noone', subgroup_creation_level: 'owner', share_with_group_lock: false });
    const id = created.body.id;
    const updated = await server.request('PUT', `/api/v4/groups/${id}`, { token: alice.token, body: { project_creation_level: 'maintainer', subgroup_creation_level: 'maintainer' } });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ project_creation_level: 'maintainer', subgroup_creation_level: 'maintainer' });
    expect((await server.request('GET', `/api/v4/groups/${id}`, { token: alice.token })).body).toMatchObject({ project_creation_level: 'maintainer', subgroup_creation_level: 'maintainer' });
    // The defaults: developers create projects, maintainers subgroups.
    expect((await server.request('POST', '/api/v4/groups', { token: alice.token, body: { name: 'Plain', path: 'plain' } })).body).toMatchObject({ project_creation_level: 'developer', subgroup_creation_level: 'maintainer' });
    // Grape's `values:` messages, in the declaration order of the helper's params.
    await refused('POST', '/api/v4/groups', alice.token, { name: 'X', path: 'x', project_creation_level: 'owner' }, 400, { error: 'project_creation_level does not have a valid value' });
    await refused('POST', '/api/v4/groups', alice.token, { name: 'X', path: 'x', subgroup_creation_level: 'developer', project_creation_level: 'nobody' }, 400, {
      error: 'project_creation_level does not have a valid value, subgroup_creation_level does not have a valid value',
    });
    await refused('PUT', `/api/v4/groups/${id}`, alice.token, { subgroup_creation_level: 'noone' }, 400, { error: 'subgroup_creation_level does not have a valid value' });
    // Setting what the group already has records nothing.
    const before = server.app.position;
    expect((await server.request('PUT', `/api/v4/groups/${id}`, { token: alice.token, body: { project_creation_level: 'maintainer' } })).status).toBe(200);
    expect((await server.request('PUT', '/api/v4/groups/plain', { token: alice.token, body: { project_creation_level: 'developer', subgroup_creation_level: 'maintainer', share_with_group_lock: false } })).status).toBe(200);
    expect(server.app.position).toBe(before);
  });

  it('govern who creates projects and subgroups in the group (GroupPolicy)', async () => {
    const group = await createGroup(server, alice, 'Gov');
    await addMember(group.id, bob, 30);
    await addMember(group.id, carol, 40);
    const createProject = (who: Person | null, name: string) => server.request('POST', '/api/v4/projects', { token: who ? who.token : server.rootToken, body: { name, namespace_id: group.id } });
    const createSubgroup = (who: Person | null, path: string) => server.request('POST', '/api/v4/groups', { token: who ? who.token : server.rootToken, body: { name: path, path, parent_id: group.id } });
    expect((await createProject(bob, 'dev-made')).status).toBe(201);

    await server.request('PUT', `/api/v4/groups/${group.id}`, { token: alice.token, body: { project_creation_level: 'maintainer', subgroup_creation_level: 'owner' } });
    // Projects::CreateService#deny_namespace: a model error, not a 403.
    await refused('POST', '/api/v4/projects', bob.token, { name: 'nope', namespace_id: group.id }, 400, { message: { namespace: ['is not valid'] } });
    expect((await createProject(carol, 'maintainer-made')).status).toBe(201);
    // `create_subgroup`: owners only now.
    await refused('POST', '/api/v4/groups', carol.token, { name: 'sub', path: 'sub', parent_id: group.id }, 403, { message: '403 Forbidden' });
    expect((await createSubgroup(alice, 'owner-sub')).status).toBe(201);
    expect((await createSubgroup(null, 'admin-sub')).status).toBe(201);

    await server.request('PUT', `/api/v4/groups/${group.id}`, { token: alice.token, body: { project_creation_level: 'noone', subgroup_creation_level: 'maintainer' } });
    // `create_projects_disabled` prevents everyone, administrators too.
    await refused('POST', '/api/v4/projects', carol.token, { name: 'none', namespace_id: group.id }, 400, { message: { namespace: ['is not valid'] } });
    await refused('POST', '/api/v4/projects', server.rootToken, { name: 'none', namespace_id: group.id }, 400, { message: { namespace: ['is not valid'] } });
    expect((await createSubgroup(carol, 'maintainer-sub')).status).toBe(201);
    await refused('POST', '/api/v4/groups', bob.token, { name: 'sub', path: 'dev-sub', parent_id: group.id }, 403, { message: '403 Forbidden' });
    // An unknown namespace and someone else's personal namespace are the same model error.
    await refused('POST', '/api/v4/projects', bob.token, { name: 'lost', namespace_id: 99999 }, 400, { message: { namespace: ['is not valid'] } });
  });

  it('transfers need Maintainer and create_projects in the new group (transfer_projects)', async () => {
    const home = await createGroup(server, alice, 'From');
    const target = await createGroup(server, carol, 'To');
    await addMember(target.id, alice, 30);
    const project = await server.request('POST', '/api/v4/projects', { token: alice.token, body: { name: 'Mover', namespace_id: home.id } });
    expect(project.status).toBe(201);
    const failed = { message: 'Failed to transfer project {:new_namespace=>["Transfer failed, please contact an admin."]}' };
    // A developer may create projects there, but not move one in.
    await refused('PUT', `/api/v4/projects/${project.body.id}/transfer`, alice.token, { namespace: target.id }, 400, failed);
    await server.request('PUT', `/api/v4/groups/${target.id}/members/${alice.id}`, { token: carol.token, body: { access_level: 40 } });
    await server.request('PUT', `/api/v4/groups/${target.id}`, { token: carol.token, body: { project_creation_level: 'noone' } });
    await refused('PUT', `/api/v4/projects/${project.body.id}/transfer`, alice.token, { namespace: target.id }, 400, failed);
    await server.request('PUT', `/api/v4/groups/${target.id}`, { token: carol.token, body: { project_creation_level: 'maintainer' } });
    expect((await server.request('PUT', `/api/v4/projects/${project.body.id}/transfer`, { token: alice.token, body: { namespace: target.id } })).status).toBe(200);
  });

  it('forks: the targets are ForkTargetsFinder’s, creation is create_projects (409 otherwise)', async () => {
    const source = await server.request('POST', '/api/v4/projects', { token: alice.token, body: { name: 'Upstream', visibility: 'public' } });
    const target = await createGroup(server, carol, 'Forks');
    await addMember(target.id, bob, 30);
    await addMember(target.id, alice, 40);
    await server.request('PUT', `/api/v4/groups/${target.id}`, { token: carol.token, body: { project_creation_level: 'maintainer' } });
    const fork = `/api/v4/projects/${source.body.id}/fork`;
    await refused('POST', fork, bob.token, { namespace_id: target.id }, 404, { message: '404 Target Namespace Not Found' });
    await server.request('PUT', `/api/v4/groups/${target.id}`, { token: carol.token, body: { project_creation_level: 'noone' } });
    await refused('POST', fork, alice.token, { namespace_id: target.id }, 409, { message: { namespace: ['is not valid'] } });
    await server.request('PUT', `/api/v4/groups/${target.id}`, { token: carol.token, body: { project_creation_level: 'developer' } });
    expect((await server.request('POST', fork, { token: bob.token, body: { namespace_id: target.id } })).status).toBe(201);
  });
});

describe('share_with_group_lock', () => {
  it('is accepted, reaches the subgroups, and refuses project shares', async () => {
    const top = await createGroup(server, alice, 'Locked');
    const child = await server.request('POST', '/api/v4/groups', { token: alice.token, body: { name: 'Child', path: 'child', parent_id: top.id } });
    const grandchild = await server.request('POST', '/api/v4/groups', { token: alice.token, body: { name: 'Grand', path: 'grand', parent_id: child.body.id } });
    const project = await server.request('POST', '/api/v4/projects', { token: alice.token, body: { name: 'Deep', namespace_id: grandchild.body.id } });
    const guests = await createGroup(server, alice, 'Guests');
    const share = `/api/v4/projects/${project.body.id}/share`;

    const locked = await server.request('PUT', `/api/v4/groups/${top.id}`, { token: alice.token, body: { share_with_group_lock: true } });
    expect(locked.body.share_with_group_lock).toBe(true);
    // `force_share_with_group_lock_on_descendants`.
    for (const id of [child.body.id, grandchild.body.id]) expect((await server.request('GET', `/api/v4/groups/${id}`, { token: alice.token })).body.share_with_group_lock).toBe(true);
    // `sync_share_with_group_lock_with_parent` on creation.
    const later = await server.request('POST', '/api/v4/groups', { token: alice.token, body: { name: 'Later', path: 'later', parent_id: top.id } });
    expect(later.body.share_with_group_lock).toBe(true);
    await refused('POST', share, alice.token, { group_id: guests.id, group_access: 30 }, 400, { message: 'The project sharing with group is disabled' });
    // `admin_project` comes first.
    await refused('POST', share, bob.token, { group_id: guests.id, group_access: 30 }, 404, { message: '404 Project Not Found' });

    // Only an owner of the locking parent lifts a subgroup's lock (`change_share_with_group_lock`).
    await addMember(child.body.id, carol, 50);
    await refused('PUT', `/api/v4/groups/${child.body.id}`, carol.token, { share_with_group_lock: false }, 400, {
      message: { share_with_group_lock: ['cannot be disabled when the parent group "Share with group lock" is enabled, except by the owner of the parent group'] },
    });
    expect((await server.request('PUT', `/api/v4/groups/${top.id}`, { token: alice.token, body: { share_with_group_lock: false } })).body.share_with_group_lock).toBe(false);
    // Unlocking does not reach below; the grandchild's own owner (alice) lifts it there.
    expect((await server.request('GET', `/api/v4/groups/${grandchild.body.id}`, { token: alice.token })).body.share_with_group_lock).toBe(true);
    expect((await server.request('PUT', `/api/v4/groups/${grandchild.body.id}`, { token: alice.token, body: { share_with_group_lock: false } })).body.share_with_group_lock).toBe(false);
    expect((await server.request('POST', share, { token: alice.token, body: { group_id: guests.id, group_access: 30 } })).status).toBe(201);
    await addMember(guests.id, bob, 30);
    const asBob = () => server.request('GET', `/api/v4/projects/${project.body.id}`, { token: bob.token });
    expect((await asBob()).status).toBe(200);

    // A group moved under a locked parent is locked with everything below it (when its own lock changes).
    expect((await server.request('PUT', `/api/v4/groups/${child.body.id}`, { token: alice.token, body: { share_with_group_lock: false } })).body.share_with_group_lock).toBe(false);
    const locker = await server.request('POST', '/api/v4/groups', { token: alice.token, body: { name: 'Locker', path: 'locker', share_with_group_lock: true } });
    expect(locker.body.share_with_group_lock).toBe(true);
    expect((await server.request('POST', `/api/v4/groups/${child.body.id}/transfer`, { token: alice.token, body: { group_id: locker.body.id } })).status).toBe(201);
    for (const id of [child.body.id, grandchild.body.id]) expect((await server.request('GET', `/api/v4/groups/${id}`, { token: alice.token })).body.share_with_group_lock).toBe(true);
    // The share is kept but grants nothing while the lock holds (ProjectTeam: `allowed_to_share_with_group?`).
    expect((await asBob()).status).toBe(404);
    expect((await server.request('GET', `/api/v4/projects/${project.body.id}`, { token: alice.token })).body.shared_with_groups).toHaveLength(1);
    await server.request('PUT', `/api/v4/groups/${grandchild.body.id}`, { token: alice.token, body: { share_with_group_lock: false } });
    expect((await asBob()).status).toBe(200);
  });
});

describe('the projects of a group', () => {
  it('GET /groups/:id/projects: own, shared (with_shared) and subgroups’ (include_subgroups) projects the caller sees', async () => {
    const home = await createGroup(server, alice, 'Shelf', undefined, 'public');
    const sub = await server.request('POST', '/api/v4/groups', { token: alice.token, body: { name: 'Inner', path: 'inner', parent_id: home.id, visibility: 'public' } });
    const own = await mk('Own', home.id, 'public');
    const secret = await mk('Secret', home.id, 'private');
    const nested = await mk('Nested', sub.body.id, 'public');
    const elsewhere = await createGroup(server, carol, 'Elsewhere', undefined, 'public');
    const shared = await mk('Shared', elsewhere.id, 'public', carol);
    expect((await server.request('POST', `/api/v4/projects/${shared}/share`, { token: carol.token, body: { group_id: home.id, group_access: 30 } })).status).toBe(201);

    const ids = async (query: string, token: string | null = alice.token) => {
      const response = await server.request('GET', `/api/v4/groups/${home.id}/projects${query}`, { token });
      expect(response.status).toBe(200);
      return response.body.map((p: { id: number }) => p.id);
    };
    // Newest first (created_at desc, then id).
    expect(await ids('')).toEqual([shared, secret, own]);
    expect(await ids('?with_shared=false')).toEqual([secret, own]);
    expect(await ids('?include_subgroups=true&with_shared=false&order_by=id&sort=asc')).toEqual([own, secret, nested]);
    expect(await ids('?visibility=private')).toEqual([secret]);
    expect(await ids('', null)).toEqual([shared, own]);
    expect(await ids('?archived=true')).toEqual([]);
    expect(await ids('?archived=false&search=own')).toEqual([own]);
    expect(await ids('', bob.token)).toEqual([shared, own]);
    expect((await server.request('GET', `/api/v4/groups/${home.id}/projects/shared`, { token: alice.token })).body.map((p: { id: number }) => p.id)).toEqual([shared]);
    // `simple=true`: BasicProjectDetails.
    const simple = (await server.request('GET', `/api/v4/groups/${home.id}/projects?simple=true`, { token: alice.token })).body[0];
    expect(Object.keys(simple)).toContain('namespace');
    expect(Object.keys(simple)).not.toContain('visibility');
    const hidden = await createGroup(server, carol, 'Hidden');
    expect(await server.request('GET', `/api/v4/groups/${hidden.id}/projects`, { token: alice.token })).toMatchObject({ status: 404, body: { message: '404 Group Not Found' } });

    // GroupDetail: its own projects and the shared ones, newest first; `with_projects=false` is the Group entity.
    const detail = (await server.request('GET', `/api/v4/groups/${home.id}`, { token: alice.token })).body;
    expect(detail.projects.map((p: { id: number }) => p.id)).toEqual([secret, own]);
    expect(detail.shared_projects.map((p: { id: number }) => p.id)).toEqual([shared]);
    expect((await server.request('GET', `/api/v4/groups/${home.id}`, { token: null })).body.projects.map((p: { id: number }) => p.id)).toEqual([own]);
    const bare = (await server.request('GET', `/api/v4/groups/${home.id}?with_projects=false`, { token: alice.token })).body;
    expect(bare).toMatchObject({ id: home.id, full_path: 'shelf' });
    expect('projects' in bare || 'shared_projects' in bare || 'shared_with_groups' in bare).toBe(false);
    void nested;
  });

  it('GET /groups/:id/projects and GroupDetail: an outsider of the group sees its public and internal projects and the private ones its own memberships and shares open', async () => {
    const lab = await createGroup(server, alice, 'Lab', undefined, 'public');
    const wing = await server.request('POST', '/api/v4/groups', { token: alice.token, body: { name: 'Wing', path: 'wing', parent_id: lab.id, visibility: 'public' } });
    const open = await mk('Open', lab.id, 'public');
    const inside = await mk('Inside', lab.id, 'internal');
    const joined = await mk('Joined', lab.id, 'private');
    const viaShare = await mk('ViaShare', lab.id, 'private');
    const closed = await mk('Closed', lab.id, 'private');
    const deep = await mk('Deep', wing.body.id, 'private');
    // Bob: a project membership in Lab, and a member of a group a Lab project (and a Wing one) is shared with.
    expect((await server.request('POST', `/api/v4/projects/${joined}/members`, { token: alice.token, body: { user_id: bob.id, access_level: 20 } })).status).toBe(201);
    const club = await createGroup(server, alice, 'Club', undefined, 'private');
    await addMember(club.id, bob, 10);
    for (const id of [viaShare, deep]) expect((await server.request('POST', `/api/v4/projects/${id}/share`, { token: alice.token, body: { group_id: club.id, group_access: 20 } })).status).toBe(201);
    const ids = async (query: string, token: string | null) => {
      const response = await server.request('GET', `/api/v4/groups/${lab.id}/projects${query}`, { token });
      expect(response.status).toBe(200);
      return response.body.map((p: { id: number }) => p.id);
    };
    expect(await ids('?order_by=id&sort=asc', null)).toEqual([open]);
    expect(await ids('?order_by=id&sort=asc', carol.token)).toEqual([open, inside]);
    expect(await ids('?order_by=id&sort=asc', bob.token)).toEqual([open, inside, joined, viaShare]);
    expect(await ids('?order_by=id&sort=asc&include_subgroups=true', bob.token)).toEqual([open, inside, joined, viaShare, deep]);
    expect(await ids('?order_by=id&sort=asc&include_subgroups=true', alice.token)).toEqual([open, inside, joined, viaShare, closed, deep]);
    expect(await ids('?order_by=id&sort=asc&include_subgroups=true', server.rootToken)).toEqual([open, inside, joined, viaShare, closed, deep]);
    const detail = async (token: string | null) => (await server.request('GET', `/api/v4/groups/${lab.id}`, { token })).body.projects.map((p: { id: number }) => p.id);
    expect(await detail(bob.token)).toEqual([viaShare, joined, inside, open]);
    expect(await detail(null)).toEqual([open]);
    expect(await detail(alice.token)).toEqual([closed, viaShare, joined, inside, open]);
  });

  it('the projects shared with a group (/projects/shared, with_shared, GroupDetail): a caller without access to it sees the public and internal ones and the private ones its own memberships open', async () => {
    const hall = await createGroup(server, alice, 'Hall', undefined, 'public');
    const store = await createGroup(server, carol, 'Store', undefined, 'private');
    const works = await createGroup(server, carol, 'Works', undefined, 'private');
    const guild = await createGroup(server, carol, 'Guild', undefined, 'private');
    const gus = await createPerson(server, 'gus');
    const hana = await createPerson(server, 'hana', { external: true });
    const mk = async (name: string, visibility: string, owner: Person, namespaceId?: number) => {
      const created = await server.request('POST', '/api/v4/projects', { token: owner.token, body: { name, visibility, ...(namespaceId ? { namespace_id: namespaceId } : {}) } });
      expect(created.status).toBe(201);
      return created.body.id as number;
    };
    const open = await mk('Pub', 'public', carol, store.id);
    const inside = await mk('Int', 'internal', carol, store.id);
    const joined = await mk('Mem', 'private', carol, store.id);
    const viaShare = await mk('Via', 'private', carol, store.id);
    const inGroup = await mk('Grp', 'private', carol, works.id);
    const closed = await mk('Hid', 'private', carol, store.id);
    const personal = await mk('Own', 'private', gus);
    // Gus: a project membership, a membership of a group another share goes to, one of a project's group, his own project.
    expect((await server.request('POST', `/api/v4/projects/${joined}/members`, { token: carol.token, body: { user_id: gus.id, access_level: 20 } })).status).toBe(201);
    expect((await server.request('POST', `/api/v4/groups/${guild.id}/members`, { token: carol.token, body: { user_id: gus.id, access_level: 10 } })).status).toBe(201);
    expect((await server.request('POST', `/api/v4/groups/${works.id}/members`, { token: carol.token, body: { user_id: gus.id, access_level: 10 } })).status).toBe(201);
    expect((await server.request('POST', `/api/v4/projects/${viaShare}/share`, { token: carol.token, body: { group_id: guild.id, group_access: 20 } })).status).toBe(201);
    for (const [id, token] of [[open, carol.token], [inside, carol.token], [joined, carol.token], [viaShare, carol.token], [inGroup, carol.token], [closed, carol.token], [personal, gus.token]] as const) {
      expect((await server.request('POST', `/api/v4/projects/${id}/share`, { token, body: { group_id: hall.id, group_access: 30 } })).status).toBe(201);
    }
    const everyOne = [open, inside, joined, viaShare, inGroup, closed, personal];
    const expected: [string | null, number[]][] = [
      [null, [open]],
      [hana.token, [open]],
      [bob.token, [open, inside]],
      [gus.token, [open, inside, joined, viaShare, inGroup, personal]],
      [alice.token, everyOne],
      [server.rootToken, everyOne],
    ];
    for (const [token, visible] of expected) {
      const listed = async (path: string) => {
        const response = await server.request('GET', `/api/v4/groups/${hall.id}/${path}`, { token });
        expect(response.status).toBe(200);
        return response.body.map((p: { id: number }) => p.id);
      };
      expect(await listed('projects/shared?order_by=id&sort=asc')).toEqual(visible);
      expect(await listed('projects?with_shared=true&order_by=id&sort=asc')).toEqual(visible);
      const detail = (await server.request('GET', `/api/v4/groups/${hall.id}`, { token })).body;
      expect(detail.shared_projects.map((p: { id: number }) => p.id)).toEqual([...visible].reverse());
    }
  });

  it('POST /groups/:id/projects/:project_id: administrators move a project into the group', async () => {
    const target = await createGroup(server, alice, 'Dock');
    const project = await server.request('POST', '/api/v4/projects', { token: bob.token, body: { name: 'Boat' } });
    await refused('POST', `/api/v4/groups/${target.id}/projects/${project.body.id}`, alice.token, undefined, 403, { message: '403 Forbidden' });
    await refused('POST', `/api/v4/groups/${target.id}/projects/99999`, server.rootToken, undefined, 404, { message: '404 Project Not Found' });
    const moved = await server.request('POST', `/api/v4/groups/${target.id}/projects/${project.body.id}`, { token: server.rootToken });
    expect(moved.status).toBe(201);
    expect(moved.body.projects.map((p: { path_with_namespace: string }) => p.path_with_namespace)).toEqual(['dock/boat']);
    await server.request('PUT', `/api/v4/groups/${target.id}`, { token: alice.token, body: { project_creation_level: 'noone' } });
    const other = await server.request('POST', '/api/v4/projects', { token: bob.token, body: { name: 'Raft' } });
    await refused('POST', `/api/v4/groups/${target.id}/projects/${other.body.id}`, server.rootToken, undefined, 400, {
      message: 'Failed to transfer project {:new_namespace=>["Transfer failed, please contact an admin."]}',
    });
  });
});

describe('GET /groups', () => {
  it('owned and min_access_level count the caller’s own memberships (with the groups below), not shares', async () => {
    const dave = await createPerson(server, 'dave');
    const mine = await createGroup(server, dave, 'Mine');
    const below = await server.request('POST', '/api/v4/groups', { body: { name: 'Below', path: 'below', parent_id: mine.id } });
    const theirs = await createGroup(server, carol, 'Theirs');
    expect((await server.request('POST', `/api/v4/groups/${theirs.id}/share`, { body: { group_id: mine.id, group_access: 50 } })).status).toBe(201);
    const ids = async (query: string) => (await server.request('GET', `/api/v4/groups${query}`, { token: dave.token })).body.map((g: { id: number }) => g.id);
    // `owned_groups`: direct Owner memberships only (root created the subgroup and owns it).
    expect(await ids('?owned=true')).toEqual([mine.id]);
    expect((await ids('?min_access_level=50')).sort()).toEqual([mine.id, below.body.id].sort());
    expect((await ids('')).sort()).toEqual([mine.id, below.body.id, theirs.id].sort());
  });

  it('searches the full path and name (include_parents) and breaks ties by ascending id', async () => {
    const top = await createGroup(server, alice, 'Orchard', undefined, 'public');
    const a = await server.request('POST', '/api/v4/groups', { token: alice.token, body: { name: 'Twin', path: 'twin-a', parent_id: top.id, visibility: 'public' } });
    const b = await server.request('POST', '/api/v4/groups', { token: alice.token, body: { name: 'Twin', path: 'twin-b', parent_id: top.id, visibility: 'public' } });
    const listed = await server.request('GET', '/api/v4/groups?search=orchard', { token: alice.token });
    expect(listed.body.map((g: { id: number }) => g.id)).toEqual([top.id, a.body.id, b.body.id]);
    const desc = await server.request('GET', '/api/v4/groups?search=twin&sort=desc', { token: alice.token });
    expect(desc.body.map((g: { id: number }) => g.id)).toEqual([a.body.id, b.body.id]);
  });
});

describe('the Group entity (EE)', () => {
  it('shows ldap_group_links when the group has any', async () => {
    const group = await createGroup(server, alice, 'Directory');
    const shown = async () => (await server.request('GET', `/api/v4/groups/${group.id}`, { token: alice.token })).body;
    expect('ldap_group_links' in (await shown())).toBe(false);
    expect((await server.request('POST', `/api/v4/groups/${group.id}/ldap_group_links`, { token: alice.token, body: { cn: 'devs', group_access: 30, provider: 'ldapmain' } })).status).toBe(201);
    const body = await shown();
    expect(body.ldap_group_links).toEqual([{ cn: 'devs', group_access: 30, provider: 'ldapmain', filter: null }]);
    expect(Object.keys(body).indexOf('ldap_group_links')).toBe(Object.keys(body).indexOf('ldap_access') + 1);
    const listed = await server.request('GET', '/api/v4/groups?search=directory', { token: alice.token });
    expect(listed.body[0].ldap_group_links).toHaveLength(1);
  });
});

describe('GET /projects', () => {
  it('owned is owned_projects (personal projects, Owner authorizations), not the creator', async () => {
    const erin = await createPerson(server, 'erin');
    const frank = await createPerson(server, 'frank');
    const group = await createGroup(server, erin, 'Workshop');
    await addMember(group.id, frank, 30);
    const made = await server.request('POST', '/api/v4/projects', { token: frank.token, body: { name: 'Bench', namespace_id: group.id } });
    expect(made.status).toBe(201);
    const personal = await server.request('POST', '/api/v4/projects', { token: frank.token, body: { name: 'Own' } });
    const ids = async (who: Person, query: string) => (await server.request('GET', `/api/v4/projects${query}`, { token: who.token })).body.map((p: { id: number }) => p.id);
    expect(await ids(frank, '?owned=true')).toEqual([personal.body.id]);
    expect(await ids(erin, '?owned=true')).toEqual([made.body.id]);
    // A personal project's owner holds it as Maintainer in 14.7's project_authorizations (Owner from 14.8 on).
    expect(await ids(frank, '?min_access_level=40')).toEqual([personal.body.id]);
    expect(await ids(frank, '?min_access_level=50')).toEqual([]);
    expect(await ids(frank, '?membership=true')).toEqual([personal.body.id, made.body.id]);
  });
});

describe('GET /projects search', () => {
  it('matches the description, and the namespace with search_namespaces', async () => {
    const group = await createGroup(server, alice, 'Quarry', undefined, 'public');
    const made = await server.request('POST', '/api/v4/projects', { token: alice.token, body: { name: 'Stone', namespace_id: group.id, visibility: 'public', description: 'granite cutter' } });
    const ids = async (query: string) => (await server.request('GET', `/api/v4/projects${query}`, { token: alice.token })).body.map((p: { id: number }) => p.id);
    expect(await ids('?search=granite')).toEqual([made.body.id]);
    expect(await ids('?search=quarry')).toEqual([]);
    expect(await ids('?search=quarry&search_namespaces=true')).toEqual([made.body.id]);
  });
});

describe('GroupDetail', () => {
  it('lists the shares into groups the viewer can see, and prevent_sharing_groups_outside_hierarchy on top-level groups only', async () => {
    const open = await createGroup(server, alice, 'Atrium', undefined, 'public');
    const seen = await createGroup(server, alice, 'Seen', undefined, 'public');
    const unseen = await createGroup(server, carol, 'Unseen');
    for (const id of [seen.id, unseen.id]) expect((await server.request('POST', `/api/v4/groups/${open.id}/share`, { body: { group_id: id, group_access: 30 } })).status).toBe(201);
    const names = async (token: string | null) => (await server.request('GET', `/api/v4/groups/${open.id}`, { token })).body.shared_with_groups.map((g: { group_name: string }) => g.group_name);
    expect(await names(alice.token)).toEqual(['Seen']);
    expect(await names(carol.token)).toEqual(['Seen', 'Unseen']);
    expect(await names(server.rootToken)).toEqual(['Seen', 'Unseen']);
    expect(await names(null)).toEqual(['Seen']);
    const top = (await server.request('GET', `/api/v4/groups/${open.id}`, { token: alice.token })).body;
    expect(Object.keys(top).slice(Object.keys(top).indexOf('shared_with_groups'))).toEqual(['shared_with_groups', 'prevent_sharing_groups_outside_hierarchy', 'projects', 'shared_projects', 'membership_lock']);
    const sub = await server.request('POST', '/api/v4/groups', { token: alice.token, body: { name: 'Wing', path: 'wing', parent_id: open.id, visibility: 'public' } });
    expect('prevent_sharing_groups_outside_hierarchy' in sub.body).toBe(false);
  });
});

describe('project lists', () => {
  it('show signed-in callers their permissions (ProjectWithAccess), as GET /projects/:id does', async () => {
    const gina = await createPerson(server, 'gina');
    const mine = await server.request('POST', '/api/v4/projects', { token: gina.token, body: { name: 'Kiln', visibility: 'public' } });
    const listed = (await server.request('GET', '/api/v4/projects?owned=true', { token: gina.token })).body;
    expect(listed.map((p: { id: number }) => p.id)).toEqual([mine.body.id]);
    expect(listed[0].permissions).toEqual({ project_access: { access_level: 40, notification_level: 3 }, group_access: null });
    expect((await server.request('GET', `/api/v4/users/${gina.id}/projects`, { token: alice.token })).body[0].permissions).toEqual({ project_access: null, group_access: null });
    const anonymous = (await server.request('GET', `/api/v4/users/${gina.id}/projects`, { token: null })).body[0];
    expect('permissions' in anonymous).toBe(false);
    expect('permissions' in (await server.request('GET', `/api/v4/users/${gina.id}/projects?simple=true`, { token: gina.token })).body[0]).toBe(false);
  });
});

describe('DELETE /projects/:id/fork', () => {
  it('unlinks a fork from its source (owner only), and answers 304 for a project that forks nothing', async () => {
    const hank = await createPerson(server, 'hank');
    const source = await server.request('POST', '/api/v4/projects', { token: alice.token, body: { name: 'Trunk', visibility: 'public' } });
    const fork = await server.request('POST', `/api/v4/projects/${source.body.id}/fork`, { token: hank.token });
    expect(fork.status).toBe(201);
    expect(fork.body.forked_from_project.id).toBe(source.body.id);
    expect((await server.request('GET', `/api/v4/projects/${source.body.id}`, { token: alice.token })).body.forks_count).toBe(1);
    await refused('DELETE', `/api/v4/projects/${fork.body.id}/fork`, alice.token, undefined, 403, { message: '403 Forbidden' });
    const unlinked = await server.request('DELETE', `/api/v4/projects/${fork.body.id}/fork`, { token: hank.token });
    expect(unlinked.status).toBe(204);
    expect('forked_from_project' in (await server.request('GET', `/api/v4/projects/${fork.body.id}`, { token: hank.token })).body).toBe(false);
    expect((await server.request('GET', `/api/v4/projects/${source.body.id}`, { token: alice.token })).body.forks_count).toBe(0);
    expect((await server.request('GET', `/api/v4/projects/${source.body.id}/forks`, { token: alice.token })).body).toEqual([]);
    const before = server.app.position;
    expect((await server.request('DELETE', `/api/v4/projects/${fork.body.id}/fork`, { token: hank.token })).status).toBe(304);
    expect(server.app.position).toBe(before);
  });
});

describe('POST /projects/user/:user_id', () => {
  it('creates in the namespace given, checked for the user (CreateService runs as the user)', async () => {
    const ivy = await createPerson(server, 'ivy');
    const group = await createGroup(server, alice, 'Annex');
    await addMember(group.id, ivy, 30);
    await server.request('PUT', `/api/v4/groups/${group.id}`, { token: alice.token, body: { project_creation_level: 'maintainer' } });
    await refused('POST', `/api/v4/projects/user/${ivy.id}`, server.rootToken, { name: 'Wing', namespace_id: group.id }, 400, { message: { namespace: ['is not valid'] } });
    await server.request('PUT', `/api/v4/groups/${group.id}`, { token: alice.token, body: { project_creation_level: 'developer' } });
    const made = await server.request('POST', `/api/v4/projects/user/${ivy.id}`, { token: server.rootToken, body: { name: 'Wing', namespace_id: group.id } });
    expect(made.status).toBe(201);
    expect(made.body.path_with_namespace).toBe('annex/wing');
    // Without a namespace: the user's personal namespace, as before.
    expect((await server.request('POST', `/api/v4/projects/user/${ivy.id}`, { token: server.rootToken, body: { name: 'Den' } })).body.path_with_namespace).toBe('ivy/den');
  });
});

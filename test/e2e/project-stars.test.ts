/**
 * Project stars (issue 16): `POST /projects/:id/star` and `/unstar`, `GET /projects/:id/starrers`,
 * `GET /users/:user_id/starred_projects`, `star_count` and `starred=true`, over raw HTTP (statuses, bodies, headers),
 * after 14.7's lib/api/projects.rb, UsersStarProjectsFinder, StarredProjectsFinder and ProjectsFinder#by_starred.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { createPerson, type Person } from '../members/support.js';

let server: TestServer;
let alice: Person, bob: Person, carol: Person, dave: Person;

beforeAll(async () => {
  server = await startServer({ start: '2026-05-01T00:00:00.000Z' });
  alice = await createPerson(server, 'alice');
  bob = await createPerson(server, 'bob');
  carol = await createPerson(server, 'carol', { private_profile: true });
  dave = await createPerson(server, 'dave');
});
afterAll(async () => {
  await server.close();
});

const newProject = async (owner: Person, name: string, visibility = 'public'): Promise<number> => {
  const r = await server.request('POST', '/api/v4/projects', { token: owner.token, body: { name, visibility } });
  expect(r.status).toBe(201);
  return r.body.id;
};

const star = (who: Person | null, id: number | string, action: 'star' | 'unstar' = 'star') => server.request('POST', `/api/v4/projects/${id}/${action}`, { token: who?.token ?? null });

describe('POST /projects/:id/star and /unstar', () => {
  it('star: 201 with the Project entity and its star_count; a second star is 304 with no body and records nothing', async () => {
    const id = await newProject(alice, 'Starry');
    const first = await star(bob, id);
    expect(first.status).toBe(201);
    expect(first.body.id).toBe(id);
    expect(first.body.star_count).toBe(1);
    // `present user_project, with: Entities::Project`: no ProjectWithAccess permissions.
    expect('permissions' in first.body).toBe(false);
    expect(Object.keys(first.body)).toContain('shared_with_groups');
    const head = server.app.position;
    const again = await star(bob, id);
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(server.app.position).toBe(head);
    expect((await star(dave, id)).body.star_count).toBe(2);
    expect((await server.request('GET', `/api/v4/projects/${id}`, { token: null })).body.star_count).toBe(2);
    expect((await server.request('GET', `/api/v4/projects/${encodeURIComponent(`alice/starry`)}`, { token: alice.token })).body.star_count).toBe(2);
  });

  it('unstar: 201 with the project and the lower count; unstarring what is not starred is 304 and records nothing', async () => {
    const id = await newProject(alice, 'Unstarry');
    await star(bob, id);
    const taken = await star(bob, id, 'unstar');
    expect(taken.status).toBe(201);
    expect(taken.body.star_count).toBe(0);
    const head = server.app.position;
    const again = await star(bob, id, 'unstar');
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(server.app.position).toBe(head);
    // By full path too, and starring again is a new star.
    const restarred = await star(bob, 'alice%2Funstarry');
    expect(restarred.status).toBe(201);
    expect(restarred.body.star_count).toBe(1);
  });

  it('needs a signed-in caller (401) and a project they can read (404 Project Not Found); nothing is written', async () => {
    const open = await newProject(alice, 'Open');
    const closed = await newProject(alice, 'Closed', 'private');
    const head = server.app.position;
    for (const action of ['star', 'unstar'] as const) {
      expect(await star(null, open, action).then((r) => [r.status, r.text])).toEqual([401, '{"message":"401 Unauthorized"}']);
      expect(await star(bob, closed, action).then((r) => [r.status, r.text])).toEqual([404, '{"message":"404 Project Not Found"}']);
      expect(await star(bob, 999999, action).then((r) => [r.status, r.text])).toEqual([404, '{"message":"404 Project Not Found"}']);
      expect(await star(null, closed, action).then((r) => r.status)).toBe(401);
    }
    expect(server.app.position).toBe(head);
    // The owner stars their private project.
    expect((await star(alice, closed)).status).toBe(201);
  });

  it('stars as the sudo user', async () => {
    const id = await newProject(alice, 'Sudo Star');
    const r = await server.request('POST', `/api/v4/projects/${id}/star`, { headers: { Sudo: 'dave' } });
    expect(r.status).toBe(201);
    const starrers = await server.request('GET', `/api/v4/projects/${id}/starrers`, { token: null });
    expect(starrers.body.map((row: { user: { username: string } }) => row.user.username)).toEqual(['dave']);
  });
});

describe('GET /projects/:id/starrers', () => {
  let id: number;
  beforeAll(async () => {
    id = await newProject(alice, 'Watched');
    for (const who of [bob, carol, dave]) {
      server.advance(60_000);
      expect((await star(who, id)).status).toBe(201);
    }
  });

  it('UserStarsProject rows, newest star first, with the offset pagination headers', async () => {
    const r = await server.request('GET', `/api/v4/projects/${id}/starrers`, { token: bob.token });
    expect(r.status).toBe(200);
    // carol's profile is private: only she and administrators see her star.
    expect(r.body.map((row: { user: { id: number } }) => row.user.id)).toEqual([dave.id, bob.id]);
    expect(r.body[0]).toEqual({
      starred_since: '2026-05-01T00:03:00.000Z',
      user: { id: dave.id, username: 'dave', name: 'DAVE', state: 'active', avatar_url: null, web_url: `${server.baseUrl}/dave` },
    });
    expect(r.headers.get('x-total')).toBe('2');
    expect(r.headers.get('x-total-pages')).toBe('1');
    expect(r.headers.get('x-page')).toBe('1');
    expect(r.headers.get('x-per-page')).toBe('20');
    const paged = await server.request('GET', `/api/v4/projects/${id}/starrers?per_page=1&page=2`, { token: null });
    expect(paged.body.map((row: { user: { id: number } }) => row.user.id)).toEqual([bob.id]);
    expect(paged.headers.get('x-total')).toBe('2');
    expect(paged.headers.get('x-prev-page')).toBe('1');
    expect(paged.headers.get('x-next-page')).toBe('');
    expect(paged.headers.get('link')).toContain('rel="first"');
  });

  it('a private profile is seen by its owner and by administrators', async () => {
    const asCarol = await server.request('GET', `/api/v4/projects/${id}/starrers`, { token: carol.token });
    expect(asCarol.body.map((row: { user: { id: number } }) => row.user.id)).toEqual([dave.id, carol.id, bob.id]);
    const asRoot = await server.request('GET', `/api/v4/projects/${id}/starrers`);
    expect(asRoot.body.map((row: { user: { id: number } }) => row.user.id)).toEqual([dave.id, carol.id, bob.id]);
    expect(asRoot.headers.get('x-total')).toBe('3');
  });

  it('search: User.search on the starrers (name, username, e-mail exactly); a blank search is no filter', async () => {
    const found = await server.request('GET', `/api/v4/projects/${id}/starrers?search=dav`, { token: null });
    expect(found.body.map((row: { user: { id: number } }) => row.user.id)).toEqual([dave.id]);
    expect((await server.request('GET', `/api/v4/projects/${id}/starrers?search=bob@example.com`, { token: null })).body.map((row: { user: { id: number } }) => row.user.id)).toEqual([bob.id]);
    expect((await server.request('GET', `/api/v4/projects/${id}/starrers?search=car`, { token: null })).body).toEqual([]);
    expect((await server.request('GET', `/api/v4/projects/${id}/starrers?search=%20`, { token: null })).body).toHaveLength(2);
  });

  it('404 Project Not Found for a project the caller cannot read; 400 for a bad page', async () => {
    const closed = await newProject(alice, 'Hidden Stars', 'private');
    expect(await server.request('GET', `/api/v4/projects/${closed}/starrers`, { token: null }).then((r) => [r.status, r.text])).toEqual([404, '{"message":"404 Project Not Found"}']);
    expect(await server.request('GET', `/api/v4/projects/${closed}/starrers`, { token: bob.token }).then((r) => [r.status, r.text])).toEqual([404, '{"message":"404 Project Not Found"}']);
    expect((await server.request('GET', `/api/v4/projects/${closed}/starrers`, { token: alice.token })).body).toEqual([]);
    const bad = await server.request('GET', `/api/v4/projects/${id}/starrers?page=x`, { token: null });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'page is invalid' });
  });
});

describe('GET /users/:user_id/starred_projects and starred=true', () => {
  let pub: number, priv: number, other: number;
  let erin: Person;
  beforeAll(async () => {
    erin = await createPerson(server, 'erin');
    pub = await newProject(alice, 'Erin Public');
    priv = await newProject(alice, 'Erin Private', 'private');
    other = await newProject(dave, 'Erin Other', 'internal');
    await server.request('POST', `/api/v4/projects/${priv}/members`, { token: alice.token, body: { user_id: erin.id, access_level: 20 } });
    for (const project of [pub, priv, other]) expect((await star(erin, project)).status).toBe(201);
  });

  it('lists the projects the user starred that the caller can see, in the projects list order, by id or username', async () => {
    const mine = await server.request('GET', `/api/v4/users/${erin.id}/starred_projects`, { token: erin.token });
    expect(mine.status).toBe(200);
    expect(ids(mine.body)).toEqual([other, priv, pub]);
    expect(mine.headers.get('x-total')).toBe('3');
    // Signed-in callers get ProjectWithAccess (`present_projects`).
    expect(mine.body[0].permissions).toBeDefined();
    expect(ids((await server.request('GET', `/api/v4/users/erin/starred_projects`, { token: bob.token })).body)).toEqual([other, pub]);
    const anonymous = await server.request('GET', `/api/v4/users/erin/starred_projects`, { token: null });
    expect(ids(anonymous.body)).toEqual([pub]);
    expect('permissions' in anonymous.body[0]).toBe(false);
    // The projects list's filters and entities.
    expect(ids((await server.request('GET', `/api/v4/users/erin/starred_projects?visibility=internal`, { token: erin.token })).body)).toEqual([other]);
    expect(ids((await server.request('GET', `/api/v4/users/erin/starred_projects?order_by=id&sort=asc`, { token: erin.token })).body)).toEqual([pub, priv, other]);
    expect(ids((await server.request('GET', `/api/v4/users/erin/starred_projects?search=public`, { token: erin.token })).body)).toEqual([pub]);
    const simple = await server.request('GET', `/api/v4/users/erin/starred_projects?simple=true`, { token: erin.token });
    expect(Object.keys(simple.body[0]).sort()).toEqual(['avatar_url', 'created_at', 'default_branch', 'description', 'forks_count', 'http_url_to_repo', 'id', 'last_activity_at', 'name', 'name_with_namespace', 'namespace', 'path', 'path_with_namespace', 'readme_url', 'ssh_url_to_repo', 'star_count', 'tag_list', 'topics', 'web_url']);
    expect(ids((await server.request('GET', `/api/v4/users/erin/starred_projects?membership=true`, { token: erin.token })).body)).toEqual([priv]);
    // `starred=true` narrows it to the caller's own stars (ProjectsFinder#by_starred).
    await star(bob, pub);
    expect(ids((await server.request('GET', `/api/v4/users/erin/starred_projects?starred=true`, { token: bob.token })).body)).toEqual([pub]);
    await star(bob, pub, 'unstar');
  });

  it('keyset pagination by id, as the projects list', async () => {
    const first = await server.request('GET', `/api/v4/users/${erin.id}/starred_projects?pagination=keyset&order_by=id&sort=asc&per_page=2`, { token: erin.token });
    expect(ids(first.body)).toEqual([pub, priv]);
    expect(first.headers.get('link')).toContain(`id_after=${priv}`);
  });

  it('a private profile hides the list from others (StarredProjectsFinder: read_user_profile); 404 for an unknown user', async () => {
    const hana = await createPerson(server, 'hana', { private_profile: true });
    expect((await star(hana, pub)).status).toBe(201);
    const hidden = await server.request('GET', `/api/v4/users/${hana.id}/starred_projects`, { token: bob.token });
    expect(hidden.status).toBe(200);
    expect(hidden.body).toEqual([]);
    expect(hidden.headers.get('x-total')).toBe('0');
    expect((await server.request('GET', `/api/v4/users/hana/starred_projects`, { token: null })).body).toEqual([]);
    expect(ids((await server.request('GET', `/api/v4/users/${hana.id}/starred_projects`, { token: hana.token })).body)).toEqual([pub]);
    expect(ids((await server.request('GET', `/api/v4/users/${hana.id}/starred_projects`)).body)).toEqual([pub]);
    expect(await server.request('GET', '/api/v4/users/999999/starred_projects', { token: null }).then((r) => [r.status, r.text])).toEqual([404, '{"message":"404 User Not Found"}']);
    expect(await server.request('GET', '/api/v4/users/nobody/starred_projects', { token: null }).then((r) => [r.status, r.text])).toEqual([404, '{"message":"404 User Not Found"}']);
  });

  it('GET /projects?starred=true: the caller’s starred projects; anonymous callers get the list unfiltered', async () => {
    const r = await server.request('GET', '/api/v4/projects?starred=true', { token: erin.token });
    expect(r.status).toBe(200);
    expect(ids(r.body)).toEqual([other, priv, pub]);
    expect(r.headers.get('x-total')).toBe('3');
    expect(ids((await server.request('GET', '/api/v4/projects?starred=true&visibility=private', { token: erin.token })).body)).toEqual([priv]);
    expect((await server.request('GET', '/api/v4/projects?starred=true', { token: (await createPerson(server, 'nostars')).token })).body).toEqual([]);
    const anonymous = await server.request('GET', '/api/v4/projects?starred=true', { token: null });
    const unfiltered = await server.request('GET', '/api/v4/projects', { token: null });
    expect(anonymous.status).toBe(200);
    expect(ids(anonymous.body)).toEqual(ids(unfiltered.body));
    expect(anonymous.headers.get('x-total')).toBe(unfiltered.headers.get('x-total'));
    // The forks list takes the filter too: a fork shows only once the caller stars it.
    const fork = await server.request('POST', `/api/v4/projects/${pub}/fork`, { token: bob.token, body: { path: 'starred-fork' } });
    expect(fork.status).toBe(201);
    const forks = () => server.request('GET', `/api/v4/projects/${pub}/forks?starred=true`, { token: erin.token }).then((r) => ids(r.body));
    expect(await forks()).toEqual([]);
    expect((await star(erin, fork.body.id)).status).toBe(201);
    expect(await forks()).toEqual([fork.body.id]);
    expect((await star(erin, fork.body.id, 'unstar')).status).toBe(201);
  });

  it('a project that turns private stays starred but leaves the lists of those who cannot read it', async () => {
    const turning = await newProject(alice, 'Turning');
    await star(bob, turning);
    expect(ids((await server.request('GET', `/api/v4/users/bob/starred_projects`, { token: bob.token })).body)).toContain(turning);
    expect((await server.request('PUT', `/api/v4/projects/${turning}`, { token: alice.token, body: { visibility: 'private' } })).status).toBe(200);
    expect(ids((await server.request('GET', `/api/v4/users/bob/starred_projects`, { token: bob.token })).body)).not.toContain(turning);
    expect(ids((await server.request('GET', '/api/v4/projects?starred=true', { token: bob.token })).body)).not.toContain(turning);
    // The counter still counts the star (the row stays), and the owner sees the starrer.
    const shown = await server.request('GET', `/api/v4/projects/${turning}`, { token: alice.token });
    expect(shown.body.star_count).toBe(1);
    expect((await server.request('GET', `/api/v4/projects/${turning}/starrers`, { token: alice.token })).body.map((row: { user: { id: number } }) => row.user.id)).toEqual([bob.id]);
  });
});

describe('stars when accounts and projects go', () => {
  it('a blocked user’s star still counts and lists (14.7’s counter cache counts every row)', async () => {
    const frank = await createPerson(server, 'frank');
    const id = await newProject(alice, 'Blocked Star');
    await star(frank, id);
    expect((await server.request('POST', `/api/v4/users/${frank.id}/block`)).status).toBe(201);
    expect((await server.request('GET', `/api/v4/projects/${id}`, { token: null })).body.star_count).toBe(1);
    const starrers = await server.request('GET', `/api/v4/projects/${id}/starrers`, { token: null });
    expect(starrers.body.map((row: { user: { id: number; state: string } }) => [row.user.id, row.user.state])).toEqual([[frank.id, 'blocked']]);
  });

  it('a deleted account’s stars go with it (dependent: :destroy): the counts drop and the lists forget them', async () => {
    const gina = await createPerson(server, 'gina');
    const id = await newProject(alice, 'Left Behind');
    await star(gina, id);
    await star(bob, id);
    expect((await server.request('GET', `/api/v4/projects/${id}`, { token: null })).body.star_count).toBe(2);
    const deleted = await server.request('DELETE', `/api/v4/users/${gina.id}`);
    expect(deleted.status).toBe(204);
    expect((await server.request('GET', `/api/v4/projects/${id}`, { token: null })).body.star_count).toBe(1);
    expect((await server.request('GET', `/api/v4/projects/${id}/starrers`, { token: null })).body.map((row: { user: { id: number } }) => row.user.id)).toEqual([bob.id]);
  });

  it('a star touches the project (`touch: true`): an If-Unmodified-Since from before it answers 412', async () => {
    const id = await newProject(alice, 'Touched');
    const before = new Date(Date.parse((await server.request('GET', `/api/v4/projects/${id}`, { token: alice.token })).body.created_at) + 1000).toUTCString();
    server.advance(60_000);
    await star(bob, id);
    const stale = await server.request('DELETE', `/api/v4/projects/${id}`, { token: alice.token, headers: { 'If-Unmodified-Since': before } });
    expect(stale.status).toBe(412);
    expect((await server.request('GET', `/api/v4/projects/${id}`, { token: alice.token })).status).toBe(200);
  });

  it('a deleted project leaves its starrers’ lists', async () => {
    const id = await newProject(alice, 'Going Away');
    await star(dave, id);
    expect(ids((await server.request('GET', '/api/v4/users/dave/starred_projects', { token: dave.token })).body)).toContain(id);
    expect((await server.request('DELETE', `/api/v4/projects/${id}`, { token: alice.token })).status).toBe(202);
    expect(ids((await server.request('GET', '/api/v4/users/dave/starred_projects', { token: dave.token })).body)).not.toContain(id);
    expect(ids((await server.request('GET', '/api/v4/projects?starred=true', { token: dave.token })).body)).not.toContain(id);
  });
});

const ids = (body: { id: number }[]) => body.map((project) => project.id);

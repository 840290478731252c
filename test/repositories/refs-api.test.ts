/**
 * Tags, protected tags, branches and protected branches over HTTP (reference §2, lib/api/tags.rb,
 * protected_tags.rb, branches.rb, protected_branches.rb): bodies, statuses and the platform's messages.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { member, newDataDir, removeDir, start, type Running } from './support.js';

let server: Running;
let dataDir: string;
let project: { id: number };
let dev: { id: number; token: string };
let reporter: { id: number; token: string };
let guest: { id: number; token: string };
let maintainer: { id: number; token: string };
let outsider: { id: number; token: string };
let main: string;

beforeAll(async () => {
  dataDir = newDataDir();
  server = await start(dataDir);
  project = (await server.call('POST', '/projects', { name: 'Refs', path: 'refs-api', initialize_with_readme: true })).body;
  dev = await member(server, 'dev', { id: project.id, level: 30 });
  reporter = await member(server, 'reporter', { id: project.id, level: 20 });
  guest = await member(server, 'guest', { id: project.id, level: 10 });
  maintainer = await member(server, 'maintainer', { id: project.id, level: 40 });
  outsider = await member(server, 'outsider');
  main = (await server.call('GET', `/projects/${project.id}/repository/branches/main`)).body.commit.id;
});
afterAll(async () => {
  await server.close();
  removeDir(dataDir);
});

const tags = (query = '', token?: string | null) => server.call('GET', `/projects/${project.id}/repository/tags${query}`, undefined, token);

describe('tags', () => {
  it('creates lightweight and annotated tags with the platform entity, and lists them in version order', async () => {
    const light = await server.call('POST', `/projects/${project.id}/repository/tags`, { tag_name: 'v1.2', ref: 'main' }, dev.token);
    expect(light.status).toBe(201);
    expect(light.body).toMatchObject({ name: 'v1.2', message: '', target: main, release: null, protected: false });
    expect(light.body.commit).toMatchObject({ id: main, short_id: main.slice(0, 8), title: 'Initial commit', parent_ids: [], author_name: 'Administrator' });
    expect(Object.keys(light.body.commit)).toEqual([
      'id', 'short_id', 'created_at', 'parent_ids', 'title', 'message', 'author_name', 'author_email', 'authored_date',
      'committer_name', 'committer_email', 'committed_date', 'trailers', 'web_url',
    ]);
    const annotated = await server.call('POST', `/projects/${project.id}/repository/tags`, { tag_name: 'v1.10', ref: main, message: '  Release 1.10\n\n' }, dev.token);
    expect(annotated.status).toBe(201);
    expect(annotated.body.message).toBe('Release 1.10');
    expect(annotated.body.target).not.toBe(main);
    expect(annotated.body.commit.id).toBe(main);
    await server.call('POST', `/projects/${project.id}/repository/tags`, { tag_name: 'beta', ref: 'v1.2' }, dev.token);

    const byName = await tags('?order_by=name&sort=asc');
    expect(byName.body.map((tag: { name: string }) => tag.name)).toEqual(['beta', 'v1.2', 'v1.10']);
    expect(byName.headers.get('x-total')).toBe('3');
    expect((await tags('?order_by=name&sort=desc&per_page=1&page=2')).body.map((tag: { name: string }) => tag.name)).toEqual(['v1.2']);
    expect((await tags('?search=^v')).body.map((tag: { name: string }) => tag.name).sort()).toEqual(['v1.10', 'v1.2']);
    expect((await tags('?search=10$')).body.map((tag: { name: string }) => tag.name)).toEqual(['v1.10']);
    expect((await tags('?order_by=version')).body).toEqual({ error: 'order_by does not have a valid value' });

    const event = server.events.find((candidate) => candidate.type === 'TagCreated' && (candidate.data as { name: string }).name === 'v1.10')!;
    expect(event.data).toMatchObject({ target: annotated.body.target, commit_sha: main, message: 'Release 1.10', tagger: { name: 'DEV', email: 'dev@example.com' }, via: 'api' });
    expect(event.metadata.actorId).toBe(dev.id);
  });

  it('answers every failure of create with 400 and the service message', async () => {
    const create = (body: object) => server.call('POST', `/projects/${project.id}/repository/tags`, body, dev.token);
    expect(await create({ tag_name: 'v1.2', ref: 'main' })).toMatchObject({ status: 400, body: { message: 'Tag v1.2 already exists' } });
    expect(await create({ tag_name: 'new design', ref: 'main' })).toMatchObject({ status: 400, body: { message: 'Tag name invalid' } });
    expect(await create({ tag_name: 'v9', ref: 'nope' })).toMatchObject({ status: 400, body: { message: 'Target nope is invalid' } });
    expect(await create({ ref: 'main' })).toMatchObject({ status: 400, body: { error: 'tag_name is missing' } });
  });

  it('gets and deletes tags; a missing one is 404 Tag Not Found', async () => {
    expect((await server.call('GET', `/projects/${project.id}/repository/tags/beta`)).body.name).toBe('beta');
    expect(await server.call('GET', `/projects/${project.id}/repository/tags/nope`)).toMatchObject({ status: 404, body: { message: '404 Tag Not Found' } });
    expect((await server.call('DELETE', `/projects/${project.id}/repository/tags/beta`, undefined, dev.token)).status).toBe(204);
    expect(await server.call('DELETE', `/projects/${project.id}/repository/tags/beta`, undefined, dev.token)).toMatchObject({ status: 404, body: { message: '404 Tag Not Found' } });
    expect(server.events.filter((event) => event.type === 'TagDeleted').map((event) => event.data)).toEqual([{ project_id: project.id, name: 'beta', old_target: main, via: 'api' }]);
  });

  it('checks download_code before parameters, admin_tag to write; strangers see no project', async () => {
    expect((await tags('', reporter.token)).status).toBe(200);
    expect(await tags('', guest.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await tags('?order_by=version', guest.token)).toMatchObject({ status: 403 });
    expect(await tags('', outsider.token)).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect(await tags('', null)).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect(await server.call('POST', `/projects/${project.id}/repository/tags`, { tag_name: 'r1', ref: 'main' }, reporter.token)).toMatchObject({ status: 403 });
    expect(await server.call('DELETE', `/projects/${project.id}/repository/tags/v1.2`, undefined, reporter.token)).toMatchObject({ status: 403 });
  });
});

describe('protected tags', () => {
  it('protects wildcards for maintainers, and the API enforces them', async () => {
    const path = `/projects/${project.id}/protected_tags`;
    expect(await server.call('POST', path, { name: 'release-*' }, dev.token)).toMatchObject({ status: 403 });
    const created = await server.call('POST', path, { name: 'release-*', create_access_level: 40 }, maintainer.token);
    expect(created).toMatchObject({ status: 201, body: { name: 'release-*', create_access_levels: [{ access_level: 40, access_level_description: 'Maintainers', user_id: null, group_id: null }] } });
    expect(await server.call('POST', path, { name: 'release-*' }, maintainer.token)).toMatchObject({ status: 422, body: { message: ['Name has already been taken'] } });
    expect(await server.call('POST', path, { name: 'x', create_access_level: 20 }, maintainer.token)).toMatchObject({ status: 400, body: { error: 'create_access_level does not have a valid value' } });
    expect((await server.call('GET', path, undefined, maintainer.token)).body).toEqual([created.body]);
    expect((await server.call('GET', `${path}/release-*`, undefined, maintainer.token)).body).toEqual(created.body);
    expect(await server.call('GET', `${path}/release-1`, undefined, maintainer.token)).toMatchObject({ status: 404, body: { message: '404 Not found' } });

    const create = (token: string) => server.call('POST', `/projects/${project.id}/repository/tags`, { tag_name: 'release-1', ref: 'main' }, token);
    expect(await create(dev.token)).toMatchObject({ status: 400, body: { message: 'You are not allowed to create this tag as it is protected.' } });
    const made = await create(maintainer.token);
    expect(made).toMatchObject({ status: 201, body: { name: 'release-1', protected: true } });
    expect(await server.call('DELETE', `/projects/${project.id}/repository/tags/release-1`, undefined, dev.token)).toMatchObject({
      status: 400,
      body: { message: 'You are not allowed to delete protected tags from this project. Only a project maintainer or owner can delete a protected tag.' },
    });
    expect((await server.call('DELETE', `/projects/${project.id}/repository/tags/release-1`, undefined, maintainer.token)).status).toBe(204);
    expect((await server.call('DELETE', `${path}/release-*`, undefined, maintainer.token)).status).toBe(204);
    expect((await server.call('GET', path, undefined, maintainer.token)).body).toEqual([]);
  });
});

describe('branches and protected branches', () => {
  it('creates, lists, gets and deletes branches; the default branch cannot be deleted', async () => {
    const created = await server.call('POST', `/projects/${project.id}/repository/branches`, { branch: 'feature', ref: 'main' }, dev.token);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'feature', merged: false, protected: false, developers_can_push: false, developers_can_merge: false, can_push: true, default: false });
    expect(created.body.web_url).toMatch(/\/refs-api\/-\/tree\/feature$/);
    expect(await server.call('POST', `/projects/${project.id}/repository/branches`, { branch: 'feature', ref: 'main' }, dev.token)).toMatchObject({ status: 400, body: { message: 'Branch already exists' } });
    expect(await server.call('POST', `/projects/${project.id}/repository/branches`, { branch: 'x y', ref: 'main' }, dev.token)).toMatchObject({ status: 400, body: { message: 'Branch name is invalid' } });
    expect(await server.call('POST', `/projects/${project.id}/repository/branches`, { branch: 'other', ref: 'nope' }, dev.token)).toMatchObject({ status: 400, body: { message: 'Invalid reference name: nope' } });
    expect(await server.call('POST', `/projects/${project.id}/repository/branches`, { branch: '', ref: 'main' }, dev.token)).toMatchObject({ status: 400, body: { error: 'branch is empty' } });
    expect(await server.call('POST', `/projects/${project.id}/repository/branches`, { branch: 'r', ref: 'main' }, reporter.token)).toMatchObject({ status: 403 });

    const list = await server.call('GET', `/projects/${project.id}/repository/branches?search=feat`);
    expect(list.body.map((branch: { name: string }) => branch.name)).toEqual(['feature']);
    expect((await server.call('GET', `/projects/${project.id}/repository/branches/main`)).body).toMatchObject({ name: 'main', default: true, merged: false });
    expect(await server.call('GET', `/projects/${project.id}/repository/branches/nope`)).toMatchObject({ status: 404, body: { message: '404 Branch Not Found' } });
    expect(await server.call('DELETE', `/projects/${project.id}/repository/branches/main`, undefined, maintainer.token)).toMatchObject({
      status: 400,
      body: { message: 'The default branch of a project cannot be deleted.' },
    });
    expect((await server.call('DELETE', `/projects/${project.id}/repository/branches/feature`, undefined, dev.token)).status).toBe(204);
    expect(server.events.filter((event) => event.type === 'BranchDeleted').map((event) => event.data)).toEqual([{ project_id: project.id, name: 'feature', old_sha: main, via: 'api' }]);
  });

  it('protects branches for maintainers; creation and deletion follow the protection', async () => {
    const path = `/projects/${project.id}/protected_branches`;
    const rule = await server.call('POST', path, { name: 'stable-*', push_access_level: 40, merge_access_level: 30 }, maintainer.token);
    expect(rule).toMatchObject({
      status: 201,
      body: {
        id: expect.any(Number),
        name: 'stable-*',
        push_access_levels: [{ access_level: 40, access_level_description: 'Maintainers' }],
        merge_access_levels: [{ access_level: 30, access_level_description: 'Developers + Maintainers' }],
        allow_force_push: false,
        unprotect_access_levels: [],
        code_owner_approval_required: false,
      },
    });
    expect(await server.call('POST', path, { name: 'stable-*' }, maintainer.token)).toMatchObject({ status: 409, body: { message: "Protected branch 'stable-*' already exists" } });
    expect(await server.call('GET', path, undefined, dev.token)).toMatchObject({ status: 403 });
    // A merger may create a protected branch through the API (not by a push).
    const made = await server.call('POST', `/projects/${project.id}/repository/branches`, { branch: 'stable-1', ref: 'main' }, dev.token);
    expect(made).toMatchObject({ status: 201, body: { protected: true, developers_can_merge: true, developers_can_push: false, can_push: false } });
    expect(await server.call('DELETE', `/projects/${project.id}/repository/branches/stable-1`, undefined, dev.token)).toMatchObject({
      status: 400,
      body: { message: 'You are not allowed to delete protected branches from this project. Only a project maintainer or owner can delete a protected branch.' },
    });
    expect((await server.call('DELETE', `/projects/${project.id}/repository/branches/stable-1`, undefined, maintainer.token)).status).toBe(204);
    expect((await server.call('DELETE', `${path}/stable-*`, undefined, maintainer.token)).status).toBe(204);
    expect(await server.call('DELETE', `${path}/stable-*`, undefined, maintainer.token)).toMatchObject({ status: 404, body: { message: '404 Not found' } });

    const legacy = await server.call('PUT', `/projects/${project.id}/repository/branches/main/protect`, { developers_can_push: true }, maintainer.token);
    expect(legacy.body).toMatchObject({ name: 'main', protected: true, developers_can_push: true, developers_can_merge: false });
    expect((await server.call('PUT', `/projects/${project.id}/repository/branches/main/unprotect`, undefined, maintainer.token)).body.protected).toBe(false);
  });
});

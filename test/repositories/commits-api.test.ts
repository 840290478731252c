/** Commits, compare, files and tree over HTTP (lib/api/commits.rb, repositories.rb, files.rb, 14.7). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { member, newDataDir, removeDir, start, unprotectDefaultBranches, type Running } from './support.js';

let server: Running;
let dataDir: string;
let project: { id: number };
let dev: { id: number; token: string };
let reporter: { id: number; token: string };

const base = () => `/projects/${project.id}/repository`;
const commit = (body: object, token = dev.token) => server.call('POST', `${base()}/commits`, body, token);

beforeAll(async () => {
  dataDir = newDataDir();
  server = await start(dataDir);
  await unprotectDefaultBranches(server);
  project = (await server.call('POST', '/projects', { name: 'Commits', path: 'commits-api', initialize_with_readme: true })).body;
  dev = await member(server, 'dev', { id: project.id, level: 30 });
  reporter = await member(server, 'reporter', { id: project.id, level: 20 });
});
afterAll(async () => {
  await server.close();
  removeDir(dataDir);
});

describe('commits', () => {
  it('commits actions into a branch and answers the commit detail with stats; the move is recorded', async () => {
    const created = await commit({
      branch: 'main',
      commit_message: 'Add code\n\nWith a body',
      actions: [
        { action: 'create', file_path: 'src/app.js', content: 'one\ntwo\n' },
        { action: 'create', file_path: 'bin/run', content: '#!/bin/sh\n', execute_filemode: true },
        { action: 'update', file_path: 'README.md', content: '# Commits\nMore\n' },
      ],
      author_name: 'Ada',
      author_email: 'ada@example.com',
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      title: 'Add code',
      message: 'Add code\n\nWith a body',
      author_name: 'Ada',
      author_email: 'ada@example.com',
      committer_name: 'DEV',
      committer_email: 'dev@example.com',
      stats: { additions: 4, deletions: 0, total: 4 },
      status: null,
      project_id: project.id,
      last_pipeline: null,
    });
    expect(created.body.parent_ids).toHaveLength(1);
    const moved = server.events.filter((event) => event.type === 'BranchUpdated').at(-1)!;
    expect(moved.data).toEqual({ project_id: project.id, name: 'main', old_sha: created.body.parent_ids[0], new_sha: created.body.id, forced: false, via: 'api' });
    expect(moved.metadata.actorId).toBe(dev.id);

    const branched = await commit({ branch: 'feature', start_branch: 'main', commit_message: 'Move and chmod', actions: [{ action: 'move', file_path: 'src/main.js', previous_path: 'src/app.js' }, { action: 'chmod', file_path: 'bin/run', execute_filemode: false }] });
    expect(branched.status).toBe(201);
    expect(server.events.at(-1)).toMatchObject({ type: 'BranchCreated', data: { name: 'feature', sha: branched.body.id } });
  });

  it('refuses bad actions with Grape and service messages, and pushes it may not make', async () => {
    expect(await commit({ branch: 'main', commit_message: 'x', actions: [{ action: 'create', file_path: 'README.md', content: 'x' }] })).toMatchObject({
      status: 400,
      body: { message: 'A file with this name already exists' },
    });
    expect(await commit({ branch: 'main', commit_message: 'x', actions: [{ action: 'explode', file_path: 'a' }] })).toMatchObject({
      status: 400,
      body: { error: 'actions[0][action] does not have a valid value' },
    });
    expect(await commit({ branch: 'main', commit_message: 'x', actions: [{ action: 'update', file_path: 'a' }] })).toMatchObject({ status: 400, body: { error: 'actions[0][content] is missing' } });
    expect(await commit({ branch: 'main', commit_message: 'x', actions: [{ action: 'delete', file_path: 'nope' }] })).toMatchObject({ status: 400, body: { message: "A file with this name doesn't exist" } });
    expect(await commit({ branch: 'main', commit_message: 'x', actions: [{ action: 'create', file_path: 'y', content: 'y' }] }, reporter.token)).toMatchObject({
      status: 403,
      body: { message: '403 Forbidden - You are not allowed to push into this branch' },
    });
    await server.call('POST', `/projects/${project.id}/protected_branches`, { name: 'main' });
    expect(await commit({ branch: 'main', commit_message: 'x', actions: [{ action: 'create', file_path: 'y', content: 'y' }] })).toMatchObject({
      status: 403,
      body: { message: '403 Forbidden - You are not allowed to push into this branch' },
    });
    await server.call('DELETE', `/projects/${project.id}/protected_branches/main`);
  });

  it('lists, gets and diffs commits; refs and compare', async () => {
    const list = await server.call('GET', `${base()}/commits?per_page=2`);
    expect(list.status).toBe(200);
    expect(list.body.map((c: { title: string }) => c.title)).toEqual(['Add code', 'Initial commit']);
    // The platform does not count commits (`exclude_total_headers`, one more commit assumed after a full page): no
    // totals, and a next page after a full one, even when it comes back empty.
    const pageHeaders = (response: typeof list) =>
      Object.fromEntries(['x-total', 'x-total-pages', 'x-page', 'x-next-page', 'x-prev-page'].map((name) => [name, response.headers.get(name)]));
    const links = (response: typeof list) => (response.headers.get('link') ?? '').split(', ').map((link) => link.replace(/^<[^>]*[?&]page=(\d+)[^>]*>/, '$1'));
    expect(pageHeaders(list)).toEqual({ 'x-total': null, 'x-total-pages': null, 'x-page': '1', 'x-next-page': '2', 'x-prev-page': '' });
    expect(links(list)).toEqual(['2; rel="next"', '1; rel="first"', '2; rel="last"']);
    const beyond = await server.call('GET', `${base()}/commits?per_page=2&page=2`);
    expect([beyond.body, pageHeaders(beyond), links(beyond)]).toEqual([
      [],
      { 'x-total': null, 'x-total-pages': null, 'x-page': '2', 'x-next-page': '', 'x-prev-page': '1' },
      ['1; rel="prev"', '1; rel="first"', '2; rel="last"'],
    ]);
    const partial = await server.call('GET', `${base()}/commits?per_page=3`);
    expect([partial.body.length, pageHeaders(partial)['x-next-page'], links(partial)]).toEqual([2, '', ['1; rel="first"', '1; rel="last"']]);
    expect((await server.call('GET', `${base()}/commits?ref_name=feature&path=src/main.js`)).body.map((c: { title: string }) => c.title)).toEqual(['Move and chmod']);
    expect((await server.call('GET', `${base()}/commits?ref_name=nope`)).body).toEqual([]);
    const head = list.body[0].id as string;
    const first = list.body[1].id as string;
    const { body: created } = await server.call('GET', `${base()}/commits/${first}`);
    expect((await server.call('GET', `${base()}/commits?since=${encodeURIComponent(new Date(Date.parse(created.committed_date) + 1000).toISOString())}`)).body.map((c: { id: string }) => c.id)).toEqual([head]);
    expect((await server.call('GET', `${base()}/commits?until=${encodeURIComponent(created.committed_date)}`)).body.map((c: { id: string }) => c.id)).toEqual([first]);
    const withStats = await server.call('GET', `${base()}/commits?with_stats=true&per_page=1`);
    expect(withStats.body[0].stats).toEqual({ additions: 4, deletions: 0, total: 4 });

    expect((await server.call('GET', `${base()}/commits/main`)).body).toMatchObject({ id: head, stats: { total: 4 } });
    expect(await server.call('GET', `${base()}/commits/deadbeef`)).toMatchObject({ status: 404, body: { message: '404 Commit Not Found' } });
    const diff = await server.call('GET', `${base()}/commits/${head}/diff`);
    expect(diff.body.map((d: { new_path: string }) => d.new_path).sort()).toEqual(['README.md', 'bin/run', 'src/app.js']);
    expect(diff.body.find((d: { new_path: string }) => d.new_path === 'src/app.js')).toEqual({
      old_path: 'src/app.js',
      new_path: 'src/app.js',
      a_mode: '0',
      b_mode: '100644',
      new_file: true,
      renamed_file: false,
      deleted_file: false,
      diff: '@@ -0,0 +1,2 @@\n+one\n+two\n',
    });
    expect((await server.call('GET', `${base()}/commits/${head}/refs`)).body).toEqual([
      { type: 'branch', name: 'feature' },
      { type: 'branch', name: 'main' },
    ]);
    expect((await server.call('GET', `${base()}/commits/${head}/refs?type=tag`)).body).toEqual([]);

    const compare = await server.call('GET', `${base()}/compare?from=main&to=feature`);
    expect(compare.body).toMatchObject({ compare_timeout: false, compare_same_ref: false });
    expect(compare.body.commits.map((c: { title: string }) => c.title)).toEqual(['Move and chmod']);
    expect(compare.body.commit.title).toBe('Move and chmod');
    expect(compare.body.diffs.find((d: { renamed_file: boolean }) => d.renamed_file)).toMatchObject({ old_path: 'src/app.js', new_path: 'src/main.js' });
    expect((await server.call('GET', `${base()}/compare?from=main&to=main`)).body).toMatchObject({ commit: null, commits: [], diffs: [], compare_same_ref: true });
    expect(await server.call('GET', `${base()}/compare?from=main&to=nope`)).toMatchObject({ status: 404, body: { message: '404 Ref Not Found' } });
  });

  it('orders tags by the date of their commits (the default order)', async () => {
    await server.call('POST', `${base()}/tags`, { tag_name: 'old', ref: 'main~1' });
    await server.call('POST', `${base()}/tags`, { tag_name: 'new', ref: 'feature' });
    await server.call('POST', `${base()}/tags`, { tag_name: 'mid', ref: 'main' });
    expect((await server.call('GET', `${base()}/tags`)).body.map((t: { name: string }) => t.name)).toEqual(['new', 'mid', 'old']);
    expect((await server.call('GET', `${base()}/tags?sort=asc`)).body.map((t: { name: string }) => t.name)).toEqual(['old', 'mid', 'new']);
  });
});

describe('files and tree', () => {
  it('reads a file with its headers, raw, and by HEAD', async () => {
    const file = await server.call('GET', `${base()}/files/src%2Fmain.js?ref=feature`);
    expect(file.status).toBe(200);
    expect(file.body).toMatchObject({ file_name: 'main.js', file_path: 'src/main.js', size: 8, encoding: 'base64', ref: 'feature', content: Buffer.from('one\ntwo\n').toString('base64') });
    expect(file.body.content_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(file.headers.get('x-gitlab-file-name')).toBe('main.js');
    expect(file.headers.get('x-gitlab-last-commit-id')).toBe(file.body.last_commit_id);
    const raw = await fetch(`${server.url}/api/v4${base()}/files/src%2Fmain.js/raw?ref=feature`, { headers: { 'PRIVATE-TOKEN': dev.token } });
    expect(raw.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await raw.text()).toBe('one\ntwo\n');
    expect((await server.call('HEAD', `${base()}/files/src%2Fmain.js?ref=feature`)).headers.get('x-gitlab-size')).toBe('8');
    expect(await server.call('GET', `${base()}/files/nope?ref=main`)).toMatchObject({ status: 404, body: { message: '404 File Not Found' } });
    expect(await server.call('GET', `${base()}/files/README.md?ref=nope`)).toMatchObject({ status: 404, body: { message: '404 Commit Not Found' } });
    expect(await server.call('GET', `${base()}/files/README.md`)).toMatchObject({ status: 400, body: { error: 'ref is missing' } });
  });

  it('creates, updates and deletes files, one commit each', async () => {
    const created = await server.call('POST', `${base()}/files/docs%2Fguide.md`, { branch: 'main', commit_message: 'Guide', content: 'Hello' }, dev.token);
    expect(created).toMatchObject({ status: 201, body: { file_path: 'docs/guide.md', branch: 'main' } });
    expect(await server.call('POST', `${base()}/files/docs%2Fguide.md`, { branch: 'main', commit_message: 'Again', content: 'x' }, dev.token)).toMatchObject({
      status: 400,
      body: { message: 'A file with this name already exists' },
    });
    const updated = await server.call('PUT', `${base()}/files/docs%2Fguide.md`, { branch: 'main', commit_message: 'Guide 2', content: Buffer.from('Bonjour').toString('base64'), encoding: 'base64' }, dev.token);
    expect(updated).toMatchObject({ status: 200, body: { file_path: 'docs/guide.md', branch: 'main' } });
    expect((await (await fetch(`${server.url}/api/v4${base()}/files/docs%2Fguide.md/raw?ref=main`, { headers: { 'PRIVATE-TOKEN': dev.token } })).text())).toBe('Bonjour');
    expect(await server.call('POST', `${base()}/files/x`, { branch: 'main', commit_message: 'x', content: 'x' }, reporter.token)).toMatchObject({ status: 403 });
    expect((await server.call('DELETE', `${base()}/files/docs%2Fguide.md`, { branch: 'main', commit_message: 'Remove guide' }, dev.token)).status).toBe(204);
    expect((await server.call('GET', `${base()}/commits?per_page=3`)).body.map((c: { title: string }) => c.title)).toEqual(['Remove guide', 'Guide 2', 'Guide']);
  });

  it('lists trees: trees first, by path, recursively, paginated', async () => {
    const root = await server.call('GET', `${base()}/tree?ref=feature`);
    expect(root.body.map((e: { path: string; type: string }) => `${e.type}:${e.path}`)).toEqual(['tree:bin', 'tree:src', 'blob:README.md']);
    expect(root.body[0]).toEqual({ id: expect.stringMatching(/^[0-9a-f]{40}$/), name: 'bin', type: 'tree', path: 'bin', mode: '040000' });
    expect((await server.call('GET', `${base()}/tree?ref=feature&path=src`)).body.map((e: { path: string }) => e.path)).toEqual(['src/main.js']);
    const recursive = await server.call('GET', `${base()}/tree?ref=feature&recursive=true&per_page=2`);
    expect(recursive.headers.get('x-total')).toBe('5');
    expect(await server.call('GET', `${base()}/tree?ref=nope`)).toMatchObject({ status: 404, body: { message: '404 Tree Not Found' } });
  });
});

/** Pipelines over HTTP, raw (lib/api/ci/pipelines.rb, 14.7): create from a ref read from git, list filters, get, cancel, retry, delete. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { api, member } from './support.js';

let server: TestServer;
let project: { id: number; path_with_namespace: string };
let sha: string;
let dev: { id: number; token: string };
let maint: { id: number; token: string };
let reporter: { id: number; token: string };

const P = () => `/projects/${project.id}`;

beforeAll(async () => {
  server = await startServer({ start: '2026-03-02T10:00:00.000Z' });
  project = (await api(server, 'POST', '/projects', { name: 'Pipes', initialize_with_readme: true })).body;
  sha = (await api(server, 'GET', `${P()}/repository/branches/main`)).body.commit.id;
  dev = await member(server, 'dev', { id: project.id, level: 30 });
  maint = await member(server, 'maint', { id: project.id, level: 40 });
  reporter = await member(server, 'rep', { id: project.id, level: 20 });
  await api(server, 'POST', `${P()}/repository/branches`, { branch: 'feature', ref: 'main' });
  await api(server, 'POST', `${P()}/repository/tags`, { tag_name: 'v1.0', ref: 'main', message: 'Release' });
  await api(server, 'POST', `${P()}/protected_branches`, { name: 'main' });
});
afterAll(async () => server?.close());

describe('pipelines', () => {
  it('creates a pipeline on a branch: 201, the branch commit, source api, the caller as user', async () => {
    const created = await api(server, 'POST', `${P()}/pipeline`, { ref: 'feature', variables: [{ key: 'A', value: '1' }] }, dev.token);
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: 1,
      iid: 1,
      project_id: project.id,
      sha,
      ref: 'feature',
      status: 'created',
      source: 'api',
      created_at: '2026-03-02T10:00:00.000Z',
      updated_at: '2026-03-02T10:00:00.000Z',
      web_url: `${server.baseUrl}/${project.path_with_namespace}/-/pipelines/1`,
      before_sha: '0'.repeat(40),
      tag: false,
      yaml_errors: null,
      user: expect.objectContaining({ id: dev.id, username: 'dev' }),
      started_at: null,
      finished_at: null,
      committed_at: null,
      duration: null,
      queued_duration: null,
      coverage: null,
      detailed_status: {
        icon: 'status_created',
        text: 'created',
        label: 'created',
        group: 'created',
        tooltip: 'created',
        has_details: true,
        details_path: `/${project.path_with_namespace}/-/pipelines/1`,
        illustration: null,
        favicon: '/assets/ci_favicons/favicon_status_created.png',
      },
    });
  });

  it('a tag pipeline peels an annotated tag to its commit', async () => {
    const created = await api(server, 'POST', `${P()}/pipeline`, { ref: 'v1.0' }, maint.token);
    expect(created.body).toMatchObject({ ref: 'v1.0', tag: true, sha });
  });

  it('refuses as the platform: unknown ref 400 on base, protected ref 400, Reporter 403, anonymous 401, bad params 400', async () => {
    expect(await api(server, 'POST', `${P()}/pipeline`, { ref: 'nope' }, dev.token)).toMatchObject({ status: 400, body: { message: { base: ['Reference not found'] } } });
    expect(await api(server, 'POST', `${P()}/pipeline`, { ref: 'main' }, dev.token)).toMatchObject({ status: 400, body: { message: { base: ["Insufficient permissions for protected ref 'main'"] } } });
    expect(await api(server, 'POST', `${P()}/pipeline`, { ref: 'main' }, reporter.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await api(server, 'POST', `${P()}/pipeline`, { ref: 'main' }, null)).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    expect((await api(server, 'POST', `${P()}/pipeline`, {}, dev.token)).body).toEqual({ error: 'ref is missing' });
    expect((await api(server, 'GET', `${P()}/pipelines?scope=done`, undefined, dev.token)).body).toEqual({ error: 'scope does not have a valid value' });
    expect(await api(server, 'GET', `${P()}/pipelines/999`, undefined, dev.token)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
  });

  it('lists with filters, order and pagination; gets one', async () => {
    const main = await api(server, 'POST', `${P()}/pipeline`, { ref: 'main' }, maint.token);
    expect(main.status).toBe(201);
    const list = async (query: string) => ((await api(server, 'GET', `${P()}/pipelines${query}`, undefined, reporter.token)).body as { id: number }[]).map((p) => p.id);
    expect(await list('')).toEqual([3, 2, 1]);
    expect(await list('?sort=asc')).toEqual([1, 2, 3]);
    expect(await list('?ref=feature')).toEqual([1]);
    expect(await list(`?sha=${sha}&username=maint`)).toEqual([3, 2]);
    expect(await list('?scope=tags')).toEqual([2]);
    expect(await list('?scope=branches')).toEqual([3, 1]);
    expect(await list('?source=push')).toEqual([]);
    expect(await list('?order_by=ref&sort=asc')).toEqual([1, 3, 2]);
    const page = await api(server, 'GET', `${P()}/pipelines?per_page=2&page=2`, undefined, reporter.token);
    expect(page.body.map((p: { id: number }) => p.id)).toEqual([1]);
    expect(page.headers.get('x-total')).toBe('3');
    expect(Object.keys(page.body[0])).toEqual(['id', 'iid', 'project_id', 'sha', 'ref', 'status', 'source', 'created_at', 'updated_at', 'web_url']);
    expect((await api(server, 'GET', `${P()}/pipelines/3`, undefined, reporter.token)).body).toMatchObject({ id: 3, ref: 'main', user: { username: 'maint' } });
  });

  it('cancel 200 (canceled), retry 201 (pending); a Developer may not on a protected ref; delete 204 for the owner only', async () => {
    const canceled = await api(server, 'POST', `${P()}/pipelines/1/cancel`, undefined, dev.token);
    expect(canceled).toMatchObject({ status: 200, body: { id: 1, status: 'canceled', finished_at: '2026-03-02T10:00:00.000Z' } });
    expect((await api(server, 'GET', `${P()}/pipelines?status=canceled`, undefined, dev.token)).body.map((p: { id: number }) => p.id)).toEqual([1]);
    const retried = await api(server, 'POST', `${P()}/pipelines/1/retry`, undefined, dev.token);
    expect(retried).toMatchObject({ status: 201, body: { id: 1, status: 'pending', finished_at: null } });
    expect((await api(server, 'POST', `${P()}/pipelines/3/cancel`, undefined, dev.token)).status).toBe(403);
    expect((await api(server, 'POST', `${P()}/pipelines/3/cancel`, undefined, reporter.token)).status).toBe(403);
    expect((await api(server, 'DELETE', `${P()}/pipelines/1`, undefined, maint.token)).status).toBe(403);
    expect(await api(server, 'DELETE', `${P()}/pipelines/1`)).toMatchObject({ status: 204, text: '' });
    expect((await api(server, 'GET', `${P()}/pipelines/1`, undefined, dev.token)).status).toBe(404);
  });
});

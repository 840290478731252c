/**
 * `POST /projects/:id/fork` against a real server: the platform's shape and refusals (projects_spec.rb
 * "POST /projects/:id/fork"), through @gitbeaker/rest and raw calls; the fork's repository is a real copy
 * (cloned with git, independent of its source), recorded in the log as the fork relation and ref events.
 */
import { join } from 'node:path';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { client, clientEnv } from '../git/support.js';
import { member, newDataDir, removeDir, start, type Running } from './support.js';

let server: Running;
let dataDir: string;
let work: string;
let source: { id: number; path: string; name: string; path_with_namespace: string };
let reporter: { id: number; token: string };

beforeAll(async () => {
  dataDir = newDataDir();
  work = mkdtempSync(join(tmpdir(), 'forgefold-fork-'));
  server = await start(dataDir);
  source = (await server.call('POST', '/projects', { name: 'Upstream', initialize_with_readme: true, default_branch: 'trunk', visibility: 'internal' })).body;
  await server.call('POST', `/projects/${source.id}/repository/branches`, { branch: 'topic', ref: 'trunk' });
  await server.call('POST', `/projects/${source.id}/repository/tags`, { tag_name: 'v1.0', ref: 'trunk', message: 'Release' });
  reporter = await member(server, 'forker', { id: source.id, level: 20 });
});
afterAll(async () => {
  await server.close();
  removeDir(dataDir);
  removeDir(work);
});

describe('POST /projects/:id/fork', () => {
  it('forks into the caller’s namespace with the source’s name, path, branches and tags, and records the relation', async () => {
    const api = new Gitlab({ host: server.url, token: reporter.token });
    const fork = (await api.Projects.fork(source.id)) as unknown as Record<string, unknown> & { id: number; forked_from_project: Record<string, unknown>; owner: { id: number }; namespace: { path: string } };
    expect(fork).toMatchObject({ name: 'Upstream', path: 'upstream', path_with_namespace: 'forker/upstream', visibility: 'internal', default_branch: 'trunk', empty_repo: false, forks_count: 0 });
    expect(fork.owner.id).toBe(reporter.id);
    expect(fork.forked_from_project).toMatchObject({ id: source.id, path_with_namespace: source.path_with_namespace, forks_count: 1 });
    expect(Object.keys(fork.forked_from_project)).not.toContain('owner');

    const branches = await server.call('GET', `/projects/${fork.id}/repository/branches`, undefined, reporter.token);
    expect((branches.body as { name: string }[]).map((branch) => branch.name)).toEqual(['topic', 'trunk']);
    const tag = await server.call('GET', `/projects/${fork.id}/repository/tags/v1.0`, undefined, reporter.token);
    expect(tag.body).toMatchObject({ name: 'v1.0', message: 'Release' });
    const events = server.events.filter((event) => (event.data as { project_id?: number; id?: number }).project_id === fork.id || (event.type === 'ProjectForked' && (event.data as { id: number }).id === fork.id));
    // `Project#after_import` protects the fork's default branch (`after_create_default_branch`).
    expect(events.map((event) => event.type)).toEqual(['ProjectForked', 'DefaultBranchChanged', 'BranchCreated', 'BranchCreated', 'TagCreated', 'ProtectedBranchCreated']);
    expect(events.at(-1)!.data).toMatchObject({ name: 'trunk' });
    expect(events.every((event) => event.metadata.actorId === reporter.id)).toBe(true);

    // A real copy: it clones, and the source's later commits do not reach it.
    const clone = await client(work, ['clone', '--quiet', `http://forker:${reporter.token}@${new URL(server.url).host}/forker/upstream.git`, 'fork'], clientEnv(work));
    expect(clone.code, clone.stderr).toBe(0);
    expect((await client(join(work, 'fork'), ['log', '--format=%s', 'origin/topic'], clientEnv(work))).stdout.trim()).toBe('Initial commit');
    await server.call('POST', `/projects/${source.id}/repository/commits`, { branch: 'trunk', commit_message: 'Upstream only', actions: [{ action: 'create', file_path: 'x', content: 'x' }] });
    const forkHead = await server.call('GET', `/projects/${fork.id}/repository/commits/trunk`, undefined, reporter.token);
    expect(forkHead.body).toMatchObject({ title: 'Initial commit' });

    const shown = await server.call('GET', `/projects/${source.id}`);
    expect(shown.body).toMatchObject({ forks_count: 1 });
    expect(Object.keys(shown.body as object)).not.toContain('forked_from_project');
  });

  it('answers the platform’s refusals: 409 for a taken name and path, 404s for the project and namespaces, 401 anonymous', async () => {
    const taken = await server.call('POST', `/projects/${source.id}/fork`, {}, reporter.token);
    expect(taken.status).toBe(409);
    expect(taken.body).toEqual({ message: { name: ['has already been taken'], path: ['has already been taken'] } });
    const pathTaken = await server.call('POST', `/projects/${source.id}/fork`, { name: 'Other name' }, reporter.token);
    expect(pathTaken.status).toBe(409);
    expect(pathTaken.body).toEqual({ message: { path: ['has already been taken'] } });

    const stranger = await member(server, 'stranger');
    const privateSource = (await server.call('POST', '/projects', { name: 'Secret', visibility: 'private' })).body;
    expect(await server.call('POST', `/projects/${privateSource.id}/fork`, {}, stranger.token)).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect(await server.call('POST', '/projects/424242/fork', {}, reporter.token)).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect(await server.call('POST', `/projects/${source.id}/fork`, { namespace: 42424242 }, reporter.token)).toMatchObject({ status: 404, body: { message: '404 Namespace Not Found' } });
    const group = (await server.call('POST', '/groups', { name: 'Others', path: 'others', visibility: 'internal' })).body;
    expect(await server.call('POST', `/projects/${source.id}/fork`, { namespace_path: 'others', path: 'x' }, reporter.token)).toMatchObject({ status: 404, body: { message: '404 Target Namespace Not Found' } });
    const admin = await server.call('POST', `/projects/${source.id}/fork`, { namespace_id: group.id, path: 'upstream-copy', name: 'Copy', visibility: 'private' });
    expect(admin.status).toBe(201);
    expect(admin.body).toMatchObject({ path_with_namespace: 'others/upstream-copy', name: 'Copy', visibility: 'private', namespace: { id: group.id } });

    const anonymous = await fetch(`${server.url}/api/v4/projects/${source.id}/fork`, { method: 'POST' });
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({ message: '401 Unauthorized' });
    expect((await server.call('GET', `/projects/${source.id}`)).body).toMatchObject({ forks_count: 2 });
  });

  it('leaves the fork standing when its source is deleted, as a fork of nothing', async () => {
    const upstream = (await server.call('POST', '/projects', { name: 'Short lived', initialize_with_readme: true })).body;
    const fork = (await server.call('POST', `/projects/${upstream.id}/fork`, { path: 'kept', name: 'Kept' })).body;
    expect(fork.forked_from_project.id).toBe(upstream.id);
    expect((await server.call('DELETE', `/projects/${upstream.id}`)).status).toBe(202);
    const shown = await server.call('GET', `/projects/${fork.id}`);
    expect(Object.keys(shown.body as object)).not.toContain('forked_from_project');
    const readme = await server.call('GET', `/projects/${fork.id}/repository/files/README.md/raw?ref=main`);
    expect(readme.status).toBe(200);
  });
  it('lists direct forks from the forks index: a fork of a fork is not listed, deleted forks leave, a deleted source takes its list along', async () => {
    const ids = (response: { body: { id: number }[] }) => response.body.map((p) => p.id);
    const root = (await server.call('POST', '/projects', { name: 'Network root', initialize_with_readme: true })).body;
    const b = (await server.call('POST', `/projects/${root.id}/fork`, { path: 'network-b', name: 'Network b' })).body;
    const c = (await server.call('POST', `/projects/${root.id}/fork`, { path: 'network-c', name: 'Network c' })).body;
    const d = (await server.call('POST', `/projects/${b.id}/fork`, { path: 'network-d', name: 'Network d' })).body;
    expect(ids(await server.call('GET', `/projects/${root.id}/forks?order_by=id&sort=asc`))).toEqual([b.id, c.id]);
    expect(ids(await server.call('GET', `/projects/${b.id}/forks`))).toEqual([d.id]);
    expect(ids(await server.call('GET', `/projects/${d.id}/forks`))).toEqual([]);
    // Pagination over the index.
    const first = await server.call('GET', `/projects/${root.id}/forks?order_by=id&sort=asc&per_page=1&page=2`);
    expect(ids(first)).toEqual([c.id]);
    expect(first.headers.get('x-total')).toBe('2');
    expect((await server.call('DELETE', `/projects/${c.id}`)).status).toBe(202);
    expect(ids(await server.call('GET', `/projects/${root.id}/forks`))).toEqual([b.id]);
    expect((await server.call('GET', `/projects/${root.id}`)).body).toMatchObject({ forks_count: 1 });
    // The source goes: its fork is a fork of nothing, and the fork's own forks stay its forks.
    expect((await server.call('DELETE', `/projects/${b.id}`)).status).toBe(202);
    expect(ids(await server.call('GET', `/projects/${root.id}/forks`))).toEqual([]);
    expect(Object.keys((await server.call('GET', `/projects/${d.id}`)).body as object)).not.toContain('forked_from_project');
    // A new fork of the root after all that is listed alone.
    const e = (await server.call('POST', `/projects/${root.id}/fork`, { path: 'network-e', name: 'Network e' })).body;
    expect(ids(await server.call('GET', `/projects/${root.id}/forks`))).toEqual([e.id]);
    // The index comes back with the state after a restart.
    await server.close();
    server = await start(dataDir);
    expect(ids(await server.call('GET', `/projects/${root.id}/forks`))).toEqual([e.id]);
    expect(ids(await server.call('GET', `/projects/${d.id}/forks`))).toEqual([]);
  });
});

/**
 * Step 1 of issue 9: one bare repository per project, created with the project (README and default branch),
 * removed after its deletion; every ref move an event with the acting user; the disk reconciled with the log at
 * start-up; `verify` comparing refs with the log; export and import carrying the repositories as bundles.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GitRepositories } from '@forgefold/git';
import { cliInProcess } from '../cli/fixtures.js';
import { eventually, newDataDir, removeDir, start } from './support.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach(removeDir));

const pathOf = (dataDir: string, projectId: number) => new GitRepositories({ root: join(dataDir, 'repositories') }).pathOf(projectId);
const git = (gitDir: string, ...args: string[]) => execFileSync('git', [`--git-dir=${gitDir}`, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } }).trim();
const refsOf = (gitDir: string) => git(gitDir, 'for-each-ref', '--format=%(refname) %(objectname)');

describe('repository storage', () => {
  it('creates the repository with the project, a README commit on the default branch, recorded with the acting user', async () => {
    const dataDir = newDataDir();
    dirs.push(dataDir);
    const server = await start(dataDir);
    try {
      const created = await server.call('POST', '/projects', { name: 'Alpha', initialize_with_readme: true, default_branch: 'trunk' });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ default_branch: 'trunk', empty_repo: false });
      const path = pathOf(dataDir, created.body.id);
      expect(path).toMatch(/repositories\/@hashed\/[0-9a-f]{2}\/[0-9a-f]{2}\/[0-9a-f]{64}\.git$/);
      expect(git(path, 'symbolic-ref', 'HEAD')).toBe('refs/heads/trunk');
      expect(git(path, 'show', 'trunk:README.md')).toBe('# Alpha');
      const sha = git(path, 'rev-parse', 'refs/heads/trunk');
      const types = server.events.filter((event) => event.streamId === `repository-${created.body.id}`).map((event) => event.type);
      // The README commit creates the default branch, which `Projects::ProtectDefaultBranchService` protects.
      expect(types).toEqual(['DefaultBranchChanged', 'BranchCreated', 'ProtectedBranchCreated']);
      const branch = server.events.find((event) => event.type === 'BranchCreated')!;
      expect(branch.data).toEqual({ project_id: created.body.id, name: 'trunk', sha, via: 'api' });
      expect(branch.metadata.actorId).toBe(1);
      expect(server.events.find((event) => event.type === 'ProtectedBranchCreated')!.data).toMatchObject({ name: 'trunk', push_access_levels: [{ access_level: 40 }], merge_access_levels: [{ access_level: 40 }] });

      const empty = await server.call('POST', '/projects', { name: 'Empty' });
      expect(empty.body).toMatchObject({ default_branch: null, empty_repo: true });
      expect(git(pathOf(dataDir, empty.body.id), 'symbolic-ref', 'HEAD')).toBe('refs/heads/main');
      expect((await server.call('POST', '/projects', { name: 'Bad', default_branch: 'bad name' })).body).toEqual({ error: 'default_branch is invalid' });

      await server.call('POST', `/projects/${created.body.id}/repository/branches`, { branch: 'dev', ref: 'trunk' });
      expect((await server.call('PUT', `/projects/${created.body.id}`, { default_branch: 'dev' })).body.default_branch).toBe('dev');
      expect(git(path, 'symbolic-ref', 'HEAD')).toBe('refs/heads/dev');
      // The project itself is unchanged (its default branch is the repository's HEAD): no ProjectUpdated follows.
      expect(server.events.at(-1)).toMatchObject({ type: 'DefaultBranchChanged', data: { project_id: created.body.id, default_branch: 'dev' } });
      expect(await server.call('PUT', `/projects/${created.body.id}`, { default_branch: 'nope' })).toMatchObject({ status: 400, body: { message: 'Could not set the default branch' } });

      const removed = await server.call('DELETE', `/projects/${created.body.id}`);
      expect(removed.status).toBe(202);
      await eventually(() => !existsSync(path));
    } finally {
      await server.close();
    }
  });

  it('repairs the disk from the log at start-up: refs moved behind its back go back, orphans go, missing ones come', async () => {
    const dataDir = newDataDir();
    dirs.push(dataDir);
    let server = await start(dataDir);
    const project = (await server.call('POST', '/projects', { name: 'Beta', initialize_with_readme: true })).body;
    const lost = (await server.call('POST', '/projects', { name: 'Lost' })).body;
    await server.close();

    const path = pathOf(dataDir, project.id);
    const recorded = refsOf(path);
    // A crash between a ref move and its event: git has a ref the log does not.
    git(path, 'update-ref', 'refs/heads/unrecorded', 'refs/heads/main');
    git(path, 'update-ref', 'refs/tags/unrecorded', 'refs/heads/main');
    // A deletion whose repository removal never ran, and a repository lost from the disk.
    const orphan = pathOf(dataDir, 999);
    mkdirSync(orphan, { recursive: true });
    removeDir(pathOf(dataDir, lost.id));

    server = await start(dataDir);
    try {
      // Start-up reconciles in the background: wait for it.
      expect(await server.reconciled).toMatchObject({ created: [lost.id], aligned: [{ project: project.id }], failed: [] });
      expect(refsOf(path)).toBe(recorded);
      expect(existsSync(orphan)).toBe(false);
      expect(existsSync(join(pathOf(dataDir, lost.id), 'HEAD'))).toBe(true);
    } finally {
      await server.close();
    }
    const verified = await cliInProcess(['verify', '--data', dataDir, '--json']);
    expect(verified.status).toBe(0);
    expect(JSON.parse(verified.stdout).repositories).toEqual({ checked: 2, missing: [], mismatches: [] });
  });

  it('listens before reconciling every repository; one used before the background walk reached it is repaired at its use', async () => {
    const dataDir = newDataDir();
    dirs.push(dataDir);
    let server = await start(dataDir);
    const ids: number[] = [];
    for (let i = 0; i < 40; i++) ids.push((await server.call('POST', '/projects', { name: `P${i}` })).body.id);
    const last = (await server.call('POST', '/projects', { name: 'Last', initialize_with_readme: true })).body;
    await server.close();
    // A crash between the events and the repositories: every repository but the last is lost, and the last got a
    // ref the log does not have; an orphan of a deleted project is left too.
    for (const id of ids) removeDir(pathOf(dataDir, id));
    const lastPath = pathOf(dataDir, last.id);
    const recorded = refsOf(lastPath);
    git(lastPath, 'update-ref', 'refs/heads/unrecorded', 'refs/heads/main');
    const orphan = pathOf(dataDir, 999);
    mkdirSync(orphan, { recursive: true });

    server = await start(dataDir);
    try {
      let done = false;
      void server.reconciled.then(() => (done = true));
      // Listening already; the walk (in ascending id order) has not reached the last projects.
      expect(done).toBe(false);
      expect(existsSync(join(pathOf(dataDir, ids.at(-1)!), 'HEAD'))).toBe(false);
      expect(refsOf(lastPath)).not.toBe(recorded);
      // Used before the walk reached them: repaired first, so the answers are today's.
      expect(await server.call('GET', `/projects/${last.id}/repository/branches`)).toMatchObject({ status: 200, body: [{ name: 'main' }] });
      expect(refsOf(lastPath)).toBe(recorded);
      expect(await server.call('GET', `/projects/${ids.at(-1)}/repository/branches`)).toMatchObject({ status: 200, body: [] });
      expect(existsSync(join(pathOf(dataDir, ids.at(-1)!), 'HEAD'))).toBe(true);
      // A project created while the walk runs keeps its repository through the final sweep.
      const fresh = (await server.call('POST', '/projects', { name: 'Fresh', initialize_with_readme: true })).body;
      const report = (await server.reconciled)!;
      expect(report.failed).toEqual([]);
      expect([...report.created].sort((a, b) => a - b)).toEqual(ids);
      expect(report.aligned.map((entry) => entry.project)).toEqual([last.id]);
      expect(report.removed).toEqual([orphan]);
      for (const id of ids) expect(existsSync(join(pathOf(dataDir, id), 'HEAD'))).toBe(true);
      expect(existsSync(orphan)).toBe(false);
      expect(git(pathOf(dataDir, fresh.id), 'show', 'main:README.md')).toBe('# Fresh');
    } finally {
      await server.close();
    }
    const verified = await cliInProcess(['verify', '--data', dataDir, '--json']);
    expect(JSON.parse(verified.stdout).repositories).toMatchObject({ missing: [], mismatches: [] });
  });

  it('verify reports refs that differ from the log; export and import carry the repositories as bundles', async () => {
    const dataDir = newDataDir();
    dirs.push(dataDir);
    const server = await start(dataDir);
    const project = (await server.call('POST', '/projects', { name: 'Gamma', initialize_with_readme: true })).body;
    await server.call('POST', '/projects', { name: 'Delta' });
    await server.close();
    const path = pathOf(dataDir, project.id);
    const main = git(path, 'rev-parse', 'refs/heads/main');

    const out = join(dataDir, 'export', 'log.ndjson');
    mkdirSync(join(dataDir, 'export'));
    const exported = await cliInProcess(['export', '--data', dataDir, '--out', out]);
    expect(exported.status).toBe(0);
    expect(exported.stdout).toContain('and 1 repositories');
    expect(readdirSync(`${out}.repositories`)).toEqual([`project-${project.id}.bundle`]);

    const target = newDataDir();
    dirs.push(target);
    const imported = await cliInProcess(['import', '--data', target, '--in', out]);
    expect(imported.status, imported.stderr).toBe(0);
    expect(git(pathOf(target, project.id), 'rev-parse', 'refs/heads/main')).toBe(main);
    expect(git(pathOf(target, project.id), 'show', 'main:README.md')).toBe('# Gamma');

    git(path, 'update-ref', 'refs/heads/sneaky', main);
    const verified = await cliInProcess(['verify', '--data', dataDir]);
    expect(verified.status).toBe(1);
    expect(verified.stdout).toContain(`project ${project.id} refs/heads/sneaky: log (none), git ${main}`);
  });
});

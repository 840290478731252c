/**
 * `forgefold audit --project P --deployments`: what was deployed to production at time T, and by whom, read from
 * the event log of a real server's data directory (deployments over real git).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliInProcess } from '../cli/fixtures.js';
import { member, newDataDir, removeDir, start, unprotectDefaultBranches } from '../repositories/support.js';

let dataDir: string;
let first = '';
let second = '';
let path = '';
let now = Date.parse('2026-04-01T10:00:00.000Z');
/** Between the first deploy (by alice) and the second (by bob, marked a success by carol). */
const T1 = '2026-04-02T00:00:00.000Z';
const T2 = '2026-04-04T00:00:00.000Z';

beforeAll(async () => {
  dataDir = newDataDir();
  const server = await start(dataDir, { now: () => new Date((now += 1_000)).toISOString() });
  await unprotectDefaultBranches(server);
  const project = (await server.call('POST', '/projects', { name: 'Audited', initialize_with_readme: true })).body;
  path = project.path_with_namespace;
  const alice = await member(server, 'alice', { id: project.id, level: 30 });
  const bob = await member(server, 'bob', { id: project.id, level: 30 });
  const carol = await member(server, 'carol', { id: project.id, level: 40 });
  first = (await server.call('GET', `/projects/${project.id}/repository/branches/main`)).body.commit.id;
  await server.call('POST', `/projects/${project.id}/deployments`, { environment: 'production', sha: first, ref: 'main', tag: false, status: 'success' }, alice.token);
  now = Date.parse('2026-04-03T10:00:00.000Z');
  second = (await server.call('POST', `/projects/${project.id}/repository/commits`, { branch: 'main', commit_message: 'Two', actions: [{ action: 'create', file_path: 'two', content: '2' }] }, bob.token)).body.id;
  const running = await server.call('POST', `/projects/${project.id}/deployments`, { environment: 'production', sha: second, ref: 'main', tag: false, status: 'running' }, bob.token);
  await server.call('PUT', `/projects/${project.id}/deployments/${running.body.id}`, { status: 'success' }, carol.token);
  await server.close();
});
afterAll(() => removeDir(dataDir));

describe('forgefold audit --deployments', () => {
  it('answers what was deployed to production at a time, and by whom', async () => {
    const before = await cliInProcess(['audit', '--data', dataDir, '--project', path, '--deployments', '--environment', 'production', '--at', '2026-04-01T00:00:00Z']);
    expect(before.stdout).toContain('nothing deployed to production');
    const atT1 = await cliInProcess(['audit', '--data', dataDir, '--project', path, '--deployments', '--environment', 'production', '--at', T1]);
    expect(atT1.status).toBe(0);
    expect(atT1.stdout).toContain(`deployment #1`);
    expect(atT1.stdout).toContain(first);
    expect(atT1.stdout).toMatch(/by alice .*created by alice/);
    const atT2 = await cliInProcess(['audit', '--data', dataDir, '--project', path, '--deployments', '--environment', 'production', '--at', T2, '--json']);
    expect(JSON.parse(atT2.stdout)).toMatchObject({ environment: 'production', iid: 2, sha: second, ref: 'main' });
    const text = await cliInProcess(['audit', '--data', dataDir, '--project', path, '--deployments', '--environment', 'production', '--at', T2]);
    expect(text.stdout).toMatch(/deployment #2 .* by carol .*created by bob/);
  });

  it('prints the deployment history with who did what', async () => {
    const run = await cliInProcess(['audit', '--data', dataDir, '--project', path, '--deployments']);
    expect(run.status).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines.map((line) => line.split(/\s+/)[2])).toEqual(['EnvironmentCreated', 'DeploymentCreated', 'DeploymentCreated', 'DeploymentStatusChanged']);
    expect(lines[3]).toMatch(/production #2 main@[0-9a-f]{12} running→success +by carol/);
    expect((await cliInProcess(['audit', '--data', dataDir, '--deployments'])).status).not.toBe(0);
  });
});

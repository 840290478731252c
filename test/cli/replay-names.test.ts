/**
 * What an auditor reads: `replay --until T` names what existed (users, groups by full path, projects by path,
 * memberships) and points to `audit --at`; `audit` prints paths where it printed ids, and answers an empty
 * membership (exit 0) for a group that did not exist at --at.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startForgefold } from '@forgefold/cli';
import { cliInProcess } from './fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'forgefold-names-'));
const TOKEN = 'glpat-names-root-00000';
let now = Date.parse('2026-03-01T10:00:00.000Z');
/** Between the first day's work and what came later. */
const T = '2026-03-02T00:00:00.000Z';
let ids: Record<string, number> = {};

beforeAll(async () => {
  const server = await startForgefold(
    { port: 0, host: '127.0.0.1', dataDir: dir, rootToken: TOKEN, synchronous: 'NORMAL', impersonationEnabled: true, snapshotEvery: 0, accessLog: false },
    { clock: { now: () => new Date(now).toISOString() }, say: () => undefined, log: () => undefined },
  );
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${server.url}/api/v4${path}`, { method, headers: { 'PRIVATE-TOKEN': TOKEN, 'Content-Type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) });
    const json = (await response.json().catch(() => null)) as any;
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  };
  const alice = await call('POST', '/users', { username: 'alice', name: 'Alice Liddell', email: 'alice@example.com', password: 'password123' });
  const bob = await call('POST', '/users', { username: 'bob', name: 'Bob', email: 'bob@example.com', password: 'password123' });
  const acme = await call('POST', '/groups', { name: 'Acme', path: 'acme' });
  const sub = await call('POST', '/groups', { name: 'Sub', path: 'sub', parent_id: acme.id });
  const ops = await call('POST', '/groups', { name: 'Ops', path: 'ops' });
  const old = await call('POST', '/groups', { name: 'Old', path: 'old' });
  const web = await call('POST', '/projects', { name: 'Web', path: 'web', namespace_id: sub.id });
  await call('POST', `/groups/${acme.id}/members`, { user_id: alice.id, access_level: 30 });
  await call('POST', `/groups/${sub.id}/members`, { user_id: bob.id, access_level: 40 });
  await call('POST', `/groups/${old.id}/members`, { user_id: bob.id, access_level: 20 });
  await call('POST', `/projects/${web.id}/share`, { group_id: ops.id, group_access: 20 });
  now = Date.parse('2026-03-03T10:00:00.000Z');
  const late = await call('POST', '/groups', { name: 'Late', path: 'late' });
  await call('DELETE', `/groups/${old.id}`);
  ids = { alice: alice.id, bob: bob.id, acme: acme.id, sub: sub.id, ops: ops.id, old: old.id, web: web.id, late: late.id };
  await server.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('forgefold replay names what existed', () => {
  it('--until T lists users, groups by full path, projects by path and memberships, and points to audit --at', async () => {
    const run = await cliInProcess(['replay', '--data', dir, '--until', T]);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const out = run.stdout;
    expect(out).toMatch(/^users \(3\)$/m);
    expect(out).toMatch(/^ {2}alice +Alice Liddell$/m);
    expect(out).toMatch(/^ {2}root +Administrator +\(admin\)$/m);
    expect(out).toMatch(/^groups \(4\)$/m);
    expect(out).toMatch(/^ {2}acme\/sub +Sub +\(private\)$/m);
    expect(out).toMatch(/^ {2}old +Old/m);
    expect(out).not.toContain('late');
    expect(out).toMatch(/^projects \(1\)$/m);
    expect(out).toMatch(/^ {2}acme\/sub\/web +Web/m);
    expect(out).toMatch(/^ {2}group acme +2 members \(owner 1, developer 1\)$/m);
    expect(out).toMatch(/^ {2}group acme\/sub +2 members \(owner 1, maintainer 1\)$/m);
    expect(out).toMatch(/^ {2}group old +2 members \(owner 1, reporter 1\)$/m);
    expect(out).toMatch(/^ {2}project acme\/sub\/web +0 members; shared with group ops as reporter$/m);
    expect(out).toContain(`forgefold audit --data ${dir} --group PATH --at ${T}`);
  });

  it('the whole log: the deleted group is gone, the late one is there; --json carries the same inventory', async () => {
    const run = await cliInProcess(['replay', '--data', dir, '--json']);
    expect(run.status).toBe(0);
    const summary = JSON.parse(run.stdout);
    expect(summary.inventory.groups.map((g: { full_path: string }) => g.full_path)).toEqual(['acme', 'acme/sub', 'late', 'ops']);
    expect(summary.inventory.projects).toEqual([{ id: ids['web'], path_with_namespace: 'acme/sub/web', name: 'Web', visibility: 'private' }]);
    expect(summary.inventory.users.map((u: { username: string }) => u.username)).toEqual(['root', 'alice', 'bob']);
    expect(summary.inventory.memberships.find((m: { path: string }) => m.path === 'acme')).toMatchObject({ source_type: 'group', members: 2, by_level: { 30: 1, 50: 1 } });
  });

  it('--counts prints the counts and hash only', async () => {
    const run = await cliInProcess(['replay', '--data', dir, '--counts']);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('state hash');
    expect(run.stdout).not.toContain('alice');
    expect(JSON.parse((await cliInProcess(['replay', '--data', dir, '--counts', '--json'])).stdout).inventory).toBeUndefined();
  });
});

describe('forgefold audit prints paths and answers for groups that did not exist then', () => {
  it('a group created after --at has no members then: an empty list, exit 0', async () => {
    const json = await cliInProcess(['audit', '--data', dir, '--group', 'late', '--at', T, '--json']);
    expect(json.stderr).toBe('');
    expect(json.status).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual([]);
    const text = await cliInProcess(['audit', '--data', dir, '--group', 'late', '--at', T]);
    expect(text.status).toBe(0);
    expect(text.stdout).toBe(`members as of ${T}: 0 (group late, which did not exist then)\n`);
    // By id too, and for a group deleted since (named as it was then).
    expect(JSON.parse((await cliInProcess(['audit', '--data', dir, '--group', String(ids['late']), '--at', T, '--json'])).stdout)).toEqual([]);
    const old = await cliInProcess(['audit', '--data', dir, '--group', 'old', '--at', T]);
    expect(old.status).toBe(0);
    expect(old.stdout).toContain('members as of 2026-03-02T00:00:00.000Z: 2 (group old)');
    const gone = await cliInProcess(['audit', '--data', dir, '--group', 'old', '--at', '2026-03-04T00:00:00Z', '--json']);
    expect(gone.status).toBe(0);
    expect(JSON.parse(gone.stdout)).toEqual([]);
  });

  it('a name nobody ever had is an error (exit 1), not a usage error', async () => {
    const run = await cliInProcess(['audit', '--data', dir, '--group', 'nosuch', '--at', T]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("no group 'nosuch'");
  });

  it('prints group and project paths where it printed ids, also for a deleted group', async () => {
    const members = await cliInProcess(['audit', '--data', dir, '--project', 'acme/sub/web', '--at', T]);
    expect(members.status).toBe(0);
    expect(members.stdout).toMatch(/bob +40 +active +inherited from group acme\/sub +since/);
    expect(members.stdout).toMatch(/alice +30 +active +inherited from group acme +since/);
    expect(members.stdout).not.toMatch(/group \d/);
    const history = await cliInProcess(['audit', '--data', dir, '--group', 'acme', '--descendants']);
    expect(history.status).toBe(0);
    expect(history.stdout).toMatch(/MemberAdded +group acme\/sub +bob level 40/);
    expect(history.stdout).toMatch(/GroupLinkCreated +project acme\/sub\/web group ops level 20/);
    const deleted = await cliInProcess(['audit', '--data', dir, '--user', 'bob']);
    expect(deleted.stdout).toMatch(/MemberAdded +group old +bob level 20/);
    expect(deleted.stdout).not.toMatch(/group #?\d/);
  });
});

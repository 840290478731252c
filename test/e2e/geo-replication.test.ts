/**
 * Geo with two `forgefold serve` processes on loopback: a secondary configured by its environment alone follows the
 * primary once the primary lists it; users, groups, members and a git push on the primary appear on the secondary;
 * the secondary refuses writes; both logs are identical up to the cursor and both pass `forgefold verify`; a
 * secondary killed mid-stream resumes from its cursor; a stopped primary leaves the secondary serving reads and
 * reporting itself unhealthy; a primary restored from an older backup is detected and never merged.
 */
import { spawnSync } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '@forgefold/sqlite-store';
import type { RecordedEvent } from '@forgefold/core';
import { freePort, runCli, startServeProcess, type ServeProcess } from '../support/process.js';

const TOKEN = 'glpat-geo-root-token-0001';
const SECRET = 'geo-shared-secret-0123456789';
/** Writes on the primary must be on the secondary within this long (a loaded 2-core machine; idle it is ms). */
const BOUND_MS = 15_000;

/** A request; one retry when a kept-alive connection was closed under it (the servers' keep-alive time-out). */
const api = (base: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any; position: number }> =>
  once(base, method, path, body).catch(() => once(base, method, path, body));

const once = async (base: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any; position: number }> => {
  const response = await fetch(`${base}/api/v4${path}`, {
    method,
    headers: { 'PRIVATE-TOKEN': TOKEN, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? null : JSON.parse(text), position: Number(response.headers.get('x-forgefold-position')) };
};


const until = async <T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = BOUND_MS): Promise<T> => {
  const started = Date.now();
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined && value !== false) return value;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

const git = (args: string[], cwd?: string) => {
  const result = spawnSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_GLOBAL: '/dev/null', GIT_AUTHOR_NAME: 'A', GIT_AUTHOR_EMAIL: 'a@example.com', GIT_COMMITTER_NAME: 'A', GIT_COMMITTER_EMAIL: 'a@example.com' } });
  return result;
};

const readLog = async (dir: string): Promise<RecordedEvent[]> => {
  const store = openSqliteStore({ path: join(dir, 'forgefold.db'), readonly: true });
  try {
    return [...(await store.events.readAll(0, 1_000_000))];
  } finally {
    await store.close();
  }
};

describe('Geo: a read-only secondary in a second process', () => {
  let work: string;
  let primaryDir: string;
  let secondaryDir: string;
  let primaryPort: number;
  let primary: ServeProcess;
  let secondary: ServeProcess;
  const primaryEnv = () => ({ FORGEFOLD_DATA: primaryDir, PORT: String(primaryPort), FORGEFOLD_ROOT_TOKEN: TOKEN, FORGEFOLD_GEO_SECRET: SECRET, FORGEFOLD_GEO_NODE_NAME: 'london' });
  const secondaryEnv = () => ({
    FORGEFOLD_DATA: secondaryDir,
    FORGEFOLD_GEO_PRIMARY_URL: primary.url,
    FORGEFOLD_GEO_NODE_NAME: 'tokyo',
    FORGEFOLD_GEO_SECRET: SECRET,
    FORGEFOLD_GEO_STATUS_INTERVAL_MS: '300',
  });
  const caughtUp = async () => {
    const head = (await api(primary.url, 'GET', '/version')).position;
    await until(`the secondary at ${head}`, async () => (await api(secondary.url, 'GET', '/version')).position >= head);
    return head;
  };

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'forgefold-geo-'));
    primaryDir = join(work, 'primary');
    secondaryDir = join(work, 'secondary');
    primaryPort = await freePort();
    primary = await startServeProcess(primaryEnv());
  }, 60_000);

  afterAll(async () => {
    await secondary?.kill();
    await primary?.kill();
    await rm(work, { recursive: true, force: true });
  });

  it('registers nothing: an unlisted secondary copies nothing and says why', async () => {
    secondary = await startServeProcess(secondaryEnv());
    const status = await until('an unhealthy live status', async () => {
      const reply = await api(secondary.url, 'GET', '/geo_nodes/status');
      // The secondary has no node list yet (its log is empty): its root token is not even known there.
      return reply.status === 401 ? reply : undefined;
    });
    expect(status.position).toBe(0);
    expect(secondary.output()).toMatch(/not an enabled secondary Geo node/);
  }, 60_000);

  it('once listed, follows: users, groups, members and a push appear within the bound', async () => {
    expect((await api(primary.url, 'POST', '/geo_nodes', { primary: true, name: 'london', url: primary.url })).status).toBe(201);
    expect((await api(primary.url, 'POST', '/geo_nodes', { name: 'tokyo', url: 'http://tokyo.example.com' })).status).toBe(201);
    const user = await api(primary.url, 'POST', '/users', { username: 'alice', name: 'Alice', email: 'alice@example.com', password: 'Secret-pass-1234' });
    const group = await api(primary.url, 'POST', '/groups', { name: 'team', path: 'team' });
    const member = await api(primary.url, 'POST', `/groups/${group.body.id}/members`, { user_id: user.body.id, access_level: 30 });
    expect(member.status).toBe(201);
    const project = await api(primary.url, 'POST', '/projects', { name: 'app', namespace_id: group.body.id, initialize_with_readme: true });
    expect(project.status).toBe(201);
    // A push over the primary's smart HTTP.
    const clone = join(work, 'clone');
    const remote = primary.url.replace('http://', `http://root:${TOKEN}@`) + '/team/app.git';
    expect(git(['clone', '--quiet', remote, clone]).status).toBe(0);
    spawnSync('sh', ['-c', 'echo pushed > pushed.txt'], { cwd: clone });
    git(['add', '.'], clone);
    expect(git(['commit', '--quiet', '-m', 'pushed'], clone).status).toBe(0);
    expect(git(['push', '--quiet', 'origin', 'HEAD:main'], clone).status).toBe(0);
    const pushed = git(['rev-parse', 'HEAD'], clone).stdout.trim();

    const started = Date.now();
    await caughtUp();
    expect((await api(secondary.url, 'GET', `/users/${user.body.id}`)).body.username).toBe('alice');
    expect((await api(secondary.url, 'GET', `/groups/${group.body.id}/members`)).body.map((m: { username: string }) => m.username)).toContain('alice');
    const branch = await until('the pushed commit on the secondary', async () => {
      const reply = await api(secondary.url, 'GET', `/projects/${project.body.id}/repository/branches/main`);
      return reply.status === 200 && reply.body.commit.id === pushed ? reply : undefined;
    });
    expect(branch.body.name).toBe('main');
    console.log(`geo: the secondary showed the writes and the push ${Date.now() - started} ms after the last write`);
    // Clone from the secondary: its repository holds the objects.
    const fromSecondary = join(work, 'from-secondary');
    expect(git(['clone', '--quiet', secondary.url.replace('http://', `http://root:${TOKEN}@`) + '/team/app.git', fromSecondary]).status).toBe(0);
    expect(git(['rev-parse', 'HEAD'], fromSecondary).stdout.trim()).toBe(pushed);
  }, 60_000);

  it('the secondary refuses writes, as a read-only instance does', async () => {
    const refused = await api(secondary.url, 'POST', '/groups', { name: 'nope', path: 'nope' });
    expect(refused).toMatchObject({ status: 403, body: { message: 'You cannot perform write operations on a read-only instance' } });
    expect((await api(secondary.url, 'DELETE', '/geo_nodes/1', {})).status).toBe(403);
    // A write that is not JSON is sent back where it came from, as the platform's read-only middleware does.
    const form = await fetch(`${secondary.url}/api/v4/geo_nodes/1`, { method: 'DELETE', redirect: 'manual', headers: { 'PRIVATE-TOKEN': TOKEN } });
    expect(form.status).toBe(301);
    expect(form.headers.get('location')).toBe(`${secondary.url}/`);
    // The settings, writable on a primary in maintenance mode, are not on a secondary.
    expect(await api(secondary.url, 'PUT', '/application/settings', { maintenance_mode: false })).toMatchObject({ status: 403, body: { message: 'You cannot perform write operations on a read-only instance' } });
    const clone = join(work, 'from-secondary');
    spawnSync('sh', ['-c', 'echo again > again.txt'], { cwd: clone });
    git(['add', '.'], clone);
    git(['commit', '--quiet', '-m', 'again'], clone);
    expect(git(['push', '--quiet', 'origin', 'HEAD:main'], clone).status).not.toBe(0);
  });

  it('status from real positions, on both sides; failures on the secondary', async () => {
    const head = await caughtUp();
    const own = await api(secondary.url, 'GET', '/geo_nodes/2/status');
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ geo_node_id: 2, healthy: true, health_status: 'Healthy', repositories_count: 1, repositories_failed_count: 0 });
    expect(own.body.cursor_last_event_id).toBeGreaterThanOrEqual(head);
    expect(own.body.last_event_id).toBeGreaterThanOrEqual(own.body.cursor_last_event_id);
    expect(own.body.cursor_last_event_timestamp).toBeGreaterThan(0);
    expect(await api(secondary.url, 'GET', '/geo_nodes/current/failures')).toMatchObject({ status: 200, body: [] });
    // The primary stores what the secondary reports.
    const reported = await until('a stored report', async () => {
      const reply = await api(primary.url, 'GET', '/geo_nodes/2/status');
      return reply.status === 200 && reply.body.cursor_last_event_id >= head ? reply : undefined;
    });
    expect(reported.body).toMatchObject({ healthy: true, repositories_count: 1, repositories_synced_count: 1 });
    const all = await api(primary.url, 'GET', '/geo_nodes/status');
    expect(all.body.map((row: { geo_node_id: number }) => row.geo_node_id)).toEqual([1, 2]);
  });

  it('a secondary killed mid-stream resumes from its cursor: no gap, no duplicate (×10)', async () => {
    let writing = true;
    let written = 0;
    const writer = (async () => {
      while (writing) {
        const reply = await api(primary.url, 'POST', '/groups', { name: `g${written}`, path: `g${written}` }).catch(() => null);
        if (reply?.status === 201) written++;
        // A steady stream, not a flood: the secondaries' restarts need the machine's two cores too.
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    const started = Date.now();
    for (let kill = 0; kill < 10; kill++) {
      await new Promise((r) => setTimeout(r, 100 + Math.random() * 300));
      await secondary.kill();
      secondary = await startServeProcess(secondaryEnv());
    }
    console.log(`geo: 10 kills and restarts of the secondary in ${Date.now() - started} ms, ${written} groups written meanwhile`);
    writing = false;
    await writer;
    expect(written).toBeGreaterThan(10);
    const head = await caughtUp();
    await secondary.stop();
    await primary.stop();
    const [ours, theirs] = [await readLog(secondaryDir), await readLog(primaryDir)];
    expect(ours.length).toBeGreaterThanOrEqual(head);
    expect(ours.map((event) => event.globalPosition)).toEqual(ours.map((_, index) => index + 1));
    expect(ours).toEqual(theirs.slice(0, ours.length));
    // Both pass verify (snapshot = refold, repositories = the log's refs), at equal hashes where they meet.
    const verified = [runCli(['verify', '--json', '--data', primaryDir]), runCli(['verify', '--json', '--data', secondaryDir])];
    for (const run of verified) expect(run.status, run.stdout + run.stderr).toBe(0);
    const hashes = verified.map((run) => JSON.parse(run.stdout) as { head: number; comparisons: { position: number; refolded: string }[] });
    if (hashes[0]!.head === hashes[1]!.head) expect(hashes[0]!.comparisons.at(-1)!.refolded).toBe(hashes[1]!.comparisons.at(-1)!.refolded);
    primary = await startServeProcess(primaryEnv());
    secondary = await startServeProcess(secondaryEnv());
    await caughtUp();
  }, 300_000);

  it('the primary stopped: the secondary keeps serving reads and reports itself unhealthy', async () => {
    await primary.stop();
    const status = await until('an unhealthy status', async () => {
      const reply = await api(secondary.url, 'GET', '/geo_nodes/2/status');
      return reply.body?.healthy === false ? reply : undefined;
    });
    expect(status.body.health).toMatch(/unreachable/);
    expect((await api(secondary.url, 'GET', '/groups/team')).status).toBe(200);
    primary = await startServeProcess(primaryEnv());
    await until('healthy again', async () => (await api(secondary.url, 'GET', '/geo_nodes/2/status')).body?.healthy === true);
  }, 120_000);

  it('a primary restored from an older backup is detected and never merged', async () => {
    await primary.stop();
    const backup = join(work, 'backup');
    await cp(primaryDir, backup, { recursive: true });
    primary = await startServeProcess(primaryEnv());
    for (let i = 0; i < 3; i++) expect((await api(primary.url, 'POST', '/groups', { name: `late${i}`, path: `late${i}` })).status).toBe(201);
    const cursor = await caughtUp();
    await primary.stop();
    // The old backup comes back, and takes new writes at positions the secondary already holds others at.
    await rm(primaryDir, { recursive: true });
    await cp(backup, primaryDir, { recursive: true });
    primary = await startServeProcess(primaryEnv());
    for (let i = 0; i < 5; i++) expect((await api(primary.url, 'POST', '/groups', { name: `fork${i}`, path: `fork${i}` })).status).toBe(201);
    // While the restored primary starts, the secondary first finds it unreachable; then it sees the divergence.
    const status = await until('a divergence', async () => {
      const reply = await api(secondary.url, 'GET', '/geo_nodes/2/status');
      return reply.body?.healthy === false && /Replication stopped/.test(reply.body.health) ? reply : undefined;
    });
    expect(status.body.health).toMatch(/Replication stopped: .*(diverge|older backup)/);
    // The cursor went no further than the secondary's own log (status reports kept replicating until the switch).
    expect(status.body.cursor_last_event_id).toBeGreaterThanOrEqual(cursor);
    expect(status.body.cursor_last_event_id).toBe((await api(secondary.url, 'GET', '/version')).position);
    expect((await api(secondary.url, 'GET', '/groups/late2')).status).toBe(200);
    expect((await api(secondary.url, 'GET', '/groups/fork0')).status).toBe(404);
  }, 180_000);
});

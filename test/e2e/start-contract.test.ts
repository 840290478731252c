/**
 * The operator's start-up contract: `forgefold serve` (what `pnpm start` runs) with PORT, HOST,
 * FORGEFOLD_DATA and FORGEFOLD_ROOT_TOKEN, the `Forgefold listening on …` line, persistence across
 * restarts, and a clean stop on SIGTERM.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { connect } from 'node:net';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const BIN = resolve(__dirname, '../../packages/cli/bin/forgefold.js');
const dirs: string[] = [];

const start = (env: Record<string, string>): Promise<{ child: ChildProcess; url: string; output: () => string }> =>
  new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [BIN, 'serve'], { env: { ...process.env, FORGEFOLD_ACCESS_LOG: 'false', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Forgefold listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolvePromise({ child, url: match[1]!, output: () => output });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${output}`)));
  });

const stop = (child: ChildProcess): Promise<number | null> =>
  new Promise((resolvePromise) => {
    child.removeAllListeners('exit');
    child.on('exit', (code) => resolvePromise(code));
    child.kill('SIGTERM');
  });

afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('forgefold serve', () => {
  it('generates the root token into a 0600 file, prints only its path, and keeps data across restarts', async () => {
    const data = await mkdtemp(join(tmpdir(), 'forgefold-start-'));
    dirs.push(data);
    const first = await start({ PORT: '0', HOST: '127.0.0.1', FORGEFOLD_DATA: data });
    expect(first.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const tokenFile = join(data, 'initial_root_token');
    const token = (await readFile(tokenFile, 'utf8')).trim();
    expect((await stat(tokenFile)).mode & 0o777).toBe(0o600);
    expect(first.output()).toContain(tokenFile);
    expect(first.output()).not.toContain(token);
    const created = await fetch(`${first.url}/api/v4/groups`, { method: 'POST', headers: { 'PRIVATE-TOKEN': token, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'Kept', path: 'kept' }) });
    expect(created.status).toBe(201);
    expect((await fetch(`${first.url}/-/health`)).status).toBe(200);
    expect(await stop(first.child)).toBe(0);

    const second = await start({ PORT: '0', FORGEFOLD_DATA: data });
    const kept = await fetch(`${second.url}/api/v4/groups/kept`, { headers: { 'PRIVATE-TOKEN': token } });
    expect(kept.status).toBe(200);
    expect(second.output()).not.toContain('initial_root_token');
    expect(await stop(second.child)).toBe(0);
  });

  it('uses FORGEFOLD_ROOT_TOKEN as the root token when set', async () => {
    const data = await mkdtemp(join(tmpdir(), 'forgefold-start-'));
    dirs.push(data);
    const server = await start({ PORT: '0', FORGEFOLD_DATA: data, FORGEFOLD_ROOT_TOKEN: 'glpat-operator-chosen-token' });
    const me = await fetch(`${server.url}/api/v4/user`, { headers: { 'PRIVATE-TOKEN': 'glpat-operator-chosen-token' } });
    expect(((await me.json()) as { username: string }).username).toBe('root');
    await expect(stat(join(data, 'initial_root_token'))).rejects.toThrow();
    expect(await stop(server.child)).toBe(0);
  });

  it('takes its connection time-outs from the environment (a client holding half its headers gets 408)', async () => {
    const data = await mkdtemp(join(tmpdir(), 'forgefold-start-'));
    dirs.push(data);
    const server = await start({ PORT: '0', FORGEFOLD_DATA: data, FORGEFOLD_HEADERS_TIMEOUT_MS: '300', FORGEFOLD_REQUEST_TIMEOUT_MS: '1000' });
    const { port, hostname } = new URL(server.url);
    const started = Date.now();
    const reply = await new Promise<string>((resolvePromise) => {
      let text = '';
      const socket = connect(Number(port), hostname, () => socket.write('GET /api/v4/version HTTP/1.1\r\nHost: x\r\nX-Half: '));
      socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
      socket.on('error', () => undefined);
      socket.on('close', () => resolvePromise(text));
      setTimeout(() => socket.destroy(), 10_000).unref();
    });
    expect(reply.split('\r\n')[0]).toBe('HTTP/1.1 408 Request Timeout');
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await stop(server.child)).toBe(0);
  });

  it('refuses time-outs that cannot work together', async () => {
    const child = spawn(process.execPath, [BIN, 'serve'], { env: { ...process.env, PORT: '0', FORGEFOLD_HEADERS_TIMEOUT_MS: '5000', FORGEFOLD_REQUEST_TIMEOUT_MS: '1000' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolvePromise) => child.on('exit', resolvePromise));
    expect(code).toBe(64);
    expect(stderr).toContain('must not exceed the request time-out');
  });

  it('prints its version (--version, version), shows it in readiness, and says when it has stopped', async () => {
    const { version } = JSON.parse(await readFile(resolve(__dirname, '../../packages/cli/package.json'), 'utf8')) as { version: string };
    for (const argument of ['--version', 'version']) {
      const run = spawnSync(process.execPath, [BIN, argument], { encoding: 'utf8' });
      expect([run.status, run.stdout, run.stderr]).toEqual([0, `forgefold ${version}\n`, '']);
    }
    const data = await mkdtemp(join(tmpdir(), 'forgefold-start-'));
    dirs.push(data);
    const server = await start({ PORT: '0', FORGEFOLD_DATA: data });
    expect(await (await fetch(`${server.url}/-/readiness`)).json()).toEqual({ status: 'ok', forgefold_version: version });
    expect(await stop(server.child)).toBe(0);
    const lines = server.output().trim().split('\n');
    expect(lines.slice(-2)).toEqual(['Forgefold stopping (SIGTERM)', 'Forgefold stopped']);
  });

  it('serves /-/metrics to loopback: requests, commit batches and flushes, collector pauses, log position, snapshot age', async () => {
    const data = await mkdtemp(join(tmpdir(), 'forgefold-start-'));
    dirs.push(data);
    const server = await start({ PORT: '0', FORGEFOLD_DATA: data, FORGEFOLD_ROOT_TOKEN: 'glpat-metrics-token', FORGEFOLD_SNAPSHOT_EVERY: '1' });
    const headers = { 'PRIVATE-TOKEN': 'glpat-metrics-token', 'Content-Type': 'application/json' };
    for (const path of ['alpha', 'beta']) expect((await fetch(`${server.url}/api/v4/groups`, { method: 'POST', headers, body: JSON.stringify({ name: path, path }) })).status).toBe(201);
    expect((await fetch(`${server.url}/api/v4/groups`, { headers })).status).toBe(200);
    let text = '';
    const value = (sample: string) => Number(new RegExp(`^${sample.replace(/[{}"[\]().*+?^$|\\]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1]);
    // A snapshot of the last position follows once the log has been quiet for a moment (up to a minute on a loaded machine).
    for (let i = 0; i < 600 && !(value('forgefold_snapshot_position') === value('forgefold_log_position')); i++) {
      await new Promise((r) => setTimeout(r, 100));
      text = await (await fetch(`${server.url}/-/metrics`)).text();
    }
    expect(value('forgefold_http_requests_total{route="POST /api/v4/groups",method="POST",status="201"}')).toBe(2);
    expect(value('forgefold_http_requests_total{route="GET /api/v4/groups",method="GET",status="200"}')).toBe(1);
    expect(value('forgefold_commit_batch_events_count')).toBeGreaterThanOrEqual(2);
    // The parts of a write's latency tail: each commit's wait for its WAL flush, and the collector's pauses.
    expect(value('forgefold_commit_flush_seconds_count')).toBeGreaterThanOrEqual(2);
    expect(value('forgefold_commit_flush_seconds_bucket{le="+Inf"}')).toBe(value('forgefold_commit_flush_seconds_count'));
    // Present (a missing sample reads NaN) and a histogram, whether or not the collector has paused yet, or the WAL
    // been drained (two groups do not fill it).
    expect(value('forgefold_wal_drain_seconds_count')).toBe(0);
    expect(value('forgefold_wal_drain_seconds_bucket{le="+Inf"}')).toBe(0);
    expect(value('forgefold_gc_pause_seconds_count')).toBeGreaterThanOrEqual(0);
    expect(value('forgefold_gc_pause_seconds_bucket{le="+Inf"}')).toBe(value('forgefold_gc_pause_seconds_count'));
    const position = value('forgefold_log_position');
    expect(position).toBeGreaterThan(2);
    expect(value('forgefold_snapshot_position')).toBe(position);
    expect(value('forgefold_snapshot_age_seconds')).toBeLessThan(60);
    expect(await stop(server.child)).toBe(0);

    const closed = await start({ PORT: '0', FORGEFOLD_DATA: data, FORGEFOLD_METRICS_ALLOW: '10.0.0.0/8' });
    expect((await fetch(`${closed.url}/-/metrics`)).status).toBe(404);
    expect(await stop(closed.child)).toBe(0);
    const bad = spawnSync(process.execPath, [BIN, 'serve'], { env: { ...process.env, PORT: '0', FORGEFOLD_DATA: data, FORGEFOLD_METRICS_ALLOW: 'localhost' }, encoding: 'utf8' });
    expect(bad.status).toBe(64);
    expect(bad.stderr).toContain("not an IP address or CIDR block: 'localhost'");
  });
});

/**
 * Geo (issue 14), two `forgefold serve` processes on loopback:
 *  - catch-up: a fresh secondary copying a primary's log of BENCH_GEO_EVENTS events (default 100,000: under a
 *    minute on this shared 2-core machine; the 1e6 takes BENCH_GEO_EVENTS=1000000), from its start until
 *    it has folded the primary's head, vs `forgefold import` of the same log exported to NDJSON (process start,
 *    validation and writes included on both sides); target ≥ 0.5x;
 *  - replication lag under load: BENCH_GEO_RATE commands/s (default 200; the 1,000/s is beyond this machine
 *    while other work runs) of POST /groups on the primary for BENCH_GEO_SECONDS (default 5); the lag of each write
 *    is the time from its acknowledgement on the primary to the secondary serving its position. Baseline: the
 *    write's own latency on the primary.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from '@forgefold/sqlite-store';
import type { NewEvent } from '@forgefold/core';
import { envInt, now, percentile, Report, repoRoot, serveNodeFlags, sleep, startServerProcess, stopServerProcess } from './lib.js';

const EVENTS = envInt('BENCH_GEO_EVENTS', 100_000);
const RATE = envInt('BENCH_GEO_RATE', 200);
const SECONDS = envInt('BENCH_GEO_SECONDS', 5);
const TOKEN = 'glpat-bench-geo-root-0000';
const SECRET = 'bench-geo-secret-0123456789';
const BIN = join(repoRoot, 'packages/cli/bin/forgefold.js');
const AT = '2026-01-01T00:00:00.000Z';

/** A log of EVENTS group creations, written straight into the primary's store (valid events, as import checks). */
const seed = async (dir: string): Promise<void> => {
  mkdirSync(dir, { recursive: true });
  const store = openSqliteStore({ path: join(dir, 'forgefold.db'), synchronous: 'NORMAL' });
  try {
    for (let first = 1; first <= EVENTS; first += 1_000) {
      const writes = [];
      for (let id = first; id < Math.min(first + 1_000, EVENTS + 1); id++) {
        const event: NewEvent = {
          eventId: `00000000-0000-7000-8000-${String(id).padStart(12, '0')}`,
          type: 'GroupCreated',
          schemaVersion: 1,
          data: { id, name: `Group ${id}`, path: `group-${id}`, parent_id: null, visibility: 'private', description: '', request_access_enabled: true, created_at: AT, created_by_id: null },
          recordedAt: AT,
          metadata: { actorId: null, origin: 'system' },
        };
        writes.push({ streamId: `group-${id}`, expected: 'any' as const, events: [event] });
      }
      await store.events.commit(writes);
    }
  } finally {
    await store.close();
  }
};

const headOf = async (url: string): Promise<number> => {
  const response = await fetch(`${url}/api/v4/version`, { headers: { 'PRIVATE-TOKEN': TOKEN } });
  await response.arrayBuffer();
  return Number(response.headers.get('x-forgefold-position'));
};

const post = (url: string, path: string, body: unknown) =>
  fetch(`${url}/api/v4${path}`, { method: 'POST', headers: { 'PRIVATE-TOKEN': TOKEN, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

const serve = (dir: string, env: Record<string, string>) =>
  startServerProcess([...serveNodeFlags(), BIN, 'serve'], { PORT: '0', FORGEFOLD_DATA: dir, FORGEFOLD_ACCESS_LOG: 'false', FORGEFOLD_SYNCHRONOUS: 'NORMAL', ...env });

export default async function geoBench(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'forgefold-bench-geo-'));
  const primaryDir = join(work, 'primary');
  const processes: { child: import('node:child_process').ChildProcess }[] = [];
  try {
    await seed(primaryDir);
    // Baseline: export, then import into an empty data directory.
    const exported = spawnSync(process.execPath, [BIN, 'export', '--data', primaryDir, '--out', join(work, 'log.ndjson')], { encoding: 'utf8' });
    if (exported.status !== 0) throw new Error(exported.stderr);
    const importStarted = now();
    const imported = spawnSync(process.execPath, [BIN, 'import', '--data', join(work, 'imported'), '--in', join(work, 'log.ndjson')], { encoding: 'utf8' });
    if (imported.status !== 0) throw new Error(imported.stderr);
    const importMs = now() - importStarted;

    const primary = await serve(primaryDir, { FORGEFOLD_ROOT_TOKEN: TOKEN, FORGEFOLD_GEO_SECRET: SECRET, FORGEFOLD_GEO_NODE_NAME: 'primary' });
    processes.push(primary);
    await post(primary.url, '/geo_nodes', { primary: true, name: 'primary', url: primary.url });
    await post(primary.url, '/geo_nodes', { name: 'secondary', url: 'http://secondary.example.com' });
    const head = await headOf(primary.url);
    const catchUpStarted = now();
    const secondary = await serve(join(work, 'secondary'), { FORGEFOLD_GEO_PRIMARY_URL: primary.url, FORGEFOLD_GEO_NODE_NAME: 'secondary', FORGEFOLD_GEO_SECRET: SECRET });
    processes.push(secondary);
    // A poll may meet a kept-alive connection the busy secondary is closing (ECONNRESET): it is asked again.
    while ((await headOf(secondary.url).catch(() => 0)) < head) await sleep(20);
    const catchUpMs = now() - catchUpStarted;
    console.log(`catch-up: import ${(importMs / 1_000).toFixed(1)} s, secondary ${(catchUpMs / 1_000).toFixed(1)} s for ${head} events`);

    // Lag under a steady write load: a watcher notes when the secondary first serves each position.
    const seenAt = new Map<number, number>();
    let watching = true;
    const watcher = (async () => {
      let last = 0;
      while (watching) {
        const position = await headOf(secondary.url).catch(() => last);
        const at = now();
        for (let p = last + 1; p <= position; p++) seenAt.set(p, at);
        last = Math.max(last, position);
        await sleep(2);
      }
    })();
    const acks: { position: number; at: number; latency: number }[] = [];
    const interval = 1_000 / RATE;
    const started = now();
    const inFlight: Promise<void>[] = [];
    let failures = 0;
    for (let n = 0; now() - started < SECONDS * 1_000; n++) {
      const due = started + n * interval;
      if (due > now()) await sleep(due - now());
      const sent = now();
      inFlight.push(
        post(primary.url, '/groups', { name: `Load ${n}`, path: `load-${n}` })
          .then(async (response) => {
            await response.arrayBuffer();
            const at = now();
            if (response.status === 201) acks.push({ position: Number(response.headers.get('x-forgefold-position')), at, latency: at - sent });
            else failures++;
          })
          .catch(() => {
            failures++;
          }),
      );
    }
    await Promise.all(inFlight);
    if (failures > 0) console.log(`${failures} writes failed`);
    const last = Math.max(...acks.map((ack) => ack.position));
    while (!seenAt.has(last)) await sleep(5);
    watching = false;
    await watcher;
    const lags = acks.map((ack) => Math.max(0, seenAt.get(ack.position)! - ack.at));
    const latencies = acks.map((ack) => ack.latency);
    const achieved = acks.length / SECONDS;

    const report = new Report(`Geo (log of ${EVENTS.toLocaleString('en')} events; ${RATE} commands/s asked for ${SECONDS} s)`);
    report.add('forgefold import of the log', (head / importMs) * 1_000, 'events/s', { note: `${(importMs / 1_000).toFixed(1)} s` });
    report.add('fresh secondary catching up', (head / catchUpMs) * 1_000, 'events/s', {
      baseline: 'forgefold import of the log',
      target: { ratio: 0.5, text: '≥ 0.5x' },
      note: `${(catchUpMs / 1_000).toFixed(1)} s to fold position ${head}`,
    });
    report.add('POST /groups on the primary, p50', percentile(latencies, 50), 'ms', { note: `p99 ${percentile(latencies, 99).toFixed(1)} ms; ${achieved.toFixed(0)} commands/s acknowledged` });
    report.add('replication lag, p50', percentile(lags, 50), 'ms', { baseline: 'POST /groups on the primary, p50' });
    report.add('replication lag, p99', percentile(lags, 99), 'ms', { baseline: 'POST /groups on the primary, p50' });
    report.print();
  } finally {
    for (const { child } of processes.reverse()) await stopServerProcess(child);
    rmSync(work, { recursive: true, force: true });
  }
}

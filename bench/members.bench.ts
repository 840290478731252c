/**
 * Membership benchmarks (issue: membership):
 *  (a) reads: GET /groups/:leaf/members/all and GET /groups/:root/billable_members (per_page=20) on a 5-level
 *      hierarchy with BENCH_MEMBERS (10,000) members in total, vs a bare node:http server in the same run;
 *      target ≥ 0.3x;
 *  (b) a member add (POST /groups/:id/members, a durable command at synchronous=FULL, 100 connections) vs raw
 *      better-sqlite3 one-row-per-transaction inserts at synchronous=FULL; target ≥ 0.5x;
 *  (c) page cost vs hierarchy size: a page of 20 from /members/all and /billable_members with 1,000 and with
 *      BENCH_MEMBERS_BIG (100,000) members; target: the big hierarchy's page takes < 2x as long.
 * Servers under load run in their own processes; the hierarchies are built in-process through the application.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { startForgefold, type RunningForgefold } from '@forgefold/cli';
import { systemActor, type ForgefoldCommand } from '@forgefold/core';
import { envInt, loader, log, Report, scratchPath, throughput, httpLoad, startForgefoldProcess, startServerProcess, stopServerProcess, pageLatency } from './lib.js';

const DURATION = envInt('BENCH_HTTP_SECONDS', 5);
const MEMBERS = envInt('BENCH_MEMBERS', 10_000);
const BIG = envInt('BENCH_MEMBERS_BIG', 100_000);
const MS = envInt('BENCH_MS', 2_000);
const TOKEN = 'glpat-bench-members-root-0000';
const PAGE_HEADERS = { 'PRIVATE-TOKEN': TOKEN };

/** A bare node:http server answering every request with the same bytes (BODY env: the body to serve). */
const BARE_SERVER = `
const http = require('node:http');
const body = Buffer.from(process.env.BODY || '[]');
const extra = JSON.parse(process.env.HEADERS || '{}');
http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    res.writeHead(req.method === 'POST' ? 201 : 200, { ...extra, 'Content-Type': 'application/json', 'Content-Length': body.length });
    res.end(body);
  });
}).listen(0, '127.0.0.1', function () { console.log('listening on http://127.0.0.1:' + this.address().port); });
`;

/** The body and pagination headers of one real page, so that the bare baseline writes the same bytes. */
const samplePage = async (url: string): Promise<{ body: string; headers: Record<string, string> }> => {
  const response = await fetch(url, { headers: { 'PRIVATE-TOKEN': TOKEN } });
  const headers: Record<string, string> = {};
  for (const name of ['link', 'x-page', 'x-per-page', 'x-next-page', 'x-prev-page', 'x-total', 'x-total-pages', 'etag']) {
    const value = response.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  return { body: await response.text(), headers };
};


const must = async (server: RunningForgefold, command: ForgefoldCommand) => {
  const result = await server.app.execute(systemActor, command);
  if (result._tag === 'Left') throw new Error(`${command.type}: ${JSON.stringify(result.left)}`);
  return result.right;
};

/**
 * Builds a 5-level chain of groups and `members` users spread evenly over the levels (plus `spare` users that are
 * members of nothing), through the application with group commit. Returns the root and leaf group ids.
 */
const buildHierarchy = async (server: RunningForgefold, members: number, spare: number): Promise<{ root: number; leaf: number; spareIds: number[] }> => {
  const app = server.app;
  const firstUser = app.state.sequences.user + 1;
  const total = members + spare;
  for (let start = 0; start < total; start += 2_000) {
    const batch: Promise<unknown>[] = [];
    for (let i = start; i < Math.min(total, start + 2_000); i++) {
      batch.push(must(server, { type: 'CreateUser', username: `member${i}`, name: `Member ${String(i).padStart(6, '0')}`, email: `member${i}@example.com`, password_digest: null }));
    }
    await Promise.all(batch);
  }
  const levels: number[] = [];
  for (let level = 0; level < 5; level++) {
    const done = await must(server, { type: 'CreateGroup', name: `Level ${level}`, path: `level${level}-${Date.now()}`, ...(levels.length > 0 ? { parent_id: levels[levels.length - 1] } : {}) });
    levels.push((done.events[0]!.data as { id: number }).id);
  }
  const perLevel = Math.ceil(members / 5);
  const adds: Promise<unknown>[] = [];
  for (let i = 0; i < members; i += 100) {
    const ids = Array.from({ length: Math.min(100, members - i) }, (_, k) => String(firstUser + i + k));
    // Deeper levels get higher access levels, so that the inherited-level rule always holds.
    const level = Math.min(4, Math.floor(i / perLevel));
    adds.push(must(server, { type: 'AddMembers', source_type: 'Namespace', source_id: levels[level]!, user_ids: ids, access_level: 10 + level * 10 > 40 ? 40 : 10 + level * 7 - ((10 + level * 7) % 10) }));
    if (adds.length >= 200) await Promise.all(adds.splice(0));
  }
  await Promise.all(adds);
  return { root: levels[0]!, leaf: levels[4]!, spareIds: Array.from({ length: spare }, (_, k) => firstUser + members + k) };
};

const startInProcess = (dataDir: string, synchronous: 'FULL' | 'NORMAL') =>
  startForgefold({ port: 0, host: '127.0.0.1', dataDir, rootToken: TOKEN, synchronous, impersonationEnabled: true, snapshotEvery: 0, accessLog: false }, { say: () => undefined, log: () => undefined });

export default async function membersBench(): Promise<void> {
  const report = new Report(`Members (${loader}, ${DURATION} s per case; ${MEMBERS} members in a 5-level hierarchy)`);

  // (a) and (b): a prefilled data directory served by `forgefold serve` in a child process.
  const data = mkdtempSync(join(tmpdir(), 'forgefold-bench-members-'));
  const spare = envInt('BENCH_SPARE', 30_000);
  log(`building ${MEMBERS} members (+ ${spare} spare users for adds)…`);
  const builder = await startInProcess(data, 'NORMAL');
  const { root, leaf, spareIds } = await buildHierarchy(builder, MEMBERS, spare);
  await builder.close();
  const forgefold = await startForgefoldProcess(data, TOKEN);
  const bares: ChildProcess[] = [];
  try {
    const headers = { 'PRIVATE-TOKEN': TOKEN };
    const reads = [
      { name: 'GET /groups/:leaf/members/all', url: `${forgefold.url}/api/v4/groups/${leaf}/members/all?per_page=20` },
      { name: 'GET /groups/:root/billable_members', url: `${forgefold.url}/api/v4/groups/${root}/billable_members?per_page=20` },
    ];
    for (const read of reads) {
      // Baseline: a bare node:http server writing the very same bytes (body and pagination headers).
      const sample = await samplePage(read.url);
      const bare = await startServerProcess(['-e', BARE_SERVER], { BODY: sample.body, HEADERS: JSON.stringify(sample.headers) });
      bares.push(bare.child);
      await httpLoad(1, { url: `${bare.url}/`, connections: 10 });
      await httpLoad(2, { url: read.url, connections: 10, headers }); // warm-up (JIT)
      // Interleaved rounds, best of each side: other processes on the machine disturb both alike.
      // The server caches rendered GET responses per log position; a nonce parameter defeats the cache, so the
      // "uncached" rows measure the route itself (projection read, presenters, serialization) on every request.
      const uncached = { url: read.url, connections: 10, headers, pathTemplate: `${new URL(read.url).pathname}?per_page=20&nonce={n}` };
      let baseline = { rps: 0, p50: 0, p99: 0 };
      let measured = { rps: 0, p50: 0, p99: 0 };
      let raw = { rps: 0, p50: 0, p99: 0 };
      for (let round = 0; round < 2; round++) {
        const b = await httpLoad(DURATION, { url: `${bare.url}/`, connections: 10 });
        if (b.rps > baseline.rps) baseline = b;
        const m = await httpLoad(DURATION, { url: read.url, connections: 10, headers });
        if (m.rps > measured.rps) measured = m;
        const u = await httpLoad(DURATION, uncached);
        if (u.rps > raw.rps) raw = u;
      }
      const baseName = `bare GET, same ${sample.body.length} B page, 10 conns`;
      report.add(baseName, baseline.rps, 'ops/s', { note: `p50 ${baseline.p50} ms, p99 ${baseline.p99} ms` });
      report.add(`${read.name}, 10 conns`, measured.rps, 'ops/s', { baseline: baseName, target: { ratio: 0.3, text: '≥ 0.3x' }, note: `p50 ${measured.p50} ms, p99 ${measured.p99} ms (response cache)` });
      report.add(`${read.name}, uncached, 10 conns`, raw.rps, 'ops/s', { baseline: baseName, target: { ratio: 0.3, text: '≥ 0.3x' }, note: `p50 ${raw.p50} ms, p99 ${raw.p99} ms (every request renders)` });
    }

    // (b) raw inserts (same machine, FULL) vs durable member adds through the API.
    const dbPath = scratchPath('members-raw.db');
    const db = new Database(dbPath);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec('CREATE TABLE members (id INTEGER PRIMARY KEY, source_id INTEGER, user_id INTEGER, access_level INTEGER, data TEXT)');
    const insert = db.prepare('INSERT INTO members (source_id, user_id, access_level, data) VALUES (?, ?, ?, ?)');
    let rawCount = 0;
    const raw = await throughput(() => insert.run(root, ++rawCount, 30, JSON.stringify({ created_at: new Date().toISOString() })), { ms: MS });
    db.close();
    report.add('raw SQLite insert (FULL, 1 row/txn)', raw.opsPerSec, 'rows/s');
    const memberAdds = (userIds: readonly number[]) => ({
      url: `${forgefold.url}/api/v4/groups/${root}/members`,
      connections: 100,
      method: 'POST' as const,
      headers: { ...headers, 'Content-Type': 'application/json' },
      bodyTemplate: JSON.stringify({ user_id: '{v}', access_level: 30 }),
      values: userIds,
    });
    // Warm-up with users of its own, not measured (the first batch after start runs in V8's interpreter).
    const warmUsers = Math.min(5_000, Math.floor(spareIds.length / 4));
    await httpLoad(1, memberAdds(spareIds.slice(0, warmUsers)));
    const adds = await httpLoad(DURATION, memberAdds(spareIds.slice(warmUsers)));
    report.add('POST /groups/:id/members (FULL), 100 conns', adds.rps, 'commands/s', {
      baseline: 'raw SQLite insert (FULL, 1 row/txn)',
      target: { ratio: 0.5, text: '≥ 0.5x' },
      note: `p50 ${adds.p50} ms, p99 ${adds.p99} ms`,
    });
  } finally {
    await stopServerProcess(forgefold.child);
    for (const child of bares) await stopServerProcess(child);
    rmSync(data, { recursive: true, force: true });
  }

  // (c) page cost against hierarchy size, through a real server (in-process, sequential requests).
  const sizes = [1_000, BIG];
  const latencies: Record<number, { all: number; billable: number; allDeep: number }> = {};
  for (const size of sizes) {
    const dir = mkdtempSync(join(tmpdir(), `forgefold-bench-members-${size}-`));
    try {
      log(`building a hierarchy of ${size} members…`);
      const server = await startInProcess(dir, 'NORMAL');
      const { root: r, leaf: l } = await buildHierarchy(server, size, 0);
      latencies[size] = {
        all: await pageLatency(`${server.url}/api/v4/groups/${l}/members/all?per_page=20`, PAGE_HEADERS, MS),
        allDeep: await pageLatency(`${server.url}/api/v4/groups/${l}/members/all?per_page=20&page=40`, PAGE_HEADERS, MS),
        billable: await pageLatency(`${server.url}/api/v4/groups/${r}/billable_members?per_page=20`, PAGE_HEADERS, MS),
      };
      await server.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const small = latencies[1_000]!;
  const big = latencies[BIG]!;
  report.add('page of /members/all, 1,000 members', small.all, 'ms', { note: 'median of sequential uncached requests' });
  report.add(`page of /members/all, ${BIG} members`, big.all, 'ms', { baseline: 'page of /members/all, 1,000 members', target: { ratio: 0.5, text: '< 2x as long' } });
  report.add('page 40 of /members/all, 1,000 members', small.allDeep, 'ms');
  report.add(`page 40 of /members/all, ${BIG} members`, big.allDeep, 'ms', { baseline: 'page 40 of /members/all, 1,000 members', target: { ratio: 0.5, text: '< 2x as long' } });
  report.add('page of /billable_members, 1,000 members', small.billable, 'ms');
  report.add(`page of /billable_members, ${BIG} members`, big.billable, 'ms', { baseline: 'page of /billable_members, 1,000 members', target: { ratio: 0.5, text: '< 2x as long' } });
  report.print();
}

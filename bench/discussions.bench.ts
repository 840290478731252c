/**
 * Discussion benchmarks (issue 10):
 *  (a) a page of 20 threads of a merge request (GET …/merge_requests/:iid/discussions?per_page=20, uncached) when
 *      the merge request holds 1, 20 and BENCH_NOTES (10,000) notes, one per thread; target: the big one's page
 *      (first and last) < 2x as long as the 20-note one's, whose page has the same 20 threads to render (the threads
 *      are indexed per noteable, so a page costs the page, not the noteable's history). The 1-note merge request's
 *      page renders one thread: it is shown for scale.
 *  (b) adding a note (POST …/merge_requests/:iid/notes, a durable command at synchronous=FULL, 100 connections):
 *      throughput and p99, vs raw better-sqlite3 one-row-per-transaction inserts at synchronous=FULL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { startForgefold, type RunningForgefold } from '@forgefold/cli';
import type { Actor, ForgefoldCommand } from '@forgefold/core';
import { envInt, httpLoad, loader, log, Report, scratchPath, startForgefoldProcess, stopServerProcess, throughput, pageLatency } from './lib.js';

const NOTES = envInt('BENCH_NOTES', 10_000);
const DURATION = envInt('BENCH_HTTP_SECONDS', 5);
const MS = envInt('BENCH_MS', 2_000);
const TOKEN = 'glpat-bench-discussions-root-00';
const PAGE_HEADERS = { 'PRIVATE-TOKEN': TOKEN };
const root: Actor = { userId: 1, origin: 'api' };

const call = async (server: RunningForgefold, method: string, path: string, body?: unknown) => {
  const response = await fetch(`${server.url}/api/v4${path}`, { method, headers: { 'PRIVATE-TOKEN': TOKEN, 'Content-Type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) });
  const json = (await response.json()) as Record<string, unknown>;
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
};

/** A project with three merge requests (from three branches), through the API: answers the project id. */
const setup = async (server: RunningForgefold): Promise<number> => {
  const project = await call(server, 'POST', '/projects', { name: 'Bench', initialize_with_readme: true });
  const id = project['id'] as number;
  for (const branch of ['one', 'twenty', 'many']) {
    await call(server, 'POST', `/projects/${id}/repository/commits`, { branch, start_branch: 'main', commit_message: branch, actions: [{ action: 'create', file_path: `${branch}.txt`, content: `${branch}\n` }] });
    await call(server, 'POST', `/projects/${id}/merge_requests`, { title: branch, source_branch: branch, target_branch: 'main' });
  }
  return id;
};

/** `count` notes on merge request `iid`, in threads of `perThread` notes (a start and replies), through the application. */
const fill = async (server: RunningForgefold, projectId: number, iid: number, count: number, perThread = 1): Promise<void> => {
  const noteable = { kind: 'MergeRequest' as const, project_id: projectId, iid };
  const threads = Math.ceil(count / perThread);
  const ids: string[] = [];
  for (let start = 0; start < threads; start += 1_000) {
    const batch: Promise<unknown>[] = [];
    for (let i = start; i < Math.min(threads, start + 1_000); i++) {
      const command: ForgefoldCommand = { type: 'StartDiscussion', noteable, body: `Thread ${i}: please look at this` };
      batch.push(server.app.execute(root, command).then((result) => result._tag === 'Right' && ids.push((result.right.events[0]!.data as { discussion_id: string }).discussion_id)));
    }
    await Promise.all(batch);
  }
  let left = count - threads;
  for (let round = 0; left > 0; round++) {
    const batch: Promise<unknown>[] = [];
    for (const id of ids) {
      if (left-- <= 0) break;
      batch.push(server.app.execute(root, { type: 'AddNote', noteable, discussion_id: id, body: `Reply ${round}` }));
    }
    await Promise.all(batch);
  }
};

export default async function discussionsBench(): Promise<void> {
  const report = new Report(`Discussions (${loader}; a merge request with 1, 20 and ${NOTES} notes)`);
  const data = mkdtempSync(join(tmpdir(), 'forgefold-bench-discussions-'));
  try {
    log(`building merge requests with 1, 20 and ${NOTES} notes…`);
    const builder = await startForgefold(
      { port: 0, host: '127.0.0.1', dataDir: data, rootToken: TOKEN, synchronous: 'NORMAL', impersonationEnabled: true, snapshotEvery: 0, accessLog: false },
      { say: () => undefined, log: () => undefined },
    );
    const projectId = await setup(builder);
    await fill(builder, projectId, 1, 1);
    await fill(builder, projectId, 2, 20);
    await fill(builder, projectId, 3, NOTES);
    // (a) in-process, sequential requests.
    const page = (iid: number, n = 1) => `${builder.url}/api/v4/projects/${projectId}/merge_requests/${iid}/discussions?per_page=20&page=${n}`;
    const one = await pageLatency(page(1), PAGE_HEADERS, MS);
    const twenty = await pageLatency(page(2), PAGE_HEADERS, MS);
    const many = await pageLatency(page(3), PAGE_HEADERS, MS);
    const deep = await pageLatency(page(3, Math.ceil(NOTES / 20)), PAGE_HEADERS, MS);
    await builder.close();
    report.add('page of threads, MR with 1 note', one, 'ms', { note: 'median of sequential uncached requests; 1 thread' });
    report.add('page of threads, MR with 20 notes', twenty, 'ms', { note: '20 threads' });
    report.add(`page of threads, MR with ${NOTES} notes`, many, 'ms', { baseline: 'page of threads, MR with 20 notes', target: { ratio: 0.5, text: '< 2x as long' }, note: '20 threads' });
    report.add(`last page of threads, MR with ${NOTES} notes`, deep, 'ms', { baseline: 'page of threads, MR with 20 notes', target: { ratio: 0.5, text: '< 2x as long' } });
    report.add(`page of threads, MR with ${NOTES} notes, vs the 1-note MR`, many, 'ms', { baseline: 'page of threads, MR with 1 note', note: 'for scale: 20 threads rendered against 1' });

    // (b) durable note adds through `forgefold serve` in its own process (FULL), vs raw SQLite inserts.
    const dbPath = scratchPath('notes-raw.db');
    const db = new Database(dbPath);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, noteable_id INTEGER, body TEXT, data TEXT)');
    const insert = db.prepare('INSERT INTO notes (noteable_id, body, data) VALUES (?, ?, ?)');
    const raw = await throughput(() => insert.run(3, 'LGTM', JSON.stringify({ created_at: new Date().toISOString() })), { ms: MS });
    db.close();
    report.add('raw SQLite insert (FULL, 1 row/txn)', raw.opsPerSec, 'rows/s');
    const server = await startForgefoldProcess(data, TOKEN);
    try {
      const load = {
        url: `${server.url}/api/v4/projects/${projectId}/merge_requests/3/notes`,
        connections: 100,
        method: 'POST' as const,
        headers: { 'PRIVATE-TOKEN': TOKEN, 'Content-Type': 'application/json' },
        body: JSON.stringify({ body: 'LGTM' }),
      };
      await httpLoad(1, load); // warm-up (JIT)
      const adds = await httpLoad(DURATION, load);
      report.add('POST …/merge_requests/:iid/notes (FULL), 100 conns', adds.rps, 'commands/s', {
        baseline: 'raw SQLite insert (FULL, 1 row/txn)',
        note: `p50 ${adds.p50} ms, p99 ${adds.p99} ms`,
      });
    } finally {
      await stopServerProcess(server.child);
    }
  } finally {
    rmSync(data, { recursive: true, force: true });
  }
  report.print();
}

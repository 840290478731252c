/**
 * Page cost of the lists of a non-administrator against the size of the instance (issue 16, scale of reads):
 * `GET /groups` (default: the caller's groups; and all_available=true) and `GET /projects` (public, internal and the
 * caller's), per_page=20, as a user who belongs to 20 groups (one project each) and sees 20 public groups and
 * projects, with 1,000 and with BENCH_LISTS_BIG (100,000) private groups and projects of others. Target: the big
 * instance's page takes < 2x as long. Sequential uncached requests against an in-process server (the user acts
 * through the administrator's token and `Sudo`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startForgefold, type RunningForgefold } from '@forgefold/cli';
import { systemActor, type ForgefoldCommand } from '@forgefold/core';
import { envInt, log, Report, pageLatency } from './lib.js';

const BIG = envInt('BENCH_LISTS_BIG', 100_000);
const MS = envInt('BENCH_MS', 2_000);
const TOKEN = 'glpat-bench-lists-root-00000';
const PAGE_HEADERS = { 'PRIVATE-TOKEN': TOKEN, Sudo: 'viewer' };

const must = async (server: RunningForgefold, command: ForgefoldCommand): Promise<number> => {
  const result = await server.app.execute(systemActor, command);
  if (result._tag === 'Left') throw new Error(`${command.type}: ${JSON.stringify(result.left)}`);
  return (result.right.events[0]?.data as { id: number } | undefined)?.id ?? 0;
};

/** Runs commands in batches that group-commit together. */
const inBatches = async (count: number, make: (i: number) => ForgefoldCommand, server: RunningForgefold): Promise<number[]> => {
  const ids: number[] = [];
  for (let start = 0; start < count; start += 2_000) {
    const batch: Promise<number>[] = [];
    for (let i = start; i < Math.min(count, start + 2_000); i++) batch.push(must(server, make(i)));
    ids.push(...(await Promise.all(batch)));
  }
  return ids;
};

/** `size` private groups with a project each (others'), then the viewer's 20 groups with a project each, and 20 public ones. */
const build = async (server: RunningForgefold, size: number): Promise<void> => {
  await must(server, { type: 'CreateUser', username: 'viewer', name: 'Viewer', email: 'viewer@example.com', password_digest: null });
  const viewer = server.app.state.sequences.user;
  const groups = await inBatches(size, (i) => ({ type: 'CreateGroup', name: `Other ${i}`, path: `other-${i}` }), server);
  await inBatches(size, (i) => ({ type: 'CreateProject', path: `project-${i}`, namespace_id: groups[i]! }), server);
  const mine = await inBatches(20, (i) => ({ type: 'CreateGroup', name: `Mine ${i}`, path: `mine-${i}` }), server);
  await inBatches(20, (i) => ({ type: 'AddMember', source_type: 'Namespace', source_id: mine[i]!, user_id: viewer, access_level: 30 }), server);
  await inBatches(20, (i) => ({ type: 'CreateProject', path: `mine-project-${i}`, namespace_id: mine[i]! }), server);
  const open = await inBatches(20, (i) => ({ type: 'CreateGroup', name: `Open ${i}`, path: `open-${i}`, visibility: 'public' }), server);
  await inBatches(20, (i) => ({ type: 'CreateProject', path: `open-project-${i}`, namespace_id: open[i]!, visibility: 'public' }), server);
};

const CASES = {
  'GET /groups': '/api/v4/groups?per_page=20',
  'GET /groups?all_available=true': '/api/v4/groups?per_page=20&all_available=true',
  'GET /projects': '/api/v4/projects?per_page=20',
  'GET /projects?membership=true': '/api/v4/projects?per_page=20&membership=true',
} as const;

export default async function listsBench(): Promise<void> {
  const report = new Report('Lists of a non-administrator: page cost vs instance size (per_page=20, median of sequential requests)');
  const latencies: Record<number, Record<string, number>> = {};
  for (const size of [1_000, BIG]) {
    const dir = mkdtempSync(join(tmpdir(), `forgefold-bench-lists-${size}-`));
    try {
      log(`building ${size} groups and projects…`);
      const server = await startForgefold(
        { port: 0, host: '127.0.0.1', dataDir: dir, rootToken: TOKEN, synchronous: 'NORMAL', impersonationEnabled: true, snapshotEvery: 0, accessLog: false },
        { say: () => undefined, log: () => undefined },
      );
      await build(server, size);
      latencies[size] = {};
      for (const [name, path] of Object.entries(CASES)) latencies[size]![name] = await pageLatency(`${server.url}${path}`, PAGE_HEADERS, MS);
      await server.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  for (const name of Object.keys(CASES)) {
    report.add(`${name}, 1,000 groups/projects`, latencies[1_000]![name]!, 'ms');
    report.add(`${name}, ${BIG} groups/projects`, latencies[BIG]![name]!, 'ms', { baseline: `${name}, 1,000 groups/projects`, target: { ratio: 0.5, text: '< 2x as long' } });
  }
  report.print();
}

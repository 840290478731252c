/**
 * A child of lists.bench.ts: one instance of `BENCH_LISTS_SIZE` private groups of others (a project each), plus the
 * viewer's 20 groups and 20 public ones (a project each), and a public group `hub` with every one of those projects
 * shared into it (the others' private ones: shares the viewer cannot see), built in-process through the application (HTTP seeding of
 * 100,000 would take far longer), then served until SIGTERM. Each size runs in its own process, so that the two
 * instances are measured in alternation, each with its own heap.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startForgefold, type RunningForgefold } from '@forgefold/cli';
import { systemActor, type ForgefoldCommand } from '@forgefold/core';
import { envInt } from './lib.js';

const SIZE = envInt('BENCH_LISTS_SIZE', 1_000);
const TOKEN = process.env['BENCH_LISTS_TOKEN'] ?? 'glpat-bench-lists-root-00000';

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

const build = async (server: RunningForgefold, size: number): Promise<void> => {
  await must(server, { type: 'CreateUser', username: 'viewer', name: 'Viewer', email: 'viewer@example.com', password_digest: null });
  const viewer = server.app.state.sequences.user;
  const groups = await inBatches(size, (i) => ({ type: 'CreateGroup', name: `Other ${i}`, path: `other-${i}` }), server);
  const others = await inBatches(size, (i) => ({ type: 'CreateProject', path: `project-${i}`, namespace_id: groups[i]! }), server);
  const mine = await inBatches(20, (i) => ({ type: 'CreateGroup', name: `Mine ${i}`, path: `mine-${i}` }), server);
  await inBatches(20, (i) => ({ type: 'AddMember', source_type: 'Namespace', source_id: mine[i]!, user_id: viewer, access_level: 30 }), server);
  await inBatches(20, (i) => ({ type: 'CreateProject', path: `mine-project-${i}`, namespace_id: mine[i]! }), server);
  const open = await inBatches(20, (i) => ({ type: 'CreateGroup', name: `Open ${i}`, path: `open-${i}`, visibility: 'public' }), server);
  const openProjects = await inBatches(20, (i) => ({ type: 'CreateProject', path: `open-project-${i}`, namespace_id: open[i]!, visibility: 'public' }), server);
  const [hub] = await inBatches(1, () => ({ type: 'CreateGroup', name: 'Hub', path: 'hub', visibility: 'public' }), server);
  await inBatches(size, (i) => ({ type: 'ShareProject', project_id: others[i]!, group_id: hub!, group_access: 30 }), server);
  await inBatches(20, (i) => ({ type: 'ShareProject', project_id: openProjects[i]!, group_id: hub!, group_access: 30 }), server);
};

const dir = mkdtempSync(join(tmpdir(), `forgefold-bench-lists-${SIZE}-`));
const server = await startForgefold(
  { port: 0, host: '127.0.0.1', dataDir: dir, rootToken: TOKEN, synchronous: 'NORMAL', impersonationEnabled: true, snapshotEvery: 0, accessLog: false },
  { say: () => undefined, log: () => undefined },
);
await build(server, SIZE);
process.once('SIGTERM', () => {
  void server.close().finally(() => {
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  });
});
console.log(`lists instance of ${SIZE} groups and projects listening on ${server.url}`);

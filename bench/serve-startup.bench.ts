/**
 * `forgefold serve` to listening with many projects (issue 16): BENCH_SERVE_PROJECTS (default 5,000) projects in a
 * group, committed in-process (not over HTTP), whose repositories exist on disk (the usual restart). Then, over the
 * same data, what serve runs up to listening (store, Application, root, API, listen):
 *  - as serve did before: the reconciliation of every repository with the log awaited before listening;
 *  - as serve does now: the reconciliation in the background, listening at once (and how long the background
 *    walk then took, with the longest event-loop pause meanwhile);
 *  - the real `forgefold serve` process, spawn to its `Forgefold listening on …` line, beside the same on an empty
 *    data directory.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Application, forgefold, systemActor, type ForgefoldCommand, type State } from '@forgefold/core';
import { bootstrapRoot, dataPaths } from '@forgefold/cli';
import { GitRepositories } from '@forgefold/git';
import { createForgefoldApi, RepositoryHost } from '@forgefold/http-adapter';
import { openSqliteStore, uuidv7Generator } from '@forgefold/sqlite-store';
import { envInt, log, Report, sleep, startForgefoldProcess, stopServerProcess, timed } from './lib.js';

const PROJECTS = envInt('BENCH_SERVE_PROJECTS', 5_000);
const TOKEN = 'glpat-bench-serve-startup-0000';
const clock = { now: () => new Date().toISOString() };

const open = async (dataDir: string) => {
  const store = openSqliteStore({ path: dataPaths(dataDir).database, synchronous: 'NORMAL', flushOffLoop: true });
  const app = await Application.start<ForgefoldCommand, State>({ ...forgefold, store: store.events, clock, ids: { eventId: uuidv7Generator() }, freeze: false });
  const host = new RepositoryHost(app, clock, new GitRepositories({ root: dataPaths(dataDir).repositories }), () => undefined);
  return { store, app, host };
};

/** Serve's path to listening, the reconciliation awaited first (`foreground`) or left to the background. */
const serveToListening = async (dataDir: string, foreground: boolean) => {
  const started = performance.now();
  const { store, app, host } = await open(dataDir);
  await bootstrapRoot(app, { dataDir, rootToken: TOKEN }, clock, () => undefined);
  const foregroundWalk = foreground ? await timed(() => host.reconcileInBackground()) : null;
  const background = foreground ? null : host.reconcileInBackground();
  const api = createForgefoldApi({ app, clock, repositories: host, impersonationEnabled: false, log: () => undefined });
  await api.listen(0, '127.0.0.1');
  const listeningMs = performance.now() - started;
  const pauses = monitorEventLoopDelay({ resolution: 1 });
  pauses.enable();
  const walk = foregroundWalk ?? (await timed(() => background!));
  pauses.disable();
  // The same time with nothing to do: what the machine's other work makes of an idle event loop.
  const idle = monitorEventLoopDelay({ resolution: 1 });
  idle.enable();
  await sleep(Math.min(walk.ms, 5_000));
  idle.disable();
  host.close();
  await api.close();
  await store.close();
  if (walk.value.failed.length > 0 || walk.value.created.length > 0) throw new Error(`unexpected reconciliation: ${JSON.stringify(walk.value).slice(0, 300)}`);
  return { listeningMs, backgroundMs: walk.ms, longestPauseMs: pauses.max / 1e6, idlePauseMs: idle.max / 1e6 };
};

export default async function serveStartupBench(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'forgefold-bench-serve-'));
  const emptyDir = mkdtempSync(join(tmpdir(), 'forgefold-bench-serve-empty-'));
  try {
    const seeded = await timed(async () => {
      const { store, app, host } = await open(dataDir);
      const group = await app.execute(systemActor, { type: 'CreateGroup', name: 'Bench', path: 'bench' });
      if (group._tag === 'Left') throw new Error(JSON.stringify(group.left));
      const groupId = (group.right.events[0]!.data as { id: number }).id;
      const ids: number[] = [];
      for (let i = 0; i < PROJECTS; i++) {
        const created = await app.execute(systemActor, { type: 'CreateProject', path: `project-${i}`, namespace_id: groupId });
        if (created._tag === 'Left') throw new Error(JSON.stringify(created.left));
        ids.push((created.right.events[0]!.data as { id: number }).id);
      }
      // The repositories: one made by the storage, copied for the others (a git process each would take minutes).
      const storage = new GitRepositories({ root: dataPaths(dataDir).repositories });
      const first = await storage.create(ids[0]!);
      if (first._tag === 'Left') throw new Error(first.left.message);
      for (const id of ids.slice(1)) cpSync(first.right.path, storage.pathOf(id), { recursive: true });
      await storage.close();
      const report = await host.reconcileInBackground();
      if (report.created.length + report.failed.length > 0) throw new Error(`unexpected reconciliation: ${JSON.stringify(report).slice(0, 300)}`);
      host.close();
      await store.close();
    });
    log(`  ${PROJECTS} projects and their repositories in ${(seeded.ms / 1000).toFixed(1)} s`);
    const report = new Report(`serve to listening with ${PROJECTS} projects (load average ${loadavg()[0]!.toFixed(1)})`);
    const former = await serveToListening(dataDir, true);
    const now = await serveToListening(dataDir, false);
    report.add('listening, reconciliation awaited first (serve before)', former.listeningMs, 'ms', { note: `of which the reconciliation ${former.backgroundMs.toFixed(0)} ms` });
    report.add('listening, reconciliation in the background (serve now)', now.listeningMs, 'ms', {
      baseline: 'listening, reconciliation awaited first (serve before)',
      note: `the background walk then took ${now.backgroundMs.toFixed(0)} ms; longest event-loop pause meanwhile ${now.longestPauseMs.toFixed(1)} ms (${now.idlePauseMs.toFixed(1)} ms on an idle loop right after)`,
    });
    const processToListening = async (dir: string) => {
      const result = await timed(() => startForgefoldProcess(dir, TOKEN));
      await stopServerProcess(result.value.child);
      return result.ms;
    };
    const empty = await processToListening(emptyDir);
    const full = await processToListening(dataDir);
    report.add('forgefold serve process to listening, empty data directory', empty, 'ms');
    report.add(`forgefold serve process to listening, ${PROJECTS} projects`, full, 'ms', { baseline: 'forgefold serve process to listening, empty data directory' });
    report.print();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(emptyDir, { recursive: true, force: true });
  }
}

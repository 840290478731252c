/**
 * A child of startup.bench.ts: the API served over the application started from the bench's snapshot (what
 * `forgefold serve` runs, without its reconciliation of every project's repository with git: the bench's projects
 * have none; forked with the node flags of `pnpm start`, scavenging on one thread as serve does), in a process of its own as a restarted server would be, so that the event-loop pauses it reports are
 * the server's alone (not those of the bench's process, whose heap held the replayed state). Driven over IPC:
 *   → { type: 'listening', url, ms }      once it serves (ms: from the store's opening to listening)
 *   ← { type: 'watch' }                    starts watching the event loop (1 ms resolution)
 *   ← { type: 'pause' }                    → { type: 'pause', ms, gcMs, gcKind }: the longest pause since `watch`, and the
 *                                          longest garbage collection meanwhile (what part of that pause is the collector's) and its kind
 *   ← { type: 'snapshot', whole? }         → { type: 'snapshot', ms, busyMs }: takes one while requests go on
 *                                          (whole: not copying from this process's previous snapshot, as before
 *                                          incremental snapshots; busyMs: the event loop's busy time meanwhile)
 *   ← { type: 'close' }                    closes the API and the store, and exits
 */
import { join } from 'node:path';
import { constants, monitorEventLoopDelay, PerformanceObserver, type IntervalHistogram, type PerformanceEntry } from 'node:perf_hooks';
import { Application, forgefold, type ForgefoldCommand, type State } from '@forgefold/core';
import { bootstrapRoot, dataPaths, scavengeOnOneThread } from '@forgefold/cli';
import { GitRepositories } from '@forgefold/git';
import { createForgefoldApi, RepositoryHost } from '@forgefold/http-adapter';
import { openSqliteStore, uuidv7Generator } from '@forgefold/sqlite-store';

type Message = { readonly type: 'watch' | 'pause' | 'snapshot' | 'close'; readonly whole?: boolean };

const dataDir = process.env['BENCH_STARTUP_DATA'];
const token = process.env['BENCH_STARTUP_TOKEN'];
if (!dataDir || !token || !process.send) throw new Error('startup-server.js runs as a child of startup.bench.js');
const send = (message: Readonly<Record<string, unknown>>): void => void process.send!(message);

scavengeOnOneThread();
const started = performance.now();
const store = openSqliteStore({ path: dataPaths(dataDir).database, synchronous: 'NORMAL', flushOffLoop: true });
const clock = { now: () => new Date().toISOString() };
const app = await Application.start<ForgefoldCommand, State>({ ...forgefold, store: store.events, snapshots: store.snapshots, clock, ids: { eventId: uuidv7Generator() }, freeze: false });
await bootstrapRoot(app, { dataDir, rootToken: token }, clock, () => undefined);
const host = new RepositoryHost(app, clock, new GitRepositories({ root: join(dataDir, 'repositories') }), () => undefined);
const api = createForgefoldApi({ app, clock, repositories: host, impersonationEnabled: false, log: () => undefined });
const { url } = await api.listen(0, '127.0.0.1');
send({ type: 'listening', url, ms: performance.now() - started });

let watching: IntervalHistogram | null = null;
/** The longest collection since `watch`, in ms, and what kind it was. */
let longestGc = 0;
let longestGcKind = '';
/** A collection's kind and flags as node's `gc` entries give them (`perf_hooks.constants`). */
const gcKind = (detail: { kind?: number; flags?: number } | undefined): string => {
  const kinds: Record<number, string> = { [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major', [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor', [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental', [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak callbacks', 2: 'minor mark-sweep' /* V8's kind 2, which node names no constant for */ };
  const flags: [number, string][] = [
    [constants.NODE_PERFORMANCE_GC_FLAGS_FORCED, 'forced'],
    [constants.NODE_PERFORMANCE_GC_FLAGS_ALL_EXTERNAL_MEMORY, 'external memory'],
    [constants.NODE_PERFORMANCE_GC_FLAGS_ALL_AVAILABLE_GARBAGE, 'all available garbage'],
    [constants.NODE_PERFORMANCE_GC_FLAGS_SYNCHRONOUS_PHANTOM_PROCESSING, 'synchronous phantom processing'],
    [constants.NODE_PERFORMANCE_GC_FLAGS_SCHEDULE_IDLE, 'idle'],
  ];
  const set = flags.filter(([flag]) => ((detail?.flags ?? 0) & flag) !== 0).map(([, name]) => name);
  return `${kinds[detail?.kind ?? 0] ?? 'unknown'}${set.length > 0 ? ` (${set.join(', ')})` : ''}`;
};
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    if (entry.duration <= longestGc) continue;
    longestGc = entry.duration;
    longestGcKind = gcKind((entry as PerformanceEntry & { detail?: { kind?: number; flags?: number } }).detail);
  }
}).observe({ entryTypes: ['gc'] });
process.on('message', (message: Message) => {
  void (async () => {
    if (message.type === 'watch') {
      watching?.disable();
      watching = monitorEventLoopDelay({ resolution: 1 });
      watching.enable();
      longestGc = 0;
      longestGcKind = '';
    } else if (message.type === 'pause') {
      watching?.disable();
      send({ type: 'pause', ms: (watching?.max ?? 0) / 1e6, gcMs: longestGc, gcKind: longestGcKind });
      watching = null;
    } else if (message.type === 'snapshot') {
      if (message.whole) store.snapshots.forgetPrevious();
      const from = performance.now();
      const busy = performance.eventLoopUtilization();
      await app.snapshot();
      send({ type: 'snapshot', ms: performance.now() - from, busyMs: performance.eventLoopUtilization(busy).active });
    } else {
      await api.close();
      await store.close();
      process.exit(0);
    }
  })();
});

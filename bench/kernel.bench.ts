/**
 * Kernel benchmarks: the application + SQLite store against raw better-sqlite3, on a log pre-filled with
 * BENCH_EVENTS events (default 1e6; the prefilled file is cached in .bench-tmp/ and copied per case).
 *
 *  (a) single-writer append: raw one-row-per-transaction insert vs a one-event command (FULL and NORMAL)
 *  (b) replay: raw read + JSON.parse of every row vs decode + fold of the same log
 *  (c) start-up: Application.start with and without a snapshot
 *  (d) 100 concurrent writers through the Application vs raw one-row-per-transaction inserts
 *
 * Knobs: BENCH_EVENTS (log size, default 1e6), BENCH_MS (duration of each throughput case, default 2000),
 * BENCH_CASES (e.g. "ad"), BENCH_SYNC ("FULL", "NORMAL" or both), BENCH_ROUNDS (rounds of (d), default 3),
 * BENCH_NO_DRAIN=1 (turn the store's WAL drains off in (a), to see what a growing WAL costs),
 * TABLE_STATE=1 (a 10,000-account Table projection instead of counters).
 */
import { randomUUID } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import {
  Application,
  EventRegistry,
  defineEvents,
  emptyTable,
  foldLog,
  tableGet,
  tableSet,
  type Actor,
  type Decider,
  type EventsOf,
  type Table,
} from '@forgefold/core';
import { openSqliteStore, uuidv7Generator, type SqliteStore } from '@forgefold/sqlite-store';
import { Report, copyDb, envInt, log, percentile, removeDb, scratchPath, sleep, throughput, timed, tmpDir } from './lib.js';

const EVENTS = envInt('BENCH_EVENTS', 1_000_000);
const MS = envInt('BENCH_MS', 2_000);
const ACCOUNTS = 10_000;
const VERSION = process.env.TABLE_STATE === '1' ? 'bench-table-1' : 'bench-1';
/** BENCH_CASES=abcd (default) picks the cases to run. */
const CASES = process.env.BENCH_CASES ?? 'abcd';

// ---------------------------------------------------------------------------------------------------
// A small domain: one ~300-byte event per command.

const events = defineEvents({
  Noted: {
    codec: t.type({ account: t.Int, amount: t.Int, memo: t.string }),
    version: 1,
    stream: (d: { account: number }) => `acct-${d.account}`,
  },
});
type BenchEvent = EventsOf<typeof events>;
interface BenchCommand {
  readonly account: number;
  readonly amount: number;
  readonly memo: string;
}
/**
 * The projection is deliberately small (totals and one slot per account in a typed array would not be
 * immer-friendly): the benchmark measures the kernel (store + application), not the cost of a domain's
 * state shape. TABLE_STATE=1 switches to a 10,000-account `Table` to show what such a state costs per
 * command (immer copies and re-freezes one shard of up to 256 entries on every command).
 */
interface BenchState {
  accounts: Table<{ balance: number; notes: number }> | null;
  events: number;
  total: number;
  lastAccount: number;
}
const TABLE_STATE = process.env.TABLE_STATE === '1';
const decider: Decider<BenchCommand, BenchEvent, BenchState> = {
  initialState: () => ({ accounts: TABLE_STATE ? emptyTable() : null, events: 0, total: 0, lastAccount: -1 }),
  decide: ({ command }) => E.right([{ type: 'Noted', data: { account: command.account as t.Int, amount: command.amount as t.Int, memo: command.memo } }]),
  evolve: (state, event) => {
    state.events++;
    state.total += event.data.amount;
    state.lastAccount = event.data.account;
    if (!state.accounts) return;
    const account = tableGet(state.accounts, event.data.account);
    if (account) {
      account.balance += event.data.amount;
      account.notes++;
    } else tableSet(state.accounts, event.data.account, { balance: event.data.amount, notes: 1 });
  },
};
const registry = new EventRegistry(events);
const actor: Actor = { userId: 1, origin: 'api', requestId: null };
const memo = (i: number) => `note ${i}: `.padEnd(230, 'lorem ipsum dolor sit amet ');
const command = (i: number): BenchCommand => ({ account: i % ACCOUNTS, amount: (i % 100) + 1, memo: memo(i) });

const start = (store: SqliteStore, withSnapshot = true) =>
  Application.start<BenchCommand, BenchState>({
    decider: decider as never,
    registry,
    store: store.events,
    snapshots: withSnapshot ? store.snapshots : undefined,
    clock: { now: () => new Date().toISOString() },
    ids: { eventId: uuidv7Generator() },
    projectionVersion: VERSION,
    freeze: false, // as `forgefold serve` runs it
  });

const metadata = JSON.stringify({ actorId: 1, sudoFromId: null, requestId: null, origin: 'api' });

// ---------------------------------------------------------------------------------------------------
// The prefilled log, built once with big transactions and cached.

const prefilled = async (n: number): Promise<string> => {
  const path = join(tmpDir, `prefill-${n}${TABLE_STATE ? '-table' : ''}.db`);
  if (existsSync(`${path}.done`) && existsSync(path)) return path;
  removeDb(path);
  scratchPath(`prefill-${n}${TABLE_STATE ? '-table' : ''}.db`);
  const { ms } = await timed(async () => {
    const store = openSqliteStore({ path, synchronous: 'OFF' });
    await store.close();
    const db = new Database(path);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = OFF');
    db.pragma('cache_size = -1000000');
    const insert = db.prepare(
      'INSERT INTO events (global_position, event_id, stream_id, stream_version, type, schema_version, data, recorded_at, metadata) VALUES (?, ?, ?, ?, ?, 1, ?, ?, ?)',
    );
    const state = decider.initialState();
    const versions = new Int32Array(ACCOUNTS);
    const at = new Date().toISOString();
    const chunk = db.transaction((from: number, to: number) => {
      for (let i = from; i < to; i++) {
        const { account, amount, memo: text } = command(i);
        const data = { account: account as t.Int, amount: amount as t.Int, memo: text };
        insert.run(i + 1, randomUUID(), `acct-${account}`, ++versions[account]!, 'Noted', JSON.stringify(data), at, metadata);
        decider.evolve(state, { type: 'Noted', data });
      }
    });
    for (let from = 0; from < n; from += 50_000) chunk(from, Math.min(n, from + 50_000));
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    const store2 = openSqliteStore({ path });
    await store2.snapshots.save({ position: n, projectionVersion: VERSION, state, takenAt: at });
    await store2.close();
  });
  writeFileSync(`${path}.done`, '');
  log(`prefilled ${n} events in ${(ms / 1000).toFixed(1)} s → ${path}`);
  return path;
};

// ---------------------------------------------------------------------------------------------------

type Sync = 'FULL' | 'NORMAL';
type Run = { opsPerSec: number; latencies: number[] };

/** Raw better-sqlite3: one ~300-byte row per transaction (autocommit), into a plain table and into the events table. */
const rawInserts = (path: string, sync: Sync) => {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${sync}`);
  db.pragma('wal_autocheckpoint = 0');
  db.exec('CREATE TABLE IF NOT EXISTS raw_rows (id INTEGER PRIMARY KEY, data TEXT NOT NULL)');
  const plain = db.prepare('INSERT INTO raw_rows (data) VALUES (?)');
  const event = db.prepare(
    'INSERT INTO events (global_position, event_id, stream_id, stream_version, type, schema_version, data, recorded_at, metadata) VALUES (?, ?, ?, ?, ?, 1, ?, ?, ?)',
  );
  let n = 0;
  const at = new Date().toISOString();
  return {
    plainRow: (i: number) => plain.run(JSON.stringify(command(i))),
    eventRow: (i: number) => {
      const c = command(i);
      // NULL global_position: SQLite assigns max + 1, as the store does.
      event.run(null, randomUUID(), `raw-${process.pid}-${++n}-${i}`, 1, 'Noted', JSON.stringify(c), at, metadata);
    },
    close: () => db.close(),
  };
};

const ROUNDS = envInt('BENCH_ROUNDS', 3);

/**
 * Operations of one variant in a row, in the single-writer case. Interleaved operation by operation, the variants
 * measured the switch between two connections on one file more than themselves: a connection that finds the file
 * changed by another drops its page cache and reads its B-trees' pages again. Measured alone, a store commit at FULL
 * on a log of 200,000 events took 130 µs and a raw event row 133 µs; interleaved operation by operation, 274 and
 * 143 µs (docs/decisions.md). In blocks of 50 (~7 ms) the switch is one operation in 50, and a block is still far
 * shorter than the disk's changes of speed.
 */
const BLOCK = 50;

/** The best of several rounds; baseline and cases alternate so that a busy moment hurts them alike. */
const best = (runs: { opsPerSec: number; latencies: number[] }[]) => runs.reduce((a, b) => (b.opsPerSec > a.opsPerSec ? b : a));

/**
 * Single writer. The disk of a shared machine changes speed from one second to the next, so the four
 * variants run interleaved in short blocks (BLOCK operations of raw, raw event, store, app, raw, …): each sees
 * the same conditions, and the ratios hold even when the absolute figures wander.
 */
const singleWriter = async (report: Report, source: string, sync: Sync) => {
  const path = copyDb(source, `append-${sync}.db`);
  const raw = rawInserts(path, sync);
  const store = openSqliteStore({ path, synchronous: sync, walDrainBytes: process.env.BENCH_NO_DRAIN ? 2 ** 40 : undefined });
  const app = await start(store);
  const kinds = ['rawPlain', 'rawEvent', 'viaStore', 'viaApp'] as const;
  const latencies: Record<(typeof kinds)[number], number[]> = { rawPlain: [], rawEvent: [], viaStore: [], viaApp: [] };
  const op = {
    rawPlain: (i: number) => raw.plainRow(i),
    rawEvent: (i: number) => raw.eventRow(i),
    viaStore: (i: number) =>
      store.events.commit([
        {
          streamId: `direct-${i}`,
          expected: 'any',
          events: [{ eventId: randomUUID(), type: 'Noted', schemaVersion: 1, data: command(i), recordedAt: new Date().toISOString(), metadata: { actorId: 1, origin: 'api' } }],
        },
      ]),
    viaApp: (i: number) => app.execute(actor, command(i)),
  };
  for (let warm = 0; warm < 20; warm++) for (const kind of kinds) await op[kind](warm);
  const began = performance.now();
  for (let i = 0; performance.now() - began < MS * 2; i += BLOCK) {
    for (const kind of kinds) {
      if (kind === 'viaApp') await app.catchUp(); // fold what the others appended (not timed)
      for (let j = i; j < i + BLOCK; j++) {
        const t0 = performance.now();
        await op[kind](j);
        latencies[kind].push(performance.now() - t0);
      }
    }
  }
  raw.close();
  await store.close();
  removeDb(path);
  const rate = (values: number[]) => (values.length / values.reduce((a, b) => a + b, 0)) * 1000;
  const p = (values: number[], q: number) => percentile(values, q).toFixed(3);
  const base = `raw row/txn ${sync}`;
  report.add(base, rate(latencies.rawPlain), 'ops/s', { note: `plain table; p50 ${p(latencies.rawPlain, 50)} ms` });
  report.add(`raw event row/txn ${sync}`, rate(latencies.rawEvent), 'ops/s', { baseline: base, note: `the same row into the events table with its indexes; p50 ${p(latencies.rawEvent, 50)} ms` });
  report.add(`store.commit 1 event ${sync}`, rate(latencies.viaStore), 'ops/s', { baseline: base, note: `p50 ${p(latencies.viaStore, 50)} ms, p99 ${p(latencies.viaStore, 99)} ms` });
  report.add(`app command ${sync}`, rate(latencies.viaApp), 'ops/s', {
    baseline: base,
    target: { ratio: 0.7, text: '≥0.7x' },
    note: `p50 ${p(latencies.viaApp, 50)} ms, p99 ${p(latencies.viaApp, 99)} ms; ${(rate(latencies.viaApp) / rate(latencies.rawEvent)).toFixed(2)}x raw event row`,
  });
};

/** Appends on an empty log, to see what 1e6 rows cost. */
const emptyLogAppend = async (report: Report, sync: Sync) => {
  const path = scratchPath(`empty-${sync}.db`);
  const store = openSqliteStore({ path, synchronous: sync });
  const app = await start(store);
  const viaApp = await throughput((i) => app.execute(actor, command(i)), { ms: MS });
  await store.close();
  removeDb(path);
  report.add(`app command ${sync}, empty log`, viaApp.opsPerSec, 'ops/s', { baseline: `raw row/txn ${sync}`, note: 'compare with the prefilled log' });
};

/** Best of `runs` timings (the machine is shared; the minimum is the least disturbed run). */
const bestOf = async <T>(runs: number, fn: () => T | Promise<T>) => {
  let best: { ms: number; value: T } | null = null;
  for (let i = 0; i < runs; i++) {
    const result = await timed(fn);
    if (!best || result.ms < best.ms) best = result;
  }
  return best!;
};

const replay = async (report: Report, source: string) => {
  const store = openSqliteStore({ path: source, readonly: true });
  const db = new Database(source, { readonly: true });
  const readAllRows = () => {
    let n = 0;
    for (const row of db.prepare('SELECT * FROM events ORDER BY global_position').raw().iterate() as Iterable<unknown[]>) {
      JSON.parse(row[6] as string);
      JSON.parse(row[8] as string);
      n++;
    }
    return n;
  };
  const readData = () => {
    let sum = 0;
    for (const [data] of db.prepare('SELECT data FROM events ORDER BY global_position').raw().iterate() as Iterable<[string]>) sum += (JSON.parse(data) as { amount: number }).amount;
    return sum;
  };
  const fold = () => foldLog({ decider: decider as never, registry, store: store.events }, decider.initialState(), 0, true);
  // Alternate the three readers, best of three each.
  let rawRows = await timed(readAllRows);
  let rawData = await timed(readData);
  let folded = await timed(fold);
  for (let round = 1; round < 3; round++) {
    const a = await timed(readAllRows);
    if (a.ms < rawRows.ms) rawRows = a;
    const b = await timed(readData);
    if (b.ms < rawData.ms) rawData = b;
    const c = await timed(fold);
    if (c.ms < folded.ms) folded = c;
  }
  db.close();
  await store.close();
  if (folded.value.state.events !== EVENTS) throw new Error(`replayed ${folded.value.state.events} events, expected ${EVENTS}`);
  const base = 'raw read of all rows + JSON.parse';
  report.add(base, (EVENTS / rawRows.ms) * 1000, 'events/s', { note: `SELECT * + JSON.parse(data), JSON.parse(metadata): ${(rawRows.ms / 1000).toFixed(2)} s` });
  report.add('raw read of the data column + JSON.parse', (EVENTS / rawData.ms) * 1000, 'events/s', { baseline: base, note: `${(rawData.ms / 1000).toFixed(2)} s (stricter baseline)` });
  report.add('replay: readAll + decode + fold', (EVENTS / folded.ms) * 1000, 'events/s', {
    baseline: base,
    target: { ratio: 0.5, text: '≥0.5x' },
    note: `${(folded.ms / 1000).toFixed(2)} s; ${(rawData.ms / folded.ms).toFixed(2)}x the data-column-only read`,
  });
};

const startup = async (report: Report, source: string) => {
  const store = openSqliteStore({ path: source, readonly: true });
  const cold = await bestOf(2, () => start(store, false));
  const warm = await bestOf(3, () => start(store, true));
  await store.close();
  if (warm.value.position !== EVENTS || cold.value.position !== EVENTS) throw new Error('start-up did not reach the head');
  report.add(`start-up, full replay of ${EVENTS} events`, cold.ms, 'ms');
  report.add(`start-up from a snapshot at ${EVENTS}`, warm.ms, 'ms', {
    baseline: `start-up, full replay of ${EVENTS} events`,
    note: `${warm.ms < 1500 ? 'OK' : 'MISSED'} target < 1500 ms`,
  });
};

const concurrentWriters = async (report: Report, source: string, sync: Sync, writers: number) => {
  const path = copyDb(source, `concurrent-${sync}.db`);
  const raw = rawInserts(path, sync);
  const store = openSqliteStore({ path, synchronous: sync });
  const app = await start(store);
  const commit = store.events.commit.bind(store.events);
  let transactions = 0;
  store.events.commit = (writes, options) => {
    transactions++;
    return commit(writes, options);
  };
  const slice = Math.max(300, MS / ROUNDS);
  const rawRuns: Run[] = [];
  const rawEventRuns: Run[] = [];
  const appRuns: (Run & { perTransaction: number })[] = [];
  let issued = 0;
  for (let round = 0; round < ROUNDS; round++) {
    rawRuns.push(await throughput((i) => raw.plainRow(i), { ms: slice / 2 }));
    rawEventRuns.push(await throughput((i) => raw.eventRow(i), { ms: slice / 2 }));
    await app.catchUp();
    const latencies: number[] = [];
    let stop = false;
    const before = transactions;
    const began = performance.now();
    const writer = async () => {
      while (!stop) {
        const t0 = performance.now();
        const result = await app.execute(actor, command(issued++));
        if (result._tag !== 'Right') throw new Error('command rejected');
        latencies.push(performance.now() - t0);
      }
    };
    const running = Array.from({ length: writers }, writer);
    await sleep(slice);
    stop = true;
    await Promise.all(running);
    const elapsed = performance.now() - began;
    appRuns.push({ opsPerSec: (latencies.length / elapsed) * 1000, latencies, perTransaction: latencies.length / (transactions - before) });
  }
  raw.close();
  await store.close();
  removeDb(path);
  const rawBest = best(rawRuns);
  const appBest = appRuns.reduce((a, b) => (b.opsPerSec > a.opsPerSec ? b : a));
  const p99 = percentile(appBest.latencies, 99);
  const base = `raw row/txn ${sync} `;
  report.add(base, rawBest.opsPerSec, 'ops/s', { note: 'one ~300-byte row per transaction, plain table' });
  report.add(`raw event row/txn ${sync} `, best(rawEventRuns).opsPerSec, 'ops/s', { baseline: base, note: 'into the events table with its indexes' });
  report.add(`${writers} concurrent writers ${sync}`, appBest.opsPerSec, 'commands/s', {
    baseline: base,
    target: sync === 'FULL' ? { ratio: 2, text: '≥2x' } : undefined,
    note: `p50 ${percentile(appBest.latencies, 50).toFixed(2)} ms, p99 ${p99.toFixed(2)} ms${sync === 'FULL' ? ` (target < 20 ms: ${p99 < 20 ? 'OK' : 'MISSED'})` : ''}, ${appBest.perTransaction.toFixed(1)} commands/transaction`,
  });
};

export default async function kernelBench(): Promise<void> {
  log(`BENCH_EVENTS=${EVENTS} BENCH_MS=${MS}${TABLE_STATE ? ' TABLE_STATE=1 (10,000-account Table projection)' : ''}`);
  const source = await prefilled(EVENTS);

  if (CASES.includes('a')) {
  const append = new Report(`(a) single-writer append on a log of ${EVENTS} events (ratio vs raw one-row-per-transaction)`);
  for (const sync of (process.env.BENCH_SYNC?.split(',') ?? ['FULL', 'NORMAL']) as Sync[]) {
    await singleWriter(append, source, sync);
    await emptyLogAppend(append, sync);
  }
  append.print();
  }

  if (CASES.includes('b')) {
  const read = new Report(`(b) replay of ${EVENTS} events`);
  await replay(read, source);
  read.print();
  }

  if (CASES.includes('c')) {
  const boot = new Report(`(c) start-up with ${EVENTS} events`);
  await startup(boot, source);
  boot.print();
  }

  if (CASES.includes('d')) {
  const concurrent = new Report(`(d) 100 concurrent writers on a log of ${EVENTS} events`);
  for (const sync of (process.env.BENCH_SYNC?.split(',') ?? ['FULL', 'NORMAL']) as Sync[]) await concurrentWriters(concurrent, source, sync, 100);
  concurrent.print();
  }
}

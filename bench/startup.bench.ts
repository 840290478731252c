/**
 * Start-up and snapshots of the real application's state (issue 16). BENCH_REAL_COMMANDS (default 1,000,000) real
 * commands (users, groups, projects in them, memberships, SCIM identities of a SAML group) are decided in-process by
 * the product's decider and committed to SQLite in large transactions (see `Writer`: not over HTTP). Then:
 *  - start-up by full replay of the log (its state must hash as the built one), and from a snapshot (target
 *    < 1.5 s; in a fresh process as a restart would, and in-process), both for the Application alone and for
 *    what `forgefold serve` runs up to listening (without its reconciliation of every project's repository),
 *    beside the former format's load (`v8.deserialize` of the
 *    whole state). Snapshots load lazily (format 2: the tables' nodes are read and decoded when first used);
 *  - the snapshot's size on disk;
 *  - the longest event-loop pause while a snapshot is taken under an HTTP write load (wrk, POST /groups, 10
 *    connections; target < 20 ms), beside the same load without a snapshot (on the fresh heap, and again after the
 *    snapshots under load, on theirs) and the former in-thread snapshot (one `v8.serialize` of the whole state);
 *    measured in a server process of its own started from the snapshot (startup-server.ts), as a restarted server
 *    runs, with a snapshot there with no load too.
 *    BENCH_STARTUP_SERVER_ARGS: node flags for that server process (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof").
 *    BENCH_STARTUP_INCREMENTAL_FIRST=1 takes the incremental later snapshot under load before the whole one.
 * At 1e6 the bench holds the built and the replayed state at once: run it with
 * NODE_OPTIONS=--max-old-space-size=14336 (node's default heap runs out at about 600,000 commands).
 * BENCH_STARTUP_FORMER=0 skips the former format's case (one `v8.serialize` and one `v8.deserialize` of the whole
 * state: ~4 minutes at 1e6); its rows then say so instead of a figure. BENCH_STARTUP_KEEP=1 keeps the data directory
 * (its path is logged) for probing the served process again without rebuilding the log.
 */
import v8 from 'node:v8';
import { execFile, fork } from 'node:child_process';
import { promisify } from 'node:util';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Application, eventsOf, forgefold, stateHash, systemActor, type Actor, type ForgefoldCommand, type NewEvent, type State } from '@forgefold/core';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { dataPaths } from '@forgefold/cli';
import { openSqliteStore, snapshotsPathOf, uuidv7Generator, type SqliteStore } from '@forgefold/sqlite-store';
import { benchDir, envInt, httpLoad, log, Report, serveNodeFlags, sleep, timed } from './lib.js';

const COMMANDS = envInt('BENCH_REAL_COMMANDS', 1_000_000);
const LOAD_SECONDS = envInt('BENCH_HTTP_SECONDS', 5);
const FORMER = process.env.BENCH_STARTUP_FORMER !== '0';
const KEEP = process.env['BENCH_STARTUP_KEEP'] === '1';
const TOKEN = 'glpat-bench-startup-root-0000';
const FINGERPRINT = '9a:3b:5c:7d:1e:2f:40:51:62:73:84:95:a6:b7:c8:d9:ea:fb:0c:1d';
const scim: Actor = { userId: null, origin: 'scim' };
/** Commands per transaction while the log is written. */
const BATCH = 10_000;

const start = (store: SqliteStore, withSnapshots: boolean) =>
  Application.start<ForgefoldCommand, State>({
    ...forgefold,
    store: store.events,
    ...(withSnapshots ? { snapshots: store.snapshots } : {}),
    clock: { now: () => new Date().toISOString() },
    ids: { eventId: uuidv7Generator() },
    freeze: false,
  });

/**
 * Decides commands in-process with the product's composed decider (`forgefold.decider.decide`, the decision
 * `Application.execute` and the HTTP routes run, guard included), folds each command's events into a plain
 * mutable state as a replay does, and commits them to the real store in transactions of BATCH commands. It
 * skips what serving adds around a decision (HTTP, the immer draft of the live path, one flush per group of
 * requests): that is what makes 1e6 commands take a minute instead of the half hour HTTP takes here (~740/s).
 */
class Writer {
  private readonly state: State = forgefold.decider.initialState();
  private pending: { streamId: string; event: NewEvent }[] = [];
  private position = 0;
  private readonly eventId = uuidv7Generator();
  commands = 0;

  constructor(private readonly store: SqliteStore) {}

  /** Decides one command against the state so far; returns its first event's `id` (the created entity's). */
  decide(actor: Actor, command: ForgefoldCommand): number {
    const issued = { command, actor, at: new Date().toISOString() };
    const decision = forgefold.decider.decide(issued, this.state);
    if (decision._tag === 'Left') throw new Error(`${command.type}: ${JSON.stringify(decision.left)}`);
    // Detached as the store will keep them (a later fold must not change what an earlier event wrote).
    const events = eventsOf(decision.right).map((event) => ({ type: event.type, data: JSON.parse(JSON.stringify(event.data)) as unknown }));
    for (const event of events) {
      forgefold.decider.evolve(this.state, event);
      this.pending.push({
        streamId: forgefold.registry.streamOf(event),
        event: {
          eventId: this.eventId(),
          type: event.type,
          schemaVersion: forgefold.registry.versionOf(event.type),
          data: event.data,
          recordedAt: issued.at,
          metadata: { actorId: actor.userId, sudoFromId: null, requestId: null, origin: actor.origin },
        },
      });
    }
    this.commands++;
    return (events[0]?.data as { id?: number } | undefined)?.id ?? 0;
  }

  /** Commits what was decided since the last flush in one transaction (consecutive events of a stream as one write). */
  async flush(): Promise<void> {
    const writes: { streamId: string; expected: 'any'; events: NewEvent[] }[] = [];
    for (const { streamId, event } of this.pending) {
      const last = writes[writes.length - 1];
      if (last && last.streamId === streamId) last.events.push(event);
      else writes.push({ streamId, expected: 'any', events: [event] });
    }
    if (writes.length > 0) await this.store.events.commit(writes, { expectedPosition: this.position });
    this.position += this.pending.length;
    this.pending = [];
  }

  get hash(): string {
    return stateHash(this.state);
  }
}

/**
 * One round of 10 commands: 2 users and 2 groups, then a project in each group, 3 memberships of the new users in
 * the new groups and 1 SCIM identity of a SAML group.
 */
const round = (writer: Writer, r: number, samlGroup: number): void => {
  const user = (n: number) => writer.decide(systemActor, { type: 'CreateUser', username: `user${r}-${n}`, name: `User ${r} ${n}`, email: `user${r}-${n}@example.com`, password_digest: null });
  const group = (n: number) => writer.decide(systemActor, { type: 'CreateGroup', name: `Group ${r} ${n}`, path: `group-${r}-${n}`, visibility: (r + n) % 3 === 0 ? 'public' : 'private' });
  const [u1, u2, g1, g2] = [user(1), user(2), group(1), group(2)];
  writer.decide(systemActor, { type: 'CreateProject', path: `project-${r}-1`, namespace_id: g1 });
  writer.decide(systemActor, { type: 'CreateProject', path: `project-${r}-2`, namespace_id: g2 });
  writer.decide(systemActor, { type: 'AddMember', source_type: 'Namespace', source_id: g1, user_id: u1, access_level: 30 });
  writer.decide(systemActor, { type: 'AddMember', source_type: 'Namespace', source_id: g2, user_id: u2, access_level: 40 });
  writer.decide(systemActor, { type: 'AddMember', source_type: 'Namespace', source_id: g2, user_id: u1, access_level: 20 });
  writer.decide(scim, { type: 'ProvisionScimIdentity', group_id: samlGroup, extern_uid: `ext-${r}`, user_name: `scim${r}@idp.example`, email: `scim${r}@example.com`, name: `Scim ${r}`, given_name: 'Scim', family_name: String(r), active: true });
};

/** Writes the log; returns the hash of the state the commands built (a replay must reach the same). */
const build = async (store: SqliteStore): Promise<string> => {
  const writer = new Writer(store);
  const samlGroup = writer.decide(systemActor, { type: 'CreateGroup', name: 'SAML', path: 'saml' });
  writer.decide(systemActor, { type: 'ConfigureSamlProvider', group_id: samlGroup, sso_url: 'https://idp.example.com/sso', certificate_fingerprint: FINGERPRINT, default_membership_role: 30 });
  const rounds = Math.ceil(COMMANDS / 10);
  for (let r = 0; r < rounds; r++) {
    round(writer, r, samlGroup);
    if (writer.commands % BATCH < 10) await writer.flush();
    if (r % 20_000 === 0 && r > 0) log(`  ${writer.commands} commands…`);
  }
  await writer.flush();
  return writer.hash;
};

/** `timed`, with the process's CPU time beside the wall time (the machine is shared: the wall time includes waiting for a core). */
const cpuTimed = async <T>(fn: () => Promise<T>): Promise<{ ms: number; cpuMs: number; value: T }> => {
  const before = process.cpuUsage();
  const { ms, value } = await timed(fn);
  const cpu = process.cpuUsage(before);
  return { ms, cpuMs: (cpu.user + cpu.system) / 1000, value };
};

/** The longest event-loop pause while `during` runs (monitorEventLoopDelay at 1 ms resolution), in ms. */
const longestPause = async <T>(during: () => Promise<T>): Promise<{ ms: number; value: T }> => {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  try {
    const value = await during();
    return { ms: delay.max / 1e6, value };
  } finally {
    delay.disable();
  }
};

/**
 * Start-up from the newest snapshot in a process of its own, as a restarted server starts: no replayed state on its
 * heap (the in-process case below runs after a full replay, whose gigabytes of garbage it then pays for at 1e6).
 * Returns the Application's start-up and the whole process's (node, imports, store, Application) in ms.
 */
const startInFreshProcess = async (path: string): Promise<{ ms: number; cpuMs: number; processMs: number; position: number; rssMb: number }> => {
  const script = `
    const t0 = performance.now();
    const { Application, forgefold } = await import('@forgefold/core');
    const { openSqliteStore, uuidv7Generator } = await import('@forgefold/sqlite-store');
    const store = openSqliteStore({ path: ${JSON.stringify(path)}, synchronous: 'NORMAL', readonly: true });
    const c0 = process.cpuUsage();
    const t1 = performance.now();
    const app = await Application.start({ ...forgefold, store: store.events, snapshots: store.snapshots, clock: { now: () => new Date().toISOString() }, ids: { eventId: uuidv7Generator() }, freeze: false });
    const ms = performance.now() - t1;
    const cpu = process.cpuUsage(c0);
    console.log(JSON.stringify({ ms, cpuMs: (cpu.user + cpu.system) / 1000, sinceStart: performance.now() - t0, position: app.position, rssMb: process.memoryUsage().rss / 1e6 }));
    await store.close();`;
  const started = performance.now();
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { cwd: benchDir, maxBuffer: 1 << 20 });
  const processMs = performance.now() - started;
  const result = JSON.parse(stdout.trim().split('\n').pop()!) as { ms: number; cpuMs: number; position: number; rssMb: number };
  return { ...result, processMs };
};

/**
 * The served application in a child process (startup-server.ts), once it listens: its URL, its start-up to
 * listening, and `ask` to send it a message and (when `answer` is given) await its reply of that type.
 */
const startServer = async (dataDir: string) => {
  const execArgv = [...serveNodeFlags(), ...(process.env['BENCH_STARTUP_SERVER_ARGS']?.split(' ') ?? [])];
  const child = fork(join(benchDir, 'startup-server.js'), [], { env: { ...process.env, BENCH_STARTUP_DATA: dataDir, BENCH_STARTUP_TOKEN: TOKEN }, execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const reply = (type: string) =>
    new Promise<{ ms: number; busyMs?: number; gcMs?: number; gcKind?: string; url?: string }>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`the bench's server exited (${String(code)}) before its ${type}`));
      const onMessage = (message: { type: string; ms: number; busyMs?: number; gcMs?: number; gcKind?: string; url?: string }) => {
        if (message.type !== type) return;
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve(message);
      };
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
  const listening = await reply('listening');
  const ask = async (type: 'watch' | 'pause' | 'snapshot', answer?: 'pause' | 'snapshot', whole = false): Promise<{ ms: number; busyMs?: number; gcMs?: number; gcKind?: string }> => {
    const replied = answer ? reply(answer) : Promise.resolve({ ms: 0 });
    child.send({ type, whole });
    return replied;
  };
  const close = () =>
    new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.send({ type: 'close' });
    });
  return { url: listening.url!, ms: listening.ms, ask, close };
};

export default async function startupBench(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'forgefold-startup-'));
  const path = dataPaths(dataDir).database;
  const report = new Report(`Start-up and snapshots of the real state (${COMMANDS} commands)`);
  try {
    log(`deciding and committing ${COMMANDS} real commands in-process…`);
    let store = openSqliteStore({ path, synchronous: 'OFF' });
    const built = await timed(() => build(store));
    const events = await store.events.headPosition();
    await store.close();
    let formerMb = 0;
    log(`  ${events} events in ${(built.ms / 1000).toFixed(0)} s (${((COMMANDS / built.ms) * 1000).toFixed(0)} commands/s; load average ${loadavg()[0]!.toFixed(1)})`);

    // No snapshot exists yet: this replays the whole log (and gives the application its snapshot store). The replayed
    // application does not outlive this block: a whole state left on the heap made every later collection a major one
    // over gigabytes, which the start-up from a snapshot and the pauses measured below then paid (a process that
    // starts from a snapshot has no such state).
    await (async () => {
      store = openSqliteStore({ path, synchronous: 'NORMAL' });
      const replay = await cpuTimed(() => start(store, true));
      report.add('start-up by full replay', replay.ms, 'ms', { note: `${events} events, ${((events / replay.ms) * 1000).toFixed(0)} events/s; CPU ${replay.cpuMs.toFixed(0)} ms` });
      if (stateHash(replay.value.state) !== built.value) throw new Error('the replayed state differs from the state the commands built');

      // The former snapshot: one v8.serialize on the event loop (and the blob it makes).
      // Neither the blob nor its copy is kept: a second whole state beside the replayed one does not fit the heap at 1e6.
      if (FORMER) {
        const whole = await (async () => {
          const serialized = await timed(() => v8.serialize(replay.value.state));
          const loaded = await timed(() => void v8.deserialize(serialized.value));
          return { ms: serialized.ms, loadMs: loaded.ms, mb: serialized.value.length / 1e6 };
        })();
        formerMb = whole.mb;
        report.add('former snapshot: v8.serialize of the state (one pause)', whole.ms, 'ms', { note: `${whole.mb.toFixed(0)} MB` });
        report.add('former start-up from a snapshot (v8.deserialize of the state)', whole.loadMs, 'ms');
      } else log('  the former format’s case is skipped (BENCH_STARTUP_FORMER=0)');
      const idle = await longestPause(() => replay.value.snapshot());
      report.add('snapshot with no load: longest event-loop pause', idle.ms, 'ms');
      await store.close();
    })();

    const fresh = await startInFreshProcess(path);
    if (fresh.position !== events) throw new Error(`the fresh process started at ${fresh.position}, not ${events}`);
    report.add('start-up from a snapshot, in a fresh process', fresh.ms, 'ms', {
      baseline: 'start-up by full replay',
      note: `target < 1.5 s; CPU ${fresh.cpuMs.toFixed(0)} ms; the whole process (node, imports, store, Application) ${fresh.processMs.toFixed(0)} ms; RSS ${fresh.rssMb.toFixed(0)} MB`,
    });

    store = openSqliteStore({ path, synchronous: 'NORMAL', readonly: true });
    const fromSnapshot = await cpuTimed(() => start(store, true));
    report.add('start-up from a snapshot', fromSnapshot.ms, 'ms', { baseline: 'start-up by full replay', note: `target < 1.5 s; CPU ${fromSnapshot.cpuMs.toFixed(0)} ms` });
    if (fromSnapshot.value.position !== events || stateHash(fromSnapshot.value.state) !== built.value) throw new Error('the state loaded from the snapshot differs from the built one');
    await store.close();
    const db = new Database(snapshotsPathOf(path), { readonly: true });
    const newest = db.prepare<[], number>('SELECT max(id) FROM shared_snapshots WHERE pieces >= 0').pluck().get() ?? 0;
    // A row that references an older snapshot's row (source_id) has that row's bytes.
    const resolved = (column: string): string =>
      `CASE WHEN p.source_id IS NULL THEN ${column}(p.bytes) ELSE (SELECT ${column}(s.bytes) FROM shared_snapshot_pieces s WHERE s.snapshot_id = p.source_id AND s.seq = p.source_seq) END`;
    const snapshotSize = db.prepare<[number], number>(`SELECT coalesce(sum(${resolved('length')}), 0) FROM shared_snapshot_pieces p WHERE p.snapshot_id = ?`).pluck().get(newest) ?? 0;
    // What start-up reads of it: the structure, whose offset the trailer's first 8 of its last 20 bytes give.
    const tail = Buffer.concat(db.prepare<[number], Buffer>(`SELECT ${resolved('')} FROM shared_snapshot_pieces p WHERE p.snapshot_id = ? ORDER BY p.seq DESC LIMIT 2`).pluck().all(newest).reverse());
    const structureAt = tail.readUInt32LE(tail.length - 20) + tail.readUInt32LE(tail.length - 16) * 2 ** 32;
    db.close();
    report.add('snapshot size (MB)', snapshotSize / 1e6, 'ms', {
      note: `${FORMER ? `former format ${formerMb.toFixed(0)} MB; ` : ''}its structure (what start-up reads) ${((snapshotSize - 20 - structureAt) / 1e6).toFixed(1)} MB (the unit column says ms: read MB)`,
    });

    // The API served over the application loaded from that snapshot, in a process of its own as a restarted server
    // (startup-server.ts: what `forgefold serve` runs, without its reconciliation of every project's repository with
    // git), then a snapshot taken there while HTTP writes arrive. The pauses are that server's own.
    const server = await startServer(dataDir);
    report.add('start-up from a snapshot to listening (serve without reconciliation)', server.ms, 'ms', { note: 'in a fresh process: store, Application, root, API, listen' });
    try {
      const load = (seconds: number, run: string) => httpLoad(seconds, {
        url: `${server.url}/api/v4/groups`,
        connections: 10,
        method: 'POST',
        headers: { 'PRIVATE-TOKEN': TOKEN, 'Content-Type': 'application/json' },
        bodyTemplate: `{"name":"Load ${run} {n}","path":"load-${run}-{n}"}`,
      }, 'wrk');
      const watched = async <T>(during: () => Promise<T>): Promise<{ ms: number; gc: string; value: T }> => {
        await server.ask('watch');
        const value = await during();
        const pause = await server.ask('pause', 'pause');
        return { ms: pause.ms, gc: `longest collection ${(pause.gcMs ?? 0).toFixed(1)} ms${pause.gcKind ? `, ${pause.gcKind}` : ''}`, value };
      };
      const quiet = await watched(() => load(LOAD_SECONDS, 'quiet'));
      report.add('HTTP writes, no snapshot: longest event-loop pause', quiet.ms, 'ms', { note: `${quiet.value.rps.toFixed(0)} requests/s, p99 ${quiet.value.p99} ms; ${quiet.gc}` });
      const taken = (snapshot: { ms: number; busyMs?: number }) => `the snapshot took ${(snapshot.ms / 1000).toFixed(1)} s, the event loop busy ${(snapshot.busyMs ?? 0).toFixed(0)} ms meanwhile`;
      const underLoad = async (run: string, whole: boolean) => watched(async () => {
        const running = load(LOAD_SECONDS, run);
        await sleep(500);
        const snapshot = await server.ask('snapshot', 'snapshot', whole);
        return { snapshot, result: await running };
      });
      // The first snapshot of the process copies the nodes unread since start-up from the snapshot it started from.
      const during = await underLoad('snapshot', false);
      report.add('HTTP writes while a snapshot is taken: longest event-loop pause', during.ms, 'ms', {
        ...(FORMER ? { baseline: 'former snapshot: v8.serialize of the state (one pause)' } : {}),
        note: `target < 20 ms; ${taken(during.value.snapshot)}; ${during.value.result.rps.toFixed(0)} requests/s, p99 ${during.value.result.p99} ms; ${during.gc}`,
      });
      // Later ones: from the previous one too (incremental), or whole (every node touched since start-up again).
      const incrementalFirst = process.env['BENCH_STARTUP_INCREMENTAL_FIRST'] === '1';
      const earlier = incrementalFirst ? await underLoad('incremental', false) : null;
      const wholeLoad = await underLoad('whole', true);
      report.add('HTTP writes while a later snapshot is taken whole: longest event-loop pause', wholeLoad.ms, 'ms', {
        note: `as before incremental snapshots; ${taken(wholeLoad.value.snapshot)}; ${wholeLoad.value.result.rps.toFixed(0)} requests/s, p99 ${wholeLoad.value.result.p99} ms; ${wholeLoad.gc}`,
      });
      // BENCH_STARTUP_INCREMENTAL_FIRST=1: the incremental case before the whole one (the later case runs on a larger heap).
      const incrementalLoad = earlier ?? (await underLoad('incremental', false));
      report.add('HTTP writes while a later snapshot is taken incrementally: longest event-loop pause', incrementalLoad.ms, 'ms', {
        baseline: 'HTTP writes while a later snapshot is taken whole: longest event-loop pause',
        note: `target < 20 ms; ${taken(incrementalLoad.value.snapshot)}; ${incrementalLoad.value.result.rps.toFixed(0)} requests/s, p99 ${incrementalLoad.value.result.p99} ms; ${incrementalLoad.gc}`,
      });
      // The same load again with no snapshot, on the heap the later snapshots ran on (the first case above ran on the
      // heap of a process just started): a pause here is the collector's alone. At 1e6 commands a major collection
      // under this load made runs of 20–100 ms pauses with no snapshot at all (docs/decisions.md, "The pauses at 1e6
      // under load are the collector's").
      const after = await watched(() => load(LOAD_SECONDS, 'after'));
      report.add('HTTP writes after the snapshots, no snapshot: longest event-loop pause', after.ms, 'ms', {
        note: `the heap of the later snapshots; ${after.value.rps.toFixed(0)} requests/s, p99 ${after.value.p99} ms; ${after.gc}`,
      });
      const idleWhole = await watched(() => server.ask('snapshot', 'snapshot', true));
      report.add('snapshot in the served process with no load, whole: longest event-loop pause', idleWhole.ms, 'ms', { note: `as before incremental snapshots; ${taken(idleWhole.value)}; ${idleWhole.gc}` });
      const idleServer = await watched(() => server.ask('snapshot', 'snapshot'));
      report.add('snapshot in the served process with no load: longest event-loop pause', idleServer.ms, 'ms', {
        baseline: 'snapshot in the served process with no load, whole: longest event-loop pause',
        note: `target < 20 ms; incremental (nothing written since the whole one); ${taken(idleServer.value)}; ${idleServer.gc}`,
      });
    } finally {
      await server.close();
    }
  } finally {
    if (KEEP) log(`  data kept in ${dataDir} (BENCH_STARTUP_KEEP=1)`);
    else rmSync(dataDir, { recursive: true, force: true });
  }
  report.print();
}

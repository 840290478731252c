/**
 * Crash safety: a child process appends commands (3 events each, group-committed) and is SIGKILLed at
 * random moments; after every kill the log must hold every acknowledged command whole, no command in
 * part, gap-free positions, and a projection that replays to the same state as a fold from scratch. The same
 * suite runs on an SQLite file and on a PostgreSQL schema.
 */
import { describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { openSqliteStore } from '@forgefold/sqlite-store';
import { openPostgresStore } from '@forgefold/postgres-store';
import type { EventStore, RecordedEvent, SnapshotStore } from '@forgefold/core';
import { dropTestSchema, freshSchema, hasPostgres, urlWithSchema } from '../support/postgres.js';
import { tempDir } from '../store/helpers.js';
import { logProblems } from '../store/contract.js';
import { startTriple, tripleDecider, type TripleState } from './triple.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const KILLS = Number(process.env.CRASH_KILLS ?? 50);
// PostgreSQL's kills cost more (a connection per child, a server process per connection): fewer by default.
const PG_KILLS = Number(process.env.CRASH_KILLS_PG ?? 12);

/** Where the children write, and how the checker reads it (read-only). */
interface Target {
  /** What the child is given: a file path or a postgres:// URL. */
  readonly location: string;
  open(): Promise<{ readonly events: EventStore; readonly snapshots: SnapshotStore; close(): Promise<void> }>;
  cleanup(): Promise<void>;
}

const sqliteTarget = (): Target => {
  const temp = tempDir('forgefold-crash-');
  const path = temp.file();
  return {
    location: path,
    // Read-only: no migration transaction, so no waiting on the running child's write lock.
    open: async () => openSqliteStore({ path, readonly: true }),
    cleanup: async () => temp.remove(),
  };
};

const postgresTarget = async (): Promise<Target> => {
  const schema = freshSchema('crash');
  const location = urlWithSchema(schema);
  // The schema exists before the first child starts (children would migrate it concurrently otherwise, which
  // works too, but is not what this test is about).
  await (await openPostgresStore({ url: location, maxConnections: 1 })).close();
  return {
    location,
    open: () => openPostgresStore({ url: location, readonly: true, maxConnections: 2 }),
    cleanup: () => dropTestSchema(schema),
  };
};

interface Child {
  readonly process: ChildProcess;
  readonly acks: string[];
  readonly lines: string[];
  ready: boolean;
  readonly loaded: Promise<void>;
  readonly readyOrExit: Promise<void>;
  readonly exited: Promise<void>;
}

const spawnChild = (path: string, runId: string): Child => {
  const child = spawn(process.execPath, ['--import', 'tsx', join(here, 'child.ts'), path, runId], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += String(chunk)));
  const acks: string[] = [];
  const lines: string[] = [];
  let onLoaded!: () => void;
  let onReady!: () => void;
  const state: Child = {
    process: child,
    acks,
    lines,
    ready: false,
    loaded: new Promise((resolve) => (onLoaded = resolve)),
    readyOrExit: new Promise((resolve) => (onReady = resolve)),
    exited: new Promise((resolve) =>
      child.once('close', (code, signal) => {
        if (signal !== 'SIGKILL') lines.push(`exit ${code} ${signal} ${stderr}`);
        onLoaded();
        onReady();
        resolve();
      }),
    ),
  };
  createInterface({ input: child.stdout! }).on('line', (line) => {
    if (line.startsWith('ack ')) acks.push(line.slice(4));
    else lines.push(line);
    if (line === 'loaded') onLoaded();
    if (line.startsWith('ready ')) {
      state.ready = true;
      onReady();
    }
  });
  return state;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The projection, computed from the raw log without the application, its codecs or snapshots. */
const fromScratch = (events: readonly RecordedEvent[]): TripleState => {
  const state = tripleDecider.initialState();
  for (const event of events) {
    const data = event.data as { commandId: string; account: string; step: number };
    state.perAccount[data.account] = (state.perAccount[data.account] ?? 0) + 1;
    state.steps++;
    if (data.step === 2) state.lastCommand = data.commandId;
  }
  return state;
};

/**
 * `window`: how long after "ready" a child runs before the kill (ms, uniform). A child on PostgreSQL opens its
 * connections and prepares its statements on its first commits, so it is given longer to do real work.
 */
const crashSuite = (name: string, kills: number, window: readonly [number, number], makeTarget: () => Promise<Target>) =>
  it(`${name}: survives ${kills} SIGKILLs with every acknowledged command whole`, async () => {
    const KILLS = kills;
    const target = await makeTarget();
    const path = target.location;
    const allAcked = new Set<string>();
    let killsWhileRunning = 0;
    let killsAtStartup = 0;
    let checks = 0;
    let checkMs = 0;
    let loadWaitMs = 0;

    /**
     * Checks the file after a kill. Another child may already be appending, so everything is judged on
     * one consistent read (a single statement), and each projection against the prefix it folded.
     */
    const verify = async (acked: ReadonlySet<string>, last: boolean) => {
      const started = performance.now();
      // Read-only: no migration transaction, so no waiting on the running child's write lock.
      const store = await target.open();
      try {
        const withSnapshot = await startTriple(store.events, store.snapshots);
        // A full replay without the snapshot costs CPU the loading children need: every 10th check and the last.
        const withoutSnapshot = last || checks % 10 === 0 ? await startTriple(store.events) : null;
        const events = await store.events.readAll(0, Number.MAX_SAFE_INTEGER);
        expect(logProblems(events)).toEqual([]);
        const perCommand = new Map<string, number>();
        const split: number[] = [];
        events.forEach((event, index) => {
          const id = (event.data as { commandId: string }).commandId;
          perCommand.set(id, (perCommand.get(id) ?? 0) + 1);
          // a command's three events are consecutive: one transaction, in order
          if (index % 3 !== 0 && (events[index - 1]!.data as { commandId: string }).commandId !== id) split.push(index);
        });
        expect([...perCommand].filter(([, count]) => count !== 3)).toEqual([]);
        expect(split).toEqual([]);
        expect([...acked].filter((id) => !perCommand.has(id))).toEqual([]);
        for (const app of withoutSnapshot ? [withSnapshot, withoutSnapshot] : [withSnapshot]) {
          expect(app.position).toBeLessThanOrEqual(events.length);
          expect(JSON.parse(JSON.stringify(app.state))).toEqual(fromScratch(events.slice(0, app.position)));
        }
        checks++;
      } finally {
        await store.close();
        checkMs += performance.now() - started;
      }
    };

    // Node + tsx take ~0.5 s to load: keep two children loading ahead of the one being killed.
    let run = 0;
    const queue = [spawnChild(path, `r${run++}`), spawnChild(path, `r${run++}`)];
    let pendingCheck: Promise<void> = Promise.resolve();
    try {
      for (let kill = 0; kill < KILLS; kill++) {
        const child = queue.shift()!;
        queue.push(spawnChild(path, `r${run++}`));
        const waitStarted = performance.now();
        await child.loaded;
        loadWaitMs += performance.now() - waitStarted;
        child.process.stdin!.write('go\n');
        const killed = (async () => {
          if (kill % 10 === 9) {
            // Now and then, kill it while it is starting (loading the snapshot, folding the tail).
            await sleep(Math.random() * 60);
          } else {
            await child.readyOrExit;
            await sleep(window[0] + Math.random() * (window[1] - window[0]));
          }
          const wasReady = child.ready;
          child.process.kill('SIGKILL');
          await child.exited;
          return wasReady;
        })();
        // The previous kill's check runs while this child works (and is killed).
        const [wasReady] = await Promise.all([killed, pendingCheck]);
        expect(child.lines.filter((line) => line.startsWith('exit'))).toEqual([]);
        if (wasReady) killsWhileRunning++;
        else killsAtStartup++;
        for (const ack of child.acks) allAcked.add(ack);
        pendingCheck = verify(new Set(allAcked), kill === KILLS - 1);
      }
      await pendingCheck;
    } finally {
      for (const child of queue) {
        child.process.kill('SIGKILL');
        await child.exited;
      }
      await target.cleanup();
    }
    expect(checks).toBe(KILLS);
    // The runs must have done real work.
    expect(killsWhileRunning).toBeGreaterThanOrEqual(KILLS * 0.8);
    // Half the kills: enough to prove real work; a loaded machine acknowledges fewer commands per run (40 of 50 seen).
    expect(allAcked.size).toBeGreaterThanOrEqual(KILLS / 2);
    console.log(
      `crash test (${name}): ${killsWhileRunning} kills while running, ${killsAtStartup} during start-up, ${allAcked.size} acknowledged commands, ${Math.round(checkMs)} ms checking, ${Math.round(loadWaitMs)} ms waiting for children to load`,
    );
  }, 600_000); // a time-out, not a target: 50 restarts take minutes on a loaded 2-core machine

describe('crash safety', () => {
  crashSuite('sqlite', KILLS, [10, 160], async () => sqliteTarget());
  if (hasPostgres) crashSuite('postgres', PG_KILLS, [50, 450], postgresTarget);
});

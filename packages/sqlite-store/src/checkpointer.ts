/**
 * WAL checkpoints off the request path. The writer connection runs with `wal_autocheckpoint=0`; this
 * worker thread owns a second connection and runs `PRAGMA wal_checkpoint(PASSIVE)` periodically (every 100 ms
 * by default, see openSqliteStore; PASSIVE never takes the writer lock, so it never makes the main thread
 * wait), and `wal_checkpoint(TRUNCATE)` once the log has been idle and fully copied for a second (with
 * busy_timeout=0: it gives up at once rather than wait for, or hold up, a writer).
 *
 * A WAL that a busy writer keeps appending to is never caught up between two of its transactions, so it
 * would never restart and only grow. When it passes the drain size, the worker first runs a few more passes,
 * each copying what was appended during the one before, then says so; the store then holds its writes back
 * (asynchronously: the event loop keeps running) while one more PASSIVE pass copies the little that is left,
 * and the writer's next transaction starts the WAL over.
 *
 * The worker source is a plain CommonJS string run with `eval: true`, so it works the same under tsx,
 * vitest and compiled JavaScript; it loads the very better-sqlite3 build this package resolves.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

const workerSource = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { fileMustExist: true });
db.pragma('busy_timeout = 0');
db.pragma('wal_autocheckpoint = 0');
const passive = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
const truncate = db.prepare('PRAGMA wal_checkpoint(TRUNCATE)');
let previousLog = -1;
let idleSince = Date.now();
let lastReport = 0;
let truncated = false;
let timer = null;
let closed = false;
const checkpoint = () => {
  try { return passive.get(); } catch (error) { return null; } // SQLITE_BUSY and friends: next time
};
const tick = () => {
  timer = null;
  if (closed) return;
  const result = checkpoint();
  const now = Date.now();
  let moving = false;
  if (result) {
    moving = result.log !== previousLog;
    previousLog = result.log;
    if (moving) { idleSince = now; truncated = false; }
    // Idle for a while and fully copied: shrink the file (gives up at once if a writer is there).
    if (!moving && !truncated && result.log > 0 && result.log === result.checkpointed && now - idleSince >= workerData.idleTruncateMs) {
      try { truncate.get(); truncated = true; } catch (error) {}
    }
    // A drain makes the writer wait until the WAL is copied: pointless once it is, with nothing written since (the
    // next write starts it over anyway).
    const copiedAndIdle = !moving && result.log === result.checkpointed;
    if (!truncated && !copiedAndIdle && result.log >= workerData.drainFrames) {
      catchingUp = true;
      setImmediate(() => catchUpThenAskForDrain(result, workerData.catchUpPasses));
      return;
    }
    if (now - lastReport >= workerData.intervalMs) {
      lastReport = now;
      parentPort.postMessage({ type: 'checkpoint', ...result });
    }
  }
  // While the WAL moves, keep copying in small steps, so that little is left when the writer pauses for a drain.
  timer = setTimeout(tick, moving ? workerData.busyIntervalMs : workerData.intervalMs);
};
/**
 * Before the writer is asked to hold its writes for a drain: passes, each copying what was appended during the one
 * before, until one takes a millisecond or less (or the passes left run out), so that the drain's own pass has only a
 * short pass's worth of frames to copy. A turn apart, so that a 'close' is heard between them. Asks with the last
 * pass's figures, and not at all when the WAL has restarted meanwhile; then the ticks go on.
 */
let catchingUp = false;
const catchUpThenAskForDrain = (last, passesLeft) => {
  if (closed) return;
  let result = last;
  if (passesLeft > 0) {
    const started = Date.now();
    const next = checkpoint();
    if (next) {
      if (next.log !== previousLog) { idleSince = Date.now(); truncated = false; }
      result = next;
      previousLog = next.log;
      if (Date.now() - started > 1) {
        setImmediate(() => catchUpThenAskForDrain(result, passesLeft - 1));
        return;
      }
    }
  }
  catchingUp = false;
  if (result.log >= workerData.drainFrames) parentPort.postMessage({ type: 'needs-drain', ...result });
  timer = setTimeout(tick, workerData.busyIntervalMs);
};
timer = setTimeout(tick, workerData.busyIntervalMs);
parentPort.on('message', (message) => {
  // A catch-up in progress is a pass now already.
  if (message === 'now' && !catchingUp) { if (timer) clearTimeout(timer); tick(); }
  if (message === 'drain') {
    // The main thread holds its writes back meanwhile: this pass copies the rest, and the writer's
    // next transaction starts the WAL over from its beginning.
    const result = checkpoint();
    parentPort.postMessage({ type: 'drained', ...(result ?? { busy: 1, log: -1, checkpointed: -1 }) });
  }
  if (message === 'close') {
    closed = true;
    if (timer) clearTimeout(timer);
    try { db.close(); } catch (error) {}
    parentPort.close();
  }
});
`;

export interface CheckpointStats {
  readonly busy: number;
  readonly log: number;
  readonly checkpointed: number;
}

export class Checkpointer {
  private worker: Worker | null = null;
  private exited: Promise<void> | null = null;
  private closed = false;
  last: CheckpointStats | null = null;
  checkpoints = 0;

  constructor(
    private readonly path: string,
    private readonly options: { readonly intervalMs: number; readonly busyIntervalMs: number; readonly drainFrames: number; readonly idleTruncateMs: number; readonly catchUpPasses: number },
  ) {}

  /** Starts the worker on the first write (stores that never write never start a thread). */
  ensureStarted(): void {
    if (this.worker || this.closed || this.failed) return;
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const worker = new Worker(workerSource, { eval: true, workerData: { driver, path: this.path, ...this.options } });
    worker.unref();
    worker.on('message', (message: { type: string } & CheckpointStats) => {
      const stats = { busy: message.busy, log: message.log, checkpointed: message.checkpointed };
      if (message.type === 'checkpoint' || message.type === 'needs-drain') {
        this.checkpoints++;
        this.last = stats;
      }
      if (message.type === 'needs-drain') this.onNeedsDrain?.(stats);
      if (message.type === 'drained') {
        this.drains++;
        for (const resolve of this.drainWaiters.splice(0)) resolve();
      }
    });
    worker.on('error', () => undefined);
    this.exited = new Promise((resolve) =>
      worker.once('exit', () => {
        // Died on its own (not closed by us): the writer has to checkpoint again.
        if (this.worker === worker) {
          this.worker = null;
          this.failed = true;
          for (const resolve of this.drainWaiters.splice(0)) resolve();
          this.onFailure?.();
        }
        resolve();
      }),
    );
    this.worker = worker;
  }

  /** Called when the WAL has reached the drain size (the store then pauses its writes for a drain). */
  onNeedsDrain: ((stats: CheckpointStats) => void) | null = null;
  drains = 0;
  /** Called if the worker dies: the store then turns SQLite's own autocheckpoint back on. */
  onFailure: (() => void) | null = null;
  private failed = false;
  private drainWaiters: (() => void)[] = [];

  /**
   * One more checkpoint pass while the caller holds its writes back, so that it catches up completely and
   * the next write transaction restarts the WAL (a WAL that is never fully caught up between two
   * transactions only grows). Resolves when done, or after `timeoutMs` whatever happened.
   */
  drain(timeoutMs = 100): Promise<void> {
    const worker = this.worker;
    if (!worker) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, timeoutMs);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.drainWaiters.push(done);
      worker.postMessage('drain');
    });
  }

  get started(): boolean {
    return this.worker !== null;
  }

  /** Asks for a checkpoint now (tests, benchmarks). */
  poke(): void {
    this.worker?.postMessage('now');
  }

  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    if (!worker) return;
    this.worker = null;
    for (const resolve of this.drainWaiters.splice(0)) resolve();
    // Keep the event loop alive until the worker is gone (it is unref'd while running).
    worker.ref();
    worker.postMessage('close');
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), 5_000)));
    if ((await Promise.race([this.exited, timeout])) === 'timeout') await worker.terminate();
    clearTimeout(timer);
  }
}

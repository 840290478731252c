/**
 * WAL checkpoints off the request path. The writer connection runs with `wal_autocheckpoint=0`; this
 * worker thread owns a second connection and runs `PRAGMA wal_checkpoint(PASSIVE)` on an interval
 * (PASSIVE never takes the writer lock, so it never makes the main thread wait), and
 * `wal_checkpoint(TRUNCATE)` once the log is idle and fully checkpointed (with busy_timeout=0: it gives
 * up at once rather than wait for, or hold up, a writer).
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
let idleTicks = 0;
const tick = () => {
  try {
    const result = passive.get();
    if (result.log > 0 && result.log === result.checkpointed && result.log === previousLog) idleTicks++;
    else idleTicks = 0;
    previousLog = result.log;
    if (idleTicks >= 2) {
      truncate.get();
      idleTicks = 0;
      previousLog = -1;
    }
    parentPort.postMessage({ type: 'checkpoint', busy: result.busy, log: result.log, checkpointed: result.checkpointed });
  } catch (error) {
    // SQLITE_BUSY and friends: try again on the next tick.
  }
};
const timer = setInterval(tick, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message === 'now') tick();
  if (message === 'close') {
    clearInterval(timer);
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

  constructor(private readonly path: string, private readonly intervalMs: number) {}

  /** Starts the worker on the first write (stores that never write never start a thread). */
  ensureStarted(): void {
    if (this.worker || this.closed) return;
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const worker = new Worker(workerSource, { eval: true, workerData: { driver, path: this.path, intervalMs: this.intervalMs } });
    worker.unref();
    worker.on('message', (message: { type: string } & CheckpointStats) => {
      if (message.type === 'checkpoint') {
        this.checkpoints++;
        this.last = { busy: message.busy, log: message.log, checkpointed: message.checkpointed };
      }
    });
    worker.on('error', () => undefined);
    this.exited = new Promise((resolve) => worker.once('exit', () => resolve()));
    this.worker = worker;
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
    // Keep the event loop alive until the worker is gone (it is unref'd while running).
    worker.ref();
    worker.postMessage('close');
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), 5_000)));
    if ((await Promise.race([this.exited, timeout])) === 'timeout') await worker.terminate();
    clearTimeout(timer);
  }
}

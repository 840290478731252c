/**
 * The event loop's side of the writer worker (write-worker.ts): posts encoded batches, settles each commit with the
 * worker's answer, in order. The thread starts with the store (once the file is migrated), so that it has loaded by
 * the first write (~30 ms; lazily, the first commit waited for it), and keeps the process alive only while a write
 * is in flight.
 *
 * If the thread dies (an uncaught error, an exit), every pending write and every later one rejects: the store
 * cannot write any more, and a commit whose answer never came may or may not be in the log (as after a crash).
 */
import { Worker } from 'node:worker_threads';
import { decodeError, type EncodedBatch, type EncodedError, type Outcome } from './write-transaction.js';

export interface WriterData {
  readonly path: string;
  readonly synchronous: 'FULL' | 'NORMAL' | 'OFF';
  readonly busyTimeoutMs: number;
  readonly cacheSizeMiB: number;
}

/** `early`: answer once written (`written`), then once durable (`durable`); else once, when durable. */
export type WriterRequest =
  | { readonly batch: EncodedBatch; readonly expectedPosition: number | undefined; readonly wantRecorded: boolean; readonly early: boolean }
  | 'autocheckpoint'
  | 'close';

/** `flushMs` is how long the WAL's flush took (-1 when there was none). An `error` after `written` is the flush's. */
export type WriterReply =
  | { readonly written: Outcome }
  | { readonly durable: Outcome | null; readonly flushMs: number }
  | { readonly error: EncodedError };

interface Pending {
  /** Told the outcome once written (early requests only). */
  readonly written: ((outcome: Outcome) => void) | null;
  /** Told the outcome once durable (null for early requests, which had it). */
  durable: (outcome: Outcome | null) => void;
  failed: (error: Error) => void;
}

/**
 * The compiled worker, from either side of the build: `src/../dist/` (vitest runs the sources) and `dist/../dist/`
 * name the same file. A worker runs JavaScript only, so the build must exist (`tsc -b` comes first in every script).
 */
const WORKER_URL = new URL('../dist/write-worker.js', import.meta.url);

export class WriterThread {
  private worker: Worker | null = null;
  private readonly pending: Pending[] = [];
  private exited: Promise<void> = Promise.resolve();
  private failure: Error | null = null;
  private closed = false;

  constructor(
    private readonly data: WriterData,
    private readonly onFlushed?: (ms: number) => void,
  ) {
    this.start();
  }

  /** Runs the batch's transaction in the thread; resolves once it is durable. */
  write(batch: EncodedBatch, expectedPosition: number | undefined, wantRecorded: boolean): Promise<Outcome> {
    return new Promise<Outcome>((resolve, reject) =>
      this.post({ batch, expectedPosition, wantRecorded, early: false }, { written: null, durable: (outcome) => resolve(outcome!), failed: reject }),
    );
  }

  /**
   * Runs the batch's transaction in the thread; resolves once it is written, with `durable`, which settles once the
   * flush after it has (batches staged meanwhile run after that flush, each with its own).
   */
  stage(batch: EncodedBatch, expectedPosition: number | undefined, wantRecorded: boolean): Promise<{ readonly outcome: Outcome; readonly durable: Promise<void> }> {
    let settle!: { resolve: () => void; reject: (error: Error) => void };
    const durable = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
    // Whoever staged it awaits it once answered, possibly after it failed.
    durable.catch(() => undefined);
    return new Promise((resolve, reject) =>
      this.post(
        { batch, expectedPosition, wantRecorded, early: true },
        {
          written: (outcome) => resolve({ outcome, durable }),
          durable: () => settle.resolve(),
          failed: (error) => {
            reject(error);
            settle.reject(error);
          },
        },
      ),
    );
  }

  private post(request: WriterRequest, pending: Pending): void {
    if (this.failure) return pending.failed(this.failure);
    if (this.closed) return pending.failed(new Error('The event store is closed'));
    const worker = this.worker;
    if (!worker) return pending.failed(new Error('The event writer thread is gone'));
    if (this.pending.length === 0) worker.ref();
    this.pending.push(pending);
    worker.postMessage(request);
  }

  /** Resolves once every write posted so far has settled (whichever way). */
  settled(): Promise<void> {
    const last = this.pending[this.pending.length - 1];
    if (!last) return Promise.resolve();
    return new Promise<void>((resolve) => {
      // Answers come in order: the last pending write's settling means all before it have.
      const { durable, failed } = last;
      last.durable = (outcome) => {
        durable(outcome);
        resolve();
      };
      last.failed = (error) => {
        failed(error);
        resolve();
      };
    });
  }

  /** The checkpointer's thread died: the writer's connection checkpoints on its commits again. */
  checkpointOnCommit(): void {
    this.worker?.postMessage('autocheckpoint' satisfies WriterRequest);
  }

  private start(): Worker {
    // No inherited `--import` hooks (tsx under tests and tools): the thread runs compiled JavaScript, and a loader
    // in it tripled its start-up.
    const worker = new Worker(WORKER_URL, { workerData: this.data, execArgv: [] });
    worker.unref();
    worker.on('message', (reply: WriterReply) => {
      if ('written' in reply) {
        this.pending[0]?.written?.(reply.written);
        return;
      }
      const next = this.pending.shift();
      if (this.pending.length === 0) worker.unref();
      if (!next) return;
      if ('error' in reply) return next.failed(decodeError(reply.error));
      if (reply.flushMs >= 0) this.onFlushed?.(reply.flushMs);
      next.durable(reply.durable);
    });
    let error: Error | null = null;
    worker.on('error', (thrown) => (error = thrown));
    this.exited = new Promise((resolve) =>
      worker.once('exit', (code) => {
        if (this.worker === worker) {
          this.worker = null;
          // Died on its own (not closed by us): nothing more can be written through it.
          this.failure = new Error(`The event writer thread exited (code ${code})${error ? `: ${error.message}` : ''}`);
          if (error) this.failure.cause = error;
        }
        for (const { failed } of this.pending.splice(0)) failed(this.failure ?? new Error('The event store is closed'));
        resolve();
      }),
    );
    this.worker = worker;
    return worker;
  }

  /** Waits for the writes in flight, then stops the thread. */
  async close(): Promise<void> {
    this.closed = true;
    await this.settled();
    const worker = this.worker;
    if (!worker) return;
    this.worker = null;
    worker.ref();
    worker.postMessage('close' satisfies WriterRequest);
    await this.exited;
  }
}

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

export type WriterRequest =
  | { readonly batch: EncodedBatch; readonly expectedPosition: number | undefined; readonly wantRecorded: boolean }
  | 'autocheckpoint'
  | 'close';

/** `flushMs` is how long the WAL's flush took (-1 when there was none). */
export type WriterReply = { readonly outcome: Outcome; readonly flushMs: number; readonly error?: undefined } | { readonly error: EncodedError };

interface Pending {
  readonly resolve: (outcome: Outcome) => void;
  readonly reject: (error: Error) => void;
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
    if (this.failure) return Promise.reject(this.failure);
    if (this.closed) return Promise.reject(new Error('The event store is closed'));
    const worker = this.worker;
    if (!worker) return Promise.reject(new Error('The event writer thread is gone'));
    return new Promise<Outcome>((resolve, reject) => {
      if (this.pending.length === 0) worker.ref();
      this.pending.push({ resolve, reject });
      worker.postMessage({ batch, expectedPosition, wantRecorded } satisfies WriterRequest);
    });
  }

  /** Resolves once every write posted so far has settled (whichever way). */
  settled(): Promise<void> {
    const last = this.pending.length;
    if (last === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      // Answers come in order: the last pending write's settling means all before it have.
      const { resolve: resolveLast, reject: rejectLast } = this.pending[last - 1]!;
      this.pending[last - 1] = {
        resolve: (outcome) => {
          resolveLast(outcome);
          resolve();
        },
        reject: (error) => {
          rejectLast(error);
          resolve();
        },
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
      const next = this.pending.shift();
      if (this.pending.length === 0) worker.unref();
      if (!next) return;
      if (reply.error) {
        next.reject(decodeError(reply.error));
        return;
      }
      if (reply.flushMs >= 0) this.onFlushed?.(reply.flushMs);
      next.resolve(reply.outcome);
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
        for (const { reject } of this.pending.splice(0)) reject(this.failure ?? new Error('The event store is closed'));
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

/**
 * The writer worker thread (see WriterThread in writer-thread.ts): its own connection to the event database runs each
 * batch's transaction (write-transaction.ts, the body the event loop runs for in-memory stores) and makes it durable
 * before answering, so that neither the inserts nor the flush take the main thread's time.
 *
 * With `synchronous=FULL` the connection commits at NORMAL and then fdatasyncs the WAL itself, synchronously, here
 * (what FULL would have done inside the COMMIT; timed for the store's `onFlushed`). Batches are answered in the order
 * they came, one at a time.
 * After a failed flush, every later batch is refused unwritten (`stoppedWriting`): those posted behind it were decided
 * on its effects, which may be lost.
 */
import { closeSync, fdatasyncSync, openSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { createWriter, encodeError, stoppedWriting } from './write-transaction.js';
import type { WriterData, WriterReply, WriterRequest } from './writer-thread.js';

const port = parentPort!;
const options = workerData as WriterData;
const db = new Database(options.path, { fileMustExist: true });
db.pragma(`busy_timeout = ${options.busyTimeoutMs}`);
// The checkpointer's thread checkpoints; this connection, the one that writes, resets the WAL and caps its size.
db.pragma('wal_autocheckpoint = 0');
db.pragma('journal_size_limit = 67108864');
db.pragma(`synchronous = ${options.synchronous === 'FULL' ? 'NORMAL' : options.synchronous}`);
db.pragma(`cache_size = -${options.cacheSizeMiB * 1024}`);
db.pragma('temp_store = MEMORY');
const write = createWriter(db);
// The WAL exists from the first commit on and keeps its inode while a connection is open (restarts rewrite it).
let wal: number | null = null;
/** The failed flush's error, once one has failed. */
let flushFailure: Error | null = null;

port.on('message', (message: WriterRequest) => {
  if (message === 'close') {
    db.close();
    if (wal !== null) closeSync(wal);
    port.close();
    return;
  }
  if (message === 'autocheckpoint') {
    // The checkpointer's thread died: SQLite checkpoints on this connection's commits again.
    db.pragma('wal_autocheckpoint = 1000');
    return;
  }
  if (flushFailure) {
    port.postMessage({ error: encodeError(stoppedWriting(flushFailure)) } satisfies WriterReply);
    return;
  }
  let reply: WriterReply;
  let written = false;
  let flushing = false;
  try {
    const outcome = write(message.batch, message.expectedPosition, message.wantRecorded);
    if (message.early) {
      port.postMessage({ written: outcome } satisfies WriterReply);
      written = true;
    }
    let flushMs = -1;
    if (outcome.written > 0 && options.synchronous === 'FULL') {
      flushing = true;
      const started = performance.now();
      wal ??= openSync(`${options.path}-wal`, 'r');
      fdatasyncSync(wal);
      flushMs = performance.now() - started;
    }
    reply = { durable: written ? null : outcome, flushMs };
  } catch (error) {
    // Before `written`: the transaction's (nothing written); after it, the flush's.
    if (flushing) flushFailure = error instanceof Error ? error : new Error(String(error));
    reply = { error: encodeError(error) };
  }
  port.postMessage(reply);
});

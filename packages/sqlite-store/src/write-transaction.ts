/**
 * The event write's transaction: one body for both places it runs, the writer worker thread (write-worker.ts, file
 * stores) and the event loop (in-memory stores, which a worker cannot share).
 *
 * The caller encodes the batch (`encodeWrites`: each event's data and metadata as JSON text, as the table stores
 * them) into one flat array, which is what crosses to the worker: an array of strings and numbers clones faster
 * than objects. Errors cross back as plain data (`encodeError`) and are rebuilt with their classes (`decodeError`).
 *
 * Every commit is one IMMEDIATE transaction. The hot path does not look event ids up: it relies on the UNIQUE index
 * on event_id, and only when that index reports a clash (or an expectation fails, which an idempotent repeat does
 * not have to meet) does it redo the transaction on the slow path that resolves idempotent repeats and partial
 * overlaps.
 */
import Database from 'better-sqlite3';
import type { EventMetadata, RecordedEvent } from '@forgefold/core';
// The kernel's error classes and expectation check from their own modules: the writer thread loads these two small
// files, not the whole core (whose import took ~130 ms of the thread's start-up).
import { checkExpectedVersion } from '@forgefold/core/memory-store';
import { StaleWriter, WrongExpectedVersion, type AppendResult, type ExpectedVersion, type StreamWrite } from '@forgefold/core/ports';

/**
 * A batch as it crosses to the writer: per write `streamId, expected, count`, then per event
 * `eventId, type, schemaVersion, data, recordedAt, metadata` (data and metadata as JSON text).
 */
export type EncodedBatch = (string | number)[];

const FIELDS = 6;

export interface Outcome {
  readonly results: AppendResult[];
  readonly written: number;
  /** Only built when asked for (someone is subscribed). */
  readonly recorded: RecordedEvent[] | null;
  /** The log's head after the transaction. */
  readonly head: number;
}

export const encodeWrites = (writes: readonly StreamWrite[]): EncodedBatch => {
  const batch: EncodedBatch = [];
  // A command's events share one metadata object (the application builds one per command): encoded once for them.
  let lastMetadata: EventMetadata | undefined;
  let metadata = 'null';
  for (const { streamId, expected, events } of writes) {
    batch.push(streamId, expected, events.length);
    for (const event of events) {
      if (event.metadata !== lastMetadata) {
        lastMetadata = event.metadata;
        metadata = JSON.stringify(event.metadata) ?? 'null';
      }
      batch.push(event.eventId, event.type, event.schemaVersion, JSON.stringify(event.data) ?? 'null', event.recordedAt, metadata);
    }
  }
  return batch;
};

const isEventIdClash = (error: unknown): boolean =>
  error instanceof Error &&
  (error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE' &&
  error.message.includes('events.event_id');

const COLUMNS = 'global_position, event_id, stream_id, stream_version, type, schema_version, data, recorded_at, metadata';

/** The write transaction on `db` (the connection that writes): `(batch, expectedPosition, wantRecorded) => Outcome`, synchronous. */
export const createWriter = (db: Database.Database): ((batch: EncodedBatch, expectedPosition: number | undefined, wantRecorded: boolean) => Outcome) => {
  const head = db.prepare<[], number>('SELECT coalesce(max(global_position), 0) FROM events').pluck();
  const streamHead = db
    .prepare<[string], [number, number]>('SELECT stream_version, global_position FROM events WHERE stream_id = ? ORDER BY stream_version DESC LIMIT 1')
    .raw();
  const byEventId = db.prepare<[string], [string, number, number]>('SELECT stream_id, stream_version, global_position FROM events WHERE event_id = ?').raw();
  const insert = db.prepare(`INSERT INTO events (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`);

  /** An append whose event ids were all written before returns the original result; a partial overlap is a conflict. */
  const findDuplicate = (batch: EncodedBatch, at: number, count: number, streamId: string, expected: ExpectedVersion, writtenNow: Set<string>, version: () => number): AppendResult | null => {
    const ids = new Set<string>();
    const originals: ([string, number, number] | undefined)[] = [];
    for (let i = 0; i < count; i++) {
      const eventId = batch[at + i * FIELDS] as string;
      // An id repeated within this commit (inside one write, or across two) is a conflict, never a repeat.
      if (ids.has(eventId) || writtenNow.has(eventId)) throw new WrongExpectedVersion(streamId, expected, version());
      ids.add(eventId);
      originals.push(byEventId.get(eventId));
    }
    if (originals.every((original) => original === undefined)) return null;
    if (originals.some((original) => original === undefined)) throw new WrongExpectedVersion(streamId, expected, version());
    const last = originals[originals.length - 1]!;
    return { streamId: last[0], nextExpectedVersion: last[1], lastPosition: last[2], duplicate: true };
  };

  /**
   * Runs inside the transaction. Throwing rolls everything back. `slow` looks every event id up first, to answer
   * idempotent repeats and to reject partial overlaps; the fast path lets the UNIQUE index detect that case.
   */
  const writeInTransaction = (batch: EncodedBatch, expectedPosition: number | undefined, wantRecorded: boolean, slow: boolean): Outcome => {
    const start = head.get() as number;
    if (expectedPosition !== undefined && expectedPosition !== start) throw new StaleWriter(expectedPosition, start);
    let position = start;
    const streams = new Map<string, { version: number; last: number }>();
    const streamState = (streamId: string) => {
      let state = streams.get(streamId);
      if (!state) {
        const row = streamHead.get(streamId);
        state = row ? { version: row[0], last: row[1] } : { version: 0, last: 0 };
        streams.set(streamId, state);
      }
      return state;
    };
    const writtenNow = slow ? new Set<string>() : null;
    const results: AppendResult[] = [];
    const recorded: RecordedEvent[] | null = wantRecorded ? [] : null;
    let at = 0;
    while (at < batch.length) {
      const streamId = batch[at] as string;
      const expected = batch[at + 1] as ExpectedVersion;
      const count = batch[at + 2] as number;
      at += 3;
      if (writtenNow && count > 0) {
        const duplicate = findDuplicate(batch, at, count, streamId, expected, writtenNow, () => streamState(streamId).version);
        if (duplicate) {
          results.push(duplicate);
          at += count * FIELDS;
          continue;
        }
      }
      const state = streamState(streamId);
      checkExpectedVersion(streamId, expected, state.version);
      for (let i = 0; i < count; i++, at += FIELDS) {
        position++;
        state.version++;
        state.last = position;
        const eventId = batch[at] as string;
        insert.run(position, eventId, streamId, state.version, batch[at + 1], batch[at + 2], batch[at + 3], batch[at + 4], batch[at + 5]);
        writtenNow?.add(eventId);
        recorded?.push({
          eventId,
          type: batch[at + 1] as string,
          schemaVersion: batch[at + 2] as number,
          // The subscribers and the application get what a reader of the log would get.
          data: JSON.parse(batch[at + 3] as string),
          recordedAt: batch[at + 4] as string,
          metadata: JSON.parse(batch[at + 5] as string) as EventMetadata,
          streamId,
          streamVersion: state.version,
          globalPosition: position,
        });
      }
      results.push({
        streamId,
        nextExpectedVersion: state.version,
        lastPosition: state.version > 0 ? state.last : position,
        duplicate: false,
      });
    }
    return { results, written: position - start, recorded, head: position };
  };

  const write = db.transaction(writeInTransaction);
  return (batch, expectedPosition, wantRecorded) => {
    try {
      return write.immediate(batch, expectedPosition, wantRecorded, false);
    } catch (error) {
      // A clash on event_id, or a failed expectation (which an idempotent repeat does not have to meet):
      // redo it on the slow path, which tells repeats, overlaps and conflicts apart.
      if (!isEventIdClash(error) && !(error instanceof WrongExpectedVersion)) throw error;
      return write.immediate(batch, expectedPosition, wantRecorded, true);
    }
  };
};

/** An error as it crosses from the writer thread: what rebuilds it with its class, message and SQLite code. */
export type EncodedError =
  | { readonly kind: 'StaleWriter'; readonly expectedPosition: number; readonly actualPosition: number }
  | { readonly kind: 'WrongExpectedVersion'; readonly streamId: string; readonly expected: ExpectedVersion; readonly actual: number }
  | { readonly kind: 'SqliteError'; readonly message: string; readonly code: string; readonly stack: string | undefined }
  | { readonly kind: 'Error'; readonly name: string; readonly message: string; readonly code: unknown; readonly stack: string | undefined };

/**
 * What every write is refused with after a failed flush of the WAL (fail-stop, as PostgreSQL has since "fsyncgate"):
 * the kernel may drop the pages it could not write, so the batch that flush covered may be lost, and so may the
 * batches decided on its effects. The store writes again once opened again (the log then holds what reached the disk).
 */
export const stoppedWriting = (flushFailure: Error): Error =>
  new Error(`The event log stopped writing after a failed flush: ${flushFailure.message}`, { cause: flushFailure });

export const encodeError = (error: unknown): EncodedError => {
  if (error instanceof StaleWriter) return { kind: 'StaleWriter', expectedPosition: error.expectedPosition, actualPosition: error.actualPosition };
  if (error instanceof WrongExpectedVersion) return { kind: 'WrongExpectedVersion', streamId: error.streamId, expected: error.expected, actual: error.actual };
  if (error instanceof Database.SqliteError) return { kind: 'SqliteError', message: error.message, code: error.code, stack: error.stack };
  if (error instanceof Error) return { kind: 'Error', name: error.name, message: error.message, code: (error as { code?: unknown }).code, stack: error.stack };
  return { kind: 'Error', name: 'Error', message: String(error), code: undefined, stack: undefined };
};

export const decodeError = (encoded: EncodedError): Error => {
  if (encoded.kind === 'StaleWriter') return new StaleWriter(encoded.expectedPosition, encoded.actualPosition);
  if (encoded.kind === 'WrongExpectedVersion') return new WrongExpectedVersion(encoded.streamId, encoded.expected, encoded.actual);
  let error: Error & { code?: unknown };
  if (encoded.kind === 'SqliteError') {
    error = new Database.SqliteError(encoded.message, encoded.code);
  } else {
    error = new Error(encoded.message);
    error.name = encoded.name;
    if (encoded.code !== undefined) error.code = encoded.code;
  }
  // The writer thread's stack says where it failed; this thread's, who asked.
  if (encoded.stack) error.stack = `${encoded.stack}\n    --- in the writer thread, asked from ---\n${(error.stack ?? '').split('\n').slice(1).join('\n')}`;
  return error;
};

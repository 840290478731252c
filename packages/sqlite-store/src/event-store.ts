/**
 * SQLite EventStore: same semantics as InMemoryEventStore (the executable reference), plus durability.
 *
 * Every append/commit is one IMMEDIATE transaction (one WAL flush): write-transaction.ts. A file store runs it in
 * its writer worker thread (WriterThread), which also makes it durable; an in-memory store, here on the event loop.
 * Reads, subscriptions and the log head use this connection.
 */
import type Database from 'better-sqlite3';
import type { AppendResult, EventStore, EventMetadata, ExpectedVersion, NewEvent, RecordedEvent, StagedCommit, StreamWrite, Unsubscribe } from '@forgefold/core';
import { createWriter, encodeWrites, stoppedWriting, type EncodedBatch, type Outcome } from './write-transaction.js';
import type { WriterThread } from './writer-thread.js';

type Row = [number, string, string, number, string, number, string, string];

/**
 * What reads select: data and metadata come as one JSON array text, which is one string to create and one
 * JSON.parse per row instead of two (about a tenth of a replay's read time). Both columns only ever hold
 * JSON.stringify output.
 */
const READ_COLUMNS = "global_position, event_id, stream_id, stream_version, type, schema_version, '[' || data || ',' || metadata || ']', recorded_at";
const PAGE = 1_000;

/** A row as a RecordedEvent (a plain object literal: one shape for all, which V8 handles best). */
const toRecorded = (row: Row): RecordedEvent => {
  const [data, metadata] = JSON.parse(row[6]) as [unknown, EventMetadata];
  return {
    eventId: row[1],
    type: row[4],
    schemaVersion: row[5],
    data,
    recordedAt: row[7],
    metadata,
    streamId: row[2],
    streamVersion: row[3],
    globalPosition: row[0],
  };
};

interface Subscription {
  readonly handler: (event: RecordedEvent) => void;
  last: number;
  active: boolean;
  pumping: boolean;
}

export interface SqliteEventStoreOptions {
  /** How often, while someone is subscribed, to look for appends made by other connections (ms). */
  readonly pollIntervalMs?: number;
  /** Called after each transaction that wrote events (the store uses it to start the checkpointer). */
  readonly onWrite?: () => void;
  readonly readonly?: boolean;
  /**
   * Makes what was committed durable, off the event loop (the store's `synchronous=FULL`: an fsync of the WAL on
   * libuv's thread pool). A commit resolves, and subscribers hear of it, only once this has settled. Only for
   * writes on this thread: the writer thread makes its writes durable itself.
   */
  readonly makeDurable?: () => Promise<void>;
  /** Runs the writes in a worker thread (file stores) instead of on this connection. */
  readonly writer?: WriterThread;
}

export class SqliteEventStore implements EventStore {
  private readonly head: Database.Statement<[], number>;
  private readonly allAfter: Database.Statement<[number, number], Row>;
  private readonly streamAfter: Database.Statement<[string, number], Row>;
  private readonly dataVersion: Database.Statement<[], number>;
  /** Writes on this connection (in-memory stores); null with a writer thread, and read-only. */
  private readonly writeHere: ((batch: EncodedBatch, expectedPosition: number | undefined, wantRecorded: boolean) => Outcome) | null;
  private readonly writer: WriterThread | null;
  /** The last write not yet durable (close, the drain gate and subscriptions wait for it). */
  private inFlight: Promise<unknown> | null = null;
  private readonly subscriptions = new Set<Subscription>();
  private poll: NodeJS.Timeout | null = null;
  private lastDataVersion = 0;
  private closed = false;

  constructor(
    private readonly db: Database.Database,
    private readonly closeStore: () => Promise<void>,
    private readonly options: SqliteEventStoreOptions = {},
  ) {
    // The result types name what `pluck()` (the first column) and `raw()` (rows as arrays) make of each row.
    this.head = db.prepare<[], number>('SELECT coalesce(max(global_position), 0) FROM events').pluck();
    this.allAfter = db.prepare<[number, number], Row>(`SELECT ${READ_COLUMNS} FROM events WHERE global_position > ? ORDER BY global_position LIMIT ?`).raw();
    this.streamAfter = db
      .prepare<[string, number], Row>(`SELECT ${READ_COLUMNS} FROM events WHERE stream_id = ? AND stream_version > ? ORDER BY stream_version`)
      .raw();
    this.dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
    this.writer = options.readonly ? null : (options.writer ?? null);
    this.writeHere = options.readonly || this.writer ? null : createWriter(db);
  }

  async append(streamId: string, expected: ExpectedVersion, events: readonly NewEvent[]): Promise<AppendResult> {
    const [result] = await this.commit([{ streamId, expected, events }]);
    return result!;
  }

  async commit(writes: readonly StreamWrite[], options: { readonly expectedPosition?: number } = {}): Promise<readonly AppendResult[]> {
    if (this.gate) await this.gate;
    const batch = this.encode(writes);
    const wantRecorded = this.subscriptions.size > 0;
    if (this.writer) {
      const outcome = await this.track(this.writer.write(batch, options.expectedPosition, wantRecorded));
      if (outcome.written > 0) {
        this.options.onWrite?.();
        this.afterDurable(outcome);
      }
      return outcome.results;
    }
    const outcome = this.writeHere!(batch, options.expectedPosition, wantRecorded);
    if (outcome.written > 0) await this.afterWrite(outcome);
    return outcome.results;
  }

  /**
   * `commit` in two steps (see `EventStore.stageCommit`): resolves once the transaction is written, with `durable`
   * for its flush, so that the application decides its next batch meanwhile. Null while writes are held back (`gate`).
   */
  stageCommit(writes: readonly StreamWrite[], options: { readonly expectedPosition?: number } = {}): Promise<StagedCommit> | null {
    if (this.gate) return null;
    return this.stage(writes, options.expectedPosition);
  }

  private async stage(writes: readonly StreamWrite[], expectedPosition: number | undefined): Promise<StagedCommit> {
    const batch = this.encode(writes);
    const wantRecorded = this.subscriptions.size > 0;
    if (this.writer) {
      const staged = this.writer.stage(batch, expectedPosition, wantRecorded);
      this.track(staged.then((written) => written.durable));
      const { outcome, durable } = await staged;
      if (outcome.written === 0) return { results: outcome.results, durable };
      this.options.onWrite?.();
      return { results: outcome.results, durable: this.flushInOrder(durable).then(() => this.afterDurable(outcome)) };
    }
    const outcome = this.writeHere!(batch, expectedPosition, wantRecorded);
    return { results: outcome.results, durable: outcome.written > 0 ? this.afterWrite(outcome) : Promise.resolve() };
  }

  /** The batch as it crosses to the writer (after the checks `commit` makes first). */
  private encode(writes: readonly StreamWrite[]): EncodedBatch {
    this.assertOpen();
    if (!this.writer && !this.writeHere) throw new Error('The store was opened read-only');
    if (this.flushFailure) throw stoppedWriting(this.flushFailure);
    return encodeWrites(writes);
  }

  /**
   * The first failed flush of a staged write or of `makeDurable`: no write is made after it, and those made before it
   * settled fail too (`stoppedWriting`; the writer thread also refuses, on its side, what was posted behind it).
   */
  private flushFailure: Error | null = null;
  /** The last write's flush: each settles after the one before it, and fails if that one did. */
  private lastFlush: Promise<void> = Promise.resolve();

  private flushInOrder(flush: Promise<void>): Promise<void> {
    const previous = this.lastFlush;
    const flushed = flush.then(
      () => previous,
      (error: unknown) => {
        this.flushFailure ??= error instanceof Error ? error : new Error(String(error));
        throw error;
      },
    );
    this.lastFlush = flushed.catch((error: unknown) => {
      throw this.flushFailure ? stoppedWriting(this.flushFailure) : error;
    });
    // Awaited by its write; the next write's flush awaits it too, possibly after it failed.
    this.lastFlush.catch(() => undefined);
    return flushed;
  }

  /** Remembers `settles` as the last write in flight (close, the drain gate and subscriptions wait for it); returns it. */
  private track<T>(settles: Promise<T>): Promise<T> {
    const settled = (this.inFlight = settles.then(
      () => undefined,
      () => undefined,
    ));
    void settled.then(() => {
      if (this.inFlight === settled) this.inFlight = null;
    });
    return settles;
  }

  /** After a transaction on this connection: the checkpointer, the flush (off the loop), then the subscribers. */
  private async afterWrite(outcome: Outcome): Promise<void> {
    this.options.onWrite?.();
    if (this.options.makeDurable) await this.track(this.flushInOrder(this.options.makeDurable()));
    this.afterDurable(outcome);
  }

  /** Subscribers hear of what is durable. */
  private afterDurable(outcome: Outcome): void {
    this.durableHead = Math.max(this.durableHead, outcome.head);
    if (outcome.recorded && outcome.recorded.length > 0) this.publish(outcome.recorded);
    // Subscribed while the write was in flight: it was not recorded for them.
    else for (const subscription of [...this.subscriptions]) this.pump(subscription);
  }

  /**
   * While a write of this store is in flight (written, perhaps, and not yet durable), subscriptions read the log only
   * up to here: the head after this store's last durable write, or the last position read while none was in flight.
   */
  private durableHead = 0;

  /**
   * Writes wait on this (asynchronously: the event loop keeps running) while the checkpointer catches the
   * WAL up completely, which a background checkpoint racing a busy writer never does.
   */
  private gate: Promise<void> | null = null;

  /** Holds writes back until `drain` settles (after the write in flight in the writer thread, if any). */
  holdWritesDuring(drain: () => Promise<void>): void {
    if (this.gate || this.closed) return;
    const inFlight = this.inFlight;
    this.gate = (inFlight ? inFlight.then(drain) : drain()).finally(() => {
      this.gate = null;
    });
  }

  async readAll(after: number, limit: number): Promise<readonly RecordedEvent[]> {
    this.assertOpen();
    return this.readAllSync(after, limit);
  }

  /** Synchronous page read (used by subscriptions and by replay-heavy callers). */
  readAllSync(after: number, limit: number): RecordedEvent[] {
    if (limit <= 0) return [];
    const rows = this.allAfter.all(Math.max(0, after), limit);
    const events = new Array<RecordedEvent>(rows.length);
    for (let i = 0; i < rows.length; i++) events[i] = toRecorded(rows[i]!);
    return events;
  }

  async readStream(streamId: string, after = 0): Promise<readonly RecordedEvent[]> {
    this.assertOpen();
    return this.streamAfter.all(streamId, Math.max(0, after)).map(toRecorded);
  }

  async headPosition(): Promise<number> {
    this.assertOpen();
    return this.head.get() as number;
  }

  subscribe(after: number, handler: (event: RecordedEvent) => void): Unsubscribe {
    this.assertOpen();
    const subscription: Subscription = { handler, last: Math.max(0, after), active: true, pumping: false };
    this.subscriptions.add(subscription);
    this.pump(subscription);
    this.startPolling();
    return () => {
      subscription.active = false;
      this.subscriptions.delete(subscription);
      if (this.subscriptions.size === 0) this.stopPolling();
    };
  }

  /** Delivers, in order, everything in the log after the subscription's last delivered event. */
  private pump(subscription: Subscription): void {
    if (subscription.pumping) return; // re-entrant call from a handler: the outer loop picks the rest up
    subscription.pumping = true;
    try {
      // Nothing of this store's own that is not durable yet: another connection's commits, or its writer thread's.
      const limit = this.inFlight ? this.durableHead : Infinity;
      while (subscription.active && !this.closed) {
        const page = this.readAllSync(subscription.last, PAGE);
        for (const event of page) {
          if (!subscription.active || event.globalPosition > limit) return;
          subscription.last = event.globalPosition;
          this.deliver(subscription, event);
        }
        if (page.length < PAGE) break;
      }
      if (limit === Infinity) this.durableHead = Math.max(this.durableHead, subscription.last);
    } finally {
      subscription.pumping = false;
    }
  }

  private publish(recorded: readonly RecordedEvent[]): void {
    const first = recorded[0]!.globalPosition;
    for (const subscription of [...this.subscriptions]) {
      if (subscription.pumping || subscription.last !== first - 1) {
        // Behind (another connection appended in between) or inside a handler: read from the log.
        this.pump(subscription);
        continue;
      }
      subscription.pumping = true;
      try {
        for (const event of recorded) {
          if (!subscription.active) break;
          subscription.last = event.globalPosition;
          this.deliver(subscription, event);
        }
      } finally {
        subscription.pumping = false;
      }
      // A handler may have appended meanwhile.
      if (subscription.active && subscription.last < (this.head.get() as number)) this.pump(subscription);
    }
  }

  private deliver(subscription: Subscription, event: RecordedEvent): void {
    try {
      subscription.handler(event);
    } catch (error) {
      // A failing subscriber must not fail the writer whose transaction is already committed.
      process.emitWarning(`Event subscriber failed on position ${event.globalPosition}: ${String(error)}`, 'SubscriberError');
    }
  }

  private startPolling(): void {
    if (this.poll || this.closed) return;
    this.lastDataVersion = this.dataVersion.get() as number;
    this.poll = setInterval(() => this.pollOnce(), this.options.pollIntervalMs ?? 50);
    this.poll.unref();
  }

  private stopPolling(): void {
    if (this.poll) clearInterval(this.poll);
    this.poll = null;
  }

  /** `PRAGMA data_version` changes only when another connection commits: a cheap check. */
  private pollOnce(): void {
    if (this.closed) return;
    const version = this.dataVersion.get() as number;
    if (version === this.lastDataVersion) return;
    this.lastDataVersion = version;
    for (const subscription of [...this.subscriptions]) this.pump(subscription);
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('The event store is closed');
  }

  /** Marks the store closed without closing the connection (the owner does that). */
  detach(): void {
    this.closed = true;
    this.stopPolling();
    for (const subscription of this.subscriptions) subscription.active = false;
    this.subscriptions.clear();
  }

  async close(): Promise<void> {
    await this.closeStore();
  }
}

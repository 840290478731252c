/**
 * PostgreSQL EventStore: the SQLite store's semantics (the contract suite runs unchanged against both) on a
 * database that several Forgefold nodes share.
 *
 * A commit is one statement, `forgefold_commit(...)` (see schema.ts): one round trip, one transaction, one
 * flush, gap-free positions in commit order. Reads page by position. Followers learn of other nodes' commits
 * through LISTEN/NOTIFY (the commit function notifies the new head), with a poll of the head as the fallback for
 * notifications lost while a connection was down.
 *
 * The store keeps the newest events it wrote or read (a contiguous tail of the log, raw rows): a subscription
 * that starts inside it catches up synchronously, and its own commits reach its subscribers before the commit
 * resolves, as with the SQLite store.
 */
import {
  StaleWriter,
  StoreUnavailable,
  WrongExpectedVersion,
  type AppendResult,
  type EventStore,
  type ExpectedVersion,
  type NewEvent,
  type RecordedEvent,
  type StreamWrite,
  type Unsubscribe,
  EVENT_READ_COLUMNS,
  recordedFromRow,
  type EventRow,
} from '@forgefold/core';
import type { ReservedSql, Sql } from 'postgres';
import { translate } from './errors.js';
import { LOCK_LEASE } from './schema.js';

/**
 * A query's rows as tuples (`.values()`). postgres.js types them as arrays of any column, so the one cast is here:
 * the query's column list (its SELECT or `forgefold_commit`'s OUT columns) fixes `R`.
 */
const tuples = async <R extends readonly unknown[]>(query: { values(): PromiseLike<unknown> }): Promise<R[]> => (await query.values()) as R[];

const PAGE = 1_000;
/** Events kept in the tail (raw rows, a few hundred bytes each). */
const TAIL_SIZE = 4_096;

/** The newest events this store has seen, without gaps: rows for positions start+1 … start+rows.length. */
class Tail {
  private start = 0;
  private rows: EventRow[] = [];

  reset(head: number): void {
    this.start = head;
    this.rows = [];
  }

  get end(): number {
    return this.start + this.rows.length;
  }

  /** Whether every event after `position` up to `end` is here. */
  covers(position: number): boolean {
    return position >= this.start && position <= this.end;
  }

  /** Adds rows that continue the tail (a gap starts it anew after the gap; known rows are skipped). */
  add(rows: readonly EventRow[]): void {
    if (rows.length === 0) return;
    const first = rows[0]![0];
    if (first > this.end + 1) this.reset(first - 1);
    for (const row of rows) if (row[0] === this.end + 1) this.rows.push(row);
    if (this.rows.length > 2 * TAIL_SIZE) {
      const drop = this.rows.length - TAIL_SIZE;
      this.rows = this.rows.slice(drop);
      this.start += drop;
    }
  }

  after(position: number, limit: number): EventRow[] {
    const from = position - this.start;
    return this.rows.slice(from, from + limit);
  }
}

interface Subscription {
  readonly handler: (event: RecordedEvent) => void;
  last: number;
  active: boolean;
  pumping: boolean;
  /** Inside a handler call (a delivery loop runs synchronously). */
  delivering: boolean;
  /** Asked to pump again while pumping. */
  again: boolean;
}

interface Lease {
  readonly connection: ReservedSql;
  readonly key: string;
}

export interface PostgresEventStoreOptions {
  readonly schema: string;
  readonly readonly: boolean;
  /** How often, while someone follows the log, to read the head in case a notification was lost (ms). */
  readonly pollIntervalMs: number;
  /** The head when the store was opened (the tail starts there). */
  readonly head: number;
}

const expectationText = (expected: ExpectedVersion): string => (typeof expected === 'number' ? String(expected) : expected);

export class PostgresEventStore implements EventStore {
  private readonly tail = new Tail();
  private knownHead: number;
  private readonly subscriptions = new Set<Subscription>();
  private readonly headWatchers = new Set<(head: number) => void>();
  private readonly leases = new Map<string, Lease>();
  private poll: NodeJS.Timeout | null = null;
  private listening: Promise<{ unlisten(): Promise<void> } | null> | null = null;
  private closed = false;
  private readonly channel: string;

  constructor(
    private readonly sql: Sql,
    private readonly options: PostgresEventStoreOptions,
    private readonly closeStore: () => Promise<void>,
  ) {
    this.knownHead = options.head;
    this.tail.reset(options.head);
    this.channel = `forgefold_events:${options.schema}`;
  }

  async append(streamId: string, expected: ExpectedVersion, events: readonly NewEvent[]): Promise<AppendResult> {
    const [result] = await this.commit([{ streamId, expected, events }]);
    return result!;
  }

  async commit(writes: readonly StreamWrite[], options: { readonly expectedPosition?: number } = {}): Promise<readonly AppendResult[]> {
    this.assertOpen();
    if (this.options.readonly) throw new Error('The store was opened read-only');
    const streams: string[] = [];
    const expectations: string[] = [];
    const counts: number[] = [];
    const ids: string[] = [];
    const types: string[] = [];
    const schemaVersions: number[] = [];
    const data: string[] = [];
    const recordedAt: string[] = [];
    const metadata: string[] = [];
    for (const write of writes) {
      streams.push(write.streamId);
      expectations.push(expectationText(write.expected));
      counts.push(write.events.length);
      for (const event of write.events) {
        ids.push(event.eventId);
        types.push(event.type);
        schemaVersions.push(event.schemaVersion);
        data.push(JSON.stringify(event.data) ?? 'null');
        recordedAt.push(event.recordedAt);
        metadata.push(JSON.stringify(event.metadata) ?? 'null');
      }
    }
    const sql = this.sql;
    let rows: [string, number, number, boolean][];
    try {
      rows = await tuples<[string, number, number, boolean]>(sql`
        SELECT r_stream, r_version, r_last, r_duplicate FROM forgefold_commit(
          ${options.expectedPosition ?? null}::bigint, ${sql.array(streams, 25)}::text[], ${sql.array(expectations, 25)}::text[],
          ${sql.array(counts, 23)}::integer[], ${sql.array(ids, 25)}::text[], ${sql.array(types, 25)}::text[],
          ${sql.array(schemaVersions, 23)}::integer[], ${sql.array(data, 25)}::text[], ${sql.array(recordedAt, 25)}::text[],
          ${sql.array(metadata, 25)}::text[])`);
    } catch (error) {
      const { code, detail } = error as { code?: string; detail?: string };
      if (code === 'FF001') throw new StaleWriter(options.expectedPosition!, Number(detail));
      if (code === 'FF002') {
        const [index, actual] = String(detail).split(':').map(Number);
        const write = writes[index!]!;
        throw new WrongExpectedVersion(write.streamId, write.expected, actual!);
      }
      return translate(error);
    }
    const results: AppendResult[] = rows.map(([streamId, version, last, duplicate]) => ({
      streamId,
      nextExpectedVersion: version,
      lastPosition: last,
      duplicate,
    }));
    // What was written, as a reader of the log would get it: into the tail, and to the subscribers.
    const recorded: EventRow[] = [];
    let offset = 0;
    writes.forEach((write, index) => {
      const result = results[index]!;
      const count = write.events.length;
      if (!result.duplicate && count > 0) {
        const firstPosition = result.lastPosition - count + 1;
        const firstVersion = result.nextExpectedVersion - count + 1;
        for (let i = 0; i < count; i++) {
          const event = write.events[i]!;
          recorded.push([
            firstPosition + i,
            event.eventId,
            write.streamId,
            firstVersion + i,
            event.type,
            event.schemaVersion,
            `[${data[offset + i]},${metadata[offset + i]}]`,
            event.recordedAt,
          ]);
        }
      }
      offset += count;
    });
    if (recorded.length > 0) {
      this.tail.add(recorded);
      this.learnHead(recorded[recorded.length - 1]![0], false);
      this.publish(recorded);
    }
    return results;
  }

  async readAll(after: number, limit: number): Promise<readonly RecordedEvent[]> {
    this.assertOpen();
    return (await this.readRows(after, limit)).map(recordedFromRow);
  }

  private async readRows(after: number, limit: number): Promise<EventRow[]> {
    if (limit <= 0) return [];
    let rows: EventRow[];
    try {
      rows = await tuples<EventRow>(this.sql.unsafe(`SELECT ${EVENT_READ_COLUMNS} FROM events WHERE global_position > $1 ORDER BY global_position LIMIT $2`, [
        Math.max(0, after),
        Math.min(limit, 2_147_483_647),
      ], { prepare: true }));
    } catch (error) {
      return translate(error);
    }
    if (rows.length > 0) {
      this.tail.add(rows);
      this.learnHead(rows[rows.length - 1]![0], false);
    }
    return rows;
  }

  async readStream(streamId: string, after = 0): Promise<readonly RecordedEvent[]> {
    this.assertOpen();
    try {
      const rows = await tuples<EventRow>(this.sql.unsafe(`SELECT ${EVENT_READ_COLUMNS} FROM events WHERE stream_id = $1 AND stream_version > $2 ORDER BY stream_version`, [
        streamId,
        Math.max(0, Math.min(after, 2_147_483_647)),
      ], { prepare: true }));
      return rows.map(recordedFromRow);
    } catch (error) {
      return translate(error);
    }
  }

  async headPosition(): Promise<number> {
    this.assertOpen();
    try {
      const [row] = await this.sql`SELECT position FROM log_head`.values();
      const head = Number(row![0]);
      this.learnHead(head, false);
      return head;
    } catch (error) {
      return translate(error);
    }
  }

  subscribe(after: number, handler: (event: RecordedEvent) => void): Unsubscribe {
    this.assertOpen();
    const subscription: Subscription = { handler, last: Math.max(0, after), active: true, pumping: false, delivering: false, again: false };
    this.subscriptions.add(subscription);
    // Catch up from the tail at once when it reaches back far enough; the rest comes from the database.
    if (this.tail.covers(subscription.last)) {
      for (const row of this.tail.after(subscription.last, Number.MAX_SAFE_INTEGER)) {
        if (!subscription.active) break;
        subscription.last = row[0];
        this.deliver(subscription, row);
      }
    }
    if (subscription.active && (!this.tail.covers(subscription.last) || this.knownHead > subscription.last)) void this.pump(subscription);
    this.startFollowing();
    return () => {
      subscription.active = false;
      this.subscriptions.delete(subscription);
      this.stopFollowingIfIdle();
    };
  }

  watchHead(listener: (head: number) => void): Unsubscribe {
    this.assertOpen();
    this.headWatchers.add(listener);
    this.startFollowing();
    return () => {
      this.headWatchers.delete(listener);
      this.stopFollowingIfIdle();
    };
  }

  /**
   * A lease per name: a session-level advisory lock held on a connection reserved for it, so that it lasts as long
   * as this process's session does, and passes to another node when this one dies (its session ends) or the
   * database restarts. Each call checks that the session still holds the lock before running the task.
   */
  async exclusive(name: string, task: () => Promise<void>): Promise<boolean> {
    this.assertOpen();
    const key = `${this.options.schema}:${name}`;
    let lease = this.leases.get(name);
    if (lease && !(await this.stillHeld(lease))) {
      this.leases.delete(name);
      lease.connection.release();
      lease = undefined;
    }
    if (!lease) {
      let connection: ReservedSql;
      try {
        connection = await this.sql.reserve();
      } catch (error) {
        return translate(error);
      }
      try {
        const [row] = await connection`SELECT pg_try_advisory_lock(${LOCK_LEASE}, hashtext(${key})) AS ok`;
        if (!row!['ok']) {
          connection.release();
          return false;
        }
      } catch (error) {
        connection.release();
        return translate(error);
      }
      if (this.closed) {
        await connection`SELECT pg_advisory_unlock(${LOCK_LEASE}, hashtext(${key}))`.catch(() => undefined);
        connection.release();
        return false;
      }
      lease = { connection, key };
      this.leases.set(name, lease);
    }
    await task();
    return true;
  }

  private async stillHeld(lease: Lease): Promise<boolean> {
    try {
      const [row] = await lease.connection`
        SELECT count(*)::int AS held FROM pg_locks
         WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND granted
           AND classid = ${LOCK_LEASE}::oid::int::oid AND objid = hashtext(${lease.key})::oid`;
      return row!['held'] === 1;
    } catch {
      return false;
    }
  }

  /** Delivers, in order, everything after the subscription's last event: from the tail, else from the database. */
  private async pump(subscription: Subscription): Promise<void> {
    if (subscription.pumping) {
      subscription.again = true;
      return;
    }
    subscription.pumping = true;
    try {
      do {
        subscription.again = false;
        while (subscription.active && !this.closed) {
          const inTail = this.tail.covers(subscription.last);
          // Caught up with every position this store knows of.
          if (inTail && this.tail.end === subscription.last && subscription.last >= this.knownHead) break;
          const fromTail = inTail && this.tail.end > subscription.last;
          const page = fromTail ? this.tail.after(subscription.last, PAGE) : await this.readRows(subscription.last, PAGE);
          subscription.delivering = true;
          try {
            for (const row of page) {
              if (!subscription.active) return;
              // A commit of this store may have delivered some of these while the page was being read.
              if (row[0] <= subscription.last) continue;
              subscription.last = row[0];
              this.deliver(subscription, row);
            }
          } finally {
            subscription.delivering = false;
          }
          if (!fromTail && page.length < PAGE) break;
        }
      } while (subscription.again && subscription.active && !this.closed);
    } catch (error) {
      // The database is unavailable: the next notification or poll resumes from where this stopped.
      if (!(error instanceof StoreUnavailable) && !this.closed) {
        process.emitWarning(`Event subscription stopped at position ${subscription.last}: ${String(error)}`, 'SubscriberError');
      }
    } finally {
      subscription.pumping = false;
    }
  }

  private publish(recorded: readonly EventRow[]): void {
    const first = recorded[0]![0];
    for (const subscription of [...this.subscriptions]) {
      // Delivered at once when they continue what the subscriber has, even while a pump awaits a page (it skips
      // what was delivered meanwhile): a commit reaches this store's subscribers before it resolves.
      if (subscription.delivering || subscription.last !== first - 1) {
        void this.pump(subscription);
        continue;
      }
      subscription.delivering = true;
      try {
        for (const row of recorded) {
          if (!subscription.active) break;
          subscription.last = row[0];
          this.deliver(subscription, row);
        }
      } finally {
        subscription.delivering = false;
      }
      if (subscription.active && (subscription.again || subscription.last < this.knownHead)) void this.pump(subscription);
    }
  }

  private deliver(subscription: Subscription, row: EventRow): void {
    try {
      subscription.handler(recordedFromRow(row));
    } catch (error) {
      // A failing subscriber must not fail the writer whose transaction is already committed.
      process.emitWarning(`Event subscriber failed on position ${row[0]}: ${String(error)}`, 'SubscriberError');
    }
  }

  /** A head learnt from a commit, a read, a notification or the poll; others' commits wake the followers. */
  private learnHead(head: number, external: boolean): void {
    if (head <= this.knownHead) return;
    this.knownHead = head;
    if (!external) return;
    for (const subscription of [...this.subscriptions]) if (subscription.last < head) void this.pump(subscription);
    for (const watcher of [...this.headWatchers]) {
      try {
        watcher(head);
      } catch (error) {
        process.emitWarning(`Head watcher failed: ${String(error)}`, 'SubscriberError');
      }
    }
  }

  private onHead(head: number): void {
    if (this.closed || !Number.isSafeInteger(head)) return;
    if (head > this.knownHead) this.learnHead(head, true);
    else {
      // Known already (say, from a read), yet someone may still be behind it.
      for (const subscription of this.subscriptions) if (subscription.last < head) void this.pump(subscription);
      for (const watcher of [...this.headWatchers]) {
        try {
          watcher(head);
        } catch {
          /* reported when the head moves */
        }
      }
    }
  }

  private startFollowing(): void {
    if (this.closed) return;
    if (!this.listening) {
      this.listening = this.sql
        .listen(this.channel, (payload) => this.onHead(Number(payload)))
        .then((listener) => listener as { unlisten(): Promise<void> })
        .catch(() => {
          // Not listening (the database is down): the poll covers, and tries again.
          this.listening = null;
          return null;
        });
    }
    if (!this.poll) {
      this.poll = setInterval(() => void this.pollOnce(), this.options.pollIntervalMs);
      this.poll.unref();
    }
  }

  private stopFollowingIfIdle(): void {
    if (this.subscriptions.size > 0 || this.headWatchers.size > 0) return;
    if (this.poll) clearInterval(this.poll);
    this.poll = null;
    const listening = this.listening;
    this.listening = null;
    void listening?.then((listener) => listener?.unlisten()).catch(() => undefined);
  }

  private async pollOnce(): Promise<void> {
    if (this.closed) return;
    if (!this.listening) this.startFollowing();
    try {
      const [row] = await this.sql`SELECT position FROM log_head`.values();
      this.onHead(Number(row![0]));
    } catch {
      /* unavailable: next time */
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('The event store is closed');
  }

  /** Stops following and gives the leases back; the owner closes the connections. */
  async detach(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.poll) clearInterval(this.poll);
    this.poll = null;
    for (const subscription of this.subscriptions) subscription.active = false;
    this.subscriptions.clear();
    this.headWatchers.clear();
    const listening = this.listening;
    this.listening = null;
    await listening?.then((listener) => listener?.unlisten()).catch(() => undefined);
    for (const lease of this.leases.values()) {
      await lease.connection`SELECT pg_advisory_unlock(${LOCK_LEASE}, hashtext(${lease.key}))`.catch(() => undefined);
      lease.connection.release();
    }
    this.leases.clear();
  }

  async close(): Promise<void> {
    await this.closeStore();
  }
}

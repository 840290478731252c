/**
 * Ports: everything the pure core needs from the outside world. Adapters implement them
 * (in-memory in this package, SQLite in @forgefold/sqlite-store, PostgreSQL in @forgefold/postgres-store).
 */
import type { NewEvent, RecordedEvent } from './envelope.js';

/** Optimistic concurrency expectation for one stream. A number is the exact current stream version. */
export type ExpectedVersion = 'any' | 'no_stream' | 'stream_exists' | number;

export interface AppendResult {
  readonly streamId: string;
  /** Stream version after the append (0 for an empty append on a missing stream). */
  readonly nextExpectedVersion: number;
  /** Global position of the last event written (or of the original write, for an idempotent repeat). */
  readonly lastPosition: number;
  /** True when every event id was already present and nothing was written. */
  readonly duplicate: boolean;
}

/** Raised (as a rejected promise) when an expectation does not hold. Nothing was written. */
export class WrongExpectedVersion extends Error {
  readonly _tag = 'WrongExpectedVersion';
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedVersion,
    /** The stream's actual version: 0 when the stream does not exist. */
    readonly actual: number,
  ) {
    super(`Wrong expected version for stream ${streamId}: expected ${String(expected)}, actual ${actual}`);
    this.name = 'WrongExpectedVersion';
  }
}

/** Raised when a multi-stream commit was decided against a log that another writer has since extended. */
export class StaleWriter extends Error {
  readonly _tag = 'StaleWriter';
  constructor(readonly expectedPosition: number, readonly actualPosition: number) {
    super(`Stale writer: decided at position ${expectedPosition}, log is at ${actualPosition}`);
    this.name = 'StaleWriter';
  }
}

/**
 * Raised when the store cannot be reached (its server is down, restarting, or the connection dropped). Nothing is
 * known to be written: a commit whose acknowledgement was lost may or may not have happened, and the writer's next
 * commit finds out (it is then stale, catches up and decides again). Adapters answer it as "try again shortly".
 */
export class StoreUnavailable extends Error {
  readonly _tag = 'StoreUnavailable';
  constructor(message: string, options?: { readonly cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailable';
  }
}

export interface StreamWrite {
  readonly streamId: string;
  readonly expected: ExpectedVersion;
  readonly events: readonly NewEvent[];
}

export type Unsubscribe = () => void;

export interface EventStore {
  /** Atomically appends events to one stream. Idempotent by event id. */
  append(streamId: string, expected: ExpectedVersion, events: readonly NewEvent[]): Promise<AppendResult>;
  /**
   * Group commit: appends several writes (several commands, several streams) in one transaction with one flush.
   * All or nothing. When `expectedPosition` is given and the log's head is elsewhere, rejects with StaleWriter.
   */
  commit(writes: readonly StreamWrite[], options?: { readonly expectedPosition?: number }): Promise<readonly AppendResult[]>;
  /** Events with globalPosition > `after`, in order, at most `limit`. */
  readAll(after: number, limit: number): Promise<readonly RecordedEvent[]>;
  /** Events of one stream with streamVersion > `after`, in order. */
  readStream(streamId: string, after?: number): Promise<readonly RecordedEvent[]>;
  /** The global position of the last committed event (0 for an empty log). */
  headPosition(): Promise<number>;
  /** Delivers every event after `after` (catch-up), then each live append, in order. */
  subscribe(after: number, handler: (event: RecordedEvent) => void): Unsubscribe;
  /**
   * Optional (stores shared by several processes): calls `listener` with the head position whenever another
   * process may have appended, so that a follower catches up without polling the log itself.
   */
  watchHead?(listener: (head: number) => void): Unsubscribe;
  /**
   * Optional (stores shared by several processes): runs `task` only in the one process that holds the lease named
   * `name` (taking it when it is free), so that a periodic job runs once per tick across the processes rather
   * than once in each. Resolves to whether `task` ran here. Without it, every process runs its jobs.
   */
  exclusive?(name: string, task: () => Promise<void>): Promise<boolean>;
  close(): Promise<void>;
}

export interface Snapshot<S = unknown> {
  /** Global position of the last event folded into `state`. */
  readonly position: number;
  /** Identifies the projection code; a snapshot of another version is ignored and the log is refolded. */
  readonly projectionVersion: string;
  readonly state: S;
  readonly takenAt: string;
}

export interface SnapshotStore {
  save(snapshot: Snapshot): Promise<void>;
  /** The newest snapshot with this projection version, or null. */
  load(projectionVersion: string): Promise<Snapshot | null>;
}

export interface Clock {
  /** Current time as an ISO-8601 UTC string with milliseconds ("2026-11-22T13:46:00.000Z"). */
  now(): string;
}

/**
 * Timers, from the host: the core never sets one itself. Hosts run the modules' processes with it; tests can
 * drive one by hand.
 */
export interface Scheduler {
  /** Runs `task` every `intervalMs` until the returned function is called; a pending timer keeps no process alive. */
  every(intervalMs: number, task: () => void): () => void;
}

export interface IdGenerator {
  /** A new unique event id (UUID). */
  eventId(): string;
}

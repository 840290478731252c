/**
 * Ports: everything the pure core needs from the outside world. Adapters implement them
 * (in-memory in this package, SQLite in @forgefold/sqlite-store, PostgreSQL in @forgefold/postgres-store,
 * git in @forgefold/git).
 */
import type { Repositories as GitRepositories } from '@forgefold/git';
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

/** Writes made by `EventStore.stageCommit`, and when they are durable. */
export interface StagedCommit {
  readonly results: readonly AppendResult[];
  readonly durable: Promise<void>;
}

export interface EventStore {
  /** Atomically appends events to one stream. Idempotent by event id. */
  append(streamId: string, expected: ExpectedVersion, events: readonly NewEvent[]): Promise<AppendResult>;
  /**
   * Group commit: appends several writes (several commands, several streams) in one transaction with one flush.
   * All or nothing. When `expectedPosition` is given and the log's head is elsewhere, rejects with StaleWriter.
   */
  commit(writes: readonly StreamWrite[], options?: { readonly expectedPosition?: number }): Promise<readonly AppendResult[]>;
  /**
   * Optional: `commit` in two steps, for a store that can tell when a commit is written apart from when it is durable
   * (SQLite: the WAL flushed after the transaction, in its writer thread or on the thread pool). Resolves once written,
   * as `commit` would (rejecting with what it would reject with), with the results and `durable`, which settles once
   * the flush that makes them durable has (rejecting as `commit` would on a failed flush); writes staged meanwhile are
   * flushed after them. Returns null when it cannot write now (the caller then uses `commit`). The application decides
   * and writes its next batch while the previous one is flushed, and acknowledges each batch only once `durable` has
   * resolved.
   */
  stageCommit?(writes: readonly StreamWrite[], options?: { readonly expectedPosition?: number }): Promise<StagedCommit> | null;
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
  /**
   * Runs `task` every `intervalMs` until the returned function is called; a pending timer keeps no process alive.
   * A task may answer a promise (it never rejects): timers ignore it, a scheduler a test drives can wait for it.
   */
  every(intervalMs: number, task: () => void | Promise<void>): () => void;
}

export interface IdGenerator {
  /** A new unique event id (UUID). */
  eventId(): string;
}

/**
 * Git, for a module shell (the repositories module's host): the project's bare repository is created with the
 * project, removed after its deletion is recorded, and opened for the reads and ref writes the API performs. The
 * types are @forgefold/git's own port (a type-only dependency: nothing of git runs in the core); serving
 * clone/push and bundles for export stay with the hosts that hold the engine (HTTP adapter, CLI).
 */
export type Repositories = Pick<GitRepositories, 'exists' | 'create' | 'remove' | 'open'>;

/** One project's repository: refs, commits, trees, blobs, diffs and ref writes (each answers its ref changes). */
export type { Repository as GitRepository } from '@forgefold/git';

/**
 * Where a Geo secondary stands, as it reports to its primary (the platform's `cursor_last_event_id` and
 * `cursor_last_event_timestamp` of `GeoNodeStatus`).
 */
export interface ReplicationStatus {
  /** Global position of the last primary event the secondary has appended and folded (0: none yet). */
  readonly cursorPosition: number;
  /** `recordedAt` of that event, or null before the first. */
  readonly cursorRecordedAt: string | null;
  /** True while the secondary follows without error; `health` says why not (the platform's `health` text). */
  readonly healthy: boolean;
  readonly health: string;
  /** The primary's head as the secondary last saw it (its `last_event_id`), and that event's time. */
  readonly primaryHead?: number;
  readonly primaryHeadRecordedAt?: string | null;
  /** Repository sync state: how many the projection holds, how many match it on disk, how many failed. */
  readonly repositories?: { readonly count: number; readonly synced: number; readonly failed: number };
  readonly projectsCount?: number;
  readonly version?: string;
}

/**
 * Geo, from a secondary's side: read the primary's log from a position (the secondary appends those events to its
 * own store unchanged: same ids, same positions), and report its own position and status back. The primary's
 * adapter serves the other end; how (HTTP long-poll, events) is the adapter's business.
 */
export interface Replication {
  /** The primary's events with globalPosition > `after`, in order, at most `limit`; empty when caught up. */
  readAfter(after: number, limit: number): Promise<readonly RecordedEvent[]>;
  /** The primary's head (its `last_event_id`), to measure how far behind the secondary is. */
  primaryHead(): Promise<number>;
  /** Sends the secondary's status to the primary (periodically and on demand). */
  reportStatus(status: ReplicationStatus): Promise<void>;
}

/**
 * @forgefold/sqlite-store: a durable EventStore and SnapshotStore on SQLite (better-sqlite3): the events in one file,
 * the snapshots in another beside it (`snapshotsPathOf`), so that writing a snapshot never holds the event store's
 * write lock nor grows the WAL its commits flush.
 *
 * WAL journal, `synchronous=FULL` by default (optionally flushed after each commit off the event loop, see WalSync), versioned migrations applied at open, WAL checkpoints in a
 * worker thread (never on the request path). Several store instances (connections or processes) may share
 * a file: every write is an IMMEDIATE transaction that re-reads the log head, so a stale writer is told
 * (StaleWriter / WrongExpectedVersion) instead of overwriting.
 */
import { chmodSync, closeSync, existsSync, openSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { Checkpointer } from './checkpointer.js';
import { SqliteEventStore } from './event-store.js';
import { appliedMigrations, migrate, MOVED_SNAPSHOTS, type AppliedMigration } from './schema.js';
import { SqliteSnapshotStore } from './snapshot-store.js';
import { WalSync } from './wal-sync.js';

export { SqliteEventStore } from './event-store.js';
export { SqliteSnapshotStore } from './snapshot-store.js';
export { uuidv7Generator } from './event-ids.js';
export { migrations, snapshotMigrations, type AppliedMigration, type Migration } from './schema.js';
export type { CheckpointStats } from './checkpointer.js';

export interface SqliteStoreOptions {
  readonly path: string;
  readonly synchronous?: 'FULL' | 'NORMAL' | 'OFF';
  /**
   * With `synchronous=FULL`: flush the WAL after each commit with an fdatasync on libuv's thread pool (WalSync)
   * instead of inside the COMMIT on the event loop; commits resolve after the flush. The server turns it on.
   */
  readonly flushOffLoop?: boolean;
  readonly readonly?: boolean;
  /** How long a writer waits for another connection's write lock (ms). Default 5000. */
  readonly busyTimeoutMs?: number;
  /** Interval of the background WAL checkpoint (ms). Default 100. */
  readonly checkpointIntervalMs?: number;
  /** Interval at which subscriptions look for appends by other connections (ms). Default 50. */
  readonly pollIntervalMs?: number;
  /** WAL size that makes writes pause briefly so that the WAL can restart (bytes). Default 32 MiB. */
  readonly walDrainBytes?: number;
  /** SQLite page cache of the connection (MiB, allocated as used). Default 16. */
  readonly cacheSizeMiB?: number;
  /** Longest pause of writes for such a drain (ms). Default 20. */
  readonly walDrainTimeoutMs?: number;
  /** With `flushOffLoop`: told how long each commit waited for the flush that made it durable (ms). */
  readonly onFlushed?: (ms: number) => void;
  /** Told how long the writes were held for each WAL drain (ms; see `walDrainBytes`). */
  readonly onDrained?: (ms: number) => void;
}

export interface SqliteStore {
  readonly events: SqliteEventStore;
  readonly snapshots: SqliteSnapshotStore;
  readonly path: string;
  /** Migrations recorded in the file, oldest first. */
  migrations(): AppliedMigration[];
  /** The background checkpointer's last result (null until it has run). */
  checkpointStats(): { readonly checkpoints: number; readonly drains: number; readonly last: { busy: number; log: number; checkpointed: number } | null };
  close(): Promise<void>;
}

/**
 * The snapshot file of an event database: `forgefold.db` → `forgefold-snapshots.db`. It holds the same secrets as
 * the events (a snapshot is the state), and is created with the event database's mode.
 */
export const snapshotsPathOf = (path: string): string => `${path.replace(/\.db$/u, '')}-snapshots.db`;

const inMemory = (path: string): boolean => path === ':memory:' || path === '';

/**
 * WAL journal without SQLite's automatic checkpoints (each file's checkpoints run elsewhere: see the callers); a fully
 * checkpointed WAL is truncated to 64 MiB when reset. An in-memory database keeps its own journal.
 */
const useWal = (db: Database.Database, path: string): void => {
  const mode = db.pragma('journal_mode = WAL', { simple: true });
  if (String(mode).toLowerCase() !== 'wal' && !inMemory(path)) throw new Error(`Cannot switch ${path} to WAL (journal_mode=${String(mode)})`);
  db.pragma('wal_autocheckpoint = 0');
  db.pragma('journal_size_limit = 67108864');
};

/** The writable snapshot file beside `path`, created with the event database's mode when missing. */
const openSnapshotFile = (path: string, busyTimeoutMs: number): Database.Database => {
  const file = snapshotsPathOf(path);
  if (!existsSync(file)) {
    const mode = statSync(path).mode & 0o777;
    // 'a' never truncates a file a concurrent process has just created; SQLite gives its -wal and -shm this mode.
    closeSync(openSync(file, 'a', mode));
    chmodSync(file, mode);
  }
  const db = new Database(file, { fileMustExist: true });
  try {
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    // The snapshot worker's connection checkpoints (SQLite's automatic checkpoint, on its commits); this one, on the
    // event loop, writes only the readers' names.
    useWal(db, file);
    // A snapshot is a cache of the log: one cut short by a crash is incomplete (pieces < 0) and never loaded.
    db.pragma('synchronous = NORMAL');
    migrate(db, 'snapshots');
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
};

/**
 * Where a read-only store reads snapshots: the snapshot file when there is one with its schema (a writer creates the
 * file, then its tables); the event database itself when it still holds them (a file not yet migrated to version 4);
 * else an empty store.
 */
const readSnapshotFile = (path: string, events: Database.Database): Database.Database => {
  const file = snapshotsPathOf(path);
  if (existsSync(file)) {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    if (appliedMigrations(db, 'snapshots').length > 0) return db;
    db.close();
  }
  if (appliedMigrations(events).every((migration) => migration.version < 4)) return events;
  const empty = new Database(':memory:');
  migrate(empty, 'snapshots');
  return empty;
};

/** `wait`, telling `told` how long each call took to settle successfully (ms). */
const timed =
  (wait: () => Promise<void>, told: (ms: number) => void) =>
  async (): Promise<void> => {
    const started = performance.now();
    await wait();
    told(performance.now() - started);
  };

export const openSqliteStore = (options: SqliteStoreOptions): SqliteStore => {
  const { path } = options;
  const readonly = options.readonly ?? false;
  const synchronous = options.synchronous ?? 'FULL';
  const deferredFlush = (options.flushOffLoop ?? false) && synchronous === 'FULL' && !readonly && !inMemory(path);
  const walSync = deferredFlush ? new WalSync(`${path}-wal`) : null;
  const db = new Database(path, { readonly, fileMustExist: readonly });
  const busyTimeoutMs = Math.max(0, Math.floor(options.busyTimeoutMs ?? 5_000));
  let snapshotDb: Database.Database | null = null;
  try {
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    if (!readonly) {
      // Checkpoints run in the worker; the writer never stops to copy the WAL back.
      useWal(db, path);
      // FULL flushes the WAL after the commit, on the thread pool (see WalSync), instead of inside it.
      db.pragma(`synchronous = ${deferredFlush ? 'NORMAL' : synchronous}`);
      if (inMemory(path)) {
        migrate(db);
        migrate(db, 'snapshots');
        snapshotDb = db;
      } else {
        snapshotDb = openSnapshotFile(path, busyTimeoutMs);
        // Migration 4 moves the newest snapshot of a file that still holds them into the snapshot file.
        const moving = !appliedMigrations(db).some((migration) => migration.version === 4);
        if (moving) db.prepare('ATTACH DATABASE ? AS ' + MOVED_SNAPSHOTS).run(snapshotsPathOf(path));
        try {
          migrate(db);
        } finally {
          if (moving) db.exec(`DETACH DATABASE ${MOVED_SNAPSHOTS}`);
        }
      }
    } else {
      const known = appliedMigrations(db).length;
      if (known === 0) throw new Error(`${path} has no Forgefold schema`);
      snapshotDb = readSnapshotFile(path, db);
    }
    // Page cache per connection, in KiB. Appends touch the right edges of the table and of the event_id index
    // (time-ordered ids) and a few regions of the stream index, so a small cache holds what a write reads. A large
    // one costs every write: when a B-tree split reorders its new pages, SQLite renumbers one of them through the
    // never-used page at 1 GiB, and until the file is that large the next COMMIT walks every cached page to drop
    // pages past the end (pcache1TruncateUnsafe). At 1e6 events, 128 MiB cost ~1.5–2.4 µs more per write than 16
    // (docs/decisions.md, "The page cache and the page at 1 GiB").
    db.pragma(`cache_size = -${Math.max(2, Math.floor(options.cacheSizeMiB ?? 16)) * 1024}`);
    db.pragma('temp_store = MEMORY');
  } catch (error) {
    if (snapshotDb && snapshotDb !== db) snapshotDb.close();
    db.close();
    throw error;
  }
  const snapshotsDb = snapshotDb;

  // Once the WAL passes this many frames (4 KiB pages), writes pause for a drain so that the WAL restarts.
  const drainFrames = Math.max(1, Math.floor((options.walDrainBytes ?? 32 * 1024 * 1024) / 4096));
  const checkpointer = new Checkpointer(path, {
    intervalMs: options.checkpointIntervalMs ?? 100,
    // No more often while the WAL grows: a checkpoint fsyncs the WAL and the database file, and every 10 ms those
    // fsyncs competed with the commits' own WAL flushes, which then waited longer (docs/decisions.md, "Write
    // latency, fourth round"); fewer checkpoints also copy a page that several commits rewrote once.
    busyIntervalMs: Math.min(100, options.checkpointIntervalMs ?? 100),
    drainFrames,
    // Passes before a drain (see the worker): the hold then covers a pass of a few ms' writes, not up to a
    // busy interval's (drains under sustained writes held them 1–25 ms, 11 ms on average, once a second).
    catchUpPasses: 3,
    idleTruncateMs: 1_000,
  });
  let closing: Promise<void> | null = null;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      events.detach();
      await snapshots.close();
      await walSync?.close();
      if (snapshotsDb !== db) snapshotsDb.close();
      // After a failed flush the connection stays open until the process ends: the last connection's close
      // checkpoints, which would copy frames the failed flush may have lost into the database file. The next open
      // recovers from the WAL, as after a crash.
      if (!events.stoppedBy) db.close();
      await checkpointer.close();
    })());
  const events = new SqliteEventStore(db, close, {
    readonly,
    pollIntervalMs: options.pollIntervalMs,
    onWrite: path === ':memory:' ? undefined : () => checkpointer.ensureStarted(),
    ...(walSync ? { makeDurable: options.onFlushed ? timed(() => walSync.sync(), options.onFlushed) : () => walSync.sync() } : {}),
    // No more checkpoints (see `close`).
    onStopped: () => void checkpointer.close(),
  });
  let lastDrain = 0;
  checkpointer.onNeedsDrain = () => {
    // At most one drain in flight, and not back to back (e.g. when another connection's reader keeps the
    // WAL from restarting).
    // A stopped store writes no more (and its checkpointer is closed): nothing to hold.
    if (events.stoppedBy || Date.now() - lastDrain < 50) return;
    lastDrain = Date.now();
    const drain = () => checkpointer.drain(options.walDrainTimeoutMs ?? 20);
    events.holdWritesDuring(options.onDrained ? timed(drain, options.onDrained) : drain);
  };
  checkpointer.onFailure = () => {
    if (db.open) db.pragma('wal_autocheckpoint = 1000');
  };
  const eventIdAt = db.prepare<[number], string>('SELECT event_id FROM events WHERE global_position = ?').pluck();
  const snapshots = new SqliteSnapshotStore(snapshotsDb, readonly, readonly || inMemory(path) ? null : snapshotsPathOf(path), (position) => eventIdAt.get(position) ?? null);
  return {
    events,
    snapshots,
    path,
    migrations: () => appliedMigrations(db),
    checkpointStats: () => ({ checkpoints: checkpointer.checkpoints, drains: checkpointer.drains, last: checkpointer.last }),
    close,
  };
};

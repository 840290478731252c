/**
 * Versioned schema migrations. Each migration runs once, in order, inside one IMMEDIATE transaction taken
 * at open, so two processes opening the same new file concurrently cannot both apply it.
 */
import type Database from 'better-sqlite3';

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
  /** Runs before `sql`, in the same transaction (what SQL alone cannot say). */
  readonly before?: (db: Database.Database) => void;
}

/**
 * Where the snapshot file is attached while the event database's migration 4 moves the newest snapshot into it
 * (see `openSqliteStore`).
 */
export const MOVED_SNAPSHOTS = 'snapshot_file';

export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: 'events and snapshots',
    sql: `
      CREATE TABLE events (
        global_position INTEGER PRIMARY KEY,   -- commit order, 1-based, gap-free
        event_id        TEXT    NOT NULL UNIQUE,
        stream_id       TEXT    NOT NULL,
        stream_version  INTEGER NOT NULL,
        type            TEXT    NOT NULL,
        schema_version  INTEGER NOT NULL,
        data            TEXT    NOT NULL,      -- JSON
        recorded_at     TEXT    NOT NULL,
        metadata        TEXT    NOT NULL       -- JSON
      );
      CREATE UNIQUE INDEX events_stream ON events (stream_id, stream_version);
      CREATE TABLE snapshots (
        id                 INTEGER PRIMARY KEY,
        projection_version TEXT    NOT NULL,
        position           INTEGER NOT NULL,
        state              BLOB    NOT NULL,   -- v8.serialize
        taken_at           TEXT    NOT NULL
      );
      CREATE INDEX snapshots_version ON snapshots (projection_version, position);
    `,
  },
  {
    version: 2,
    name: 'snapshots in pieces',
    // A snapshot written by the snapshot worker: its bytes in pieces of about a MiB, each inserted in a short
    // transaction of its own (a single blob of the whole state would hold the write lock for as long as it takes to
    // write it). \`pieces\` is -1 while a snapshot is being written, 0 for one held whole in \`state\`.
    sql: `
      ALTER TABLE snapshots ADD COLUMN pieces INTEGER NOT NULL DEFAULT 0;
      CREATE TABLE snapshot_pieces (
        snapshot_id INTEGER NOT NULL,
        seq         INTEGER NOT NULL,
        bytes       BLOB    NOT NULL,
        PRIMARY KEY (snapshot_id, seq)
      );
    `,
  },
  {
    version: 3,
    name: 'snapshot readers',
    // A process that started from a snapshot reads its table nodes on demand for as long as it runs: it names the
    // snapshot here, so that another process's pruning (a \`forgefold snapshot\` beside a server) leaves it alone.
    sql: `
      CREATE TABLE snapshot_readers (
        snapshot_id INTEGER NOT NULL,
        pid         INTEGER NOT NULL,
        PRIMARY KEY (snapshot_id, pid)
      );
    `,
  },
  {
    version: 4,
    name: 'snapshots in a file of their own',
    // Writing a snapshot (hundreds of MB at 1e6 commands) in the event database took the write lock the commits
    // need (a commit that finds it taken sleeps in SQLite's busy handler, on the event loop) and went through the
    // WAL the commits flush. Snapshots now live in a file of their own (see snapshotMigrations); the newest one
    // moves there (when the file is attached) and the tables go.
    before: (db) => {
      const attached = db.prepare<[], string>('SELECT name FROM pragma_database_list').pluck().all().includes(MOVED_SNAPSHOTS);
      if (!attached) return;
      const newest = db.prepare<[], number>('SELECT id FROM snapshots WHERE pieces >= 0 ORDER BY position DESC, id DESC LIMIT 1').pluck().get();
      if (newest === undefined) return;
      db.prepare(
        `INSERT OR IGNORE INTO ${MOVED_SNAPSHOTS}.shared_snapshots (id, projection_version, position, state, taken_at, pieces, last_event_id)
         SELECT id, projection_version, position, state, taken_at, pieces, (SELECT event_id FROM events WHERE global_position = snapshots.position) FROM snapshots WHERE id = ?`,
      ).run(newest);
      db.prepare(`INSERT OR IGNORE INTO ${MOVED_SNAPSHOTS}.shared_snapshot_pieces (snapshot_id, seq, bytes) SELECT snapshot_id, seq, bytes FROM snapshot_pieces WHERE snapshot_id = ?`).run(newest);
    },
    sql: `
      DROP TABLE snapshot_readers;
      DROP TABLE snapshot_pieces;
      DROP TABLE snapshots;
    `,
  },
];

/**
 * The snapshot file's schema (`<name>-snapshots.db` beside the event database; for `:memory:`, the same
 * connection): the tables the event database held up to its migration 3, and the id of the event each snapshot
 * ends at, so that a snapshot file that does not belong to the log beside it (a restored or replaced event
 * database) is not loaded.
 */
export const snapshotMigrations: readonly Migration[] = [
  {
    version: 1,
    name: 'snapshots',
    sql: `
      CREATE TABLE snapshots (
        id                 INTEGER PRIMARY KEY,
        projection_version TEXT    NOT NULL,
        position           INTEGER NOT NULL,
        state              BLOB    NOT NULL,   -- a snapshot held whole (pieces = 0)
        taken_at           TEXT    NOT NULL,
        pieces             INTEGER NOT NULL DEFAULT 0, -- -1 while being written
        last_event_id      TEXT                -- the event_id at position (null at 0)
      );
      CREATE INDEX snapshots_version ON snapshots (projection_version, position);
      CREATE TABLE snapshot_pieces (
        snapshot_id INTEGER NOT NULL,
        seq         INTEGER NOT NULL,
        bytes       BLOB    NOT NULL,
        PRIMARY KEY (snapshot_id, seq)
      );
      CREATE TABLE snapshot_readers (
        snapshot_id INTEGER NOT NULL,
        pid         INTEGER NOT NULL,
        PRIMARY KEY (snapshot_id, pid)
      );
    `,
  },
  {
    version: 2,
    name: 'snapshots share their unchanged rows',
    // A snapshot's row may name the row of an older snapshot that holds its bytes (source_id, source_seq; its own
    // bytes then empty) instead of copying them: always a row with bytes, so a reference is resolved in one step.
    // Rows a kept snapshot references outlive their own snapshot; ids are never given again (AUTOINCREMENT), so
    // that a new snapshot's rows never meet them. The snapshots move to tables of new names, and those of schema 1
    // stay, empty: a build of schema 1 reading the file (read-only: `forgefold verify`, `export`) finds no snapshot
    // and replays the log, instead of reading a referencing row's empty bytes as the snapshot's; one opening it to
    // write refuses its schema version.
    sql: `
      CREATE TABLE shared_snapshots (
        id                 INTEGER PRIMARY KEY AUTOINCREMENT,
        projection_version TEXT    NOT NULL,
        position           INTEGER NOT NULL,
        state              BLOB    NOT NULL,
        taken_at           TEXT    NOT NULL,
        pieces             INTEGER NOT NULL DEFAULT 0,
        last_event_id      TEXT
      );
      INSERT INTO shared_snapshots (id, projection_version, position, state, taken_at, pieces, last_event_id)
        SELECT id, projection_version, position, state, taken_at, pieces, last_event_id FROM snapshots;
      CREATE INDEX shared_snapshots_version ON shared_snapshots (projection_version, position);
      DELETE FROM snapshots;
      ALTER TABLE snapshot_pieces RENAME TO shared_snapshot_pieces;
      ALTER TABLE shared_snapshot_pieces ADD COLUMN source_id INTEGER;
      ALTER TABLE shared_snapshot_pieces ADD COLUMN source_seq INTEGER;
      CREATE INDEX shared_snapshot_pieces_source ON shared_snapshot_pieces (source_id, source_seq) WHERE source_id IS NOT NULL;
      CREATE TABLE snapshot_pieces (
        snapshot_id INTEGER NOT NULL,
        seq         INTEGER NOT NULL,
        bytes       BLOB    NOT NULL,
        PRIMARY KEY (snapshot_id, seq)
      );
    `,
  },
];

export interface AppliedMigration {
  readonly version: number;
  readonly name: string;
  readonly appliedAt: string;
}

/** The event database's migrations are recorded in `schema_migrations`, the snapshot file's in `snapshot_migrations`. */
export type Schema = 'events' | 'snapshots';

const schemas: Record<Schema, { readonly table: string; readonly migrations: readonly Migration[] }> = {
  events: { table: 'schema_migrations', migrations },
  snapshots: { table: 'snapshot_migrations', migrations: snapshotMigrations },
};

/** Applies every pending migration of a schema in one transaction. Returns the versions applied now. */
export const migrate = (db: Database.Database, schema: Schema = 'events'): number[] => {
  const { table, migrations: list } = schemas[schema];
  const applied: number[] = [];
  db.transaction(() => {
    db.exec(`CREATE TABLE IF NOT EXISTS main.${table} (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`);
    const done = new Set(db.prepare(`SELECT version FROM main.${table}`).pluck().all() as number[]);
    const newest = Math.max(0, ...done);
    const known = Math.max(...list.map((migration) => migration.version));
    if (newest > known) throw new Error(`Database schema version ${newest} is newer than this code supports (${known})`);
    const record = db.prepare(`INSERT INTO main.${table} (version, name, applied_at) VALUES (?, ?, ?)`);
    for (const migration of list) {
      if (done.has(migration.version)) continue;
      migration.before?.(db);
      db.exec(migration.sql);
      record.run(migration.version, migration.name, new Date().toISOString());
      applied.push(migration.version);
    }
  }).immediate();
  return applied;
};

export const appliedMigrations = (db: Database.Database, schema: Schema = 'events'): AppliedMigration[] => {
  const { table } = schemas[schema];
  const exists = db.prepare("SELECT 1 FROM main.sqlite_master WHERE type = 'table' AND name = ?").get(table);
  if (!exists) return [];
  return (db.prepare(`SELECT version, name, applied_at FROM main.${table} ORDER BY version`).all() as { version: number; name: string; applied_at: string }[]).map(
    (row) => ({ version: row.version, name: row.name, appliedAt: row.applied_at }),
  );
};

/**
 * Versioned schema migrations. Each migration runs once, in order, inside one IMMEDIATE transaction taken
 * at open, so two processes opening the same new file concurrently cannot both apply it.
 */
import type Database from 'better-sqlite3';

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

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
];

export interface AppliedMigration {
  readonly version: number;
  readonly name: string;
  readonly appliedAt: string;
}

const createMigrationsTable = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version    INTEGER PRIMARY KEY,
  name       TEXT NOT NULL,
  applied_at TEXT NOT NULL
)`;

/** Applies every pending migration in one transaction. Returns the versions applied now. */
export const migrate = (db: Database.Database): number[] => {
  const applied: number[] = [];
  db.transaction(() => {
    db.exec(createMigrationsTable);
    const done = new Set(db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[]);
    const newest = Math.max(0, ...done);
    const known = Math.max(...migrations.map((migration) => migration.version));
    if (newest > known) throw new Error(`Database schema version ${newest} is newer than this code supports (${known})`);
    const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      db.exec(migration.sql);
      record.run(migration.version, migration.name, new Date().toISOString());
      applied.push(migration.version);
    }
  }).immediate();
  return applied;
};

export const appliedMigrations = (db: Database.Database): AppliedMigration[] => {
  const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get();
  if (!exists) return [];
  return (db.prepare('SELECT version, name, applied_at FROM schema_migrations ORDER BY version').all() as { version: number; name: string; applied_at: string }[]).map(
    (row) => ({ version: row.version, name: row.name, appliedAt: row.applied_at }),
  );
};

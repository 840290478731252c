/**
 * Versioned schema migrations for one PostgreSQL schema (default `forgefold`). They run in one transaction under
 * an advisory lock, so several nodes starting together on a new database apply each migration once.
 */
import type { Sql } from 'postgres';

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

export interface AppliedMigration {
  readonly version: number;
  readonly name: string;
  readonly appliedAt: string;
}

/** Advisory lock classes (the first key of the two-key form; the second is the schema's hash). */
export const LOCK_COMMIT = 1_179_010_001;
export const LOCK_MIGRATE = 1_179_010_002;
export const LOCK_LEASE = 1_179_010_003;

/**
 * The commit function: one statement, one transaction. Writers are serialised by an advisory lock held until
 * commit, and the head row is advanced under it, so global positions are assigned and become visible in the same
 * order, without gaps: a reader of `global_position > n` can never see a later commit before an earlier one (a
 * plain sequence allows exactly that, and a follower would skip the earlier events forever).
 *
 * The events come as parallel arrays (write i owns the next `counts[i]` entries) rather than as one JSON document:
 * PostgreSQL's JSON parser refuses `\u0000` and lone surrogate escapes, which JSON.stringify may produce and which
 * the log must keep verbatim.
 *
 * Semantics are the SQLite store's (see @forgefold/sqlite-store): a write whose event ids were all written before
 * answers the original result and needs no expectation; a partial overlap, or an id repeated within the commit, is
 * a conflict; otherwise the expectation is checked against the stream's version, counting earlier writes of the
 * same commit. Failures roll everything back: FF001 (stale writer; DETAIL: head) and FF002 (wrong expected version;
 * DETAIL: "<write index>:<actual version>").
 */
const commitFunction = `
CREATE FUNCTION forgefold_commit(
  p_expected_position bigint, p_streams text[], p_expected text[], p_counts integer[],
  p_ids text[], p_types text[], p_schema_versions integer[], p_data text[], p_recorded_at text[], p_metadata text[]
) RETURNS TABLE (r_stream text, r_version integer, r_last bigint, r_duplicate boolean)
LANGUAGE plpgsql AS $fn$
DECLARE
  v_head bigint;
  v_position bigint;
  v_check boolean;
  v_offset integer := 0;
  v_count integer;
  v_stream text;
  v_expected text;
  v_version integer;
  v_last bigint;
  v_ids text[];
  v_found integer;
  v_ours integer;
BEGIN
  PERFORM pg_advisory_xact_lock(${LOCK_COMMIT}, hashtext(current_schema()));
  SELECT position INTO v_head FROM log_head;
  IF p_expected_position IS NOT NULL AND p_expected_position <> v_head THEN
    RAISE EXCEPTION 'stale writer' USING ERRCODE = 'FF001', DETAIL = v_head::text;
  END IF;
  v_position := v_head;
  -- The usual case (fresh ids, none repeated) skips the per-write look-ups below.
  v_check := cardinality(p_ids) > 0 AND (
    EXISTS (SELECT 1 FROM events WHERE event_id = ANY (p_ids))
    OR cardinality(p_ids) <> (SELECT count(DISTINCT id) FROM unnest(p_ids) AS id));
  -- Group commits (every write non-empty, expectation 'any', fresh ids): all events in one INSERT, stream versions
  -- numbered per stream after each stream's head, instead of two statements per write.
  IF NOT v_check AND cardinality(p_ids) > 0 AND 'any' = ALL (p_expected) AND 0 < ALL (p_counts) THEN
    INSERT INTO events (global_position, event_id, stream_id, stream_version, type, schema_version, data, recorded_at, metadata)
      SELECT v_head + e.i, p_ids[e.i], e.stream, h.version + row_number() OVER (PARTITION BY e.stream ORDER BY e.i),
             p_types[e.i], p_schema_versions[e.i], p_data[e.i], p_recorded_at[e.i], p_metadata[e.i]
        FROM (SELECT row_number() OVER (ORDER BY w.n, g) AS i, w.stream
                FROM unnest(p_streams, p_counts) WITH ORDINALITY AS w(stream, count, n), generate_series(1, w.count) AS g) AS e
        JOIN (SELECT d.stream, coalesce((SELECT x.stream_version FROM events x WHERE x.stream_id = d.stream
                                          ORDER BY x.stream_version DESC LIMIT 1), 0) AS version
                FROM (SELECT DISTINCT stream FROM unnest(p_streams) AS stream) AS d) AS h ON h.stream = e.stream;
    v_position := v_head + cardinality(p_ids);
    UPDATE log_head SET position = v_position;
    PERFORM pg_notify('forgefold_events:' || current_schema(), v_position::text);
    RETURN QUERY
      SELECT w.stream, x.stream_version, x.global_position, false
        FROM (SELECT stream, n, sum(count) OVER (ORDER BY n) AS upto
                FROM unnest(p_streams, p_counts) WITH ORDINALITY AS u(stream, count, n)) AS w
        JOIN events x ON x.global_position = v_head + w.upto
       ORDER BY w.n;
    RETURN;
  END IF;
  FOR i IN 1 .. coalesce(cardinality(p_streams), 0) LOOP
    v_stream := p_streams[i];
    v_expected := p_expected[i];
    v_count := p_counts[i];
    SELECT e.stream_version, e.global_position INTO v_version, v_last
      FROM events e WHERE e.stream_id = v_stream ORDER BY e.stream_version DESC LIMIT 1;
    IF NOT FOUND THEN
      v_version := 0;
      v_last := 0;
    END IF;
    IF v_check AND v_count > 0 THEN
      v_ids := p_ids[v_offset + 1 : v_offset + v_count];
      IF v_count <> (SELECT count(DISTINCT id) FROM unnest(v_ids) AS id) THEN
        RAISE EXCEPTION 'event id repeated' USING ERRCODE = 'FF002', DETAIL = (i - 1) || ':' || v_version;
      END IF;
      SELECT count(*), count(*) FILTER (WHERE e.global_position > v_head) INTO v_found, v_ours
        FROM events e WHERE e.event_id = ANY (v_ids);
      IF v_ours > 0 OR (v_found > 0 AND v_found < v_count) THEN
        RAISE EXCEPTION 'event ids overlap' USING ERRCODE = 'FF002', DETAIL = (i - 1) || ':' || v_version;
      END IF;
      IF v_found = v_count THEN
        SELECT e.stream_id, e.stream_version, e.global_position INTO r_stream, r_version, r_last
          FROM events e WHERE e.event_id = v_ids[v_count];
        r_duplicate := true;
        v_offset := v_offset + v_count;
        RETURN NEXT;
        CONTINUE;
      END IF;
    END IF;
    IF NOT (v_expected = 'any'
        OR (v_expected = 'no_stream' AND v_version = 0)
        OR (v_expected = 'stream_exists' AND v_version > 0)
        OR (v_expected ~ '^[0-9]{1,9}$' AND v_expected::integer = v_version)) THEN
      RAISE EXCEPTION 'wrong expected version' USING ERRCODE = 'FF002', DETAIL = (i - 1) || ':' || v_version;
    END IF;
    IF v_count > 0 THEN
      INSERT INTO events (global_position, event_id, stream_id, stream_version, type, schema_version, data, recorded_at, metadata)
        SELECT v_position + g, p_ids[v_offset + g], v_stream, v_version + g, p_types[v_offset + g], p_schema_versions[v_offset + g],
               p_data[v_offset + g], p_recorded_at[v_offset + g], p_metadata[v_offset + g]
          FROM generate_series(1, v_count) AS g;
      v_position := v_position + v_count;
      v_version := v_version + v_count;
      v_last := v_position;
    END IF;
    v_offset := v_offset + v_count;
    r_stream := v_stream;
    r_version := v_version;
    r_last := CASE WHEN v_version > 0 THEN v_last ELSE v_position END;
    r_duplicate := false;
    RETURN NEXT;
  END LOOP;
  IF v_position > v_head THEN
    UPDATE log_head SET position = v_position;
    -- Delivered at commit: wakes the other nodes' followers with the new head.
    PERFORM pg_notify('forgefold_events:' || current_schema(), v_position::text);
  END IF;
END
$fn$`;

export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: 'events, head, snapshots and the commit function',
    sql: `
      CREATE TABLE events (
        global_position bigint  PRIMARY KEY,   -- commit order, 1-based, gap-free
        event_id        text    NOT NULL UNIQUE,
        stream_id       text    NOT NULL,
        stream_version  integer NOT NULL,
        type            text    NOT NULL,
        schema_version  integer NOT NULL,
        data            text    NOT NULL,      -- JSON text, kept verbatim
        recorded_at     text    NOT NULL,
        metadata        text    NOT NULL,      -- JSON text
        CONSTRAINT events_stream UNIQUE (stream_id, stream_version)
      );
      -- The head: advanced by every commit under the commit lock.
      CREATE TABLE log_head (
        singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
        position  bigint  NOT NULL
      );
      INSERT INTO log_head (singleton, position) VALUES (true, 0);
      CREATE TABLE snapshots (
        id                 bigserial PRIMARY KEY,
        projection_version text      NOT NULL,
        position           bigint    NOT NULL,
        state              bytea     NOT NULL,   -- v8.serialize
        taken_at           text      NOT NULL
      );
      CREATE INDEX snapshots_version ON snapshots (projection_version, position);
      ${commitFunction};
    `,
  },
];

export const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export const quoteSchema = (schema: string): string => {
  if (!SCHEMA_NAME.test(schema)) throw new Error(`Invalid schema name '${schema}' (lower-case letters, digits and _)`);
  return `"${schema}"`;
};

/** Applies every pending migration in one transaction. Returns the versions applied now. */
export const migrate = async (sql: Sql, schema: string): Promise<number[]> => {
  const quoted = quoteSchema(schema);
  return sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${LOCK_MIGRATE}, hashtext(${schema}))`;
    await tx.unsafe(`CREATE SCHEMA IF NOT EXISTS ${quoted}`);
    await tx.unsafe(`SET LOCAL search_path TO ${quoted}`);
    await tx.unsafe(`CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at text NOT NULL)`);
    const done = new Set((await tx.unsafe<{ version: number }[]>('SELECT version FROM schema_migrations')).map((row) => row.version));
    const newest = Math.max(0, ...done);
    const known = Math.max(...migrations.map((migration) => migration.version));
    if (newest > known) throw new Error(`Database schema version ${newest} is newer than this code supports (${known})`);
    const applied: number[] = [];
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      await tx.unsafe(migration.sql);
      await tx.unsafe('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [migration.version, migration.name, new Date().toISOString()]);
      applied.push(migration.version);
    }
    return applied;
  });
};

export const appliedMigrations = async (sql: Sql, schema: string): Promise<AppliedMigration[]> => {
  const [exists] = await sql`SELECT to_regclass(${`${quoteSchema(schema)}.schema_migrations`}) AS name`;
  if (!exists?.['name']) return [];
  const rows = await sql.unsafe<{ version: number; name: string; applied_at: string }[]>(
    `SELECT version, name, applied_at FROM ${quoteSchema(schema)}.schema_migrations ORDER BY version`,
  );
  return rows.map((row) => ({ version: row.version, name: row.name, appliedAt: row.applied_at }));
};

/**
 * Snapshots share their unchanged rows (issue 16): a snapshot's rows that an older snapshot holds byte for byte are
 * references to that snapshot's rows (resolved, when written, to the row that holds the bytes), not copies. Readers
 * resolve them; pruning keeps a row while a kept snapshot references it and drops it with the last one.
 */
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Immer } from 'immer';
import { openSqliteStore, snapshotMigrations, snapshotsPathOf } from '@forgefold/sqlite-store';
import { emptyTable, encodeState, stateHash, tableGet, tableSet, type Table } from '@forgefold/core';
import { inTempDir } from './helpers.js';

type Raw = {
  prepare(sql: string): { pluck(): { all(...args: unknown[]): unknown[]; get(...args: unknown[]): unknown }; run(...args: unknown[]): { lastInsertRowid: number | bigint }; get(...args: unknown[]): unknown };
  exec(sql: string): void;
  close(): void;
};
const RawDatabase = createRequire(import.meta.url)(createRequire(import.meta.url).resolve('better-sqlite3')) as new (file: string, options?: { readonly?: boolean }) => Raw;

const withRaw = <T>(path: string, body: (db: Raw) => T): T => {
  const db = new RawDatabase(snapshotsPathOf(path), { readonly: true });
  try {
    return body(db);
  } finally {
    db.close();
  }
};

interface Entity {
  id: number;
  name: string;
}
interface State {
  things: { byId: Table<Entity>; count: number };
}

/** Large enough for dozens of rows of 64 KiB. */
const ENTITIES = 60_000;

const build = (): State => {
  const byId: Table<Entity> = emptyTable();
  for (let id = 1; id <= ENTITIES; id++) tableSet(byId, id, { id, name: `entity number ${id} of the shared snapshot test` });
  return { things: { byId, count: ENTITIES } };
};

const immer = new Immer({ autoFreeze: false });
/** A committed state's change (immer copies the path it writes, as the application's fold does), and the same change to a plain state. */
const rename = (state: State, live: State, id: number, name: string): State => {
  tableSet(live.things.byId, id, { id, name });
  return immer.produce(state, (draft) => {
    tableSet(draft.things.byId, id, { id, name });
  });
};

/** Rows with bytes and references of a snapshot. */
const rowsOf = (path: string, id: number): { bytes: number; references: number } =>
  withRaw(path, (db) => ({
    bytes: db.prepare('SELECT count(*) FROM shared_snapshot_pieces WHERE snapshot_id = ? AND source_id IS NULL').pluck().get(id) as number,
    references: db.prepare('SELECT count(*) FROM shared_snapshot_pieces WHERE snapshot_id = ? AND source_id IS NOT NULL').pluck().get(id) as number,
  }));

/**
 * What must always hold: every reference names a row that holds bytes; every row whose snapshot is gone is
 * referenced by some row (else it should have gone with it).
 */
const invariants = (path: string): { dangling: number; orphans: number } =>
  withRaw(path, (db) => ({
    dangling: db
      .prepare(
        `SELECT count(*) FROM shared_snapshot_pieces p WHERE p.source_id IS NOT NULL AND NOT EXISTS
           (SELECT 1 FROM shared_snapshot_pieces s WHERE s.snapshot_id = p.source_id AND s.seq = p.source_seq AND s.source_id IS NULL)`,
      )
      .pluck()
      .get() as number,
    orphans: db
      .prepare(
        `SELECT count(*) FROM shared_snapshot_pieces p WHERE p.snapshot_id NOT IN (SELECT id FROM shared_snapshots) AND NOT EXISTS
           (SELECT 1 FROM shared_snapshot_pieces r WHERE r.source_id = p.snapshot_id AND r.source_seq = p.seq)`,
      )
      .pluck()
      .get() as number,
  }));

const snapshotIds = (path: string): number[] => withRaw(path, (db) => db.prepare('SELECT id FROM shared_snapshots ORDER BY id').pluck().all() as number[]);

/** The newest snapshot, loaded by a read-only store, every node read: its hash. */
const loadedHash = async (path: string): Promise<{ position: number; hash: string }> => {
  const reader = openSqliteStore({ path, readonly: true });
  try {
    const loaded = (await reader.snapshots.load('v1'))!;
    return { position: loaded.position, hash: stateHash(loaded.state) };
  } finally {
    await reader.close();
  }
};

/** The newest snapshot loads to `live`'s state at `position`, and no reference dangles nor row is orphaned. */
const expectIntact = async (path: string, position: number, live: State): Promise<void> => {
  expect(await loadedHash(path)).toEqual({ position, hash: stateHash(live) });
  expect(invariants(path)).toEqual({ dangling: 0, orphans: 0 });
};

/** Snapshot 1 of `build()`, written whole by a store that then closes. */
const firstSnapshot = async (path: string): Promise<State> => {
  const live = build();
  const writer = openSqliteStore({ path });
  await writer.snapshots.save({ position: 1, projectionVersion: 'v1', state: live, takenAt: 't' });
  await writer.close();
  return live;
};

/** A store that loaded snapshot 1 (and so keeps it): the state it loaded. */
const loadFirst = async (path: string) => {
  const store = openSqliteStore({ path });
  return { store, state: (await store.snapshots.load('v1'))!.state as State };
};

describe('SqliteStore: snapshots share their unchanged rows', () => {
  it('a snapshot taken after a few changes references the older one\'s unchanged rows, and loads to the same state', async () => {
    await inTempDir(async (temp) => {
      const path = temp.file();
      const live = await firstSnapshot(path);
      const first = rowsOf(path, 1);
      expect(first.references).toBe(0);
      expect(first.bytes).toBeGreaterThan(20);

      const { store, state: loaded } = await loadFirst(path);
      let state = loaded;
      // One byte longer than before, in the first row: the rows written before the first reference are that row
      // and one of a byte (a row may be shorter than ROW).
      state = rename(state, live, 7, 'entity number 7 of the shared snapshot test!');
      state = rename(state, live, ENTITIES - 3, 'changed late');
      await store.snapshots.save({ position: 2, projectionVersion: 'v1', state, takenAt: 't' });
      // Unchanged: the older snapshot's rows, referenced; the few written again hold the changed nodes, the parts of
      // rows at the runs' ends and the structure.
      const second = rowsOf(path, 2);
      expect(second.references).toBeGreaterThan(first.bytes - 12);
      expect(second.bytes).toBeLessThan(12);
      // Nothing changed since: the next one references the rows the second one references or holds.
      await store.snapshots.save({ position: 3, projectionVersion: 'v1', state, takenAt: 't' });
      const third = rowsOf(path, 3);
      expect(third.references).toBeGreaterThan(first.bytes - 6);
      expect(third.bytes).toBeLessThan(6);
      await store.close();

      await expectIntact(path, 3, live);
    });
  });

  it('a chain of snapshots with pruning between: rows stay while referenced and go with the last reference', async () => {
    await inTempDir(async (temp) => {
      const path = temp.file();
      const live = await firstSnapshot(path);
      // A store that loaded snapshot 1 (and so keeps it) writes a chain, each a change or two from the one before.
      const { store, state: loaded } = await loadFirst(path);
      let state = loaded;
      let position = 1;
      for (let round = 0; round < 6; round++) {
        state = rename(state, live, 1 + round * 9_973, `round ${round}`);
        if (round % 2 === 1) state = rename(state, live, ENTITIES - round, `late ${round}`);
        await store.snapshots.save({ position: ++position, projectionVersion: 'v1', state, takenAt: 't' });
        await expectIntact(path, position, live);
      }
      // The pinned snapshot and the newest three.
      expect(snapshotIds(path)).toEqual([1, 5, 6, 7]);
      await store.close();

      // A second store loads the newest and writes three more: snapshot 1 is pruned now, its rows stay (referenced).
      const next = openSqliteStore({ path });
      state = (await next.snapshots.load('v1'))!.state as State;
      for (let round = 0; round < 3; round++) {
        state = rename(state, live, 2 + round * 7_919, `next ${round}`);
        await next.snapshots.save({ position: ++position, projectionVersion: 'v1', state, takenAt: 't' });
      }
      expect(snapshotIds(path)).toEqual([7, 8, 9, 10]);
      expect(withRaw(path, (db) => db.prepare('SELECT count(*) FROM shared_snapshot_pieces WHERE snapshot_id = 1').pluck().get())).toBeGreaterThan(20);
      expect(invariants(path)).toEqual({ dangling: 0, orphans: 0 });
      await next.close();
      expect(await loadedHash(path)).toEqual({ position, hash: stateHash(live) });

      // A store that loaded nothing writes its state whole, then three more: every older snapshot is pruned, and
      // with the last references to them, the rows of snapshot 1 and of the chain go too.
      const fresh = openSqliteStore({ path });
      for (let round = 0; round < 4; round++) await fresh.snapshots.save({ position: ++position, projectionVersion: 'v1', state: live, takenAt: 't' });
      await fresh.close();
      expect(snapshotIds(path)).toEqual([12, 13, 14]);
      expect(withRaw(path, (db) => db.prepare('SELECT count(*) FROM shared_snapshot_pieces WHERE snapshot_id < 11').pluck().get())).toBe(0);
      // Snapshot 11 (the first of these, written whole) is pruned; the next ones reference its rows.
      expect(withRaw(path, (db) => db.prepare('SELECT count(*) FROM shared_snapshot_pieces WHERE snapshot_id = 11').pluck().get())).toBeGreaterThan(20);
      await expectIntact(path, position, live);
    });
  });

  it('rows stay long across a chain of snapshots with scattered changes (a short row before a reference takes the next row\'s bytes)', async () => {
    await inTempDir(async (temp) => {
      const path = temp.file();
      const live = await firstSnapshot(path);
      const { store, state: loaded } = await loadFirst(path);
      let state = loaded;
      let position = 1;
      for (let round = 0; round < 6; round++) {
        for (let change = 0; change < 8; change++) {
          const id = 1 + (((round * 8 + change) * 7_919) % ENTITIES);
          // A few bytes longer than before: cut at ROW, the rest before the next reference would be a row of those few.
          state = rename(state, live, id, `${tableGet(live.things.byId, id)!.name}${'!'.repeat(1 + change)}`);
        }
        await store.snapshots.save({ position: ++position, projectionVersion: 'v1', state, takenAt: 't' });
      }
      await store.close();
      const newest = Math.max(...snapshotIds(path));
      const lengths = withRaw(path, (db) =>
        db
          .prepare(
            `SELECT CASE WHEN p.source_id IS NULL THEN length(p.bytes) ELSE (SELECT length(s.bytes) FROM shared_snapshot_pieces s WHERE s.snapshot_id = p.source_id AND s.seq = p.source_seq) END
               FROM shared_snapshot_pieces p WHERE p.snapshot_id = ? ORDER BY p.seq`,
          )
          .pluck()
          .all(newest) as number[],
      );
      // All but the last (the structure's end) are at least a quarter of a row (ROW / 4), so there are never many more than the first had.
      expect(Math.min(...lengths.slice(0, -1))).toBeGreaterThanOrEqual(16 * 1024);
      expect(rowsOf(path, newest).references).toBeGreaterThan(0);
      await expectIntact(path, position, live);
    });
  });

  it('another process pruning leaves the snapshot this one reads, and the rows it references, readable', async () => {
    await inTempDir(async (temp) => {
      const path = temp.file();
      const live = await firstSnapshot(path);
      const writer = openSqliteStore({ path });
      const state = rename((await writer.snapshots.load('v1'))!.state as State, live, 12_345, 'changed');
      await writer.snapshots.save({ position: 2, projectionVersion: 'v1', state, takenAt: 't' });
      await writer.close();
      expect(rowsOf(path, 2).references).toBeGreaterThan(20);

      // This process reads snapshot 2 on demand (nothing read yet but its structure).
      const reader = openSqliteStore({ path });
      const loaded = (await reader.snapshots.load('v1'))!;
      expect(loaded.position).toBe(2);
      // Another process writes four snapshots of a state of its own (positions after 2): its pruning drops
      // snapshot 1, not 2 (in snapshot_readers), and keeps the rows of 1 that 2 references.
      const module = (name: string): string => fileURLToPath(new URL(`../../packages/${name}/dist/index.js`, import.meta.url));
      const script = temp.file('other.mjs');
      writeFileSync(script, `
        import { openSqliteStore } from ${JSON.stringify(module('sqlite-store'))};
        const store = openSqliteStore({ path: ${JSON.stringify(path)} });
        for (let position = 10; position < 14; position++) await store.snapshots.save({ position, projectionVersion: 'v1', state: { other: position }, takenAt: 't' });
        await store.close();
      `);
      execFileSync(process.execPath, [script], { encoding: 'utf8' });
      expect(snapshotIds(path)).toEqual([2, 4, 5, 6]);
      expect(withRaw(path, (db) => db.prepare('SELECT count(*) FROM shared_snapshot_pieces WHERE snapshot_id = 1').pluck().get())).toBeGreaterThan(20);
      expect(stateHash(loaded.state)).toBe(stateHash(live));
      expect(tableGet((loaded.state as State).things.byId, 12_345)!.name).toBe('changed');
      await reader.close();
      expect(invariants(path)).toEqual({ dangling: 0, orphans: 0 });

      // Once this process is done, the next pruning takes snapshot 2, and the rows of 1 with it.
      const last = openSqliteStore({ path });
      await last.snapshots.save({ position: 14, projectionVersion: 'v1', state: { other: 14 }, takenAt: 't' });
      await last.close();
      expect(snapshotIds(path)).toEqual([5, 6, 7]);
      expect(withRaw(path, (db) => db.prepare('SELECT count(*) FROM shared_snapshot_pieces WHERE snapshot_id < 5').pluck().get())).toBe(0);
      expect(invariants(path)).toEqual({ dangling: 0, orphans: 0 });
    });
  });

  it('a crash while a snapshot is written leaves the older snapshot loadable, and its references are pruned with it', async () => {
    await inTempDir(async (temp) => {
      const path = temp.file();
      const live = await firstSnapshot(path);
      // What the worker had written when the process died: the snapshot's row (pieces = -1), a row of bytes and
      // references to the rows of snapshot 1, as the worker writes them.
      const crashed = new RawDatabase(snapshotsPathOf(path));
      const id = Number(crashed.prepare("INSERT INTO shared_snapshots (projection_version, position, state, taken_at, pieces) VALUES ('v1', 2, X'', 't', -1)").run().lastInsertRowid);
      crashed.prepare("INSERT INTO shared_snapshot_pieces (snapshot_id, seq, bytes) VALUES (?, 0, X'00')").run(id);
      const reference = crashed.prepare(
        `INSERT INTO shared_snapshot_pieces (snapshot_id, seq, bytes, source_id, source_seq)
           SELECT ?, ?, X'', coalesce(source_id, snapshot_id), coalesce(source_seq, seq) FROM shared_snapshot_pieces WHERE snapshot_id = 1 AND seq = ?`,
      );
      for (let seq = 0; seq < 10; seq++) reference.run(id, seq + 1, seq);
      crashed.close();

      expect(await loadedHash(path)).toEqual({ position: 1, hash: stateHash(live) });
      // The next snapshots (from a store that loaded snapshot 1: they reference its rows) prune the unfinished one;
      // once snapshot 1 goes too, nothing of either is left.
      const { store, state: loaded } = await loadFirst(path);
      let state = loaded;
      state = rename(state, live, 3, 'after the crash');
      await store.snapshots.save({ position: 3, projectionVersion: 'v1', state, takenAt: 't' });
      expect(snapshotIds(path)).toEqual([1, id + 1]);
      expect(invariants(path)).toEqual({ dangling: 0, orphans: 0 });
      await store.close();
      const fresh = openSqliteStore({ path });
      for (let position = 4; position < 7; position++) await fresh.snapshots.save({ position, projectionVersion: 'v1', state: live, takenAt: 't' });
      await fresh.close();
      expect(withRaw(path, (db) => db.prepare('SELECT count(*) FROM shared_snapshot_pieces WHERE snapshot_id <= ?').pluck().get(id + 1))).toBe(0);
      await expectIntact(path, 6, live);
    });
  });

  it('migrates a snapshot file of schema 1: its snapshot loads (read-only before, too), the next one references its rows under a new id, and a build of schema 1 finds none', async () => {
    await inTempDir(async (temp) => {
      const path = temp.file();
      // The event database, then a snapshot file as a build before this schema wrote it.
      await openSqliteStore({ path }).close();
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${snapshotsPathOf(path)}${suffix}`, { force: true });
      const old = new RawDatabase(snapshotsPathOf(path));
      old.exec('PRAGMA journal_mode = WAL');
      old.exec('CREATE TABLE snapshot_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
      const v1 = snapshotMigrations.find((migration) => migration.version === 1)!;
      old.exec(v1.sql);
      old.prepare('INSERT INTO snapshot_migrations VALUES (1, ?, ?)').run(v1.name, 't');
      const live = build();
      const bytes = Buffer.concat([...encodeState(live)]);
      // Snapshot 5 in rows of 64 KiB (its id the highest ever given: AUTOINCREMENT goes on from it).
      old.prepare("INSERT INTO snapshots (id, projection_version, position, state, taken_at, pieces) VALUES (5, 'v1', 1, X'', 't', ?)").run(Math.ceil(bytes.length / 65_536));
      const piece = old.prepare('INSERT INTO snapshot_pieces (snapshot_id, seq, bytes) VALUES (5, ?, ?)');
      for (let seq = 0; seq * 65_536 < bytes.length; seq++) piece.run(seq, bytes.subarray(seq * 65_536, (seq + 1) * 65_536));
      old.close();

      expect(await loadedHash(path)).toEqual({ position: 1, hash: stateHash(live) });
      const store = openSqliteStore({ path });
      expect(withRaw(path, (db) => db.prepare('SELECT max(version) FROM snapshot_migrations').pluck().get())).toBe(2);
      let state = (await store.snapshots.load('v1'))!.state as State;
      state = rename(state, live, 30_000, 'after the migration');
      await store.snapshots.save({ position: 2, projectionVersion: 'v1', state, takenAt: 't' });
      await store.close();
      expect(snapshotIds(path)).toEqual([5, 6]);
      expect(rowsOf(path, 6).references).toBeGreaterThan(20);
      await expectIntact(path, 2, live);
      // A build of schema 1 reading the file (read-only: it does not migrate) finds no snapshot where it looks (its
      // query), and replays the log instead of reading references as bytes.
      expect(withRaw(path, (db) => db.prepare("SELECT id FROM snapshots WHERE projection_version = 'v1' AND pieces >= 0").pluck().all())).toEqual([]);
      expect(withRaw(path, (db) => db.prepare('SELECT count(*) FROM snapshot_pieces').pluck().get())).toBe(0);
    });
  });
});

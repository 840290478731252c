import { describe, expect, it } from 'vitest';
import { closeSync, openSync, rmSync, statSync } from 'node:fs';
import { migrations, openSqliteStore, snapshotsPathOf, type SqliteStore } from '@forgefold/sqlite-store';
import { createRequire } from 'node:module';
import { emptyTable, encodeState, stateHash, tableGet, tableSet, type EventStore, type Table } from '@forgefold/core';
import { eventStoreContract, newEvent } from './contract.js';
import { inTempDir, tempDir } from './helpers.js';

/** The driver the store uses (the tests' package does not depend on it), for what a test reads or holds beside the store. */
type Raw = {
  prepare(sql: string): { pluck(): { all(...args: unknown[]): unknown[]; get(...args: unknown[]): unknown }; run(...args: unknown[]): unknown; get(...args: unknown[]): unknown };
  exec(sql: string): void;
  close(): void;
};
const RawDatabase = createRequire(import.meta.url)(createRequire(import.meta.url).resolve('better-sqlite3')) as new (file: string, options?: { readonly?: boolean }) => Raw;
const tableNames = (path: string): unknown[] => {
  const db = new RawDatabase(path, { readonly: true });
  try {
    return db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
  } finally {
    db.close();
  }
};

eventStoreContract(
  'sqlite',
  async () => {
    const temp = tempDir();
    const path = temp.file();
    let current: SqliteStore = openSqliteStore({ path });
    const others: SqliteStore[] = [];
    return {
      store: current.events,
      reopen: async (): Promise<EventStore> => {
        await current.close();
        current = openSqliteStore({ path });
        return current.events;
      },
      another: async () => {
        const other = openSqliteStore({ path });
        others.push(other);
        return other.events;
      },
      cleanup: async () => {
        await current.close();
        for (const other of others) await other.close();
        temp.remove();
      },
    };
  },
  { modelRuns: 40 },
);

describe('SqliteStore', () => {
  it('applies migrations once and is idempotent on reopen', async () => {
    await inTempDir(async (temp) => {
      const first = openSqliteStore({ path: temp.file() });
      const applied = first.migrations();
      expect(applied.map((m) => m.version)).toEqual([1, 2, 3, 4]);
      await first.events.append('a', 'any', [newEvent()]);
      await first.close();
      for (let i = 0; i < 3; i++) {
        const again = openSqliteStore({ path: temp.file() });
        expect(again.migrations()).toEqual(applied);
        expect(await again.events.headPosition()).toBe(1);
        await again.close();
      }
    });
  });

  it('writes each event with its own metadata when a commit\'s events share, then change, metadata objects', async () => {
    await inTempDir(async (temp) => {
      const store = openSqliteStore({ path: temp.file() });
      // The application gives a command's events one metadata object; the store encodes it once for them.
      const first = { actorId: 1, sudoFromId: null, requestId: 'r-1', origin: 'api' as const };
      const second = { actorId: 2, sudoFromId: 1, requestId: null, origin: 'system' as const };
      await store.events.commit([
        { streamId: 'a', expected: 'any', events: [newEvent({ metadata: first }), newEvent({ metadata: first })] },
        { streamId: 'b', expected: 'any', events: [newEvent({ metadata: first }), newEvent({ metadata: second })] },
        { streamId: 'c', expected: 'any', events: [newEvent({ metadata: second }), newEvent({ metadata: { ...first } })] },
      ]);
      expect((await store.events.readAll(0, 10)).map((event) => event.metadata)).toEqual([first, first, first, second, second, first]);
      await store.close();
    });
  });

  it('opens read-only: reads work, writes are refused', async () => {
    await inTempDir(async (temp) => {
      const writer = openSqliteStore({ path: temp.file() });
      await writer.events.append('a', 'any', [newEvent(), newEvent()]);
      const reader = openSqliteStore({ path: temp.file(), readonly: true });
      expect(await reader.events.headPosition()).toBe(2);
      await expect(reader.events.append('a', 'any', [newEvent()])).rejects.toThrow(/read-only/);
      await reader.close();
      await writer.close();
    });
  });

  it('round-trips snapshots and ignores other projection versions', async () => {
    await inTempDir(async (temp) => {
      const store = openSqliteStore({ path: temp.file() });
      expect(await store.snapshots.load('v1')).toBeNull();
      const state = { users: new Map([[1, { name: 'ann', tags: new Set(['a']) }]]), at: new Date(0), list: [1, 2, 3], nested: { deep: { n: 1n } } };
      await store.snapshots.save({ position: 10, projectionVersion: 'v1', state, takenAt: '2026-01-01T00:00:00.000Z' });
      await store.snapshots.save({ position: 12, projectionVersion: 'v2', state: { other: true }, takenAt: '2026-01-01T00:00:01.000Z' });
      const loaded = await store.snapshots.load('v1');
      expect(loaded).toEqual({ position: 10, projectionVersion: 'v1', state, takenAt: '2026-01-01T00:00:00.000Z' });
      expect((await store.snapshots.load('v2'))!.state).toEqual({ other: true });
      expect(await store.snapshots.load('v3')).toBeNull();
      for (let position = 11; position <= 20; position++) {
        await store.snapshots.save({ position, projectionVersion: 'v1', state: { position }, takenAt: '2026-01-01T00:00:02.000Z' });
      }
      await store.close();
      const reopened = openSqliteStore({ path: temp.file() });
      expect((await reopened.snapshots.load('v1'))!.state).toEqual({ position: 20 });
      await reopened.close();
    });
  });

  it('copies the nodes a state loaded from a snapshot has not read into its next snapshot (in the worker)', async () => {
    await inTempDir(async (temp) => {
      const path = temp.file();
      const byId: Table<{ id: number; name: string }> = emptyTable();
      for (let id = 1; id <= 20_000; id++) tableSet(byId, id, { id, name: `n${id}` });
      const first = openSqliteStore({ path });
      await first.snapshots.save({ position: 1, projectionVersion: 'v1', state: { things: { byId } }, takenAt: 't' });
      await first.close();
      const piecesOf = (id: number): Buffer => {
        const db = new RawDatabase(snapshotsPathOf(path), { readonly: true });
        try {
          // A row that references an older snapshot's row has that row's bytes.
          const resolved = `SELECT CASE WHEN p.source_id IS NULL THEN p.bytes ELSE
            (SELECT s.bytes FROM shared_snapshot_pieces s WHERE s.snapshot_id = p.source_id AND s.seq = p.source_seq) END
            FROM shared_snapshot_pieces p WHERE p.snapshot_id = ? ORDER BY p.seq`;
          return Buffer.concat(db.prepare(resolved).pluck().all(id) as Buffer[]);
        } finally {
          db.close();
        }
      };
      const original = piecesOf(1);
      const store = openSqliteStore({ path });
      const loaded = (await store.snapshots.load('v1'))!.state as { things: { byId: Table<{ id: number; name: string }> } };
      // Untouched: the same bytes.
      await store.snapshots.save({ position: 2, projectionVersion: 'v1', state: loaded, takenAt: 't' });
      expect(piecesOf(2).equals(original)).toBe(true);
      // Written to: what a reader loads is the state.
      tableSet(loaded.things.byId, 777, { id: 777, name: 'changed' });
      await store.snapshots.save({ position: 3, projectionVersion: 'v1', state: loaded, takenAt: 't' });
      const hash = stateHash(loaded);
      await store.close();
      const reader = openSqliteStore({ path, readonly: true });
      const again = (await reader.snapshots.load('v1'))!;
      expect(again.position).toBe(3);
      const state = again.state as typeof loaded;
      expect(tableGet(state.things.byId, 777)).toEqual({ id: 777, name: 'changed' });
      expect(tableGet(state.things.byId, 19_999)).toEqual({ id: 19_999, name: 'n19999' });
      expect(stateHash(state)).toBe(hash);
      await reader.close();
    });
  });

  it('keeps only the newest few snapshots', async () => {
    await inTempDir(async (temp) => {
      const store = openSqliteStore({ path: temp.file() });
      for (let position = 1; position <= 10; position++) {
        await store.snapshots.save({ position, projectionVersion: 'v1', state: { big: 'x'.repeat(1000), position }, takenAt: 't' });
      }
      expect((await store.snapshots.load('v1'))!.position).toBe(10);
      expect(store.snapshots.count()).toBeLessThanOrEqual(3);
      await store.close();
    });
  });

  it('a second instance on the same file sees appends and its stale commit is rejected', async () => {
    await inTempDir(async (temp) => {
      const a = openSqliteStore({ path: temp.file(), pollIntervalMs: 5 });
      const b = openSqliteStore({ path: temp.file(), pollIntervalMs: 5 });
      const seen: number[] = [];
      const unsubscribe = b.events.subscribe(0, (e) => seen.push(e.globalPosition));
      await a.events.append('s', 'any', [newEvent(), newEvent()]);
      await expect(b.events.commit([{ streamId: 't', expected: 'any', events: [newEvent()] }], { expectedPosition: 0 })).rejects.toMatchObject({
        _tag: 'StaleWriter',
        actualPosition: 2,
      });
      await b.events.commit([{ streamId: 't', expected: 'any', events: [newEvent()] }], { expectedPosition: 2 });
      await expect(a.events.append('s', 1, [newEvent()])).rejects.toMatchObject({ _tag: 'WrongExpectedVersion', actual: 2 });
      await a.events.append('s', 2, [newEvent()]);
      for (let i = 0; i < 100 && seen.length < 4; i++) await new Promise((r) => setTimeout(r, 10));
      expect(seen).toEqual([1, 2, 3, 4]);
      unsubscribe();
      await a.close();
      await b.close();
    });
  });

  it('keeps the WAL bounded under sustained writes (drains restart it)', async () => {
    await inTempDir(async (temp) => {
      const held: number[] = [];
      const store = openSqliteStore({ path: temp.file(), checkpointIntervalMs: 5, walDrainBytes: 64 * 1024, synchronous: 'NORMAL', onDrained: (ms) => held.push(ms) });
      let commits = 0;
      const write = async (n: number) => {
        for (let i = 0; i < n; i++) {
          await store.events.commit([{ streamId: `s${commits % 50}`, expected: 'any', events: Array.from({ length: 10 }, () => newEvent()) }]);
          if (++commits % 10 === 0) await new Promise((r) => setTimeout(r, 1));
        }
      };
      // The checkpointer starts with the first write; wait until it drains.
      for (let i = 0; i < 300 && store.checkpointStats().drains < 2; i++) await write(10);
      expect(store.checkpointStats().drains).toBeGreaterThanOrEqual(2);
      // Each drain tells how long it held the writes (what serve's `forgefold_wal_drain_seconds` counts).
      expect(held.length).toBeGreaterThanOrEqual(2);
      const before = statSync(`${temp.file()}-wal`).size;
      await write(300);
      // ~10 pages a commit: 300 commits would add ~12 MB to a WAL that never restarts
      expect(statSync(`${temp.file()}-wal`).size - before).toBeLessThan(4 * 1024 * 1024);
      expect(store.checkpointStats().last!.log).toBeLessThan(3_000);
      expect(await store.events.headPosition()).toBe(commits * 10);
      // Idle, the WAL copied: no more drains (each held the writes for nothing, every few ticks, until a truncation).
      await new Promise((r) => setTimeout(r, 100));
      const idle = held.length;
      await new Promise((r) => setTimeout(r, 600));
      expect(held.length - idle).toBeLessThanOrEqual(2);
      await store.close();
    });
  });

  it('tells how long each commit waited for its WAL flush (flushed off the event loop)', async () => {
    await inTempDir(async (temp) => {
      const waits: number[] = [];
      const store = openSqliteStore({ path: temp.file(), flushOffLoop: true, onFlushed: (ms) => waits.push(ms) });
      for (let i = 0; i < 3; i++) await store.events.append('s', 'any', [newEvent()]);
      await store.events.commit([]);
      expect(waits).toHaveLength(3);
      expect(waits.every((ms) => ms >= 0 && ms < 60_000)).toBe(true);
      await store.close();
    });
  });

  it('checkpoints the WAL in the background worker', async () => {
    await inTempDir(async (temp) => {
      const store = openSqliteStore({ path: temp.file(), checkpointIntervalMs: 20 });
      for (let i = 0; i < 50; i++) await store.events.append('s', 'any', [newEvent()]);
      for (let i = 0; i < 200 && store.checkpointStats().checkpoints === 0; i++) await new Promise((r) => setTimeout(r, 10));
      const stats = store.checkpointStats();
      expect(stats.checkpoints).toBeGreaterThan(0);
      expect(stats.last!.log).toBeGreaterThanOrEqual(0);
      await store.close();
      const reopened = openSqliteStore({ path: temp.file() });
      expect(await reopened.events.headPosition()).toBe(50);
      await reopened.close();
    });
  });
});


describe('SqliteStore: the snapshot file', () => {
  it('keeps snapshots in a file of their own, with the event database\'s mode, each naming the event it ends at', async () => {
    await inTempDir(async (temp) => {
      const path = temp.file('forgefold.db');
      closeSync(openSync(path, 'a', 0o600));
      const store = openSqliteStore({ path });
      const event = newEvent();
      await store.events.append('a', 'any', [event]);
      await store.snapshots.save({ position: 1, projectionVersion: 'v1', state: { n: 1 }, takenAt: 't' });
      await store.close();
      expect(snapshotsPathOf(path)).toBe(temp.file('forgefold-snapshots.db'));
      expect(statSync(snapshotsPathOf(path)).mode & 0o777).toBe(0o600);
      expect(tableNames(path)).not.toContain('snapshots');
      const db = new RawDatabase(snapshotsPathOf(path), { readonly: true });
      expect(db.prepare('SELECT last_event_id FROM shared_snapshots WHERE pieces >= 0').pluck().all()).toEqual([event.eventId]);
      db.close();
    });
  });

  it('commits while another connection holds the snapshot file\'s write lock, and writes a snapshot while one holds the event database\'s', async () => {
    await inTempDir(async (temp) => {
      const path = temp.file();
      // A short busy timeout: a commit that shared the lock would fail with SQLITE_BUSY instead of waiting.
      const store = openSqliteStore({ path, busyTimeoutMs: 100 });
      await store.events.append('a', 'any', [newEvent()]);
      const snapshotHolder = new RawDatabase(snapshotsPathOf(path));
      snapshotHolder.exec('BEGIN IMMEDIATE');
      await store.events.append('a', 'any', [newEvent()]);
      snapshotHolder.exec('ROLLBACK');
      snapshotHolder.close();
      const eventsHolder = new RawDatabase(path);
      eventsHolder.exec('BEGIN IMMEDIATE');
      await store.snapshots.save({ position: 2, projectionVersion: 'v1', state: { n: 2 }, takenAt: 't' });
      eventsHolder.exec('ROLLBACK');
      eventsHolder.close();
      expect((await store.snapshots.load('v1'))!.state).toEqual({ n: 2 });
      await store.close();
    });
  });

  it('does not load a snapshot of another log (the event database replaced or removed beside its snapshot file)', async () => {
    await inTempDir(async (temp) => {
      const path = temp.file();
      const first = openSqliteStore({ path });
      await first.events.append('a', 'any', [newEvent()]);
      await first.snapshots.save({ position: 1, projectionVersion: 'v1', state: { of: 'first' }, takenAt: 't' });
      await first.close();
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
      const empty = openSqliteStore({ path });
      expect(await empty.snapshots.load('v1')).toBeNull();
      await empty.events.append('b', 'any', [newEvent()]);
      expect(await empty.snapshots.load('v1')).toBeNull();
      // Its own snapshots load as before.
      await empty.snapshots.save({ position: 1, projectionVersion: 'v1', state: { of: 'second' }, takenAt: 't' });
      expect((await empty.snapshots.load('v1'))!.state).toEqual({ of: 'second' });
      await empty.close();
    });
  });

  it('opens read-only beside a snapshot file a writer has created but not yet given its tables', async () => {
    await inTempDir(async (temp) => {
      const path = temp.file();
      const writer = openSqliteStore({ path });
      await writer.events.append('a', 'any', [newEvent()]);
      await writer.close();
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${snapshotsPathOf(path)}${suffix}`, { force: true });
      closeSync(openSync(snapshotsPathOf(path), 'a', 0o600));
      const reader = openSqliteStore({ path, readonly: true });
      expect(await reader.snapshots.load('v1')).toBeNull();
      expect(await reader.events.headPosition()).toBe(1);
      await reader.close();
    });
  });

  it('moves the newest snapshot out of an event database written before version 4 (read-only opens read it where it is)', async () => {
    await inTempDir(async (temp) => {
      const path = temp.file();
      const legacy = new RawDatabase(path);
      legacy.exec('PRAGMA journal_mode = WAL');
      legacy.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
      for (const migration of migrations.filter((m) => m.version <= 3)) {
        legacy.exec(migration.sql);
        legacy.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(migration.version, migration.name, 't');
      }
      const insert = legacy.prepare('INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)');
      for (const position of [1, 2]) insert.run(position, `legacy-${position}`, 'a', position, 'Something', 1, '{}', 't', '{}');
      const snapshot = legacy.prepare('INSERT INTO snapshots (projection_version, position, state, taken_at, pieces) VALUES (?, ?, ?, ?, 0)');
      snapshot.run('v1', 1, Buffer.concat([...encodeState({ at: 1 })]), 't');
      snapshot.run('v1', 2, Buffer.concat([...encodeState({ at: 2 })]), 't');
      legacy.close();

      const reader = openSqliteStore({ path, readonly: true });
      expect((await reader.snapshots.load('v1'))!.state).toEqual({ at: 2 });
      await reader.close();

      const store = openSqliteStore({ path });
      expect(store.migrations().map((m) => m.version)).toEqual([1, 2, 3, 4]);
      expect(await store.events.headPosition()).toBe(2);
      const loaded = (await store.snapshots.load('v1'))!;
      expect([loaded.position, loaded.state]).toEqual([2, { at: 2 }]);
      await store.close();
      expect(tableNames(path)).not.toContain('snapshots');
      const db = new RawDatabase(snapshotsPathOf(path), { readonly: true });
      expect(db.prepare('SELECT last_event_id FROM shared_snapshots').pluck().all()).toEqual(['legacy-2']);
      db.close();
    });
  });
});

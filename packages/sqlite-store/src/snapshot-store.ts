/**
 * Snapshots of the projections: `v8.serialize`d state with the log position it reflects. Only the newest
 * few of each projection version are kept; snapshots of other projection versions are pruned as well.
 */
import v8 from 'node:v8';
import type Database from 'better-sqlite3';
import type { Snapshot, SnapshotStore } from '@forgefold/core';

const KEEP = 3;

export class SqliteSnapshotStore implements SnapshotStore {
  private readonly newest: Database.Statement<[string], { position: number; projection_version: string; state: Buffer; taken_at: string }>;
  private readonly saveTx: Database.Transaction<(snapshot: Snapshot, state: Buffer) => void> | null;

  constructor(private readonly db: Database.Database, private readonly readonly = false) {
    this.newest = db.prepare<[string], { position: number; projection_version: string; state: Buffer; taken_at: string }>(
      'SELECT position, projection_version, state, taken_at FROM snapshots WHERE projection_version = ? ORDER BY position DESC, id DESC LIMIT 1',
    );
    if (readonly) {
      this.saveTx = null;
      return;
    }
    const insert = db.prepare<[string, number, Buffer, string]>('INSERT INTO snapshots (projection_version, position, state, taken_at) VALUES (?, ?, ?, ?)');
    const pruneSame = db.prepare<[string, string]>(
      `DELETE FROM snapshots WHERE projection_version = ? AND id NOT IN
         (SELECT id FROM snapshots WHERE projection_version = ? ORDER BY position DESC, id DESC LIMIT ${KEEP})`,
    );
    const pruneOthers = db.prepare<[string]>(
      `DELETE FROM snapshots WHERE projection_version <> ? AND id NOT IN (SELECT id FROM snapshots ORDER BY id DESC LIMIT ${KEEP})`,
    );
    this.saveTx = db.transaction((snapshot: Snapshot, state: Buffer) => {
      insert.run(snapshot.projectionVersion, snapshot.position, state, snapshot.takenAt);
      pruneSame.run(snapshot.projectionVersion, snapshot.projectionVersion);
      pruneOthers.run(snapshot.projectionVersion);
    });
  }

  async save(snapshot: Snapshot): Promise<void> {
    if (!this.db.open) throw new Error('The snapshot store is closed');
    // Serialize before the transaction: the write lock is held only for the insert.
    const state = v8.serialize(snapshot.state);
    if (!this.saveTx) throw new Error('The store was opened read-only');
    this.saveTx.immediate(snapshot, state);
  }

  /** How many snapshots the file holds (all projection versions). */
  count(): number {
    return this.db.prepare<[], number>('SELECT count(*) FROM snapshots').pluck().get() ?? 0;
  }

  async load(projectionVersion: string): Promise<Snapshot | null> {
    if (!this.db.open) throw new Error('The snapshot store is closed');
    const row = this.newest.get(projectionVersion);
    if (!row) return null;
    return { position: row.position, projectionVersion: row.projection_version, state: v8.deserialize(row.state), takenAt: row.taken_at };
  }
}

/**
 * Snapshots of the projections, as in the SQLite store: the core's snapshot format (`encodeState`, serialised a piece
 * at a time with the event loop free between pieces) with the log position it reflects; the newest few of each
 * projection version are kept. Every node saves its own; a node starts from the newest.
 */
import type { Sql } from 'postgres';
import { decodeState, encodeState, type Snapshot, type SnapshotStore } from '@forgefold/core';
import { translate } from './errors.js';

const KEEP = 3;

export class PostgresSnapshotStore implements SnapshotStore {
  constructor(private readonly sql: Sql, private readonly readonly: boolean, private readonly isClosed: () => boolean) {}

  async save(snapshot: Snapshot): Promise<void> {
    if (this.isClosed()) throw new Error('The snapshot store is closed');
    if (this.readonly) throw new Error('The store was opened read-only');
    const pieces: Buffer[] = [];
    for (const piece of encodeState(snapshot.state)) {
      pieces.push(piece);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    const state = Buffer.concat(pieces);
    try {
      await this.sql.begin(async (tx) => {
        await tx`INSERT INTO snapshots (projection_version, position, state, taken_at) VALUES (${snapshot.projectionVersion}, ${snapshot.position}, ${state}, ${snapshot.takenAt})`;
        await tx`DELETE FROM snapshots WHERE projection_version = ${snapshot.projectionVersion} AND id NOT IN
                   (SELECT id FROM snapshots WHERE projection_version = ${snapshot.projectionVersion} ORDER BY position DESC, id DESC LIMIT ${KEEP})`;
        await tx`DELETE FROM snapshots WHERE projection_version <> ${snapshot.projectionVersion} AND id NOT IN
                   (SELECT id FROM snapshots ORDER BY id DESC LIMIT ${KEEP})`;
      });
    } catch (error) {
      translate(error);
    }
  }

  /** How many snapshots the schema holds (all projection versions). */
  async count(): Promise<number> {
    const [row] = await this.sql`SELECT count(*)::int AS n FROM snapshots`;
    return row!['n'] as number;
  }

  async load(projectionVersion: string): Promise<Snapshot | null> {
    if (this.isClosed()) throw new Error('The snapshot store is closed');
    try {
      const [row] = await this.sql`
        SELECT position, projection_version, state, taken_at FROM snapshots
         WHERE projection_version = ${projectionVersion} ORDER BY position DESC, id DESC LIMIT 1`;
      if (!row) return null;
      return {
        position: Number(row['position']),
        projectionVersion: row['projection_version'] as string,
        state: decodeState(row['state'] as Buffer, { lazy: true }),
        takenAt: row['taken_at'] as string,
      };
    } catch (error) {
      return translate(error);
    }
  }
}

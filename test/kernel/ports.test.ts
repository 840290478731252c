/**
 * The ports for the repositories and Geo issues: the git engine is the core's `Repositories` port as it stands,
 * and the `Replication` port is enough for a secondary to copy a primary's log unchanged and report where it is.
 */
import { describe, expect, it } from 'vitest';
import { InMemoryEventStore, type NewEvent, type RecordedEvent, type Replication, type ReplicationStatus, type Repositories, type GitRepository } from '@forgefold/core';
import { ok, signature, storage } from '../git/support.js';

describe('Repositories port', () => {
  it('the git engine implements it: create with a README, open, read, remove', async () => {
    const git = await storage();
    try {
      const port: Repositories = git.repositories;
      expect(await port.exists(7)).toBe(false);
      await ok(port.create(7, { default_branch: 'main', readme: { author: signature(), committer: signature(), content: '# Seven\n' } }));
      const repository: GitRepository = port.open(7);
      expect(await ok(repository.headBranch())).toBe('main');
      expect((await ok(repository.findBranch('main'))).name).toBe('main');
      await ok(port.remove(7));
      expect(await port.exists(7)).toBe(false);
    } finally {
      await git.dispose();
    }
  });
});

const event = (n: number): NewEvent => ({
  eventId: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  type: 'UserCreated',
  schemaVersion: 1,
  data: { n },
  recordedAt: `2026-01-01T00:00:0${n}.000Z`,
  metadata: { actorId: null, origin: 'system' },
});

/** The port over a primary in the same process (the Geo issue puts HTTP between them). */
const localReplication = (primary: InMemoryEventStore, reports: ReplicationStatus[]): Replication => ({
  readAfter: (after, limit) => primary.readAll(after, limit),
  primaryHead: () => primary.headPosition(),
  reportStatus: async (status) => {
    reports.push(status);
  },
});

/** A secondary's catch-up: batches from its cursor, appended unchanged, then its status. */
const catchUp = async (replication: Replication, secondary: InMemoryEventStore, batch: number): Promise<void> => {
  let cursor = await secondary.headPosition();
  let last: RecordedEvent | null = null;
  for (;;) {
    const events = await replication.readAfter(cursor, batch);
    if (events.length === 0) break;
    for (const recorded of events) {
      await secondary.append(recorded.streamId, recorded.streamVersion - 1 === 0 ? 'no_stream' : recorded.streamVersion - 1, [recorded]);
      last = recorded;
    }
    cursor = events[events.length - 1]!.globalPosition;
  }
  const head = await replication.primaryHead();
  await replication.reportStatus({ cursorPosition: cursor, cursorRecordedAt: last?.recordedAt ?? null, healthy: cursor === head, health: cursor === head ? 'Healthy' : 'Behind' });
};

describe('Replication port', () => {
  it('a secondary reads from its position, copies ids and positions, and reports where it stands', async () => {
    const primary = new InMemoryEventStore();
    const secondary = new InMemoryEventStore();
    const reports: ReplicationStatus[] = [];
    const replication = localReplication(primary, reports);
    await primary.append('user-1', 'no_stream', [event(1), event(2)]);
    await primary.append('user-2', 'no_stream', [event(3)]);
    await catchUp(replication, secondary, 2);
    await primary.append('user-1', 2, [event(4)]);
    await catchUp(replication, secondary, 2);
    const copied = await secondary.readAll(0, 100);
    const original = await primary.readAll(0, 100);
    expect(copied.map((e) => [e.eventId, e.globalPosition, e.streamId, e.streamVersion])).toEqual(original.map((e) => [e.eventId, e.globalPosition, e.streamId, e.streamVersion]));
    expect(reports).toEqual([
      { cursorPosition: 3, cursorRecordedAt: '2026-01-01T00:00:03.000Z', healthy: true, health: 'Healthy' },
      { cursorPosition: 4, cursorRecordedAt: '2026-01-01T00:00:04.000Z', healthy: true, health: 'Healthy' },
    ]);
  });
});

import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '@forgefold/core';
// The store's class and schema, as `openSqliteStore` puts them together, with a flush the test settles itself.
import { SqliteEventStore } from '../../packages/sqlite-store/src/event-store.js';
import { migrate } from '../../packages/sqlite-store/src/schema.js';
import { newEvent } from './contract.js';

/** The driver the store uses (the tests' package does not depend on it). */
const Database = createRequire(import.meta.url)(createRequire(import.meta.url).resolve('better-sqlite3')) as new (file: string) => ConstructorParameters<typeof SqliteEventStore>[0];

/** A flush the test settles: each call is one flush, settled in the order asked (as WalSync's are). */
const manualFlushes = () => {
  const pending: (() => void)[] = [];
  return {
    makeDurable: () => new Promise<void>((resolve) => pending.push(resolve)),
    settleNext: () => pending.shift()!(),
    get waiting() {
      return pending.length;
    },
  };
};

const open = () => {
  const db = new Database(':memory:');
  migrate(db);
  const flushes = manualFlushes();
  // Closed as `openSqliteStore` closes it: detached first, so that no poll of its subscriptions reads a closed database.
  const store: SqliteEventStore = new SqliteEventStore(
    db,
    async () => {
      store.detach();
      db.close();
    },
    { makeDurable: flushes.makeDurable },
  );
  return { store, flushes };
};

/** Lets the commits' continuations run (a settled flush resolves its commit a few microtasks later). */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

// makeDurable's contract: "A commit resolves, and subscribers hear of it, only once this has settled." With two
// commits in flight, the first one's publication read the log up to its head, the second's rows included, before
// the second's flush (issue 16's review of the writer thread; the same on the store's own connection).
describe('SQLite store: subscribers hear only of durable events', () => {
  it('does not deliver a later commit written during an earlier one’s flush before its own flush', async () => {
    const { store, flushes } = open();
    const heard: number[] = [];
    store.subscribe(0, (recorded: RecordedEvent) => heard.push(recorded.globalPosition));
    const first = store.commit([{ streamId: 's-1', expected: 'any', events: [newEvent()] }]);
    const second = store.commit([{ streamId: 's-2', expected: 'any', events: [newEvent(), newEvent()] }]);
    await turn();
    expect(flushes.waiting).toBe(2);
    expect(heard).toEqual([]);
    flushes.settleNext();
    await first;
    await turn();
    expect(heard).toEqual([1]);
    flushes.settleNext();
    await second;
    expect(heard).toEqual([1, 2, 3]);
    await store.close();
  });

  it('gives a subscriber that arrives during a flush the flushed events once they are durable', async () => {
    const { store, flushes } = open();
    await Promise.all([store.commit([{ streamId: 's-1', expected: 'any', events: [newEvent()] }]), (async () => {
      await turn();
      flushes.settleNext();
    })()]);
    const written = store.commit([{ streamId: 's-2', expected: 'any', events: [newEvent()] }]);
    await turn();
    const heard: number[] = [];
    store.subscribe(0, (recorded: RecordedEvent) => heard.push(recorded.globalPosition));
    // What was durable before the commit in flight is delivered at once; the rest once flushed.
    expect(heard).toEqual([1]);
    flushes.settleNext();
    await written;
    expect(heard).toEqual([1, 2]);
    await store.close();
  });
});

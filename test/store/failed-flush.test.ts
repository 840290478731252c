import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '@forgefold/core';
// The store's class and schema, as `openSqliteStore` puts them together, with a flush the test fails or settles.
import { SqliteEventStore } from '../../packages/sqlite-store/src/event-store.js';
import { migrate } from '../../packages/sqlite-store/src/schema.js';
import { actor, startBank, type BankCommand } from '../kernel/toy.js';
import { newEvent } from './contract.js';

const Database = createRequire(import.meta.url)(createRequire(import.meta.url).resolve('better-sqlite3')) as new (file: string) => ConstructorParameters<typeof SqliteEventStore>[0];

const openAccount = (accountId: string): BankCommand => ({ kind: 'open', accountId, owner: `owner-${accountId}`, initial: 0 });

const EIO = Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
const STOPPED = 'The event log stopped writing after a failed flush: EIO: i/o error, fdatasync';

const open = () => {
  const db = new Database(':memory:');
  migrate(db);
  const flushes: { readonly resolve: () => void; readonly reject: (error: Error) => void }[] = [];
  const stopped: Error[] = [];
  const store = new SqliteEventStore(db, async () => void db.close(), {
    makeDurable: () => new Promise<void>((resolve, reject) => flushes.push({ resolve, reject })),
    onStopped: (failure) => stopped.push(failure),
  });
  return { store, flushes, stopped };
};

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

// A failed fdatasync may leave the kernel's pages of the WAL marked clean and unwritten ("fsyncgate"): the writes it
// covered may be lost, and a WAL recovered after a crash ends at its first missing frame, so a later write's own
// successful flush does not make that one durable either. The store stops writing, as PostgreSQL does.
describe('SQLite store: a failed flush stops the writing', () => {
  it('fails the write behind a failed flush though its own flush succeeded, refuses every later one, and publishes none', async () => {
    const { store, flushes, stopped } = open();
    const heard: number[] = [];
    const unsubscribe = store.subscribe(0, (recorded: RecordedEvent) => heard.push(recorded.globalPosition));
    const durable = store.commit([{ streamId: 's-0', expected: 'any', events: [newEvent()] }]);
    await turn();
    flushes.shift()!.resolve();
    await durable;
    const first = store.commit([{ streamId: 's-1', expected: 'any', events: [newEvent()] }]);
    const second = store.commit([{ streamId: 's-2', expected: 'any', events: [newEvent()] }]);
    await turn();
    expect([flushes.length, store.stoppedBy]).toEqual([2, null]);
    flushes[1]!.resolve();
    flushes[0]!.reject(EIO);
    await expect(first).rejects.toBe(EIO);
    await expect(second).rejects.toThrow(STOPPED);
    await expect(store.commit([{ streamId: 's-3', expected: 'any', events: [newEvent()] }])).rejects.toThrow(STOPPED);
    expect(flushes.length).toBe(2);
    expect(heard).toEqual([1]);
    // What the server's readiness reads (503 until restarted); the owner was told once (it stops the checkpointer).
    expect([store.stoppedBy, stopped]).toEqual([EIO, [EIO]]);
    // Reads stop at the last durable write: the failed batches are in the file, not surely on the disk.
    expect(await store.headPosition()).toBe(1);
    expect((await store.readAll(0, 100)).map((event) => event.globalPosition)).toEqual([1]);
    expect((await store.readStream('s-2')).length).toBe(0);
    const late: number[] = [];
    const unsubscribeLate = store.subscribe(0, (recorded: RecordedEvent) => late.push(recorded.globalPosition));
    expect(late).toEqual([1]);
    unsubscribeLate();
    unsubscribe();
    await store.close();
  });

  it('an application over it answers the failed batch with the error, and every later command with the stop', async () => {
    const { store, flushes } = open();
    const app = await startBank(store);
    const failed = app.execute(actor, openAccount('a'));
    await turn();
    flushes[0]!.reject(EIO);
    await expect(failed).rejects.toBe(EIO);
    await expect(app.execute(actor, openAccount('b'))).rejects.toThrow(STOPPED);
    expect([app.position, flushes.length, app.query((state) => Object.keys(state.accounts))]).toEqual([0, 1, []]);
    await store.close();
  });
});

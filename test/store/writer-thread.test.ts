/**
 * The SQLite store's writer thread (file stores write in a worker; in-memory stores on the event loop, through the
 * same transaction body): errors cross the thread boundary with their classes, messages and SQLite codes; close
 * waits for the write in flight; a thread that dies rejects the writes waiting for it, and every later one.
 */
import { describe, expect, it } from 'vitest';
import { StaleWriter, WrongExpectedVersion, type NewEvent, type StreamWrite } from '@forgefold/core';
import { openSqliteStore, WriterThread } from '@forgefold/sqlite-store';
import { newEvent } from './contract.js';
import { inTempDir } from './helpers.js';

/** What a rejection was: its class, message and SQLite code (null when it resolved). */
const rejection = async (promise: Promise<unknown>) => {
  try {
    await promise;
    return null;
  } catch (error) {
    return { class: (error as Error).constructor.name, message: (error as Error).message, code: (error as { code?: unknown }).code, isStale: error instanceof StaleWriter, isWrongVersion: error instanceof WrongExpectedVersion };
  }
};

describe('the SQLite writer thread', () => {
  it('rejects with the same errors as the in-memory path (class, message, SQLite code)', async () => {
    await inTempDir(async (temp) => {
      const file = openSqliteStore({ path: temp.file() });
      const memory = openSqliteStore({ path: ':memory:' });
      try {
        const first = newEvent();
        const cases: ((store: typeof file) => Promise<unknown>)[] = [
          (store) => store.events.commit([{ streamId: 's', expected: 'no_stream', events: [newEvent()] }], { expectedPosition: 5 }),
          (store) => store.events.append('s', 3, [newEvent()]),
          (store) => store.events.append('t', 'stream_exists', [newEvent()]),
          // A partial overlap of event ids: the slow path's conflict.
          (store) => store.events.append('s', 'any', [first, newEvent()]),
          // NOT NULL: a constraint other than the event id's, SQLite's own error.
          (store) => store.events.append('u', 'any', [newEvent({ type: null as unknown as string })]),
        ];
        for (const store of [file, memory]) await store.events.append('s', 'no_stream', [first]);
        for (const run of cases) {
          const [fromThread, fromLoop] = [await rejection(run(file)), await rejection(run(memory))];
          expect(fromThread).not.toBeNull();
          expect(fromThread).toEqual(fromLoop);
        }
        expect((await rejection(cases[0]!(file)))?.isStale).toBe(true);
        expect((await rejection(cases[1]!(file)))?.isWrongVersion).toBe(true);
        expect((await rejection(cases[4]!(file)))?.code).toBe('SQLITE_CONSTRAINT_NOTNULL');
        // Nothing of the rejected commits was written; an idempotent repeat is answered as before.
        expect(await file.events.headPosition()).toBe(1);
        expect(await file.events.append('s', 'no_stream', [first])).toEqual({ streamId: 's', nextExpectedVersion: 1, lastPosition: 1, duplicate: true });
      } finally {
        await file.close();
        await memory.close();
      }
    });
  });

  it('close waits for the writes in flight, which are then in the log', async () => {
    await inTempDir(async (temp) => {
      const path = temp.file();
      const store = openSqliteStore({ path });
      const writes: StreamWrite[] = Array.from({ length: 20 }, (_, i) => ({ streamId: `s${i}`, expected: 'no_stream', events: [newEvent(), newEvent()] }));
      const committing = writes.map((write) => store.events.commit([write]));
      const closing = store.close();
      const results = await Promise.all(committing);
      await closing;
      expect(results.map(([result]) => result!.lastPosition)).toEqual(writes.map((_, i) => 2 * (i + 1)));
      // A commit after close is refused, not left waiting.
      await expect(store.events.append('late', 'any', [newEvent()])).rejects.toThrow('closed');
      const reopened = openSqliteStore({ path, readonly: true });
      try {
        expect(await reopened.events.headPosition()).toBe(40);
      } finally {
        await reopened.close();
      }
    });
  });

  it('a thread that dies rejects the writes waiting for it and every later one', async () => {
    await inTempDir(async (temp) => {
      // The thread cannot open a file that is not there: it throws while starting, and exits.
      const thread = new WriterThread({ path: temp.file('missing.db'), synchronous: 'FULL', busyTimeoutMs: 0, cacheSizeMiB: 2 });
      const waiting = [thread.write([], undefined, false), thread.write([], undefined, false)];
      for (const write of waiting) await expect(write).rejects.toThrow(/^The event writer thread exited \(code 1\)/);
      await expect(thread.write([], undefined, false)).rejects.toThrow(/^The event writer thread exited/);
      await thread.close();
    });
  });

  it('a subscriber does not hear of a write in flight before it is durable, and hears it once after', async () => {
    await inTempDir(async (temp) => {
      const store = openSqliteStore({ path: temp.file() });
      try {
        await store.events.append('before', 'no_stream', [newEvent()]);
        const event = newEvent();
        const committing = store.events.append('s', 'no_stream', [event]);
        const heard: number[] = [];
        // Subscribed while the write is in flight (posted to the writer thread; perhaps committed, not yet answered).
        const unsubscribe = store.events.subscribe(0, (recorded) => heard.push(recorded.globalPosition));
        expect(heard).toEqual([1]);
        await committing;
        expect(heard).toEqual([1, 2]);
        unsubscribe();
      } finally {
        await store.close();
      }
    });
  });

  it('stages commits: each resolves once written (in order, before its flush), then durable; a refusal rejects the staged commit', async () => {
    await inTempDir(async (temp) => {
      const store = openSqliteStore({ path: temp.file() });
      try {
        const heard: number[] = [];
        const unsubscribe = store.events.subscribe(0, (event) => heard.push(event.globalPosition));
        const first = store.events.stageCommit([{ streamId: 'a', expected: 'no_stream', events: [newEvent(), newEvent()] }], { expectedPosition: 0 })!;
        const second = store.events.stageCommit([{ streamId: 'b', expected: 'no_stream', events: [newEvent()] }], { expectedPosition: 2 })!;
        const stale = store.events.stageCommit([{ streamId: 'c', expected: 'no_stream', events: [newEvent()] }], { expectedPosition: 2 })!;
        const [one, two] = [await first, await second];
        expect([one.results, two.results]).toEqual([
          [{ streamId: 'a', nextExpectedVersion: 2, lastPosition: 2, duplicate: false }],
          [{ streamId: 'b', nextExpectedVersion: 1, lastPosition: 3, duplicate: false }],
        ]);
        await expect(stale).rejects.toBeInstanceOf(StaleWriter);
        await one.durable;
        await two.durable;
        // Subscribers hear of each batch once it is durable, in order.
        expect(heard).toEqual([1, 2, 3]);
        unsubscribe();
        expect(await store.events.headPosition()).toBe(3);
      } finally {
        await store.close();
      }
    });
  });

  it('in-memory stores write on the event loop: a subscriber hears each append once', async () => {
    const store = openSqliteStore({ path: ':memory:' });
    try {
      const heard: string[] = [];
      const unsubscribe = store.events.subscribe(0, (event) => heard.push(event.eventId));
      const events: NewEvent[] = [newEvent(), newEvent()];
      await store.events.append('s', 'no_stream', events);
      unsubscribe();
      expect(heard).toEqual(events.map((event) => event.eventId));
    } finally {
      await store.close();
    }
  });
});

import { describe, expect, it } from 'vitest';
import { openPostgresStore, type PostgresStore } from '@forgefold/postgres-store';
import { StoreUnavailable, type EventStore } from '@forgefold/core';
import { eventStoreContract, newEvent } from './contract.js';
import { dropTestSchema, freshSchema, hasPostgres, TEST_DATABASE_URL } from '../support/postgres.js';

const open = (schema: string, options: { readonly?: boolean; pollIntervalMs?: number } = {}) =>
  openPostgresStore({ url: TEST_DATABASE_URL, schema, maxConnections: 4, ...options });

if (hasPostgres) {
  eventStoreContract(
    'postgres',
    async () => {
      const schema = freshSchema();
      let current: PostgresStore = await open(schema);
      const others: PostgresStore[] = [];
      return {
        store: current.events,
        reopen: async (): Promise<EventStore> => {
          await current.close();
          current = await open(schema);
          return current.events;
        },
        another: async () => {
          const other = await open(schema);
          others.push(other);
          return other.events;
        },
        cleanup: async () => {
          await current.close();
          for (const other of others) await other.close();
          await dropTestSchema(schema);
        },
      };
    },
    { modelRuns: 25 },
  );
}

describe.skipIf(!hasPostgres)('PostgresStore', () => {
  const withSchema = async (body: (schema: string) => Promise<void>) => {
    const schema = freshSchema();
    try {
      await body(schema);
    } finally {
      await dropTestSchema(schema);
    }
  };

  it('applies migrations once, also when several nodes open a new schema together', () =>
    withSchema(async (schema) => {
      const stores = await Promise.all([open(schema), open(schema), open(schema)]);
      const applied = await stores[0]!.migrations();
      expect(applied.map((m) => m.version)).toEqual([1]);
      await stores[0]!.events.append('a', 'any', [newEvent()]);
      for (const store of stores) await store.close();
      const again = await open(schema);
      expect(await again.migrations()).toEqual(applied);
      expect(await again.events.headPosition()).toBe(1);
      await again.close();
    }));

  it('opens read-only: reads work, writes are refused, a missing schema is an error', () =>
    withSchema(async (schema) => {
      await expect(open(schema, { readonly: true })).rejects.toThrow(/no Forgefold tables/);
      const writer = await open(schema);
      await writer.events.append('a', 'any', [newEvent(), newEvent()]);
      const reader = await open(schema, { readonly: true });
      expect(await reader.events.headPosition()).toBe(2);
      await expect(reader.events.append('a', 'any', [newEvent()])).rejects.toThrow(/read-only/);
      await reader.close();
      await writer.close();
    }));

  it('keeps event data verbatim, NUL escapes and lone surrogates included', () =>
    withSchema(async (schema) => {
      const store = await open(schema);
      const data = { text: 'nul \u0000 lone \ud800 pair 😀 quote " backslash \\', nested: [null, 1.5, { e: 'é' }] };
      await store.events.append('s', 'any', [newEvent({ data })]);
      const [read] = await store.events.readAll(0, 1);
      expect(read!.data).toEqual(data);
      await store.close();
    }));

  it('round-trips snapshots, ignores other projection versions and keeps only the newest few', () =>
    withSchema(async (schema) => {
      const store = await open(schema);
      expect(await store.snapshots.load('v1')).toBeNull();
      const state = { users: new Map([[1, { name: 'ann', tags: new Set(['a']) }]]), at: new Date(0), list: [1, 2, 3], nested: { deep: { n: 1n } } };
      await store.snapshots.save({ position: 10, projectionVersion: 'v1', state, takenAt: '2026-01-01T00:00:00.000Z' });
      await store.snapshots.save({ position: 12, projectionVersion: 'v2', state: { other: true }, takenAt: '2026-01-01T00:00:01.000Z' });
      expect(await store.snapshots.load('v1')).toEqual({ position: 10, projectionVersion: 'v1', state, takenAt: '2026-01-01T00:00:00.000Z' });
      expect((await store.snapshots.load('v2'))!.state).toEqual({ other: true });
      expect(await store.snapshots.load('v3')).toBeNull();
      for (let position = 11; position <= 20; position++) {
        await store.snapshots.save({ position, projectionVersion: 'v1', state: { position }, takenAt: '2026-01-01T00:00:02.000Z' });
      }
      expect(await store.snapshots.count()).toBeLessThanOrEqual(3);
      await store.close();
      const reopened = await open(schema);
      expect((await reopened.snapshots.load('v1'))!.state).toEqual({ position: 20 });
      await reopened.close();
    }));

  it('a second node sees appends through notifications, and its stale commit is rejected', () =>
    withSchema(async (schema) => {
      const a = await open(schema);
      // A poll far slower than the test: what arrives, arrives by LISTEN/NOTIFY.
      const b = await open(schema, { pollIntervalMs: 60_000 });
      const seen: number[] = [];
      const heads: number[] = [];
      const unsubscribe = b.events.subscribe(0, (e) => seen.push(e.globalPosition));
      const unwatch = b.events.watchHead((head) => heads.push(head));
      await new Promise((r) => setTimeout(r, 100)); // LISTEN established
      await a.events.append('s', 'any', [newEvent(), newEvent()]);
      await expect(b.events.commit([{ streamId: 't', expected: 'any', events: [newEvent()] }], { expectedPosition: 0 })).rejects.toMatchObject({
        _tag: 'StaleWriter',
        actualPosition: 2,
      });
      await b.events.commit([{ streamId: 't', expected: 'any', events: [newEvent()] }], { expectedPosition: 2 });
      await expect(a.events.append('s', 1, [newEvent()])).rejects.toMatchObject({ _tag: 'WrongExpectedVersion', actual: 2 });
      await a.events.append('s', 2, [newEvent()]);
      // The subscription and the head watcher are told apart: wait for both (the watcher came a turn later once in CI).
      for (let i = 0; i < 200 && (seen.length < 4 || !heads.includes(4)); i++) await new Promise((r) => setTimeout(r, 10));
      expect(seen).toEqual([1, 2, 3, 4]);
      expect(heads).toContain(4);
      unsubscribe();
      unwatch();
      await a.close();
      await b.close();
    }));

  it('positions are gap-free in commit order under concurrent writers on separate connections', () =>
    withSchema(async (schema) => {
      const nodes = await Promise.all([open(schema), open(schema), open(schema)]);
      const follower = await open(schema, { pollIntervalMs: 50 });
      const seen: number[] = [];
      follower.events.subscribe(0, (e) => seen.push(e.globalPosition));
      await Promise.all(
        nodes.flatMap((node, n) => Array.from({ length: 40 }, (_, i) => node.events.append(`s-${n}-${i % 5}`, 'any', [newEvent(), newEvent()]))),
      );
      for (let i = 0; i < 300 && seen.length < 240; i++) await new Promise((r) => setTimeout(r, 10));
      expect(seen).toEqual(Array.from({ length: 240 }, (_, i) => i + 1));
      for (const node of [...nodes, follower]) await node.close();
    }));

  it('a lease runs the task in one node only, and passes on when its holder closes', () =>
    withSchema(async (schema) => {
      const [a, b] = await Promise.all([open(schema), open(schema)]);
      const ran: string[] = [];
      for (let tick = 0; tick < 3; tick++) {
        const results = await Promise.all([a.events.exclusive('sweep', async () => void ran.push(`a${tick}`)), b.events.exclusive('sweep', async () => void ran.push(`b${tick}`))]);
        expect(results.filter(Boolean)).toHaveLength(1);
      }
      expect(new Set(ran.map((entry) => entry[0])).size).toBe(1);
      const holder = ran[0]![0] === 'a' ? a : b;
      const other = holder === a ? b : a;
      // Another name is another lease.
      expect(await other.events.exclusive('other-job', async () => undefined)).toBe(true);
      await holder.close();
      expect(await other.events.exclusive('sweep', async () => undefined)).toBe(true);
      await other.close();
    }));

  it('answers StoreUnavailable when the server cannot be reached', async () => {
    const url = new URL(TEST_DATABASE_URL);
    url.port = '1'; // nothing listens there
    await expect(openPostgresStore({ url: url.toString(), schema: 'nope', connectTimeoutSeconds: 2 })).rejects.toBeInstanceOf(StoreUnavailable);
  });
});

import { afterEach, describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import {
  Application,
  EventRegistry,
  InMemoryEventStore,
  InMemorySnapshotStore,
  StaleWriter,
  defineEvents,
  foldLog,
  type ApplicationOptions,
  type EventStore,
} from '@forgefold/core';
import { createRequire } from 'node:module';
import { openSqliteStore, SqliteEventStore, type SqliteStore } from '@forgefold/sqlite-store';
import { tempDir } from '../store/helpers.js';
import { hasPostgres, openTestStore } from '../support/postgres.js';
import { checkLogInvariants, newEvent } from '../store/contract.js';
import { actor, bankDecider, bankRegistry, clock, ids, plain, startBank, type BankCommand, type BankState } from './toy.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const sqlite = (): SqliteStore => {
  const temp = tempDir('forgefold-kernel-');
  const store = openSqliteStore({ path: temp.file() });
  cleanups.push(() => temp.remove(), () => store.close());
  return store;
};

/** A PostgreSQL store in a schema of its own (dropped after the test). */
const postgres = async (schema?: string) => {
  const { store, dispose } = await openTestStore(schema ? { schema } : {});
  cleanups.push(dispose);
  return store;
};

const replay = async (store: EventStore): Promise<BankState> =>
  (await foldLog({ decider: bankDecider as never, registry: bankRegistry, store }, bankDecider.initialState(), 0, true)).state;

const open = (accountId: string, initial = 0): BankCommand => ({ kind: 'open', accountId, owner: `owner-${accountId}`, initial });

describe('Application: group commit', () => {
  it('writes many concurrent commands in few transactions, each acknowledged with its own events', async () => {
    const store = new InMemoryEventStore();
    const commit = vi.spyOn(store, 'commit');
    const app = await startBank(store);
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => app.execute(actor, open(`a${i}`, 10))));
    expect(commit.mock.calls.length).toBeLessThanOrEqual(2);
    expect(results.every(E.isRight)).toBe(true);
    for (const [i, result] of results.entries()) {
      if (E.isLeft(result)) throw new Error('unexpected');
      // all or nothing: the command's two events, on its own stream, consecutive
      expect(result.right.events.map((e) => [e.type, e.streamId])).toEqual([
        ['AccountOpened', `account-a${i}`],
        ['Deposited', `account-a${i}`],
      ]);
      expect(result.right.events[1]!.globalPosition).toBe(result.right.events[0]!.globalPosition + 1);
    }
    expect(await store.headPosition()).toBe(400);
    expect(plain(await replay(store))).toEqual(plain(app.state));
  });

  it('groups on SQLite too: one transaction per batch', async () => {
    const { events: store } = sqlite();
    const commit = vi.spyOn(store, 'commit');
    const stage = vi.spyOn(store, 'stageCommit');
    const app = await startBank(store);
    await Promise.all(Array.from({ length: 300 }, (_, i) => app.execute(actor, open(`a${i}`))));
    expect(commit.mock.calls.length + stage.mock.calls.length).toBeLessThanOrEqual(2);
    expect(await store.headPosition()).toBe(300);
  });

  it.skipIf(!hasPostgres)('groups on PostgreSQL too: one transaction per batch', async () => {
    const { events: store } = await postgres();
    const commit = vi.spyOn(store, 'commit');
    const app = await startBank(store);
    await Promise.all(Array.from({ length: 300 }, (_, i) => app.execute(actor, open(`a${i}`))));
    expect(commit.mock.calls.length).toBeLessThanOrEqual(2);
    expect(await store.headPosition()).toBe(300);
  });

  it('writes the next batch while the previous one is made durable, and answers each batch in order, once durable', async () => {
    const temp = tempDir('forgefold-kernel-');
    const path = temp.file();
    await openSqliteStore({ path }).close();
    // The store over a connection of its own, with a flush the test completes by hand (the driver the store uses:
    // the tests' package does not depend on it).
    type Driver = new (file: string) => ConstructorParameters<typeof SqliteEventStore>[0];
    const Database = createRequire(import.meta.url)(createRequire(import.meta.url).resolve('better-sqlite3')) as Driver;
    const db = new Database(path);
    const flushes: (() => void)[] = [];
    const store = new SqliteEventStore(db, async () => void db.close(), { makeDurable: () => new Promise<void>((resolve) => flushes.push(resolve)) });
    cleanups.push(() => temp.remove(), () => store.close());
    const stage = vi.spyOn(store, 'stageCommit');
    const app = await startBank(store, { maxBatch: 10 });
    const answered: number[] = [];
    const results = Array.from({ length: 30 }, (_, i) => app.execute(actor, open(`a${i}`)).then((result) => (answered.push(i), result)));
    // The second batch is decided and written while the first one's flush runs; a third waits for the first.
    await vi.waitFor(() => expect(stage.mock.calls.length).toBe(2));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(stage.mock.calls.length).toBe(2);
    expect(await store.headPosition()).toBe(20);
    expect([answered, app.position, Object.keys(app.state.accounts).length]).toEqual([[], 0, 0]);
    // The second batch is durable first: still nothing answered, since its commands may depend on the first's.
    flushes[1]!();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect([answered, app.position]).toEqual([[], 0]);
    flushes[0]!();
    await vi.waitFor(() => expect(answered.length).toBe(20));
    expect(answered).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(app.position).toBe(20);
    await vi.waitFor(() => expect(flushes.length).toBe(3));
    flushes[2]!();
    expect((await Promise.all(results)).every(E.isRight)).toBe(true);
    expect(plain(await replay(store))).toEqual(plain(app.state));
  });

  it('stops writing after a failed flush: the batch written behind it fails too, though its own flush succeeded, and so does every later write', async () => {
    const temp = tempDir('forgefold-kernel-');
    const path = temp.file();
    await openSqliteStore({ path }).close();
    type Driver = new (file: string) => ConstructorParameters<typeof SqliteEventStore>[0];
    const Database = createRequire(import.meta.url)(createRequire(import.meta.url).resolve('better-sqlite3')) as Driver;
    const db = new Database(path);
    const flushes: { resolve: () => void; reject: (error: Error) => void }[] = [];
    const store = new SqliteEventStore(db, async () => void db.close(), { makeDurable: () => new Promise<void>((resolve, reject) => flushes.push({ resolve, reject })) });
    cleanups.push(() => temp.remove(), () => store.close());
    const app = await startBank(store, { maxBatch: 10 });
    const heard: number[] = [];
    // Unsubscribed before the connection closes (its poll would read a closed connection).
    cleanups.push(store.subscribe(0, (event) => heard.push(event.globalPosition)));
    const results = Array.from({ length: 20 }, (_, i) => app.execute(actor, open(`a${i}`)));
    await vi.waitFor(() => expect(flushes.length).toBe(2));
    // The second batch (decided on the first's effects) is flushed first; then the first batch's flush fails.
    flushes[1]!.resolve();
    flushes[0]!.reject(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));
    const settled = await Promise.allSettled(results);
    expect(settled.map((result) => result.status)).toEqual(Array.from({ length: 20 }, () => 'rejected'));
    expect((settled[0] as PromiseRejectedResult).reason).toMatchObject({ message: 'EIO: i/o error, fdatasync' });
    expect((settled[10] as PromiseRejectedResult).reason).toMatchObject({ message: 'The event log stopped writing after a failed flush: EIO: i/o error, fdatasync' });
    // Nothing more is written; nothing of it was published, to the application or to subscribers.
    await expect(app.execute(actor, open('later'))).rejects.toThrow(/^The event log stopped writing after a failed flush/);
    expect(await store.headPosition()).toBe(20);
    expect([app.position, heard]).toEqual([0, []]);
  });

  it('decides in order: a command sees the effects of the one before it in the same batch', async () => {
    const store = new InMemoryEventStore();
    const commit = vi.spyOn(store, 'commit');
    const app = await startBank(store);
    const [opened, deposited, withdrawn, overdrawn, duplicate] = await Promise.all([
      app.execute(actor, open('x')),
      app.execute(actor, { kind: 'deposit', accountId: 'x', amount: 5 }),
      app.execute(actor, { kind: 'withdraw', accountId: 'x', amount: 3 }),
      app.execute(actor, { kind: 'withdraw', accountId: 'x', amount: 3 }),
      app.execute(actor, open('x')),
    ]);
    expect(commit).toHaveBeenCalledTimes(1);
    expect([opened, deposited, withdrawn].every(E.isRight)).toBe(true);
    expect(overdrawn).toEqual(E.left({ _tag: 'Conflict', message: 'Insufficient funds' }));
    expect(E.isLeft(duplicate!)).toBe(true);
    expect(app.state.accounts.x!.balance).toBe(2);
    // rejected commands wrote nothing
    expect((await store.readAll(0, 100)).map((e) => e.type)).toEqual(['AccountOpened', 'Deposited', 'Withdrawn']);
  });

  it("event data read from the batch's draft is a copy: later commands of the batch do not change it", async () => {
    // Lists: `add` creates a list, `tag` appends to it in place, `seen` records the list's tags as they were.
    const events = defineEvents({
      Added: { codec: t.type({ id: t.string }), version: 1, stream: (d: { id: string }) => `list-${d.id}` },
      Tagged: { codec: t.type({ id: t.string, tag: t.string }), version: 1, stream: (d: { id: string }) => `list-${d.id}` },
      Seen: { codec: t.type({ id: t.string, tags: t.array(t.string) }), version: 1, stream: (d: { id: string }) => `list-${d.id}` },
    });
    type Command = { readonly kind: 'add' | 'seen'; readonly id: string } | { readonly kind: 'tag'; readonly id: string; readonly tag: string };
    type Lists = { lists: Record<string, { tags: string[] }> };
    const decider = {
      initialState: (): Lists => ({ lists: {} }),
      decide: ({ command }: { command: Command }, state: Lists) => {
        if (command.kind === 'add') return E.right([{ type: 'Added', data: { id: command.id } }]);
        if (command.kind === 'tag') return E.right([{ type: 'Tagged', data: { id: command.id, tag: command.tag } }]);
        return E.right([{ type: 'Seen', data: { id: command.id, tags: state.lists[command.id]!.tags } }]);
      },
      evolve: (state: Lists, event: { type: string; data: { id: string; tag?: string } }) => {
        if (event.type === 'Added') state.lists[event.data.id] = { tags: [] };
        if (event.type === 'Tagged') state.lists[event.data.id]!.tags.push(event.data.tag!);
      },
    };
    const store = new InMemoryEventStore();
    const app = await Application.start<Command, Lists>({ decider: decider as never, registry: new EventRegistry(events), store, clock, ids, projectionVersion: 'lists-1', freeze: false });
    await app.execute(actor, { kind: 'add', id: 'old' });
    const seen = await Promise.all([
      // A list created in this batch (a plain object in the draft, mutated in place by the next tag)…
      app.execute(actor, { kind: 'add', id: 'new' }),
      app.execute(actor, { kind: 'seen', id: 'new' }),
      app.execute(actor, { kind: 'tag', id: 'new', tag: 'a' }),
      // …and a committed one changed earlier in the batch (read through a draft that is revoked after the batch).
      app.execute(actor, { kind: 'tag', id: 'old', tag: 'x' }),
      app.execute(actor, { kind: 'seen', id: 'old' }),
      app.execute(actor, { kind: 'tag', id: 'old', tag: 'y' }),
    ]);
    const data = (result: (typeof seen)[number]) => (E.isRight(result) ? result.right.events[0]!.data : null);
    expect(data(seen[1]!)).toEqual({ id: 'new', tags: [] });
    expect(data(seen[4]!)).toEqual({ id: 'old', tags: ['x'] });
    const stored = (await store.readAll(0, 100)).filter((event) => event.type === 'Seen').map((event) => event.data);
    expect(stored).toEqual([{ id: 'new', tags: [] }, { id: 'old', tags: ['x'] }]);
    expect(app.state.lists).toEqual({ old: { tags: ['x', 'y'] }, new: { tags: ['a'] } });
  });

  it('a command touching two streams is written whole', async () => {
    const store = new InMemoryEventStore();
    const app = await startBank(store);
    await Promise.all([app.execute(actor, open('a', 10)), app.execute(actor, open('b'))]);
    const result = await app.execute(actor, { kind: 'transfer', from: 'a', to: 'b', amount: 4 });
    if (E.isLeft(result)) throw new Error('transfer failed');
    expect(result.right.events.map((e) => [e.type, e.streamId])).toEqual([
      ['Withdrawn', 'account-a'],
      ['Deposited', 'account-b'],
    ]);
    expect(result.right.state.accounts.b!.balance).toBe(4);
  });

  it('a failing commit rejects every command of its batch and leaves the state unchanged', async () => {
    const store = new InMemoryEventStore();
    const app = await startBank(store);
    await app.execute(actor, open('x', 100));
    const before = app.state;
    const position = app.position;
    const original = store.commit.bind(store);
    const commit = vi.spyOn(store, 'commit').mockImplementationOnce(async () => {
      throw new Error('disk full');
    });
    const batch = await Promise.allSettled(Array.from({ length: 10 }, () => app.execute(actor, { kind: 'deposit', accountId: 'x', amount: 1 })));
    expect(commit).toHaveBeenCalledTimes(1);
    expect(batch.every((r) => r.status === 'rejected' && (r.reason as Error).message === 'disk full')).toBe(true);
    expect(app.state).toBe(before);
    expect(app.position).toBe(position);
    expect(await store.headPosition()).toBe(2);
    commit.mockImplementation(original);
    const after = await app.execute(actor, { kind: 'deposit', accountId: 'x', amount: 1 });
    expect(E.isRight(after)).toBe(true);
    expect(app.state.accounts.x!.balance).toBe(101);
    expect(plain(await replay(store))).toEqual(plain(app.state));
  });

  it('a failing SQLite transaction (a conflicting event id) leaves log and state unchanged', async () => {
    const { events: store } = sqlite();
    const app = await startBank(store);
    await app.execute(actor, open('x', 1));
    // Plant an event id the application is about to use: the batch's transaction fails as a whole.
    const planted = newEvent({ eventId: 'clash', type: 'AccountOpened', data: { accountId: 'z', owner: 'zed' } });
    await store.append('account-z', 'any', [planted]);
    const position = await store.headPosition();
    let calls = 0;
    const spy = vi.spyOn(ids, 'eventId').mockImplementation(() => (++calls === 2 ? 'clash' : `id-${calls}-${Math.random()}`));
    try {
      const app2 = await Application.start({ ...appOptions(store), ids });
      const before = app2.state;
      const results = await Promise.allSettled([
        app2.execute(actor, { kind: 'deposit', accountId: 'x', amount: 1 }),
        app2.execute(actor, { kind: 'deposit', accountId: 'x', amount: 1 }),
      ]);
      expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
      expect(app2.state).toBe(before);
      expect(await store.headPosition()).toBe(position);
    } finally {
      spy.mockRestore();
    }
  });
});

const appOptions = (store: EventStore) => ({
  decider: bankDecider as unknown as ApplicationOptions<BankCommand, BankState>['decider'],
  registry: bankRegistry,
  store,
  clock,
  ids,
  projectionVersion: 'bank-1',
});

describe('Application: start-up', () => {
  for (const kind of ['memory', 'sqlite', 'postgres'] as const) {
    it.skipIf(kind === 'postgres' && !hasPostgres)(`start from a snapshot plus the tail equals a full replay (${kind})`, async () => {
      const { store, snapshots } =
        kind === 'memory'
          ? { store: new InMemoryEventStore(), snapshots: new InMemorySnapshotStore() }
          : kind === 'postgres'
            ? await postgres().then((s) => ({ store: s.events, snapshots: s.snapshots }))
            : (() => {
                const s = sqlite();
                return { store: s.events, snapshots: s.snapshots };
              })();
      const app = await startBank(store, { snapshots });
      for (let i = 0; i < 20; i++) await app.execute(actor, open(`a${i}`, i));
      await app.snapshot();
      await Promise.all(Array.from({ length: 30 }, (_, i) => app.execute(actor, { kind: 'transfer', from: `a${19 - (i % 10)}`, to: `a${i % 7}`, amount: 1 })));
      const snapshot = await snapshots.load('bank-1');
      expect(snapshot!.position).toBe(39);
      const fromSnapshot = await startBank(store, { snapshots });
      const fromScratch = await startBank(store);
      expect(fromSnapshot.position).toBe(app.position);
      expect(plain(fromSnapshot.state)).toEqual(plain(fromScratch.state));
      expect(plain(fromSnapshot.state)).toEqual(plain(app.state));
      // another projection version ignores the snapshot and refolds
      const other = await startBank(store, { snapshots, projectionVersion: 'bank-2' });
      expect(plain(other.state)).toEqual(plain(app.state));
      // the restored state keeps working
      const next = await fromSnapshot.execute(actor, { kind: 'deposit', accountId: 'a0', amount: 1 });
      expect(E.isRight(next)).toBe(true);
    });
  }

  it('takes snapshots automatically every N events, once the application is quiet', async () => {
    const { events: store, snapshots } = sqlite();
    const app = await startBank(store, { snapshots, snapshotEvery: 10 });
    for (let i = 0; i < 12; i++) await app.execute(actor, open(`a${i}`));
    await app.whenIdle();
    // Serialising the state blocks the event loop, so it waits until commands stop for a moment.
    expect(await snapshots.load('bank-1')).toBeNull();
    // Then it is written by the snapshot worker (which starts with the first snapshot).
    for (let waited = 0; waited < 10_000 && (await snapshots.load('bank-1')) === null; waited += 100) await new Promise((r) => setTimeout(r, 100));
    expect((await snapshots.load('bank-1'))!.position).toBeGreaterThanOrEqual(10);
    expect(plain((await startBank(store, { snapshots })).state)).toEqual(plain(app.state));
  });

  it('takes a snapshot asked for while commands keep arriving (a steady load never leaves the queue empty)', async () => {
    const store = new InMemoryEventStore();
    const snapshots = new InMemorySnapshotStore();
    const app = await startBank(store, { snapshots });
    await app.execute(actor, open('a'));
    let running = true;
    // Each client sends its next command as soon as the previous one is answered.
    const clients = Array.from({ length: 4 }, async () => {
      while (running) await app.execute(actor, { kind: 'deposit', accountId: 'a', amount: 1 });
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const asked = app.position;
    await app.snapshot();
    running = false;
    await Promise.all(clients);
    const snapshot = await snapshots.load('bank-1');
    expect(snapshot!.position).toBeGreaterThanOrEqual(asked);
    expect(plain((await startBank(store, { snapshots })).state)).toEqual(plain(app.state));
  }, 5_000);

  it('fails to start on an undecodable event, naming stream, position, type and field', async () => {
    const { events: store } = sqlite();
    const app = await startBank(store);
    await app.execute(actor, open('x', 1));
    await store.append('account-x', 'any', [newEvent({ type: 'Deposited', data: { accountId: 'x', amount: 'lots' } })]);
    const failure = startBank(store);
    await expect(failure).rejects.toThrow(/Deposited/);
    const message = await failure.catch((error: Error) => error.message);
    expect(message).toContain('account-x');
    expect(message).toContain('position 3');
    expect(message).toContain('data.amount');
  });

  it('upcasts an old schema version on replay', async () => {
    // Version 1 of Deposited carried `cents` as a string; version 2 is the current `amount` integer.
    const v2 = defineEvents({
      AccountOpened: bankRegistry.definition('AccountOpened')! as never,
      Deposited: {
        codec: t.type({ accountId: t.string, amount: t.Int }),
        version: 2,
        stream: (d: { accountId: string }) => `account-${d.accountId}`,
        upcasters: { 1: (data: unknown) => ({ accountId: (data as { accountId: string }).accountId, amount: Number((data as { cents: string }).cents) }) },
      },
      Withdrawn: bankRegistry.definition('Withdrawn')! as never,
    });
    const registry = new EventRegistry(v2);
    const store = new InMemoryEventStore();
    await store.append('account-x', 'no_stream', [
      newEvent({ type: 'AccountOpened', data: { accountId: 'x', owner: 'ann' } }),
      newEvent({ type: 'Deposited', schemaVersion: 1, data: { accountId: 'x', cents: '42' } }),
    ]);
    const app = await Application.start({ ...appOptions(store), registry });
    expect(app.state.accounts.x).toEqual({ owner: 'ann', balance: 42, operations: 1 });
    const result = await app.execute(actor, { kind: 'deposit', accountId: 'x', amount: 8 });
    if (E.isLeft(result)) throw new Error('deposit failed');
    expect(result.right.events[0]!.schemaVersion).toBe(2);
    expect(app.state.accounts.x!.balance).toBe(50);
    // a version newer than the code knows is refused
    await store.append('account-x', 'any', [newEvent({ type: 'Deposited', schemaVersion: 3, data: { accountId: 'x', amount: 1 } })]);
    await expect(Application.start({ ...appOptions(store), registry })).rejects.toThrow(/schemaVersion/);
  });
});

describe('Application: live state equals replay', () => {
  const commandArb = fc.oneof(
    fc.record({ kind: fc.constant('open' as const), accountId: fc.constantFrom('a', 'b', 'c', 'd'), owner: fc.constant('o'), initial: fc.nat(20) }),
    fc.record({ kind: fc.constant('deposit' as const), accountId: fc.constantFrom('a', 'b', 'c', 'e'), amount: fc.integer({ min: 1, max: 20 }) }),
    fc.record({ kind: fc.constant('withdraw' as const), accountId: fc.constantFrom('a', 'b', 'c'), amount: fc.integer({ min: 1, max: 20 }) }),
    fc.record({ kind: fc.constant('transfer' as const), from: fc.constantFrom('a', 'b', 'c'), to: fc.constantFrom('a', 'b', 'd'), amount: fc.integer({ min: 1, max: 20 }) }),
  );
  // Commands come in chunks issued concurrently (one group commit each, roughly).
  const scenarioArb = fc.array(fc.array(commandArb, { minLength: 1, maxLength: 8 }), { maxLength: 12 });

  const check = async (store: EventStore, chunks: BankCommand[][]) => {
    const app = await startBank(store, { maxBatch: 5 });
    for (const chunk of chunks) await Promise.all(chunk.map((command) => app.execute(actor, command)));
    expect(plain(await replay(store))).toEqual(plain(app.state));
    expect(app.position).toBe(await store.headPosition());
    await checkLogInvariants(store);
  };

  it('in memory', async () => {
    await fc.assert(fc.asyncProperty(scenarioArb, (chunks) => check(new InMemoryEventStore(), chunks)), { numRuns: 100 });
  });

  it('on SQLite', async () => {
    const temp = tempDir('forgefold-kernel-prop-');
    cleanups.push(() => temp.remove());
    let n = 0;
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (chunks) => {
        const store = openSqliteStore({ path: temp.file(`p${n++}.db`) });
        try {
          await check(store.events, chunks);
        } finally {
          await store.close();
        }
      }),
      { numRuns: 25 },
    );
  });

  it.skipIf(!hasPostgres)('on PostgreSQL', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (chunks) => {
        const { store, dispose } = await openTestStore();
        try {
          await check(store.events, chunks);
        } finally {
          await dispose();
        }
      }),
      { numRuns: 15 },
    );
  });
});

describe('Application: stale writers', () => {
  const pairs = {
    sqlite: async () => {
      const temp = tempDir('forgefold-kernel-stale-');
      const a = openSqliteStore({ path: temp.file() });
      const b = openSqliteStore({ path: temp.file() });
      cleanups.push(() => temp.remove(), () => a.close(), () => b.close());
      return [a, b] as const;
    },
    postgres: async () => {
      const a = await postgres();
      const b = await postgres(a.schema);
      return [a, b] as const;
    },
  };
  for (const [kind, pair] of Object.entries(pairs)) it.skipIf(kind === 'postgres' && !hasPostgres)(`two Applications on one ${kind} log alternate commands and end with equal state`, async () => {
    const [a, b] = await pair();
    const appA = await startBank(a.events);
    const appB = await startBank(b.events);
    const staleB: unknown[] = [];
    const original = b.events.commit.bind(b.events);
    b.events.commit = async (writes, options) => {
      try {
        return await original(writes, options);
      } catch (error) {
        staleB.push(error);
        throw error;
      }
    };
    // SQLite writes through stageCommit (the flush is awaited apart): its refusals are recorded alike.
    const events: EventStore = b.events;
    const stage = events.stageCommit?.bind(events);
    if (stage) {
      events.stageCommit = (writes, options) =>
        stage(writes, options)?.catch((error: unknown) => {
          staleB.push(error);
          throw error;
        }) ?? null;
    }
    expect(E.isRight(await appA.execute(actor, open('x', 50)))).toBe(true);
    expect(E.isRight(await appB.execute(actor, open('y', 50)))).toBe(true); // B is stale: catches up and retries
    for (let i = 0; i < 20; i++) {
      const [app, from, to] = i % 2 ? [appA, 'x', 'y'] : [appB, 'y', 'x'];
      const result = await app.execute(actor, { kind: 'transfer', from, to, amount: i });
      expect(E.isRight(result)).toBe(true);
    }
    // concurrently, too
    await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? appA : appB).execute(actor, { kind: 'deposit', accountId: i % 3 ? 'x' : 'y', amount: 1 })));
    await appA.catchUp();
    await appB.catchUp();
    expect(staleB.some((error) => error instanceof StaleWriter)).toBe(true);
    expect(plain(appA.state)).toEqual(plain(appB.state));
    expect(plain(appA.state)).toEqual(plain(await replay(a.events)));
    expect(appA.state.accounts.x!.balance + appA.state.accounts.y!.balance).toBe(140);
    await checkLogInvariants(a.events);
  });

  it.skipIf(!hasPostgres)('a follower folds what another node commits, in turn with its own commits, and waits for a position', async () => {
    const a = await postgres();
    const b = await postgres(a.schema);
    const appA = await startBank(a.events);
    const appB = await startBank(b.events);
    const stop = appB.follow();
    cleanups.push(stop);
    expect(E.isRight(await appA.execute(actor, open('x', 5)))).toBe(true);
    expect(await appB.waitForPosition(appA.position, 5_000)).toBe(true);
    expect(appB.state.accounts.x!.balance).toBe(5);
    // Both write while B follows: B's catch-ups never interleave with its commits.
    await Promise.all(Array.from({ length: 60 }, (_, i) => (i % 2 ? appA : appB).execute(actor, { kind: 'deposit', accountId: 'x', amount: 1 })));
    expect(await appB.waitForPosition(appA.position, 5_000)).toBe(true);
    await appA.catchUp();
    expect(plain(appB.state)).toEqual(plain(appA.state));
    expect(plain(appB.state)).toEqual(plain(await replay(a.events)));
    expect(appB.state.accounts.x!.balance).toBe(65);
    // A position nobody reaches: false after the time-out.
    expect(await appB.waitForPosition(appA.position + 100, 50)).toBe(false);
  });
});

describe('Application: folding events appended outside execute (a Geo secondary)', () => {
  /** A primary's log copied unchanged into a second store, as a secondary appends what it receives. */
  const copied = async () => {
    const primaryStore = new InMemoryEventStore();
    const primary = await startBank(primaryStore);
    for (let i = 0; i < 5; i++) expect(E.isRight(await primary.execute(actor, open(`a${i}`, i + 1)))).toBe(true);
    expect(E.isRight(await primary.execute(actor, { kind: 'transfer', from: 'a4', to: 'a0', amount: 2 }))).toBe(true);
    const log = await primaryStore.readAll(0, 1_000);
    const store = new InMemoryEventStore();
    const append = (events: typeof log) =>
      store.commit(
        events.map((event) => ({ streamId: event.streamId, expected: 'any' as const, events: [event] })),
        { expectedPosition: events[0]!.globalPosition - 1 },
      );
    return { primary, primaryStore, log, store, append };
  };

  it('folds the page in hand without reading the log back, and ends equal to a replay', async () => {
    const { primary, log, store, append } = await copied();
    const secondary = await startBank(store);
    const reads = vi.spyOn(store, 'readAll');
    for (const page of [log.slice(0, 4), log.slice(4)]) {
      await append(page);
      await secondary.foldAppended(page);
    }
    expect(reads).not.toHaveBeenCalled();
    expect(secondary.position).toBe(log.length);
    expect(plain(secondary.state)).toEqual(plain(primary.state));
    expect(plain(secondary.state)).toEqual(plain(await replay(store)));
  });

  it('skips what it folded already, and reads the log when the page does not follow its position', async () => {
    const { primary, log, store, append } = await copied();
    const secondary = await startBank(store);
    await append(log.slice(0, 3));
    await secondary.foldAppended(log.slice(0, 3));
    await secondary.foldAppended(log.slice(1, 3)); // a repeat: nothing folded twice
    expect(plain(secondary.state)).toEqual(plain(await replay(store)));
    await append(log.slice(3));
    // Handed only the tail past a gap: the events in between are read from the log.
    await secondary.foldAppended(log.slice(6));
    expect(secondary.position).toBe(log.length);
    expect(plain(secondary.state)).toEqual(plain(primary.state));
  });

  it("catch-up keeps to the application's freeze setting (immer's default deep-freezes what it adds)", async () => {
    const { log, store, append } = await copied();
    const unfrozen = await startBank(store, { freeze: false });
    await append(log);
    await unfrozen.catchUp();
    expect(Object.isFrozen(unfrozen.state.accounts.a1)).toBe(false);
    const frozen = await startBank(new InMemoryEventStore(), { freeze: true });
    const other = frozen.events;
    await other.commit(log.map((event) => ({ streamId: event.streamId, expected: 'any' as const, events: [event] })));
    await frozen.foldAppended(log);
    expect(Object.isFrozen(frozen.state.accounts.a1)).toBe(true);
  });
});

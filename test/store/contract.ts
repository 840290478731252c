/**
 * The EventStore contract: every store (in-memory reference, SQLite) must pass the same suite.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  StaleWriter,
  WrongExpectedVersion,
  type AppendResult,
  type EventStore,
  type ExpectedVersion,
  type NewEvent,
  type RecordedEvent,
  type StreamWrite,
} from '@forgefold/core';
import { actor, plain, startBank, type BankCommand } from '../kernel/toy.js';

export interface StoreFixture {
  readonly store: EventStore;
  /** Closes `store` and opens the same storage again (durable stores only). */
  readonly reopen?: () => Promise<EventStore>;
  /** A second, independent instance on the same storage (the same instance for the in-memory store). */
  readonly another?: () => Promise<EventStore>;
  readonly cleanup: () => Promise<void>;
}

let counter = 0;
export const newEvent = (overrides: Partial<NewEvent> = {}): NewEvent => ({
  eventId: `e-${process.pid}-${++counter}-${Math.random().toString(36).slice(2, 8)}`,
  type: 'Something',
  schemaVersion: 1,
  data: { n: counter, nested: { list: [1, 'two', null, true], text: 'héllo "quoted" \n' } },
  recordedAt: '2026-11-22T13:46:00.000Z',
  metadata: { actorId: 7, sudoFromId: null, requestId: 'req-1', origin: 'api' },
  ...overrides,
});
const events = (n: number) => Array.from({ length: n }, () => newEvent());

const expectRejects = async <T extends Error>(promise: Promise<unknown>, type: new (...args: never[]) => T): Promise<T> => {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(type);
    return error as T;
  }
  throw new Error(`expected a ${type.name}`);
};

/** Violations of what the log must be: gap-free positions from 1, per-stream versions from 1, unique ids. */
export const logProblems = (all: readonly RecordedEvent[], head = all.length): string[] => {
  // Plain loops: this runs on logs of tens of thousands of events.
  const problems: string[] = [];
  if (all.length !== head) problems.push(`head ${head} but ${all.length} events`);
  const ids = new Set<string>();
  const versions = new Map<string, number>();
  all.forEach((event, index) => {
    if (event.globalPosition !== index + 1) problems.push(`position ${event.globalPosition} at index ${index}`);
    if (ids.has(event.eventId)) problems.push(`event id ${event.eventId} twice`);
    ids.add(event.eventId);
    const version = (versions.get(event.streamId) ?? 0) + 1;
    if (event.streamVersion !== version) problems.push(`${event.streamId} version ${event.streamVersion}, expected ${version}`);
    versions.set(event.streamId, version);
  });
  return problems.slice(0, 10);
};

/** Reads the whole log and checks `logProblems`. */
export const checkLogInvariants = async (store: EventStore): Promise<RecordedEvent[]> => {
  const head = await store.headPosition();
  const all: RecordedEvent[] = [];
  for (let after = 0; ; ) {
    const page = await store.readAll(after, 5_000);
    if (page.length === 0) break;
    all.push(...page);
    after = page[page.length - 1]!.globalPosition;
  }
  expect(logProblems(all, head)).toEqual([]);
  return all;
};

const strip = (event: RecordedEvent) => ({ ...event });

// ---------------------------------------------------------------------------------------------------
// Model for the fast-check model-based test.

interface ModelEvent {
  readonly event: NewEvent;
  readonly streamId: string;
  readonly streamVersion: number;
  readonly globalPosition: number;
}

class Model {
  log: ModelEvent[] = [];
  /** Every batch of events appended so far, to re-append (idempotency). */
  batches: { streamId: string; events: NewEvent[]; result: AppendResult }[] = [];
  version(streamId: string): number {
    return this.log.filter((e) => e.streamId === streamId).length;
  }
  /** Same rules as the stores, written as plainly as possible. */
  commit(writes: readonly StreamWrite[]): AppendResult[] | 'conflict' {
    const next = [...this.log];
    const seen = new Set<string>();
    const results: AppendResult[] = [];
    const batches: Model['batches'] = [];
    for (const write of writes) {
      const version = next.filter((e) => e.streamId === write.streamId).length;
      const ids = write.events.map((e) => e.eventId);
      if (new Set(ids).size !== ids.length || ids.some((id) => seen.has(id))) return 'conflict';
      const originals = ids.map((id) => this.log.find((e) => e.event.eventId === id));
      if (ids.length > 0 && originals.every(Boolean)) {
        const last = originals[originals.length - 1]!;
        results.push({ streamId: last.streamId, nextExpectedVersion: last.streamVersion, lastPosition: last.globalPosition, duplicate: true });
        continue;
      }
      if (originals.some(Boolean)) return 'conflict';
      const ok =
        write.expected === 'any' ||
        (write.expected === 'no_stream' && version === 0) ||
        (write.expected === 'stream_exists' && version > 0) ||
        write.expected === version;
      if (!ok) return 'conflict';
      write.events.forEach((event, i) => {
        seen.add(event.eventId);
        next.push({ event, streamId: write.streamId, streamVersion: version + i + 1, globalPosition: next.length + 1 });
      });
      const finalVersion = version + write.events.length;
      const lastOfStream = [...next].reverse().find((e) => e.streamId === write.streamId);
      const result = { streamId: write.streamId, nextExpectedVersion: finalVersion, lastPosition: lastOfStream ? lastOfStream.globalPosition : next.length, duplicate: false };
      results.push(result);
      if (write.events.length > 0) batches.push({ streamId: write.streamId, events: [...write.events], result });
    }
    this.log = next;
    this.batches.push(...batches);
    return results;
  }
  recorded(e: ModelEvent): RecordedEvent {
    return { ...e.event, streamId: e.streamId, streamVersion: e.streamVersion, globalPosition: e.globalPosition };
  }
}

const STREAMS = ['s-a', 's-b', 's-c'];
type Expectation = 'any' | 'no_stream' | 'stream_exists' | 'exact' | 'exact-wrong';
const expectationArb = fc.constantFrom<Expectation>('any', 'no_stream', 'stream_exists', 'exact', 'exact-wrong');
const resolve = (kind: Expectation, model: Model, streamId: string): ExpectedVersion =>
  kind === 'exact' ? model.version(streamId) : kind === 'exact-wrong' ? model.version(streamId) + 1 : kind;

const sameResults = (actual: readonly AppendResult[], expected: readonly AppendResult[]) => expect(actual.map((r) => ({ ...r }))).toEqual(expected);

class AppendCommand implements fc.AsyncCommand<Model, EventStore> {
  constructor(readonly stream: number, readonly kind: Expectation, readonly count: number) {}
  check = () => true;
  async run(model: Model, store: EventStore) {
    const streamId = STREAMS[this.stream]!;
    const write = { streamId, expected: resolve(this.kind, model, streamId), events: events(this.count) };
    const expected = model.commit([write]);
    if (expected === 'conflict') {
      const error = await expectRejects(store.append(write.streamId, write.expected, write.events), WrongExpectedVersion);
      expect(error.actual).toBe(model.version(streamId));
    } else sameResults([await store.append(write.streamId, write.expected, write.events)], expected);
  }
  toString = () => `append(${STREAMS[this.stream]}, ${this.kind}, ${this.count})`;
}

class ReappendCommand implements fc.AsyncCommand<Model, EventStore> {
  constructor(readonly pick: number, readonly mode: 'same' | 'partial' | 'other-stream') {}
  check = (model: Readonly<Model>) => model.batches.length > 0;
  async run(model: Model, store: EventStore) {
    const batch = model.batches[this.pick % model.batches.length]!;
    const batchEvents = this.mode === 'partial' ? [...batch.events, newEvent()] : batch.events;
    const streamId = this.mode === 'other-stream' ? `${batch.streamId}-other` : batch.streamId;
    const expected = model.commit([{ streamId, expected: 'no_stream', events: batchEvents }]);
    if (expected === 'conflict') await expectRejects(store.append(streamId, 'no_stream', batchEvents), WrongExpectedVersion);
    else {
      expect(expected[0]!.duplicate).toBe(true);
      sameResults([await store.append(streamId, 'no_stream', batchEvents)], expected);
    }
  }
  toString = () => `reappend(${this.pick}, ${this.mode})`;
}

class CommitCommand implements fc.AsyncCommand<Model, EventStore> {
  constructor(
    readonly writes: { stream: number; kind: Expectation; count: number }[],
    readonly position: 'none' | 'head' | 'stale',
  ) {}
  check = () => true;
  async run(model: Model, store: EventStore) {
    const writes = this.writes.map((w) => {
      const streamId = STREAMS[w.stream]!;
      return { streamId, expected: resolve(w.kind, model, streamId), events: events(w.count) };
    });
    const head = model.log.length;
    const options = this.position === 'none' ? {} : { expectedPosition: this.position === 'head' ? head : head + 1 };
    if (this.position === 'stale') {
      const error = await expectRejects(store.commit(writes, options), StaleWriter);
      expect(error.actualPosition).toBe(head);
      return;
    }
    const expected = model.commit(writes);
    if (expected === 'conflict') await expectRejects(store.commit(writes, options), WrongExpectedVersion);
    else sameResults(await store.commit(writes, options), expected);
  }
  toString = () => `commit(${JSON.stringify(this.writes)}, ${this.position})`;
}

class ReadAllCommand implements fc.AsyncCommand<Model, EventStore> {
  constructor(readonly after: number, readonly limit: number) {}
  check = () => true;
  async run(model: Model, store: EventStore) {
    const expected = model.log.slice(this.after, this.after + this.limit).map((e) => model.recorded(e));
    expect((await store.readAll(this.after, this.limit)).map(strip)).toEqual(expected);
    expect(await store.headPosition()).toBe(model.log.length);
  }
  toString = () => `readAll(${this.after}, ${this.limit})`;
}

class ReadStreamCommand implements fc.AsyncCommand<Model, EventStore> {
  constructor(readonly stream: number, readonly after: number) {}
  check = () => true;
  async run(model: Model, store: EventStore) {
    const streamId = STREAMS[this.stream]!;
    const expected = model.log.filter((e) => e.streamId === streamId && e.streamVersion > this.after).map((e) => model.recorded(e));
    expect((await store.readStream(streamId, this.after)).map(strip)).toEqual(expected);
  }
  toString = () => `readStream(${STREAMS[this.stream]}, ${this.after})`;
}

const streamArb = fc.nat(STREAMS.length - 1);
const commandArbs = [
  fc.tuple(streamArb, expectationArb, fc.nat(3)).map(([s, k, n]) => new AppendCommand(s, k, n)),
  fc.tuple(fc.nat(), fc.constantFrom<'same' | 'partial' | 'other-stream'>('same', 'partial', 'other-stream')).map(([p, m]) => new ReappendCommand(p, m)),
  fc
    .tuple(
      fc.array(fc.record({ stream: streamArb, kind: expectationArb, count: fc.nat(3) }), { maxLength: 4 }),
      fc.constantFrom<'none' | 'head' | 'stale'>('none', 'head', 'head', 'stale'),
    )
    .map(([w, p]) => new CommitCommand(w, p)),
  fc.tuple(fc.nat(40), fc.integer({ min: 0, max: 10 })).map(([a, l]) => new ReadAllCommand(a, l)),
  fc.tuple(streamArb, fc.nat(6)).map(([s, a]) => new ReadStreamCommand(s, a)),
];

// ---------------------------------------------------------------------------------------------------

export const eventStoreContract = (
  name: string,
  makeStore: () => Promise<StoreFixture>,
  options: { readonly modelRuns?: number } = {},
): void => {
  const withStore = async (body: (fixture: StoreFixture) => Promise<void>) => {
    const fixture = await makeStore();
    try {
      await body(fixture);
    } finally {
      await fixture.cleanup();
    }
  };

  describe(`EventStore contract: ${name}`, () => {
    it('starts empty', () =>
      withStore(async ({ store }) => {
        expect(await store.headPosition()).toBe(0);
        expect(await store.readAll(0, 10)).toEqual([]);
        expect(await store.readStream('nope')).toEqual([]);
      }));

    it('appends to a new stream with no_stream and records every field', () =>
      withStore(async ({ store }) => {
        const batch = events(3);
        const result = await store.append('s1', 'no_stream', batch);
        expect(result).toEqual({ streamId: 's1', nextExpectedVersion: 3, lastPosition: 3, duplicate: false });
        const read = await store.readStream('s1');
        expect(read.map(strip)).toEqual(batch.map((event, i) => ({ ...event, streamId: 's1', streamVersion: i + 1, globalPosition: i + 1 })));
        expect((await store.readAll(0, 10)).map(strip)).toEqual(read.map(strip));
        expect(await store.headPosition()).toBe(3);
      }));

    it('checks each expectation kind and reports the actual version; a conflict writes nothing', () =>
      withStore(async ({ store }) => {
        await store.append('s1', 'no_stream', events(2));
        let error = await expectRejects(store.append('s1', 'no_stream', events(1)), WrongExpectedVersion);
        expect([error.streamId, error.expected, error.actual]).toEqual(['s1', 'no_stream', 2]);
        error = await expectRejects(store.append('s2', 'stream_exists', events(1)), WrongExpectedVersion);
        expect(error.actual).toBe(0);
        error = await expectRejects(store.append('s1', 1, events(1)), WrongExpectedVersion);
        expect([error.expected, error.actual]).toEqual([1, 2]);
        error = await expectRejects(store.append('s2', 0 + 1, events(1)), WrongExpectedVersion);
        expect(error.actual).toBe(0);
        expect(await store.headPosition()).toBe(2);
        expect((await store.append('s1', 2, events(1))).nextExpectedVersion).toBe(3);
        expect((await store.append('s1', 'stream_exists', events(1))).nextExpectedVersion).toBe(4);
        expect((await store.append('s1', 'any', events(1))).nextExpectedVersion).toBe(5);
        expect((await store.append('s2', 'any', events(1))).nextExpectedVersion).toBe(1);
        expect((await store.append('s3', 0, events(1))).nextExpectedVersion).toBe(1);
        await checkLogInvariants(store);
      }));

    it('is idempotent by event id: a repeat returns the original result and writes nothing', () =>
      withStore(async ({ store }) => {
        const batch = events(2);
        const first = await store.append('s1', 'no_stream', batch);
        await store.append('s2', 'no_stream', events(1));
        const again = await store.append('s1', 'no_stream', batch); // the expectation no longer holds: still a repeat
        expect(again).toEqual({ ...first, duplicate: true });
        const viaCommit = await store.commit([{ streamId: 's1', expected: 'any', events: batch }]);
        expect(viaCommit).toEqual([{ ...first, duplicate: true }]);
        expect(await store.headPosition()).toBe(3);
      }));

    it('rejects a partial overlap of event ids as a conflict and writes nothing', () =>
      withStore(async ({ store }) => {
        const batch = events(2);
        await store.append('s1', 'no_stream', batch);
        await expectRejects(store.append('s1', 'any', [batch[1]!, newEvent()]), WrongExpectedVersion);
        await expectRejects(store.append('s1', 'any', [newEvent(), batch[0]!]), WrongExpectedVersion);
        expect(await store.headPosition()).toBe(2);
      }));

    it('rejects an event id repeated within one commit', () =>
      withStore(async ({ store }) => {
        const e = newEvent();
        await expectRejects(store.append('s1', 'any', [e, e]), WrongExpectedVersion);
        await expectRejects(
          store.commit([
            { streamId: 's1', expected: 'any', events: [e] },
            { streamId: 's2', expected: 'any', events: [e] },
          ]),
          WrongExpectedVersion,
        );
        expect(await store.headPosition()).toBe(0);
      }));

    it('an empty append writes nothing but still checks its expectation', () =>
      withStore(async ({ store }) => {
        expect(await store.append('s1', 'any', [])).toEqual({ streamId: 's1', nextExpectedVersion: 0, lastPosition: 0, duplicate: false });
        await store.append('s2', 'any', events(2));
        await store.append('s1', 'any', events(1));
        expect(await store.append('s2', 2, [])).toEqual({ streamId: 's2', nextExpectedVersion: 2, lastPosition: 2, duplicate: false });
        await expectRejects(store.append('s2', 'no_stream', []), WrongExpectedVersion);
        expect(await store.commit([])).toEqual([]);
        expect(await store.headPosition()).toBe(3);
      }));

    it('commit writes several streams atomically in write order', () =>
      withStore(async ({ store }) => {
        await store.append('a', 'any', events(1));
        const results = await store.commit(
          [
            { streamId: 'a', expected: 1, events: events(2) },
            { streamId: 'b', expected: 'no_stream', events: events(1) },
            { streamId: 'a', expected: 3, events: events(1) },
          ],
          { expectedPosition: 1 },
        );
        expect(results).toEqual([
          { streamId: 'a', nextExpectedVersion: 3, lastPosition: 3, duplicate: false },
          { streamId: 'b', nextExpectedVersion: 1, lastPosition: 4, duplicate: false },
          { streamId: 'a', nextExpectedVersion: 4, lastPosition: 5, duplicate: false },
        ]);
        expect((await store.readAll(0, 10)).map((e) => [e.streamId, e.streamVersion, e.globalPosition])).toEqual([
          ['a', 1, 1],
          ['a', 2, 2],
          ['a', 3, 3],
          ['b', 1, 4],
          ['a', 4, 5],
        ]);
      }));

    it('a commit of many events across streams (more rows than one SQLite statement takes) keeps positions, versions and idempotency', () =>
      withStore(async ({ store }) => {
        await store.append('a', 'any', events(1));
        // 3 streams × 50 events, interleaved a write at a time: 150 rows, past the SQLite store's 64 rows per INSERT.
        const writes: StreamWrite[] = [];
        for (let i = 0; i < 50; i++) for (const streamId of ['a', 'b', 'c']) writes.push({ streamId, expected: 'any', events: events(1) });
        const results = await store.commit(writes, { expectedPosition: 1 });
        expect(results.at(-1)).toEqual({ streamId: 'c', nextExpectedVersion: 50, lastPosition: 151, duplicate: false });
        const log = await store.readAll(0, 1_000);
        expect(log.map((e) => e.globalPosition)).toEqual(Array.from({ length: 151 }, (_, i) => i + 1));
        expect(log.filter((e) => e.streamId === 'a').map((e) => e.streamVersion)).toEqual(Array.from({ length: 51 }, (_, i) => i + 1));
        expect(log.slice(1).map((e) => e.eventId)).toEqual(writes.map((write) => write.events[0]!.eventId));
        // The same commit again is a repeat of each write (nothing written); a write deep in a new commit (past the
        // first statement's rows) that repeats one id of an earlier write and not the other is a conflict, and the
        // commit writes none of its rows.
        expect((await store.commit(writes)).every((result) => result.duplicate)).toBe(true);
        const clashing = writes.map((write, index) => ({ ...write, events: index === 100 ? [write.events[0]!, ...events(1)] : events(1) }));
        await expectRejects(store.commit(clashing), WrongExpectedVersion);
        expect(await store.headPosition()).toBe(151);
      }));

    it('a long commit: a stream first written past its first 64 rows gets the next version, and a repeat inside is a duplicate', () =>
      withStore(async ({ store }) => {
        await store.append('d', 'any', events(2));
        const earlier: StreamWrite = { streamId: 'r', expected: 'any', events: events(2) };
        await store.commit([earlier]);
        // 66 writes of a new stream, then 'd' (first seen in this commit past the SQLite store's first statement), with
        // a repeat of the earlier write among the first ones.
        const writes: StreamWrite[] = Array.from({ length: 66 }, (_, i) => (i === 30 ? earlier : { streamId: 'x', expected: 'any', events: events(1) }));
        writes.push({ streamId: 'd', expected: 2, events: events(1) });
        const results = await store.commit(writes);
        expect(results[30]).toEqual({ streamId: 'r', nextExpectedVersion: 2, lastPosition: 4, duplicate: true });
        expect(results.at(-1)).toEqual({ streamId: 'd', nextExpectedVersion: 3, lastPosition: 4 + 65 + 1, duplicate: false });
        expect((await store.readStream('x')).map((e) => e.streamVersion)).toEqual(Array.from({ length: 65 }, (_, i) => i + 1));
        expect((await store.readStream('d')).map((e) => e.globalPosition)).toEqual([1, 2, 70]);
      }));

    it('commit is all or nothing: one failing expectation writes none of the writes', () =>
      withStore(async ({ store }) => {
        await store.append('a', 'any', events(1));
        await expectRejects(
          store.commit([
            { streamId: 'b', expected: 'no_stream', events: events(2) },
            { streamId: 'a', expected: 'no_stream', events: events(1) },
          ]),
          WrongExpectedVersion,
        );
        expect(await store.headPosition()).toBe(1);
        expect(await store.readStream('b')).toEqual([]);
      }));

    it('commit with a stale expectedPosition rejects with StaleWriter and writes nothing', () =>
      withStore(async ({ store }) => {
        await store.append('a', 'any', events(2));
        const error = await expectRejects(store.commit([{ streamId: 'b', expected: 'any', events: events(1) }], { expectedPosition: 1 }), StaleWriter);
        expect([error.expectedPosition, error.actualPosition]).toEqual([1, 2]);
        await expectRejects(store.commit([], { expectedPosition: 3 }), StaleWriter);
        expect(await store.headPosition()).toBe(2);
        const ok = await store.commit([{ streamId: 'b', expected: 'any', events: events(1) }], { expectedPosition: 2 });
        expect(ok[0]!.lastPosition).toBe(3);
      }));

    it('readAll pages by position and readStream by version', () =>
      withStore(async ({ store }) => {
        for (let i = 0; i < 10; i++) await store.append(i % 2 ? 'odd' : 'even', 'any', events(1));
        expect((await store.readAll(3, 4)).map((e) => e.globalPosition)).toEqual([4, 5, 6, 7]);
        expect((await store.readAll(8, 100)).map((e) => e.globalPosition)).toEqual([9, 10]);
        expect(await store.readAll(10, 5)).toEqual([]);
        expect(await store.readAll(0, 0)).toEqual([]);
        expect((await store.readStream('odd', 3)).map((e) => [e.streamVersion, e.globalPosition])).toEqual([
          [4, 8],
          [5, 10],
        ]);
        expect(await store.readStream('odd', 5)).toEqual([]);
      }));

    it('a subscriber that throws neither fails the committed append nor starves the other subscribers', () =>
      withStore(async ({ store }) => {
        const seen: number[] = [];
        const unsubscribeFaulty = store.subscribe(0, () => {
          throw new Error('subscriber bug (expected in this test)');
        });
        const unsubscribe = store.subscribe(0, (e) => seen.push(e.globalPosition));
        const [result] = await store.commit([{ streamId: 'a', expected: 'any', events: events(2) }]);
        expect(result!.nextExpectedVersion).toBe(2);
        expect(seen).toEqual([1, 2]);
        expect((await store.readAll(0, 10)).length).toBe(2);
        unsubscribeFaulty();
        unsubscribe();
      }));

    it('subscribe catches up, then delivers live appends in order until unsubscribed', () =>
      withStore(async ({ store }) => {
        await store.append('a', 'any', events(3));
        const seen: number[] = [];
        const fromOne: number[] = [];
        const unsubscribe = store.subscribe(0, (e) => seen.push(e.globalPosition));
        const unsubscribe2 = store.subscribe(1, (e) => fromOne.push(e.globalPosition));
        expect(seen).toEqual([1, 2, 3]);
        await store.commit([
          { streamId: 'b', expected: 'any', events: events(2) },
          { streamId: 'a', expected: 'any', events: events(1) },
        ]);
        await store.append('a', 'any', []);
        expect(seen).toEqual([1, 2, 3, 4, 5, 6]);
        unsubscribe();
        await store.append('c', 'any', events(1));
        expect(seen).toEqual([1, 2, 3, 4, 5, 6]);
        expect(fromOne).toEqual([2, 3, 4, 5, 6, 7]);
        unsubscribe2();
        const live = (await store.readAll(6, 1))[0]!;
        expect(live.streamId).toBe('c');
      }));

    it('two Applications sharing the storage interleave without lost or duplicated events', () =>
      withStore(async ({ store, another }) => {
        const second = another ? await another() : store;
        const a = await startBank(store);
        const b = await startBank(second);
        const opened = await Promise.all([a.execute(actor, { kind: 'open', accountId: 'x', owner: 'ann' }), b.execute(actor, { kind: 'open', accountId: 'y', owner: 'bob' })]);
        expect(opened.every((r) => r._tag === 'Right')).toBe(true);
        await b.catchUp();
        await a.catchUp();
        const acked: string[] = [];
        const run = async (app: typeof a, account: string, n: number) => {
          const pending: Promise<void>[] = [];
          for (let i = 0; i < n; i++) {
            const command: BankCommand = { kind: 'deposit', accountId: account, amount: 1 };
            pending.push(
              app.execute(actor, command).then((result) => {
                if (result._tag === 'Right') acked.push(...result.right.events.map((e) => e.eventId));
              }),
            );
            if (i % 7 === 3) await new Promise((r) => setImmediate(r));
          }
          await Promise.all(pending);
        };
        await Promise.all([run(a, 'x', 60), run(b, 'y', 60), run(a, 'y', 30), run(b, 'x', 30)]);
        await a.catchUp();
        await b.catchUp();
        const log = await checkLogInvariants(store);
        expect(log.length).toBe(2 + 180);
        expect(new Set(log.map((e) => e.eventId))).toEqual(new Set([...log.slice(0, 2).map((e) => e.eventId), ...acked]));
        expect(plain(a.state)).toEqual(plain(b.state));
        expect(a.state.accounts.x!.balance).toBe(90);
        expect(a.state.accounts.y!.balance).toBe(90);
        if (second !== store) await second.close();
      }));

    it(`model-based: behaves like a simple model`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.commands(commandArbs, { maxCommands: 40 }), async (commands) => {
          const fixture = await makeStore();
          try {
            await fc.asyncModelRun(() => ({ model: new Model(), real: fixture.store }), commands);
            await checkLogInvariants(fixture.store);
          } finally {
            await fixture.cleanup();
          }
        }),
        { numRuns: options.modelRuns ?? 60 },
      );
    });

    it('keeps everything across close and reopen', async () => {
      const fixture = await makeStore();
      try {
        if (!fixture.reopen) return;
        await fixture.store.append('a', 'no_stream', events(3));
        await fixture.store.commit([{ streamId: 'b', expected: 'any', events: events(2) }], { expectedPosition: 3 });
        const before = (await fixture.store.readAll(0, 100)).map(strip);
        const reopened = await fixture.reopen();
        expect((await reopened.readAll(0, 100)).map(strip)).toEqual(before);
        expect(await reopened.headPosition()).toBe(5);
        expect((await reopened.readStream('a')).length).toBe(3);
        await expectRejects(reopened.append('a', 'no_stream', events(1)), WrongExpectedVersion);
        const repeat = await reopened.append('a', 'any', before.slice(0, 3));
        expect(repeat.duplicate).toBe(true);
        expect((await reopened.append('b', 2, events(1))).lastPosition).toBe(6);
      } finally {
        await fixture.cleanup();
      }
    });
  });
};

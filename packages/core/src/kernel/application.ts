/**
 * The application service: decides commands against the current projections, appends each command's
 * events atomically, folds them into the projections and acknowledges. Commands are serialized within
 * the process and group-committed: every command that arrives while a commit is in flight is decided in
 * order (each against the state its predecessors produced) and written with the others in one
 * transaction and one flush. Each command stays all-or-nothing and is acknowledged only after the flush.
 *
 * Several processes may share one store (nodes on one database): a commit decided on a view that another process
 * has since extended is refused by the store (StaleWriter); the application then folds what it missed and decides
 * the batch again. Folding others' events (`catchUp`, or `follow` when the store tells of new appends) runs in
 * turn with the application's own commits, never in the middle of one.
 */
import * as E from 'fp-ts/lib/Either.js';
import { current, Immer, isDraft, produce } from 'immer';
import { foldedInPlace } from './fold-generation.js';
import { BatchFold } from './batch-fold.js';
import type { DomainError } from './domain-error.js';
import { eventsOf, outcomeOf, type Actor, type Decider, type Issued } from './decider.js';
import type { DomainEvent, EventMetadata, NewEvent, RecordedEvent } from './envelope.js';
import type { EventRegistry } from './events.js';
import { StaleWriter, type AppendResult, type Clock, type EventStore, type IdGenerator, type SnapshotStore, type StreamWrite } from './ports.js';

export interface ApplicationOptions<C, S> {
  readonly decider: Decider<C, DomainEvent, S>;
  readonly registry: EventRegistry;
  readonly store: EventStore;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly snapshots?: SnapshotStore;
  /** Changes whenever the projection code changes, so that older snapshots are ignored. */
  readonly projectionVersion: string;
  /**
   * Take a snapshot once this many events have been committed since the last one (0 = never automatically).
   * Serialising the state blocks the event loop, so the snapshot waits for a quiet moment: it is taken once no
   * command has been committed for `snapshotQuietMs` (default 250 ms), or regardless after ten times this many events.
   */
  readonly snapshotEvery?: number;
  readonly snapshotQuietMs?: number;
  /** Upper bound of commands written in one transaction. */
  readonly maxBatch?: number;
  /** Reports catch-up progress (events folded so far, head position). */
  readonly onProgress?: (folded: number, head: number) => void;
  /**
   * Deep-freeze what each command adds to the state (immer's auto-freeze), so that code mutating a committed
   * state outside a command throws instead of corrupting it. Default true. It is a fifth of a write's CPU in
   * the server, which turns it off; the tests run with it on.
   */
  readonly freeze?: boolean;
  /**
   * Fold the events the decider's `copyOnWrite` rules admit by copying on write instead of under immer (see
   * `BatchFold`). Default true; false folds every batch under immer (the tests compare both).
   */
  readonly copyOnWrite?: boolean;
}

export interface CommandResult<S> {
  readonly events: readonly RecordedEvent[];
  /** The committed state right after this command's batch. */
  readonly state: S;
  /** What the decision reported beside its events (see `Decision`), if anything. */
  readonly outcome?: unknown;
}

interface Pending<C, S> {
  readonly issued: Issued<C>;
  readonly resolve: (result: E.Either<DomainError, CommandResult<S>>) => void;
  readonly reject: (error: unknown) => void;
}

type CommittedListener<S> = (events: readonly RecordedEvent[], state: S) => void;

const PAGE = 5_000;

/** Applies events to a plain, mutable state: the replay path (no immer, plain mutation speed). */
export const foldMutable = <S>(decider: Pick<Decider<never, DomainEvent, S>, 'evolve'>, state: S, events: Iterable<DomainEvent>): S => {
  foldedInPlace();
  for (const event of events) decider.evolve(state, event);
  return state;
};

/**
 * Applies events to an immutable state inside one immer `produce` (the live path). `immer` carries the caller's
 * settings (the application's `freeze`); immer's default instance deep-freezes what it adds.
 */
export const foldImmutable = <S>(decider: Pick<Decider<never, DomainEvent, S>, 'evolve'>, state: S, events: readonly DomainEvent[], immer?: Immer): S =>
  events.length === 0 ? state : (immer ? immer.produce : produce)(state, (draft) => { for (const event of events) decider.evolve(draft as S, event); });

/** The domain event a recorded one carries (upcast by the registry). Throws on an undecodable event. */
const decodeRecorded = (registry: EventRegistry, recorded: RecordedEvent): DomainEvent => {
  const decoded = registry.decode(recorded);
  if (E.isLeft(decoded)) throw new Error(decoded.left.message);
  return decoded.right;
};

export class Application<C, S> {
  private committed: S;
  private committedPosition: number;
  private queue: Pending<C, S>[] = [];
  private flushing = false;
  private flushScheduled = false;
  private idle: (() => void)[] = [];
  /** Commands queued and commands answered (committed, refused or failed) so far. */
  private enqueued = 0;
  private settled = 0;
  private settleWaiters: { readonly count: number; readonly resolve: () => void }[] = [];
  private eventsSinceSnapshot = 0;
  private snapshotTimer: ReturnType<typeof setTimeout> | null = null;
  private snapshotting: Promise<void> | null = null;
  private readonly listeners = new Set<CommittedListener<S>>();
  private readonly immer: Immer;
  /** Commits and catch-ups run one at a time, in the order asked for. */
  private serial: Promise<void> = Promise.resolve();
  private catchUpQueued = false;
  private positionWaiters: { readonly min: number; readonly resolve: (reached: boolean) => void }[] = [];

  private constructor(private readonly options: ApplicationOptions<C, S>, state: S, position: number) {
    this.committed = state;
    this.committedPosition = position;
    this.immer = new Immer({ autoFreeze: options.freeze ?? true });
  }

  /** Loads the newest snapshot (if any) and folds the tail of the log. */
  static async start<C, S>(options: ApplicationOptions<C, S>): Promise<Application<C, S>> {
    const snapshot = options.snapshots ? await options.snapshots.load(options.projectionVersion) : null;
    const base = snapshot ? (snapshot.state as S) : options.decider.initialState();
    const { state, position } = await foldLog(options, base, snapshot?.position ?? 0, true);
    return new Application(options, state, position);
  }

  /** The committed projections: only acknowledged commands are visible. */
  get state(): S {
    return this.committed;
  }

  get position(): number {
    return this.committedPosition;
  }

  /** The log this application appends to (audit queries read it for past moments). */
  get events(): EventStore {
    return this.options.store;
  }

  /** Runs a query against the committed projections. */
  query<R>(read: (state: S) => R): R {
    return read(this.committed);
  }

  execute(actor: Actor, command: C): Promise<E.Either<DomainError, CommandResult<S>>> {
    return new Promise((resolve, reject) => {
      this.queue.push({ issued: { command, actor, at: this.options.clock.now() }, resolve, reject });
      this.enqueued++;
      this.scheduleFlush();
    });
  }

  /** Called after every commit with the recorded events and the new state. */
  onCommitted(listener: CommittedListener<S>): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Folds events that other processes appended since our last commit (after any commit in flight). */
  catchUp(): Promise<void> {
    return this.inTurn(() => this.catchUpNow());
  }

  private async catchUpNow(): Promise<void> {
    const { state, position } = await foldLog(this.options, this.committed, this.committedPosition, this.immer);
    this.committed = state;
    this.advanceTo(position);
  }

  /**
   * Folds events that were just appended to the store outside `execute` (a Geo secondary copies its primary's
   * log), in hand, without reading them back: what `catchUp` would fold, at the cost of the fold alone. Events
   * already folded are skipped; should they not follow the position folded so far, the log is read instead.
   */
  foldAppended(events: readonly RecordedEvent[]): Promise<void> {
    return this.inTurn(async () => {
      const fresh = events.filter((event) => event.globalPosition > this.committedPosition);
      if (fresh.length === 0) return;
      if (fresh[0]!.globalPosition !== this.committedPosition + 1 || !fresh.every((event, index) => event.globalPosition === fresh[0]!.globalPosition + index)) {
        return this.catchUpNow();
      }
      this.committed = foldImmutable(this.options.decider, this.committed, fresh.map((event) => decodeRecorded(this.options.registry, event)), this.immer);
      this.advanceTo(fresh[fresh.length - 1]!.globalPosition);
    });
  }

  /** Runs `task` after every commit and catch-up asked for before it. */
  private inTurn<T>(task: () => Promise<T>): Promise<T> {
    const run = this.serial.then(task);
    this.serial = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  private advanceTo(position: number): void {
    this.committedPosition = position;
    if (this.positionWaiters.length === 0) return;
    const waiting = this.positionWaiters;
    this.positionWaiters = [];
    for (const waiter of waiting) {
      if (waiter.min <= position) waiter.resolve(true);
      else this.positionWaiters.push(waiter);
    }
  }

  /** Asks for a catch-up unless one is already waiting for its turn (failures are left to the next one). */
  requestCatchUp(): void {
    if (this.catchUpQueued) return;
    this.catchUpQueued = true;
    void this.inTurn(async () => {
      this.catchUpQueued = false;
      await this.catchUpNow();
    }).catch(() => undefined);
  }

  /**
   * Follows the store: whenever it tells of appends beyond this application's position (another process
   * committed), folds them. A no-op for stores that cannot tell (`EventStore.watchHead`). Returns a stop function.
   */
  follow(): () => void {
    const unwatch = this.options.store.watchHead?.((head) => {
      if (head > this.committedPosition) this.requestCatchUp();
    });
    // Whatever was appended between start-up and now.
    this.requestCatchUp();
    return unwatch ?? (() => undefined);
  }

  /**
   * Resolves true once the projections reflect the log up to `min` (catching up at once), or false after
   * `timeoutMs`: what a read that must see a write made through another process waits for.
   */
  waitForPosition(min: number, timeoutMs: number): Promise<boolean> {
    if (this.committedPosition >= min) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.positionWaiters = this.positionWaiters.filter((waiter) => waiter !== entry);
        resolve(false);
      }, timeoutMs);
      // A wait (a long poll's) must not keep a stopping process alive.
      timer.unref?.();
      const entry = {
        min,
        resolve: (reached: boolean) => {
          clearTimeout(timer);
          resolve(reached);
        },
      };
      this.positionWaiters.push(entry);
      this.requestCatchUp();
    });
  }

  async snapshot(): Promise<void> {
    if (!this.options.snapshots) return;
    // One at a time: a snapshot asked for while one is written is the one being written.
    if (this.snapshotting) return this.snapshotting;
    const take = async () => {
      // After the commands queued so far, not until the queue is empty: under a steady load it never is (each reply
      // brings the next request in before the flush ends), and a snapshot that waited for idleness never came.
      await this.whenSettled(this.enqueued);
      // Commands go on while the store writes it (stores serialise it piece by piece): a committed state is
      // immutable, so this reference keeps describing `position` whatever is committed meanwhile.
      const taken = this.eventsSinceSnapshot;
      await this.options.snapshots!.save({
        position: this.committedPosition,
        projectionVersion: this.options.projectionVersion,
        state: this.committed,
        takenAt: this.options.clock.now(),
      });
      this.eventsSinceSnapshot = Math.max(0, this.eventsSinceSnapshot - taken);
      if (this.snapshotTimer) clearTimeout(this.snapshotTimer);
      this.snapshotTimer = null;
    };
    this.snapshotting = take().then(
      () => {
        this.snapshotting = null;
        // Commits made while it was written asked for a snapshot and were given this one: theirs comes next. Only
        // after a success: a failing store (or a closed one) must not be asked again and again.
        this.scheduleSnapshot();
      },
      (error: unknown) => {
        this.snapshotting = null;
        throw error;
      },
    );
    return this.snapshotting;
  }

  private scheduleSnapshot(): void {
    const every = this.options.snapshotEvery ?? 0;
    if (every <= 0 || this.eventsSinceSnapshot < every) return;
    if (this.snapshotTimer) clearTimeout(this.snapshotTimer);
    this.snapshotTimer = null;
    const take = () => {
      this.snapshotTimer = null;
      void this.snapshot().catch(() => undefined);
    };
    if (this.eventsSinceSnapshot >= every * 10) return take();
    this.snapshotTimer = setTimeout(take, this.options.snapshotQuietMs ?? 250);
    // A pending snapshot must not keep a process alive that has nothing else to do.
    this.snapshotTimer.unref?.();
  }

  /** Resolves once the first `count` commands ever queued have been answered. */
  private whenSettled(count: number): Promise<void> {
    if (this.settled >= count) return Promise.resolve();
    return new Promise((resolve) => this.settleWaiters.push({ count, resolve }));
  }

  /** Resolves once every queued command has been committed or rejected. */
  whenIdle(): Promise<void> {
    if (!this.flushing && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  private scheduleFlush(): void {
    if (this.flushing || this.flushScheduled || this.queue.length === 0) return;
    this.flushScheduled = true;
    // setImmediate runs after pending I/O callbacks, so requests that arrived meanwhile join the batch.
    setImmediate(() => {
      this.flushScheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    const batch = this.queue.splice(0, this.options.maxBatch ?? 1_000);
    try {
      await this.inTurn(() => this.commitBatch(batch));
    } catch (error) {
      for (const pending of batch) pending.reject(error);
    } finally {
      this.settled += batch.length;
      if (this.settleWaiters.length > 0) {
        const waiting = this.settleWaiters;
        this.settleWaiters = waiting.filter((waiter) => waiter.count > this.settled);
        for (const waiter of waiting) if (waiter.count <= this.settled) waiter.resolve();
      }
      this.flushing = false;
      if (this.queue.length > 0) this.scheduleFlush();
      else for (const resolve of this.idle.splice(0)) resolve();
    }
  }

  private async commitBatch(batch: Pending<C, S>[]): Promise<void> {
    const { decider, registry, store, ids } = this.options;
    for (let attempt = 0; ; attempt++) {
      const basePosition = this.committedPosition;
      const pending: { readonly streamId: string; readonly event: NewEvent }[] = [];
      const outcomes: E.Either<DomainError, { readonly first: number; readonly count: number; readonly outcome: unknown }>[] = [];
      // One fold for the whole batch (see BatchFold): each command sees the effects of the commands before it, and
      // the changed paths are copied (and frozen) once per batch. Until something is folded, a command reads the
      // committed state itself.
      const fold = new BatchFold(this.committed, decider, this.immer, this.options.copyOnWrite ?? true, this.options.freeze ?? true);
      for (const { issued } of batch) {
        const folded = fold.folded;
        const decision = decider.decide(issued, fold.state);
        if (E.isLeft(decision)) {
          outcomes.push(decision);
          continue;
        }
        // Event data read from the batch's state is detached: a draft's proxies are revoked when its run ends, and a
        // later command's evolve may write in place what an earlier one created in this batch.
        const decided = eventsOf(decision.right);
        const events: readonly DomainEvent[] = folded ? decided.map((event) => ({ type: event.type, data: detach(event.data) })) : decided;
        for (const event of events) fold.fold(event);
        outcomes.push(E.right({ first: pending.length, count: events.length, outcome: outcomeOf(decision.right) }));
        // One metadata object for the command's events (the same values): a store may encode it once for them all.
        const metadata: EventMetadata = {
          actorId: issued.actor.userId,
          sudoFromId: issued.actor.sudoFromId ?? null,
          requestId: issued.actor.requestId ?? null,
          origin: issued.actor.origin,
        };
        for (const event of events) {
          pending.push({
            streamId: registry.streamOf(event),
            event: {
              eventId: ids.eventId(),
              type: event.type,
              schemaVersion: registry.versionOf(event.type),
              data: event.data,
              recordedAt: issued.at,
              metadata,
            },
          });
        }
      }
      const state = fold.finish();
      const writes = groupConsecutive(pending);
      let results: readonly AppendResult[] = [];
      try {
        if (writes.length > 0) results = await store.commit(writes, { expectedPosition: basePosition });
        // Nothing to write means nothing checked our base: rejections decided on a state another writer has
        // since moved on from (e.g. "not found" for what it created) must be decided again.
        else if (attempt < 10) {
          const head = await store.headPosition();
          if (head !== basePosition) throw new StaleWriter(basePosition, head);
        }
      } catch (error) {
        if (error instanceof StaleWriter && attempt < 10) {
          await this.catchUpNow();
          continue;
        }
        throw error;
      }
      const recorded = recordedFrom(writes, results, basePosition);
      this.committed = state;
      this.advanceTo(basePosition + recorded.length);
      batch.forEach((entry, index) => {
        const outcome = outcomes[index]!;
        entry.resolve(
          E.isLeft(outcome)
            ? outcome
            : E.right({ events: recorded.slice(outcome.right.first, outcome.right.first + outcome.right.count), state, ...(outcome.right.outcome === undefined ? {} : { outcome: outcome.right.outcome }) }),
        );
      });
      if (recorded.length > 0) {
        for (const listener of this.listeners) listener(recorded, state);
        this.eventsSinceSnapshot += recorded.length;
        this.scheduleSnapshot();
      }
      return;
    }
  }
}

/**
 * A plain deep copy of event data decided on the batch's draft: drafts become their current values (before the
 * proxies are revoked), and objects are copied so that a later command's evolve, mutating in place what an
 * earlier one created in this batch, cannot change an event already decided. A structural copy, not a JSON round
 * trip: the same values as a batch's first command's events, which are not copied, at a fraction of the cost.
 */
const detach = (data: unknown): unknown => {
  if (data === null || typeof data !== 'object') return data;
  if (isDraft(data)) return detach(current(data));
  if (Array.isArray(data)) return data.map(detach);
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(data)) copy[key] = detach((data as Record<string, unknown>)[key]);
  return copy;
};

/** Consecutive events of the same stream become one write, so a command's events on a stream stay one append. */
const groupConsecutive = (pending: readonly { readonly streamId: string; readonly event: NewEvent }[]): StreamWrite[] => {
  const writes: { streamId: string; expected: 'any'; events: NewEvent[] }[] = [];
  for (const { streamId, event } of pending) {
    const last = writes[writes.length - 1];
    if (last && last.streamId === streamId) last.events.push(event);
    else writes.push({ streamId, expected: 'any', events: [event] });
  }
  return writes;
};

/** One transaction assigns consecutive positions after the base, in write order. */
const recordedFrom = (writes: readonly StreamWrite[], results: readonly AppendResult[], basePosition: number): RecordedEvent[] => {
  const recorded: RecordedEvent[] = [];
  writes.forEach((write, index) => {
    const firstVersion = results[index]!.nextExpectedVersion - write.events.length + 1;
    write.events.forEach((event, offset) => {
      // A literal in the stores' field order rather than a spread: one object shape for every recorded event.
      recorded.push({
        eventId: event.eventId,
        type: event.type,
        schemaVersion: event.schemaVersion,
        data: event.data,
        recordedAt: event.recordedAt,
        metadata: event.metadata,
        streamId: write.streamId,
        streamVersion: firstVersion + offset,
        globalPosition: basePosition + recorded.length + 1,
      });
    });
  });
  return recorded;
};

/**
 * Reads the log after `position`, decodes every event and folds it. Throws on an undecodable event. `mutable`:
 * true folds by plain mutation (replay); false through immer's default (freezing) instance; an Immer through it.
 */
export const foldLog = async <S>(
  options: { readonly decider: Pick<Decider<never, DomainEvent, S>, 'evolve'>; readonly registry: EventRegistry; readonly store: EventStore; readonly onProgress?: (folded: number, head: number) => void },
  base: S,
  position: number,
  mutable: boolean | Immer,
  until?: (event: RecordedEvent) => boolean,
): Promise<{ state: S; position: number }> => {
  const { decider, registry, store, onProgress } = options;
  const head = await store.headPosition();
  let state = base;
  let current = position;
  for (;;) {
    const page = await store.readAll(current, PAGE);
    if (page.length === 0) break;
    const domainEvents: DomainEvent[] = [];
    let stop = false;
    for (const recorded of page) {
      if (until && !until(recorded)) {
        stop = true;
        break;
      }
      domainEvents.push(decodeRecorded(registry, recorded));
      current = recorded.globalPosition;
    }
    state = mutable === true ? foldMutable(decider, state, domainEvents) : foldImmutable(decider, state, domainEvents, mutable === false ? undefined : mutable);
    onProgress?.(current, head);
    if (stop || page.length < PAGE) break;
  }
  return { state, position: current };
};

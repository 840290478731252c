/**
 * In-memory EventStore and SnapshotStore: for embedding, tests and as the executable reference of the
 * store contract. Same semantics as the SQLite store, minus durability.
 */
import type { NewEvent, RecordedEvent } from './envelope.js';
import {
  StaleWriter,
  WrongExpectedVersion,
  type AppendResult,
  type EventStore,
  type ExpectedVersion,
  type Snapshot,
  type SnapshotStore,
  type StreamWrite,
  type Unsubscribe,
} from './ports.js';

export const checkExpectedVersion = (streamId: string, expected: ExpectedVersion, actual: number): void => {
  const ok =
    expected === 'any' ||
    (expected === 'no_stream' && actual === 0) ||
    (expected === 'stream_exists' && actual > 0) ||
    (typeof expected === 'number' && expected === actual);
  if (!ok) throw new WrongExpectedVersion(streamId, expected, actual);
};

export interface InMemoryEventStoreOptions {
  /**
   * Told when a subscriber throws. The append it was told about is committed all the same (as with the
   * SQLite store); by default the failure is reported with `console.error`.
   */
  readonly onSubscriberError?: (error: unknown, event: RecordedEvent) => void;
}

export class InMemoryEventStore implements EventStore {
  private readonly log: RecordedEvent[] = [];
  private readonly streams = new Map<string, RecordedEvent[]>();
  private readonly byEventId = new Map<string, RecordedEvent>();
  private readonly subscribers = new Set<(event: RecordedEvent) => void>();

  constructor(private readonly options: InMemoryEventStoreOptions = {}) {}

  private deliver(subscriber: (event: RecordedEvent) => void, event: RecordedEvent): void {
    try {
      subscriber(event);
    } catch (error) {
      if (this.options.onSubscriberError) this.options.onSubscriberError(error, event);
      else console.error(`Event subscriber failed on position ${event.globalPosition}:`, error);
    }
  }

  async append(streamId: string, expected: ExpectedVersion, events: readonly NewEvent[]): Promise<AppendResult> {
    const [result] = this.commitSync([{ streamId, expected, events }]);
    return result!;
  }

  async commit(writes: readonly StreamWrite[], options: { readonly expectedPosition?: number } = {}): Promise<readonly AppendResult[]> {
    if (options.expectedPosition !== undefined && options.expectedPosition !== this.log.length) {
      throw new StaleWriter(options.expectedPosition, this.log.length);
    }
    return this.commitSync(writes);
  }

  private commitSync(writes: readonly StreamWrite[]): AppendResult[] {
    // Validate everything first so that a failure writes nothing (all or none).
    const versions = new Map<string, number>();
    const versionOf = (id: string) => versions.get(id) ?? this.streams.get(id)?.length ?? 0;
    const plan: { write: StreamWrite; duplicate: AppendResult | null }[] = [];
    // Ids written by this commit: repeating one (within a write or across writes) is a conflict, so that
    // the log never holds an event id twice.
    const planned = new Set<string>();
    for (const write of writes) {
      if (new Set(write.events.map((event) => event.eventId)).size !== write.events.length || write.events.some((event) => planned.has(event.eventId))) {
        throw new WrongExpectedVersion(write.streamId, write.expected, versionOf(write.streamId));
      }
      const duplicate = this.findDuplicate(write);
      if (!duplicate) {
        checkExpectedVersion(write.streamId, write.expected, versionOf(write.streamId));
        versions.set(write.streamId, versionOf(write.streamId) + write.events.length);
        for (const event of write.events) planned.add(event.eventId);
      }
      plan.push({ write, duplicate });
    }
    const appended: RecordedEvent[] = [];
    const results = plan.map(({ write, duplicate }) => {
      if (duplicate) return duplicate;
      const stream = this.streams.get(write.streamId) ?? [];
      for (const event of write.events) {
        const recorded: RecordedEvent = {
          ...event,
          streamId: write.streamId,
          streamVersion: stream.length + 1,
          globalPosition: this.log.length + 1,
        };
        stream.push(recorded);
        this.log.push(recorded);
        this.byEventId.set(recorded.eventId, recorded);
        appended.push(recorded);
      }
      if (stream.length > 0) this.streams.set(write.streamId, stream);
      return {
        streamId: write.streamId,
        nextExpectedVersion: stream.length,
        lastPosition: stream.length > 0 ? stream[stream.length - 1]!.globalPosition : this.log.length,
        duplicate: false,
      };
    });
    for (const event of appended) for (const subscriber of [...this.subscribers]) this.deliver(subscriber, event);
    return results;
  }

  /** An append whose event ids were all written before returns the original result. */
  private findDuplicate(write: StreamWrite): AppendResult | null {
    if (write.events.length === 0) return null;
    const originals = write.events.map((event) => this.byEventId.get(event.eventId));
    if (originals.some((original) => original === undefined)) {
      if (originals.some((original) => original !== undefined)) {
        throw new WrongExpectedVersion(write.streamId, write.expected, this.streams.get(write.streamId)?.length ?? 0);
      }
      return null;
    }
    const last = originals[originals.length - 1]!;
    return { streamId: last.streamId, nextExpectedVersion: last.streamVersion, lastPosition: last.globalPosition, duplicate: true };
  }

  async readAll(after: number, limit: number): Promise<readonly RecordedEvent[]> {
    return this.log.slice(Math.max(0, after), Math.max(0, after) + limit);
  }

  async readStream(streamId: string, after = 0): Promise<readonly RecordedEvent[]> {
    return (this.streams.get(streamId) ?? []).slice(after);
  }

  async headPosition(): Promise<number> {
    return this.log.length;
  }

  subscribe(after: number, handler: (event: RecordedEvent) => void): Unsubscribe {
    for (const event of this.log.slice(Math.max(0, after))) this.deliver(handler, event);
    this.subscribers.add(handler);
    return () => this.subscribers.delete(handler);
  }

  async close(): Promise<void> {
    this.subscribers.clear();
  }
}

export class InMemorySnapshotStore implements SnapshotStore {
  private latest: Snapshot | null = null;

  async save(snapshot: Snapshot): Promise<void> {
    // structuredClone: the caller's state must not alias the stored copy.
    this.latest = structuredClone(snapshot);
  }

  async load(projectionVersion: string): Promise<Snapshot | null> {
    return this.latest?.projectionVersion === projectionVersion ? structuredClone(this.latest) : null;
  }
}

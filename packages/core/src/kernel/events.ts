/**
 * Event definitions: one io-ts codec per event type is the single source of truth for its data,
 * its current schema version, the stream it belongs to, and the upcasters that migrate older versions.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import type { DomainEvent, RecordedEvent } from './envelope.js';

export interface EventDefinition<D> {
  readonly codec: t.Type<D, unknown, unknown>;
  /** Current schema version (1-based). */
  readonly version: number;
  /** The stream an event of this type is appended to. */
  readonly stream: (data: D) => string;
  /** upcasters[v] turns the data of version v into version v + 1. */
  readonly upcasters?: Readonly<Record<number, (data: unknown) => unknown>>;
}

/** An event definition with its data type erased (io-ts codecs are invariant in their type, so `t.Mixed`). */
export interface AnyEventDefinition {
  readonly codec: t.Mixed;
  readonly version: number;
  readonly stream: (data: never) => string;
  readonly upcasters?: Readonly<Record<number, (data: unknown) => unknown>>;
}

export type EventDefinitions = Readonly<Record<string, AnyEventDefinition>>;

/** The union of domain events described by a definitions object. */
export type EventsOf<Defs extends EventDefinitions> = {
  [K in keyof Defs & string]: DomainEvent<K, Defs[K] extends EventDefinition<infer D> ? D : never>;
}[keyof Defs & string];

/** Identity helper that keeps the literal keys and infers each codec's data type. */
export const defineEvents = <Defs extends Record<string, AnyEventDefinition>>(defs: Defs): Defs => defs;

export interface EventDecodeError {
  readonly _tag: 'EventDecodeError';
  readonly streamId: string;
  readonly globalPosition: number;
  readonly type: string;
  /** Field paths that failed, e.g. ["data.access_level"]. */
  readonly paths: readonly string[];
  readonly message: string;
}

const describePaths = (errors: t.Errors): string[] =>
  errors.map((error) => {
    // An intersection's members are numbered in the context ("0", "1"): they are not fields of the data.
    const path = error.context
      .filter((entry, index) => entry.key !== '' && (error.context[index - 1]?.type as { _tag?: string } | undefined)?._tag !== 'IntersectionType')
      .map((entry) => entry.key)
      .join('.');
    return path === '' ? 'data' : `data.${path}`;
  });

export class EventRegistry {
  private readonly definitions = new Map<string, EventDefinition<unknown>>();

  constructor(...groups: EventDefinitions[]) {
    for (const group of groups) {
      for (const [type, definition] of Object.entries(group)) {
        if (this.definitions.has(type)) throw new Error(`Event type ${type} is defined twice`);
        this.definitions.set(type, definition as EventDefinition<unknown>);
      }
    }
  }

  types(): string[] {
    return [...this.definitions.keys()];
  }

  definition(type: string): EventDefinition<unknown> | undefined {
    return this.definitions.get(type);
  }

  streamOf(event: DomainEvent): string {
    return this.require(event.type).stream(event.data);
  }

  versionOf(type: string): number {
    return this.require(type).version;
  }

  /**
   * Decodes a recorded event into a domain event: upcasts from its schema version to the current one,
   * then validates the data with the type's codec. Never throws.
   */
  decode(recorded: Pick<RecordedEvent, 'type' | 'data' | 'schemaVersion' | 'streamId' | 'globalPosition'>): E.Either<EventDecodeError, DomainEvent> {
    const fail = (paths: string[], message: string): E.Either<EventDecodeError, DomainEvent> =>
      E.left({
        _tag: 'EventDecodeError',
        streamId: recorded.streamId,
        globalPosition: recorded.globalPosition,
        type: recorded.type,
        paths,
        message: `Cannot decode ${recorded.type} at position ${recorded.globalPosition} of stream ${recorded.streamId}: ${message}${paths.length ? ` (${paths.join(', ')})` : ''}`,
      });
    const definition = this.definitions.get(recorded.type);
    if (!definition) return fail([], 'unknown event type');
    if (!Number.isInteger(recorded.schemaVersion) || recorded.schemaVersion < 1 || recorded.schemaVersion > definition.version) {
      return fail(['schemaVersion'], `unsupported schema version ${String(recorded.schemaVersion)}`);
    }
    let data = recorded.data;
    for (let version = recorded.schemaVersion; version < definition.version; version++) {
      const upcast = definition.upcasters?.[version];
      if (!upcast) return fail(['schemaVersion'], `no upcaster from version ${version}`);
      data = upcast(data);
    }
    const decoded = definition.codec.decode(data);
    return E.isLeft(decoded) ? fail(describePaths(decoded.left), 'invalid data') : E.right({ type: recorded.type, data: decoded.right });
  }

  private require(type: string): EventDefinition<unknown> {
    const definition = this.definitions.get(type);
    if (!definition) throw new Error(`Unknown event type ${type}`);
    return definition;
  }
}

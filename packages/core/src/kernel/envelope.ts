/**
 * The event envelope: what the log stores around each domain event.
 * Domain events are `{ type, data }`; everything about *when, where and by whom* lives here.
 */

/** Who caused a command: the API, a SCIM identity provider, or the system itself (bootstrap, expiry, sync). */
export type Origin = 'api' | 'scim' | 'system';

export interface EventMetadata {
  /** The user whose permissions the command ran with (after sudo), or null for the system. */
  readonly actorId: number | null;
  /** The real, authenticated user when the request used sudo or an impersonation token. */
  readonly sudoFromId?: number | null;
  readonly requestId?: string | null;
  readonly origin: Origin;
}

/** A domain event as deciders emit it and evolve consumes it. */
export interface DomainEvent<T extends string = string, D = unknown> {
  readonly type: T;
  readonly data: D;
}

/** An event ready to be appended: the store assigns the positions. */
export interface NewEvent {
  readonly eventId: string;
  readonly type: string;
  readonly schemaVersion: number;
  readonly data: unknown;
  /** ISO-8601 UTC timestamp taken from the Clock port when the command was decided. */
  readonly recordedAt: string;
  readonly metadata: EventMetadata;
}

/** An event as it was recorded. `data` is raw until decoded by the codec registry. */
export interface RecordedEvent extends NewEvent {
  readonly streamId: string;
  /** 1-based version of the event within its stream. */
  readonly streamVersion: number;
  /** 1-based, gap-free position in commit order across all streams. */
  readonly globalPosition: number;
}

/**
 * The decider: `decide(command, state) → Either<DomainError, Event[]>` and `evolve(draft, event)`,
 * an immer recipe that applies one event. Modules share one State (a decision about a membership needs
 * the users, groups and projects), and each module's evolve writes only the slices it owns.
 */
import type { Either } from 'fp-ts/lib/Either.js';
import type { DomainError } from './domain-error.js';
import type { DomainEvent, Origin } from './envelope.js';

/** Who issued a command, after authentication and sudo. */
export interface Actor {
  /** The user the command runs as, or null for the system (bootstrap, clock-driven expiry). */
  readonly userId: number | null;
  /** The authenticated user when it differs from `userId` (sudo, impersonation). */
  readonly sudoFromId?: number | null;
  readonly origin: Origin;
  readonly requestId?: string | null;
}

export const systemActor: Actor = { userId: null, origin: 'system' };

/** A command as the application hands it to `decide`: the caller's intent plus who and when. */
export interface Issued<C> {
  readonly command: C;
  readonly actor: Actor;
  /** ISO-8601 UTC time from the Clock port; every timestamp a decision writes comes from here. */
  readonly at: string;
}

export interface Decider<C, E extends DomainEvent, S> {
  readonly decide: (issued: Issued<C>, state: S) => Either<DomainError, readonly E[]>;
  /** Applies one event. Called on an immer draft (live) or on a plain mutable state (replay). */
  readonly evolve: (state: S, event: E) => void;
  readonly initialState: () => S;
}

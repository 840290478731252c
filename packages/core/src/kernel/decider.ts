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

/**
 * What a decision returns: its events, or its events with an outcome beside them — what the caller reports
 * that the events do not say (the per-user failures of a comma-list add), decided against the same state.
 */
export type Decision<E> = readonly E[] | { readonly events: readonly E[]; readonly outcome: unknown };

export const withOutcome = <E, O>(events: readonly E[], outcome: O): { readonly events: readonly E[]; readonly outcome: O } => ({ events, outcome });

export const eventsOf = <E>(decision: Decision<E>): readonly E[] => (isEventList(decision) ? decision : decision.events);

export const outcomeOf = (decision: Decision<unknown>): unknown => (isEventList(decision) ? undefined : decision.outcome);

const isEventList = <E>(decision: Decision<E>): decision is readonly E[] => Array.isArray(decision);

/**
 * When an event may be folded into a batch's state without immer (see `BatchFold`): every module that applies it
 * writes only through the table helpers and to its slices' own fields, never in place into a value read back from a
 * table, so copying the nodes the helpers write is all the copying needed.
 */
export interface CopyOnWriteRule<S> {
  /** The state's slices its folding writes (their objects and table roots are copied for the batch). */
  readonly slices: readonly string[];
  /** Whether this event, on this state, takes that path (the others are folded under immer). */
  readonly when: (state: S, event: DomainEvent) => boolean;
}

export interface Decider<C, E extends DomainEvent, S> {
  readonly decide: (issued: Issued<C>, state: S) => Either<DomainError, Decision<E>>;
  /**
   * Applies one event. Called on an immer draft or, for the events `copyOnWrite` admits, on a batch's copies (live),
   * or on a plain mutable state (replay).
   */
  readonly evolve: (state: S, event: E) => void;
  readonly initialState: () => S;
  /** By event type, the events a batch may fold by copying on write (see `CopyOnWriteRule`). */
  readonly copyOnWrite?: ReadonlyMap<string, CopyOnWriteRule<S>>;
}

/** The command of type `T` among a module's commands `C`, as issued: what that command's decision takes. */
export type IssuedAs<C extends { readonly type: string }, T extends C['type']> = Issued<Extract<C, { readonly type: T }>>;

/** Per command type, the decision of that command: exhaustive, so that a command without its decision does not compile. */
export type DecisionsByType<C extends { readonly type: string }, S, R> = {
  readonly [T in C['type']]: (issued: IssuedAs<C, T>, state: S) => R;
};

/**
 * A module's `decide` from its decisions by command type: the narrowing a `switch` over `command.type` cannot carry
 * into `issued` (each case needed a cast) is done once here.
 */
export const decideByType =
  <C extends { readonly type: string }, S, R>(decisions: DecisionsByType<C, S, R>) =>
  (issued: Issued<C>, state: S): R =>
    // The entry under the command's own type takes exactly that command.
    (decisions[issued.command.type as C['type']] as (issued: Issued<C>, state: S) => R)(issued, state);

/**
 * The domain the maintenance commands fold: decider, event registry, projection version and an optional
 * `summarize`. The CLI uses @forgefold/core's `forgefold`; tests and hosts may pass another domain.
 */
import { forgefold, summarize, type Decider, type DomainEvent, type EventRegistry, type State } from '@forgefold/core';
import { inventoryOf, type Inventory } from './inventory.js';

export interface Domain<S = unknown> {
  readonly decider: Decider<never, DomainEvent, S>;
  readonly registry: EventRegistry;
  readonly projectionVersion: string;
  /** A domain-specific summary of a state (counts per resource); the CLI falls back to a generic one. */
  readonly summarize?: (state: S) => unknown;
  /** What existed, by name (users, groups, projects, memberships); `today` is the state's day ("YYYY-MM-DD"). */
  readonly inventory?: (state: S, today: string | undefined) => Inventory;
}

/** The composed Forgefold domain. */
export const coreDomain: Domain<State> = {
  decider: forgefold.decider,
  registry: forgefold.registry,
  projectionVersion: forgefold.projectionVersion,
  summarize,
  inventory: inventoryOf,
};

// The commands only fold and summarize states of the domain's own type: its state type is erased here.
export const loadCoreDomain = async (): Promise<Domain> => coreDomain as unknown as Domain;

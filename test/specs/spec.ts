/**
 * Given/when/then specs of the deciders: given the events that happened, when a command is decided (as an actor,
 * at a moment), then exactly these events are emitted — the audit contract — or this error.
 */
import * as E from 'fp-ts/lib/Either.js';
import {
  eventsOf,
  foldMutable,
  forgefold,
  outcomeOf,
  type Actor,
  type DomainError,
  type DomainEvent,
  type ForgefoldCommand,
  type ForgefoldEvent,
  type State,
} from '@forgefold/core';
import { describe, expect, it } from 'vitest';

export const AT = '2026-01-01T00:00:00.000Z';

export interface Spec {
  readonly given?: readonly DomainEvent[];
  /** The acting user id; null is the system. Default: the system. */
  readonly as?: number | null;
  readonly at?: string;
  readonly when: ForgefoldCommand;
  readonly then?: readonly ForgefoldEvent[];
  readonly error?: DomainError;
  /** What the decision reports beside its events, when it does. */
  readonly outcome?: unknown;
}

export const stateOf = (events: readonly DomainEvent[]): State => foldMutable(forgefold.decider, forgefold.decider.initialState(), events);

/** The events a spec's decision emits (for the slice-ownership test: given then emitted, folded in order). */
export const decided = (spec: Spec): readonly DomainEvent[] => {
  const actor: Actor = { userId: spec.as ?? null, origin: spec.as === undefined || spec.as === null ? 'system' : 'api' };
  const decision = forgefold.decider.decide({ command: spec.when, actor, at: spec.at ?? AT }, stateOf(spec.given ?? []));
  return E.isLeft(decision) ? [] : eventsOf(decision.right);
};

export const check = (spec: Spec): void => {
  const given = spec.given ?? [];
  const actor: Actor = { userId: spec.as ?? null, origin: spec.as === undefined || spec.as === null ? 'system' : 'api' };
  const decision = forgefold.decider.decide({ command: spec.when, actor, at: spec.at ?? AT }, stateOf(given));
  if (spec.error !== undefined) {
    expect(decision).toEqual(E.left(spec.error));
    return;
  }
  if (E.isLeft(decision)) throw new Error(`${spec.when.type} failed: ${JSON.stringify(decision.left)}`);
  expect(eventsOf(decision.right)).toEqual(spec.then ?? []);
  if (spec.outcome !== undefined) expect(outcomeOf(decision.right)).toEqual(spec.outcome);
};

// ---------------------------------------------------------------------------------------------------------------
// Facts: the events of the usual starting points, with explicit ids

export const userCreated = (
  id: number,
  username: string,
  options: { namespace?: number; admin?: boolean; bot?: 'project_bot' | 'group_bot'; at?: string; can_create_group?: boolean; external?: boolean } = {},
): ForgefoldEvent => ({
  type: 'UserCreated',
  data: {
    id,
    username,
    name: username.toUpperCase(),
    email: `${username}@example.com`,
    public_email: null,
    is_admin: options.admin ?? false,
    bot: options.bot ?? null,
    password_digest: null,
    namespace_id: options.namespace ?? 100 + id,
    created_at: options.at ?? AT,
    created_by_id: null,
    ...(options.can_create_group !== undefined ? { can_create_group: options.can_create_group } : {}),
    ...(options.external !== undefined ? { external: options.external } : {}),
  },
});

export const groupCreated = (id: number, path: string, options: { parent?: number; visibility?: 'private' | 'internal' | 'public'; by?: number | null } = {}): ForgefoldEvent => ({
  type: 'GroupCreated',
  data: { id, name: path.toUpperCase(), path, parent_id: options.parent ?? null, visibility: options.visibility ?? 'private', description: '', request_access_enabled: true, created_at: AT, created_by_id: options.by ?? null },
});

export const projectCreated = (id: number, path: string, namespace: number, options: { kind?: 'group' | 'user'; visibility?: 'private' | 'internal' | 'public'; by?: number | null } = {}): ForgefoldEvent => ({
  type: 'ProjectCreated',
  data: { id, name: path, path, description: '', namespace_id: namespace, namespace_kind: options.kind ?? 'group', visibility: options.visibility ?? 'private', creator_id: options.by ?? null, created_at: AT },
});

export const memberAdded = (
  id: number,
  source: { group: number } | { project: number },
  userId: number | null,
  level: number,
  options: { email?: string; expires?: string; state?: 'active' | 'awaiting'; ldap?: boolean; by?: number | null; at?: string } = {},
): ForgefoldEvent => ({
  type: 'MemberAdded',
  data: {
    id,
    source_type: 'group' in source ? 'Namespace' : 'Project',
    source_id: 'group' in source ? source.group : source.project,
    user_id: userId,
    invite_email: options.email ?? null,
    access_level: level,
    expires_at: options.expires ?? null,
    state: options.state ?? 'active',
    ldap: options.ldap ?? false,
    created_at: options.at ?? AT,
    created_by_id: options.by ?? null,
  },
});

/** One `it` per spec, under the command's name. */
export const describeSpecs = (title: string, specs: Readonly<Record<string, Spec>>): void => {
  describe(title, () => {
    for (const [name, spec] of Object.entries(specs)) it(`${spec.when.type}: ${name}`, () => check(spec));
  });
};

/**
 * The whole projection state. Modules decide against all of it (a membership decision reads users,
 * groups and projects) and each module's evolve writes its own slices.
 */
import type { Draft } from 'immer';
import type { Either } from 'fp-ts/lib/Either.js';
import type { DomainError } from './kernel/domain-error.js';
import type { Issued } from './kernel/decider.js';
import type { ForgefoldEvent } from './events.js';
import { initialUsers, type UsersSlice } from './modules/users/projection.js';
import { initialTokens, type TokensSlice } from './modules/tokens/projection.js';
import { initialGroups, type GroupsSlice } from './modules/groups/projection.js';
import { initialProjects, type ProjectsSlice } from './modules/projects/projection.js';
import { initialMembers, type MembersSlice } from './modules/members/projection.js';
import { initialScim, type ScimSlice } from './modules/scim/projection.js';
import { initialRepositories, type RepositoriesSlice } from './modules/repositories/projection.js';

/** Id sequences, like database sequences: ids are decided from them and recorded in events. */
export interface Sequences {
  readonly user: number;
  /** Groups and personal namespaces share one sequence, as namespaces do on the platform. */
  readonly namespace: number;
  readonly project: number;
  readonly member: number;
  readonly token: number;
  readonly oauth: number;
}

export interface State {
  readonly sequences: Sequences;
  readonly users: UsersSlice;
  readonly tokens: TokensSlice;
  readonly groups: GroupsSlice;
  readonly projects: ProjectsSlice;
  readonly members: MembersSlice;
  readonly scim: ScimSlice;
  readonly repositories: RepositoriesSlice;
}

export const initialState = (): State => ({
  sequences: { user: 0, namespace: 0, project: 0, member: 0, token: 0, oauth: 0 },
  users: initialUsers(),
  tokens: initialTokens(),
  groups: initialGroups(),
  projects: initialProjects(),
  members: initialMembers(),
  scim: initialScim(),
  repositories: initialRepositories(),
});

export type MutableState = Draft<State>;

/** The shape every module's decider has: decide against the whole State, evolve one event on a draft. */
export interface ModuleDecider<C, E> {
  readonly decide: (issued: Issued<C>, state: State) => Either<DomainError, readonly ForgefoldEvent[]>;
  readonly evolve: (state: MutableState, event: E) => void;
}

/** Raises a sequence to at least `id` (evolve never trusts the order in which ids were drawn). */
export const advance = (state: MutableState, sequence: keyof Sequences, id: number): void => {
  if (id > state.sequences[sequence]) state.sequences[sequence] = id;
};

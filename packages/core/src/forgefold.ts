/**
 * The composition: the list of modules. Everything else — the decider over the whole State, the event registry,
 * the command dispatch and the projection version snapshots are keyed by — is derived from it; the package's
 * index re-exports the modules' public surfaces from here. A new module is one folder under `modules/`, its entry
 * in `moduleList` and the re-export of its `index.ts` below.
 */
import type { Issued } from './kernel/decider.js';
import { forbidden, unauthorized, type DomainError } from './kernel/domain-error.js';
import { composeModules, type AnyModule, type CommandOf, type Composition } from './kernel/module.js';
import { initialSequences } from './kernel/sequences.js';
import { tableSize } from './kernel/table.js';
import type { State } from './state.js';
import { findUser } from './modules/users/queries.js';
import { usersModule } from './modules/users/module.js';
import { tokensModule } from './modules/tokens/module.js';
import { groupsModule } from './modules/groups/module.js';
import { projectsModule } from './modules/projects/module.js';
import { membersModule } from './modules/members/module.js';
import { scimModule } from './modules/scim/module.js';
import { repositoriesModule } from './modules/repositories/module.js';
import { deploymentsModule } from './modules/deployments/module.js';
import { clustersModule } from './modules/clusters/module.js';
import { pipelinesModule } from './modules/pipelines/module.js';
import { schedulesModule } from './modules/schedules/module.js';
import { issuesModule } from './modules/issues/module.js';
import { snippetsModule } from './modules/snippets/module.js';
import { epicsModule } from './modules/epics/module.js';
import { discussionsModule } from './modules/discussions/module.js';
import { geoModule } from './modules/geo/module.js';
import { settingsModule } from './modules/settings/module.js';
import { releasesModule } from './modules/releases/module.js';

export * from './modules/users/index.js';
export * from './modules/tokens/index.js';
export * from './modules/groups/index.js';
export * from './modules/projects/index.js';
export * from './modules/members/index.js';
export * from './modules/scim/index.js';
export * from './modules/repositories/index.js';
export * from './modules/deployments/index.js';
export * from './modules/clusters/index.js';
export * from './modules/pipelines/index.js';
export * from './modules/schedules/index.js';
export * from './modules/issues/index.js';
export * from './modules/snippets/index.js';
export * from './modules/epics/index.js';
export * from './modules/discussions/index.js';
export * from './modules/geo/index.js';
export * from './modules/settings/index.js';
export * from './modules/releases/index.js';

/** Every module, in the order their slices appear in the State and their followers run. A new module is one line here. */
export const moduleList = [usersModule, tokensModule, groupsModule, projectsModule, membersModule, scimModule, repositoriesModule, deploymentsModule, clustersModule, pipelinesModule, schedulesModule, issuesModule, snippetsModule, epicsModule, discussionsModule, geoModule, settingsModule, releasesModule] as const;

export type ForgefoldCommand = CommandOf<(typeof moduleList)[number]>;

/** The modules with their types erased, as the composition runs them (each decides against the whole State). */
export const forgefoldModules: readonly AnyModule<State>[] = moduleList;

/**
 * Every command runs as an existing, unblocked user (or the system); adapters check this too, but a decision must
 * never record an act by someone who cannot act.
 */
const actorMayAct = (issued: Issued<{ readonly type: string }>, state: Pick<State, 'users'>): DomainError | null => {
  const actorId = issued.actor.userId;
  if (actorId === null) return null;
  const actor = findUser(state.users, actorId);
  if (!actor) return unauthorized;
  return actor.state !== 'active' ? forbidden(`Your account has been ${actor.state}.`) : null;
};

/**
 * Composes a module list as Forgefold runs it (the kernel's sequences, the actor guard): the product's list, or a
 * longer one (`test/core/module-addition.test.ts` adds a module without touching this file).
 */
export const composeForgefold = <C extends { readonly type: string }, S extends State>(modules: readonly AnyModule<S>[]): Composition<C, S> =>
  composeModules<C, S>('forgefold-projections-6', modules, { initial: () => ({ sequences: initialSequences() }), guard: actorMayAct });

const composition = composeForgefold<ForgefoldCommand, State>(forgefoldModules);

export const forgefoldDecider = composition.decider;

export const initialState = (): State => forgefoldDecider.initialState();

/**
 * Identifies the projection code: derived from the modules' versions, so that snapshots taken by older code are
 * ignored and the log is refolded when any module's slices or evolve change.
 */
export const PROJECTION_VERSION = composition.projectionVersion;

export const forgefold = { decider: forgefoldDecider, registry: composition.registry, projectionVersion: PROJECTION_VERSION } as const;

/** Background work the modules ask for (membership expiry), run as the system when due. */
export const forgefoldProcesses = composition.processes;

/** Counts of what exists, for `forgefold replay` and health output. */
export const summarize = (state: State): Record<string, number> => {
  const members = tableSize(state.members.byId);
  const tokens = tableSize(state.tokens.byId);
  return { users: state.users.count, groups: state.groups.count, projects: state.projects.count, members, access_tokens: tokens };
};

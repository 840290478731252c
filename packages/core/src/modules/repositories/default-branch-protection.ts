/**
 * What follows the creation of a project's default branch (`Git::BranchHooksService#branch_create_hooks` and
 * `Project#after_import` call `Projects::ProtectDefaultBranchService`): HEAD moves to it (`change_head`), and it is
 * protected at its namespace's `default_branch_protection` (the group's, else the instance's) unless a rule (exact
 * or wildcard) already covers it. Both are events of the same decision, so replay needs no setting's history.
 */
import { AccessLevel } from '../shared/access.js';
import { defaultBranchProtection } from '../settings/queries.js';
import { findGroup, groupBranchProtection } from '../groups/queries.js';
import type { Project } from '../projects/projection.js';
import type { RefUpdate } from './commands.js';
import type { RepositoryEvent } from './events.js';
import { BRANCH_PREFIX, branchRef, type RefAccessLevel, type Repository, type RepositoriesView } from './projection.js';
import { branchNames, fallbackDefaultBranch, isProtectedBranch, refValue } from './queries.js';

/** `Gitlab::Access` protection levels. */
export const BranchProtection = { NONE: 0, DEV_CAN_PUSH: 1, FULL: 2, DEV_CAN_MERGE: 3 } as const;

/** `project.namespace.default_branch_protection`: the group's own level, or the instance's. */
export const namespaceBranchProtection = (state: RepositoriesView, project: Project): number => {
  const group = project.namespace_kind === 'group' ? findGroup(state.groups, project.namespace_id) : undefined;
  return group ? groupBranchProtection(group, state.settings) : defaultBranchProtection(state.settings);
};

/** `Project#default_branch_protected?`: full protection, or Developers may merge only. */
export const defaultBranchProtected = (state: RepositoriesView, project: Project): boolean => {
  const level = namespaceBranchProtection(state, project);
  return level === BranchProtection.FULL || level === BranchProtection.DEV_CAN_MERGE;
};

/** Access level ids drawn from the module's sequence, after `drawn` already taken in this decision. */
export const drawLevels = (state: RepositoriesView, drawn: number, ...accessLevels: number[]): RefAccessLevel[] =>
  accessLevels.map((access_level, index) => ({ id: state.repositories.sequences.access_level + drawn + index + 1, access_level }));

/** The default branch once `changes` are applied (`defaultBranchOf` of the repository after them). */
const defaultBranchAfter = (repository: Repository, changes: readonly RefUpdate[]): string | null => {
  const head = changes.find((change) => change.ref === branchRef(repository.default_branch));
  if ((head ? head.new_sha : refValue(repository, branchRef(repository.default_branch))) !== null) return repository.default_branch;
  const names = new Set(branchNames(repository));
  for (const change of changes) {
    if (!change.ref.startsWith(BRANCH_PREFIX)) continue;
    const name = change.ref.slice(BRANCH_PREFIX.length);
    if (change.new_sha === null) names.delete(name);
    else names.add(name);
  }
  return fallbackDefaultBranch([...names]);
};

/** HEAD moved to, and the rule protecting, the default branch these moves create (nothing if they create none). */
export const defaultBranchCreatedEvents = (state: RepositoriesView, project: Project, repository: Repository, changes: readonly RefUpdate[], at: string): RepositoryEvent[] => {
  const created = changes.filter((change) => change.ref.startsWith(BRANCH_PREFIX) && change.old_sha === null && change.new_sha !== null);
  if (created.length === 0) return [];
  const name = defaultBranchAfter(repository, changes);
  if (name === null || !created.some((change) => change.ref === branchRef(name))) return [];
  const events: RepositoryEvent[] = [];
  // `change_head`: a HEAD that named no branch now names this one, so it stays the default whatever comes next.
  if (name !== repository.default_branch) events.push({ type: 'DefaultBranchChanged', data: { project_id: project.id, default_branch: name } });
  const protection = namespaceBranchProtection(state, project);
  if (protection === BranchProtection.NONE || isProtectedBranch(repository, name)) return events;
  const push = protection === BranchProtection.DEV_CAN_PUSH ? AccessLevel.DEVELOPER : AccessLevel.MAINTAINER;
  const merge = protection === BranchProtection.DEV_CAN_MERGE ? AccessLevel.DEVELOPER : AccessLevel.MAINTAINER;
  const [pushLevel, mergeLevel] = drawLevels(state, 0, push, merge);
  events.push({
    type: 'ProtectedBranchCreated',
    data: {
      project_id: project.id,
      id: state.repositories.sequences.protected_ref + 1,
      name,
      push_access_levels: [pushLevel!],
      merge_access_levels: [mergeLevel!],
      unprotect_access_levels: [],
      allow_force_push: false,
      code_owner_approval_required: false,
      created_at: at,
    },
  });
  return events;
};

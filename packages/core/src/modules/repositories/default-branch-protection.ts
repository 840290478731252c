/**
 * `Projects::ProtectDefaultBranchService`: when a push, an API commit or a fork creates the branch that is the
 * project's default, that branch is protected at its namespace's `default_branch_protection` (the group's, else the
 * instance's) unless a rule (exact or wildcard) already covers it. The rule is an event of the same decision, so replay needs no setting's history.
 */
import { AccessLevel } from '../shared/access.js';
import { defaultBranchProtection } from '../settings/queries.js';
import { findGroup } from '../groups/queries.js';
import type { Project } from '../projects/projection.js';
import type { RefUpdate } from './commands.js';
import type { RepositoryEvent } from './events.js';
import { BRANCH_PREFIX, branchRef, type RefAccessLevel, type Repository, type RepositoriesView } from './projection.js';
import { branchNames, isProtectedBranch, refValue } from './queries.js';

/** `Gitlab::Access` protection levels. */
export const BranchProtection = { NONE: 0, DEV_CAN_PUSH: 1, FULL: 2, DEV_CAN_MERGE: 3 } as const;

/** Access level ids drawn from the module's sequence, after `drawn` already taken in this decision. */
export const drawLevels = (state: RepositoriesView, drawn: number, ...accessLevels: number[]): RefAccessLevel[] =>
  accessLevels.map((access_level, index) => ({ id: state.repositories.sequences.access_level + drawn + index + 1, access_level }));

/** `project.namespace.default_branch_protection`: the group's own level, or the instance's. */
export const namespaceBranchProtection = (state: RepositoriesView, project: Project): number =>
  (project.namespace_kind === 'group' ? findGroup(state.groups, project.namespace_id)?.default_branch_protection : undefined) ?? defaultBranchProtection(state.settings);

/** The default branch once `changes` are applied (`defaultBranchOf` of the repository after them). */
const defaultBranchAfter = (repository: Repository, changes: readonly RefUpdate[]): string | null => {
  const head = changes.find((change) => change.ref === branchRef(repository.default_branch));
  if ((head ? head.new_sha : refValue(repository, branchRef(repository.default_branch))) !== null) return repository.default_branch;
  // HEAD dangles: Gitaly's fallback, the first branch by name.
  const names = new Set(branchNames(repository));
  for (const change of changes) {
    if (!change.ref.startsWith(BRANCH_PREFIX)) continue;
    const name = change.ref.slice(BRANCH_PREFIX.length);
    if (change.new_sha === null) names.delete(name);
    else names.add(name);
  }
  return [...names].sort()[0] ?? null;
};

/** The rule protecting the default branch these moves create, if they create it and protection is on. */
export const protectDefaultBranch = (state: RepositoriesView, project: Project, repository: Repository, changes: readonly RefUpdate[], at: string): RepositoryEvent[] => {
  const protection = namespaceBranchProtection(state, project);
  if (protection === BranchProtection.NONE) return [];
  const created = changes.filter((change) => change.ref.startsWith(BRANCH_PREFIX) && change.old_sha === null && change.new_sha !== null);
  if (created.length === 0) return [];
  const name = defaultBranchAfter(repository, changes);
  if (name === null || !created.some((change) => change.ref === branchRef(name)) || isProtectedBranch(repository, name)) return [];
  const push = protection === BranchProtection.DEV_CAN_PUSH ? AccessLevel.DEVELOPER : AccessLevel.MAINTAINER;
  const merge = protection === BranchProtection.DEV_CAN_MERGE ? AccessLevel.DEVELOPER : AccessLevel.MAINTAINER;
  const [pushLevel, mergeLevel] = drawLevels(state, 0, push, merge);
  return [
    {
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
    },
  ];
};

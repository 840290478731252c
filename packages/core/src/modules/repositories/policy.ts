/**
 * Who may do what to a repository: the platform's abilities (`download_code`, `push_code`, `admin_tag`, …),
 * `Gitlab::UserAccess` for protected refs, and the pre-receive checks (`Gitlab::Checks::BranchCheck`,
 * `TagCheck`) with their texts. The routes, the push gateway and the decider all ask here.
 */
import { AccessLevel } from '../shared/access.js';
import { canDownloadCode, canOnProject, meetsRefAccessLevel, type ProjectAbility } from '../access/abilities.js';
import { defaultBranchProtected } from './default-branch-protection.js';
import type { Project } from '../projects/projection.js';
import type { Via } from './events.js';
import { BRANCH_PREFIX, TAG_PREFIX, type RefAccessLevel, type Repository, type RepositoriesView } from './projection.js';
import { defaultBranchOf, isEmptyRepository, matchingProtectedBranches, matchingProtectedTags, refValue } from './queries.js';

type State = RepositoriesView;

/** The abilities repository routes and decisions ask about (the levels live in the access table). */
export type RepositoryAbility = Extract<ProjectAbility, 'download_code' | 'push_code' | 'admin_tag' | 'create_merge_request_in' | 'update_merge_request' | 'destroy_merge_request' | 'push_to_delete_protected_branch' | 'admin_project'> | 'read_merge_request';

/** An ability on a project; `download_code` and `read_merge_request` are open to whoever sees a non-private project. */
export const canRepository = (state: State, userId: number | null, project: Project, ability: RepositoryAbility): boolean =>
  ability === 'download_code' || ability === 'read_merge_request' ? canDownloadCode(state, userId, project) : canOnProject(state, userId, ability, project);

/** `ProtectedRefAccess#check_access` (the access table's rule). */
export const accessLevelAllows = (state: State, userId: number | null, project: Project, level: RefAccessLevel): boolean =>
  meetsRefAccessLevel(state, userId, project, level.access_level);

/**
 * `ProtectedRef.protected_ref_accessible_to?`: the levels of every rule matching the ref, any of which lets the user
 * through (13.x to 16.x copies all say `any?`), so a wildcard rule for Developers opens a branch that an exact rule
 * keeps for Maintainers.
 */
const anyAllows = (state: State, userId: number | null, project: Project, levels: readonly RefAccessLevel[]): boolean =>
  levels.some((level) => accessLevelAllows(state, userId, project, level));

/** `UserAccess#can_create_tag?`. */
export const canCreateTag = (state: State, userId: number | null, project: Project, repository: Repository, name: string): boolean => {
  const rules = matchingProtectedTags(repository, name);
  if (rules.length === 0) return canRepository(state, userId, project, 'push_code');
  return anyAllows(state, userId, project, rules.flatMap((rule) => rule.create_access_levels));
};

/**
 * `ProtectedBranch.protected?` answers yes for every branch of an empty repository whose default branch will be
 * protected (`default_branch_protected?`), and `protected_ref_accessible_to?` lets only administrators and those
 * above Developer create it: a Developer's first push would otherwise escape the protection.
 */
const guardsEmptyRepository = (state: State, project: Project, repository: Repository): boolean => isEmptyRepository(repository) && defaultBranchProtected(state, project);

/** `UserAccess#can_push_to_branch?`. */
export const canPushToBranch = (state: State, userId: number | null, project: Project, repository: Repository, name: string): boolean => {
  if (!canRepository(state, userId, project, 'push_code')) return false;
  return protectedBranchAllows(state, userId, project, repository, name, 'push_access_levels', true);
};

/** `UserAccess#can_merge_to_branch?`. */
export const canMergeToBranch = (state: State, userId: number | null, project: Project, repository: Repository, name: string): boolean =>
  protectedBranchAllows(state, userId, project, repository, name, 'merge_access_levels', canRepository(state, userId, project, 'push_code'));

/** `protected_branch_accessible_to?` for a protected branch; `unprotected` otherwise. */
const protectedBranchAllows = (
  state: State,
  userId: number | null,
  project: Project,
  repository: Repository,
  name: string,
  levels: 'push_access_levels' | 'merge_access_levels',
  unprotected: boolean,
): boolean => {
  const guarded = guardsEmptyRepository(state, project, repository);
  if (guarded && meetsRefAccessLevel(state, userId, project, AccessLevel.MAINTAINER)) return true;
  const rules = matchingProtectedBranches(repository, name);
  if (rules.length === 0) return guarded ? false : unprotected;
  return anyAllows(state, userId, project, rules.flatMap((rule) => rule[levels]));
};

/** `UserAccess#can_delete_branch?`. */
export const canDeleteBranch = (state: State, userId: number | null, project: Project, repository: Repository, name: string): boolean =>
  matchingProtectedBranches(repository, name).length > 0
    ? canRepository(state, userId, project, 'push_to_delete_protected_branch')
    : canRepository(state, userId, project, 'push_code');

/** `ProtectedBranch.developers_can?`: a matching rule grants Developers (false for an unprotected branch). */
export const developersCan = (repository: Repository, name: string, action: 'push' | 'merge'): boolean =>
  matchingProtectedBranches(repository, name)
    .flatMap((rule) => (action === 'push' ? rule.push_access_levels : rule.merge_access_levels))
    .some((level) => level.access_level === AccessLevel.DEVELOPER);

export const REF_CHECK_MESSAGES = {
  push_code: 'You are not allowed to push code to this project.',
  delete_default_branch: 'The default branch of a project cannot be deleted.',
  force_push_protected_branch: 'You are not allowed to force push code to a protected branch on this project.',
  non_master_delete_protected_branch:
    'You are not allowed to delete protected branches from this project. Only a project maintainer or owner can delete a protected branch.',
  non_web_delete_protected_branch: 'You can only delete protected branches using the web interface.',
  push_protected_branch: 'You are not allowed to push code to protected branches on this project.',
  create_protected_branch: 'You are not allowed to create protected branches on this project.',
  invalid_commit_create_protected_branch: 'You can only use an existing protected branch ref as the basis of a new protected branch.',
  non_web_create_protected_branch: 'You can only create protected branches using the web interface and API.',
  prohibited_hex_branch_name: 'You cannot create a branch with a 40-character hexadecimal branch name.',
  change_existing_tags: 'You are not allowed to change existing tags on this project.',
  update_protected_tag: 'Protected tags cannot be updated.',
  delete_protected_tag: 'You are not allowed to delete protected tags from this project. Only a project maintainer or owner can delete a protected tag.',
  delete_protected_tag_non_web: 'You can only delete protected tags using the web interface.',
  create_protected_tag: 'You are not allowed to create this tag as it is protected.',
  other_ref: 'You can only push branches and tags to this project.',
} as const;

export interface RefMove {
  readonly ref: string;
  readonly old_sha: string | null;
  readonly new_sha: string | null;
  readonly forced?: boolean;
  /**
   * A branch creation's fact from git: whether the new commit is in a protected branch
   * (`safe_commit_for_new_protected_branch?`). Absent, the rule is not checked (the decider and the push gateway).
   */
  readonly from_protected_branch?: boolean;
}

const branchCheck = (state: State, userId: number | null, project: Project, repository: Repository, name: string, move: RefMove, via: Via): string | null => {
  const creation = move.old_sha === null;
  const deletion = move.new_sha === null;
  if (deletion && name === defaultBranchOf(repository)) return REF_CHECK_MESSAGES.delete_default_branch;
  if (/^[0-9a-fA-F]{40}$/.test(name)) return REF_CHECK_MESSAGES.prohibited_hex_branch_name;
  const rules = matchingProtectedBranches(repository, name);
  if (rules.length === 0 && !guardsEmptyRepository(state, project, repository)) return null;
  if (move.forced && !rules.every((rule) => rule.allow_force_push)) return REF_CHECK_MESSAGES.force_push_protected_branch;
  const push = () => (canPushToBranch(state, userId, project, repository, name) ? null : REF_CHECK_MESSAGES.push_protected_branch);
  if (isEmptyRepository(repository)) return push();
  if (creation) {
    if (canPushToBranch(state, userId, project, repository, name)) return null;
    if (!canMergeToBranch(state, userId, project, repository, name)) return REF_CHECK_MESSAGES.create_protected_branch;
    // A merger may create a protected branch from a commit already in a protected branch (when the caller knows),
    // from the web or the API only.
    if (move.from_protected_branch === false) return REF_CHECK_MESSAGES.invalid_commit_create_protected_branch;
    return via === 'api' ? null : REF_CHECK_MESSAGES.non_web_create_protected_branch;
  }
  if (deletion) {
    if (!canDeleteBranch(state, userId, project, repository, name)) return REF_CHECK_MESSAGES.non_master_delete_protected_branch;
    return via === 'api' ? null : REF_CHECK_MESSAGES.non_web_delete_protected_branch;
  }
  return push();
};

const tagCheck = (state: State, userId: number | null, project: Project, repository: Repository, name: string, move: RefMove, via: Via): string | null => {
  const exists = refValue(repository, move.ref) !== null;
  if (exists && !canRepository(state, userId, project, 'admin_tag')) return REF_CHECK_MESSAGES.change_existing_tags;
  if (matchingProtectedTags(repository, name).length === 0) return null;
  const creation = move.old_sha === null;
  const deletion = move.new_sha === null;
  if (!creation && !deletion) return REF_CHECK_MESSAGES.update_protected_tag;
  if (deletion) {
    if (!canRepository(state, userId, project, 'push_to_delete_protected_branch')) return REF_CHECK_MESSAGES.delete_protected_tag;
    if (via !== 'api') return REF_CHECK_MESSAGES.delete_protected_tag_non_web;
    return null;
  }
  return canCreateTag(state, userId, project, repository, name) ? null : REF_CHECK_MESSAGES.create_protected_tag;
};

/**
 * Why a ref move is refused, or null: push access (`push_code`), then the branch or tag checks. The system actor
 * (null) may move anything. Only branches and tags may be moved.
 */
export const refMoveRefusal = (state: State, userId: number | null, project: Project, repository: Repository, move: RefMove, via: Via): string | null => {
  const isBranch = move.ref.startsWith(BRANCH_PREFIX);
  const isTag = move.ref.startsWith(TAG_PREFIX);
  if (!isBranch && !isTag) return REF_CHECK_MESSAGES.other_ref;
  if (userId === null) return null;
  if (!canRepository(state, userId, project, 'push_code')) return REF_CHECK_MESSAGES.push_code;
  return isBranch
    ? branchCheck(state, userId, project, repository, move.ref.slice(BRANCH_PREFIX.length), move, via)
    : tagCheck(state, userId, project, repository, move.ref.slice(TAG_PREFIX.length), move, via);
};

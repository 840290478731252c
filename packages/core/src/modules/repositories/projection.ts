/**
 * The repositories projection: for every project, its repository's refs as the log recorded them (git holds the
 * objects, the log holds which ref pointed where), its protected tags and branches, and its merge requests.
 * `forgefold verify` compares `refs` with the repository on disk.
 */
import { emptyTable, type Table } from '../../kernel/table.js';
import type { MembershipView } from '../members/projection.js';
import type { SettingsSlice } from '../settings/projection.js';
import type { OwnerIndexes } from '../shared/owners.js';

/** One access level of a protected ref (`ProtectedRefAccess`): a role here (users and groups are not offered). */
export interface RefAccessLevel {
  readonly id: number;
  /** 0 (No one), 30 (Developers + Maintainers) or 40 (Maintainers). */
  readonly access_level: number;
}

export interface ProtectedTag {
  readonly id: number;
  /** A tag name or a wildcard (`v*`, `release-*-rc`). */
  readonly name: string;
  readonly create_access_levels: readonly RefAccessLevel[];
  readonly created_at: string;
}

export interface ProtectedBranch {
  readonly id: number;
  readonly name: string;
  readonly push_access_levels: readonly RefAccessLevel[];
  readonly merge_access_levels: readonly RefAccessLevel[];
  /** EE: who may unprotect (empty: maintainers, the default). */
  readonly unprotect_access_levels: readonly RefAccessLevel[];
  readonly allow_force_push: boolean;
  readonly code_owner_approval_required: boolean;
  readonly created_at: string;
}

export interface Repository {
  readonly project_id: number;
  /** Where HEAD points (`default_branch` of POST /projects; `main` by default). */
  readonly default_branch: string;
  readonly created_at: string;
  /** Full ref name (`refs/heads/main`, `refs/tags/v1.0`) → the object it points at. */
  readonly refs: Table<string>;
  readonly branch_count: number;
  readonly tag_count: number;
  /** Tag name → the committer date of the commit it peels to (tags of trees or blobs have none). */
  readonly tag_dates: Table<string>;
  readonly protected_tags: readonly ProtectedTag[];
  readonly protected_branches: readonly ProtectedBranch[];
  /** Merge request iid → merge request id. */
  readonly merge_requests: Table<number>;
  /** The last merge request iid drawn in this project. */
  readonly merge_request_iid: number;
}

export type MergeRequestState = 'opened' | 'closed' | 'merged';

/** A version of a merge request's diff (`MergeRequestDiff`): recorded at creation and whenever the source branch moves. */
export interface MergeRequestVersion {
  readonly id: number;
  readonly head_commit_sha: string;
  /** The merge base of source and target when the version was taken. */
  readonly base_commit_sha: string | null;
  /** The target branch's head when the version was taken. */
  readonly start_commit_sha: string | null;
  readonly created_at: string;
}

export interface MergeRequest {
  readonly id: number;
  readonly iid: number;
  readonly project_id: number;
  readonly title: string;
  readonly description: string;
  readonly state: MergeRequestState;
  readonly source_branch: string;
  readonly target_branch: string;
  readonly author_id: number | null;
  readonly assignee_ids: readonly number[];
  /** Reviewers (`reviewer_ids`), in the order given. */
  readonly reviewer_ids: readonly number[];
  /** Label names, as issues keep them (no label objects). */
  readonly labels: readonly string[];
  /** Who approved (EE `approvals`), in order; a push to the source branch clears them (`reset_approvals_on_push`). */
  readonly approved_by: readonly number[];
  /** A user's own choice through the subscription endpoints (user id → subscribed), winning over participation. */
  readonly subscriptions?: Readonly<Record<number, boolean>>;
  /** The merge's `should_remove_source_branch` (`merge_params`): null unless given. */
  readonly should_remove_source_branch?: boolean | null;
  /** `discussion_locked`: null until someone sets it. */
  readonly discussion_locked?: boolean | null;
  readonly squash: boolean;
  /** `force_remove_source_branch` (`merge_params`): null when the creation did not say (the API sets the key to nil). */
  readonly remove_source_branch: boolean | null;
  readonly created_at: string;
  readonly updated_at: string;
  readonly merged_by_id: number | null;
  readonly merged_at: string | null;
  readonly merge_commit_sha: string | null;
  readonly closed_by_id: number | null;
  readonly closed_at: string | null;
  /** Oldest first; the last is the current diff (`diff_refs`). */
  readonly versions: readonly MergeRequestVersion[];
}

/** Ids drawn by this module (kept in its own slice, like database sequences). */
export interface RepositorySequences {
  readonly protected_ref: number;
  readonly access_level: number;
  readonly merge_request: number;
  readonly merge_request_diff: number;
}

/**
 * `byAuthor` and `byAssignee` (`OwnerIndexes`): user id → the set of their merge request ids. `GET /merge_requests`
 * (`scope=created_by_me`, its default, or `assigned_to_me`) reads the caller's own, not every merge request of every
 * project the caller can see.
 */
export interface RepositoriesSlice extends OwnerIndexes {
  /** Project id → its repository. */
  readonly byProject: Table<Repository>;
  /** Merge request id → merge request. */
  readonly mergeRequests: Table<MergeRequest>;
  readonly sequences: RepositorySequences;
}

/**
 * What the module's decisions and policy read: the memberships (for abilities), the repositories, and the settings
 * (how a new default branch is protected).
 */
export type RepositoriesView = MembershipView & { readonly repositories: RepositoriesSlice; readonly settings: SettingsSlice };

export const initialRepositories = (): RepositoriesSlice => ({
  byProject: emptyTable(),
  mergeRequests: emptyTable(),
  byAuthor: emptyTable(),
  byAssignee: emptyTable(),
  sequences: { protected_ref: 0, access_level: 0, merge_request: 0, merge_request_diff: 0 },
});

export const BRANCH_PREFIX = 'refs/heads/';
export const TAG_PREFIX = 'refs/tags/';
export const branchRef = (name: string): string => `${BRANCH_PREFIX}${name}`;
export const tagRef = (name: string): string => `${TAG_PREFIX}${name}`;

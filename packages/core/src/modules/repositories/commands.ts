/**
 * Repository commands. Facts from git (object ids, merge bases, whether a move was forced, a tag's tagger) enter
 * through the command, as token digests do: the shell reads them from the repository under its lock, the decider
 * validates them against the projection and the rules, and replay never needs git.
 */
import type { TaggerData, Via } from './events.js';

/** One ref move, as git applied it (or is about to). `null` stands for "absent". */
export interface RefUpdate {
  /** Full name: `refs/heads/main`, `refs/tags/v1.0`. */
  readonly ref: string;
  readonly old_sha: string | null;
  readonly new_sha: string | null;
  /** Branch moves: the old commit is not an ancestor of the new one. */
  readonly forced?: boolean;
  /** Tags created or moved: what the tag points at. */
  readonly tag?: { readonly commit_sha: string | null; readonly committed_date: string | null; readonly message: string; readonly tagger: TaggerData | null };
}

/** A merge request's new diff version, computed by the shell from git. */
export interface VersionFact {
  readonly iid: number;
  readonly head_commit_sha: string;
  readonly base_commit_sha: string | null;
  readonly start_commit_sha: string | null;
  /** The commits the source branch gained since the last version (newest first), for the "added N commits" note. */
  readonly commits?: readonly { readonly id: string; readonly title: string }[];
}

export type RepositoryCommand =
  /**
   * HEAD moves to another branch: an existing one (`PUT /projects/:id` with `default_branch`), or any name while the
   * repository has no branch (`POST /projects` with `default_branch`).
   */
  | {
      readonly type: 'ChangeDefaultBranch';
      readonly project_id: number;
      readonly branch: string;
      /**
       * The HEAD a repository is created with (`POST /projects` with `default_branch`, a fork's source's HEAD):
       * `create_repository(default_branch:)` and the fork's import set it whatever the creator's role. Only while the
       * repository has no branch.
       */
      readonly initial?: boolean;
    }
  /**
   * Records ref moves. `via: 'api'` runs the platform's checks as for a change from the web and API; `'push'` as
   * for `git push`. `versions`: for open merge requests whose source branch moved. `imported`: the refs a fork
   * copied from its source, which the platform imports without the push checks (the fork itself was authorized).
   */
  | {
      readonly type: 'UpdateRefs';
      readonly project_id: number;
      readonly via: Via;
      readonly changes: readonly RefUpdate[];
      readonly versions?: readonly VersionFact[];
      readonly imported?: boolean;
    }
  | { readonly type: 'ProtectTag'; readonly project_id: number; readonly name: string; readonly create_access_level: number }
  | { readonly type: 'UnprotectTag'; readonly project_id: number; readonly name: string }
  | {
      readonly type: 'ProtectBranch';
      readonly project_id: number;
      readonly name: string;
      readonly push_access_level: number;
      readonly merge_access_level: number;
      readonly unprotect_access_level?: number;
      readonly allow_force_push: boolean;
      readonly code_owner_approval_required: boolean;
    }
  /** The legacy `PUT …/branches/:branch/protect`: creates, or replaces the levels of, the branch's exact rule. */
  | { readonly type: 'ProtectBranchLegacy'; readonly project_id: number; readonly name: string; readonly developers_can_push: boolean; readonly developers_can_merge: boolean }
  | { readonly type: 'UnprotectBranch'; readonly project_id: number; readonly name: string }
  /** EE's `PATCH …/protected_branches/:name` (14.7): sets `code_owner_approval_required` of the exact rule. */
  | { readonly type: 'SetCodeOwnerApprovalRequired'; readonly project_id: number; readonly name: string; readonly code_owner_approval_required: boolean }
  | {
      readonly type: 'CreateMergeRequest';
      readonly project_id: number;
      readonly title: string;
      readonly description?: string;
      readonly source_branch: string;
      readonly target_branch: string;
      readonly assignee_ids?: readonly number[];
      readonly reviewer_ids?: readonly number[];
      readonly labels?: readonly string[];
      readonly squash?: boolean;
      readonly remove_source_branch?: boolean;
      /** The first version (null when a branch is missing: the decider refuses then). */
      readonly version: Omit<VersionFact, 'iid'> | null;
    }
  | {
      readonly type: 'UpdateMergeRequest';
      readonly project_id: number;
      readonly iid: number;
      readonly title?: string;
      readonly description?: string;
      readonly target_branch?: string;
      readonly assignee_ids?: readonly number[];
      readonly reviewer_ids?: readonly number[];
      readonly labels?: readonly string[];
      readonly squash?: boolean;
      readonly remove_source_branch?: boolean;
      readonly state_event?: 'close' | 'reopen';
      readonly discussion_locked?: boolean;
      /** A new version when the target branch changes (or on reopen, when the source moved while closed). */
      readonly version?: Omit<VersionFact, 'iid'> | null;
    }
  | { readonly type: 'DeleteMergeRequest'; readonly project_id: number; readonly iid: number }
  | { readonly type: 'ApproveMergeRequest'; readonly project_id: number; readonly iid: number }
  | { readonly type: 'UnapproveMergeRequest'; readonly project_id: number; readonly iid: number }
  | { readonly type: 'SetMergeRequestSubscription'; readonly project_id: number; readonly iid: number; readonly subscribed: boolean }
  /**
   * Records a merge git made: the target branch moved from `old_sha` to `merge_commit_sha` (a fast-forward when
   * that is the source head). `versions`: merge requests whose source is the target branch.
   */
  | {
      readonly type: 'MergeMergeRequest';
      readonly project_id: number;
      readonly iid: number;
      readonly old_sha: string;
      readonly merge_commit_sha: string;
      /** The source head that was merged (must still be the merge request's head). */
      readonly source_sha: string;
      readonly should_remove_source_branch?: boolean;
      readonly versions?: readonly VersionFact[];
    };

/**
 * The platform's repository entities (lib/api/entities): Commit, CommitDetail, Tag, Branch, ProtectedBranch,
 * ProtectedTag, Diff, TreeObject, MergeRequest and its versions. Git data comes from the engine with the
 * platform's field names; what the log knows (protection, merge request state) from the projection.
 */
import {
  canPushToBranch,
  defaultBranchOf,
  developersCan,
  findRepository,
  findUser,
  humanAccess,
  isProtectedBranch,
  isProtectedTag,
  type MergeRequest,
  type MergeRequestVersion,
  type Project,
  type ProtectedBranch,
  type ProtectedTag,
  type RefAccessLevel,
} from '@forgefold/core';
import type { Commit, CommitStats, DiffFile, Tag, TreeEntry } from '@forgefold/git';
import type { PresentContext } from './context.js';
import { userBasic } from './users.js';

/** `Commit#title`: the first line; from 100 characters on, cut at a word to 80 and an ellipsis (Rails `truncate(81)`). */
export const commitTitle = (title: string): string => {
  if (title.length < 100) return title;
  const stop = title.lastIndexOf(' ', 80);
  return `${title.slice(0, stop === -1 ? 80 : stop)}…`;
};

export const projectWebUrl = (project: Project, ctx: PresentContext): string => `${ctx.baseUrl}/${project.path_with_namespace}`;

/** `Entities::Commit`. */
export const commitEntity = (commit: Commit, project: Project, ctx: PresentContext) => ({
  id: commit.id,
  short_id: commit.short_id,
  created_at: commit.committed_date,
  parent_ids: commit.parent_ids,
  title: commitTitle(commit.title),
  message: commit.message,
  author_name: commit.author_name,
  author_email: commit.author_email,
  authored_date: commit.authored_date,
  committer_name: commit.committer_name,
  committer_email: commit.committer_email,
  committed_date: commit.committed_date,
  trailers: {},
  web_url: `${projectWebUrl(project, ctx)}/-/commit/${commit.id}`,
});

/** `Entities::CommitDetail`: the commit, its stats (unless `stats=false`), pipeline fields (none here). */
export const commitDetailEntity = (commit: Commit, stats: CommitStats | null, project: Project, ctx: PresentContext) => ({
  ...commitEntity(commit, project, ctx),
  ...(stats ? { stats } : {}),
  status: null,
  project_id: project.id,
  last_pipeline: null,
});

/** `Entities::Tag`; releases are not kept, so `release` is null. */
export const tagEntity = (tag: Tag, project: Project, ctx: PresentContext) => {
  const repository = findRepository(ctx.state.repositories, project.id);
  return {
    name: tag.name,
    message: tag.message,
    target: tag.target,
    commit: tag.commit ? commitEntity(tag.commit, project, ctx) : null,
    release: null,
    protected: repository ? isProtectedTag(repository, tag.name) : false,
  };
};

/** `Entities::Branch`; `merged` (into the default branch) is computed by the caller from git. */
export const branchEntity = (branch: { readonly name: string; readonly commit: Commit }, merged: boolean, project: Project, ctx: PresentContext) => {
  const repository = findRepository(ctx.state.repositories, project.id);
  return {
    name: branch.name,
    commit: commitEntity(branch.commit, project, ctx),
    merged,
    protected: repository ? isProtectedBranch(repository, branch.name) : false,
    developers_can_push: repository ? developersCan(repository, branch.name, 'push') : false,
    developers_can_merge: repository ? developersCan(repository, branch.name, 'merge') : false,
    can_push: repository ? canPushToBranch(ctx.state, ctx.viewerId, project, repository, branch.name) : false,
    default: repository ? defaultBranchOf(repository) === branch.name : false,
    web_url: `${projectWebUrl(project, ctx)}/-/tree/${branch.name}`,
  };
};

const HUMAN_REF_ACCESS: Record<number, string> = { 0: 'No one', 30: 'Developers + Maintainers', 40: 'Maintainers' };

/** `Entities::ProtectedRefAccess` with EE's `user_id`/`group_id` (role levels only here). */
const refAccessEntity = (level: RefAccessLevel) => ({
  access_level: level.access_level,
  access_level_description: HUMAN_REF_ACCESS[level.access_level] ?? humanAccess(level.access_level),
  user_id: null,
  group_id: null,
});

/** `Entities::ProtectedBranch` with EE's fields. */
export const protectedBranchEntity = (rule: ProtectedBranch) => ({
  id: rule.id,
  name: rule.name,
  push_access_levels: rule.push_access_levels.map(refAccessEntity),
  merge_access_levels: rule.merge_access_levels.map(refAccessEntity),
  allow_force_push: rule.allow_force_push,
  unprotect_access_levels: rule.unprotect_access_levels.map(refAccessEntity),
  code_owner_approval_required: rule.code_owner_approval_required,
});

/** `Entities::ProtectedTag`. */
export const protectedTagEntity = (rule: ProtectedTag) => ({
  name: rule.name,
  create_access_levels: rule.create_access_levels.map(refAccessEntity),
});

/** `Entities::Diff`. */
export const diffEntity = (diff: DiffFile) => ({
  old_path: diff.old_path,
  new_path: diff.new_path,
  a_mode: diff.a_mode,
  b_mode: diff.b_mode,
  new_file: diff.new_file,
  renamed_file: diff.renamed_file,
  deleted_file: diff.deleted_file,
  diff: diff.diff,
});

/** `Entities::TreeObject`. */
export const treeEntity = (entry: TreeEntry) => ({ id: entry.id, name: entry.name, type: entry.type, path: entry.path, mode: entry.mode });

// ---------------------------------------------------------------------------------------------------------
// Merge requests

const user = (id: number | null, ctx: PresentContext) => {
  const found = id === null ? undefined : findUser(ctx.state.users, id);
  return found ? userBasic(found, ctx) : null;
};

const currentVersionOf = (mr: MergeRequest): MergeRequestVersion | null => mr.versions[mr.versions.length - 1] ?? null;

/** `Entities::MergeRequestBasic` (14.7, with EE's `approvals_before_merge`). */
export const mergeRequestBasicEntity = (mr: MergeRequest, project: Project, ctx: PresentContext) => {
  const assignees = mr.assignee_ids.map((id) => user(id, ctx)).filter((entry) => entry !== null);
  const version = currentVersionOf(mr);
  const reference = `!${mr.iid}`;
  const draft = /^\s*(\[draft\]|\(draft\)|draft:|draft\s-\s|draft\s|\[wip\]|wip:|wip\s)/i.test(mr.title);
  return {
    id: mr.id,
    iid: mr.iid,
    project_id: mr.project_id,
    title: mr.title,
    description: mr.description,
    state: mr.state,
    created_at: mr.created_at,
    updated_at: mr.updated_at,
    merged_by: user(mr.merged_by_id, ctx),
    merged_at: mr.merged_at,
    closed_by: mr.state === 'closed' ? user(mr.closed_by_id, ctx) : null,
    closed_at: mr.state === 'closed' ? mr.closed_at : null,
    target_branch: mr.target_branch,
    source_branch: mr.source_branch,
    user_notes_count: 0,
    upvotes: 0,
    downvotes: 0,
    author: user(mr.author_id, ctx),
    assignees,
    assignee: assignees[0] ?? null,
    reviewers: [],
    source_project_id: project.id,
    target_project_id: project.id,
    labels: [],
    draft,
    work_in_progress: draft,
    milestone: null,
    merge_when_pipeline_succeeds: false,
    merge_status: mr.state === 'opened' ? 'can_be_merged' : 'cannot_be_merged',
    sha: version?.head_commit_sha ?? null,
    merge_commit_sha: mr.merge_commit_sha,
    squash_commit_sha: null,
    discussion_locked: null,
    should_remove_source_branch: null,
    force_remove_source_branch: mr.remove_source_branch,
    reference,
    references: { short: reference, relative: reference, full: `${project.path_with_namespace}${reference}` },
    web_url: `${projectWebUrl(project, ctx)}/-/merge_requests/${mr.iid}`,
    time_stats: { time_estimate: 0, total_time_spent: 0, human_time_estimate: null, human_total_time_spent: null },
    squash: mr.squash,
    task_completion_status: { count: 0, completed_count: 0 },
    has_conflicts: false,
    blocking_discussions_resolved: true,
    approvals_before_merge: null,
  };
};

/** `Entities::MergeRequest`: the basic entity and its details; `mergeStatus` comes from git (conflicts). */
export const mergeRequestEntity = (mr: MergeRequest, project: Project, ctx: PresentContext, git: { readonly hasConflicts: boolean; readonly changesCount: number | null; readonly canMerge: boolean }) => {
  const version = currentVersionOf(mr);
  const basic = mergeRequestBasicEntity(mr, project, ctx);
  return {
    ...basic,
    merge_status: mr.state !== 'opened' ? basic.merge_status : git.hasConflicts ? 'cannot_be_merged' : 'can_be_merged',
    has_conflicts: mr.state === 'opened' && git.hasConflicts,
    subscribed: false,
    changes_count: git.changesCount === null ? null : String(git.changesCount),
    latest_build_started_at: null,
    latest_build_finished_at: null,
    first_deployed_to_production_at: null,
    pipeline: null,
    head_pipeline: null,
    diff_refs: version ? { base_sha: version.base_commit_sha, head_sha: version.head_commit_sha, start_sha: version.start_commit_sha } : null,
    merge_error: null,
    first_contribution: false,
    user: { can_merge: git.canMerge },
  };
};

/** `Entities::MergeRequestDiff` (a version). */
export const mergeRequestVersionEntity = (version: MergeRequestVersion, mr: MergeRequest, realSize: number | null) => ({
  id: version.id,
  head_commit_sha: version.head_commit_sha,
  base_commit_sha: version.base_commit_sha,
  start_commit_sha: version.start_commit_sha,
  created_at: version.created_at,
  merge_request_id: mr.id,
  state: 'collected',
  real_size: realSize === null ? null : String(realSize),
});

/** `Entities::MergeRequestBasic`, `Entities::MergeRequest` and `Entities::MergeRequestDiff` (14.7). */
import { currentVersion, findUser, headPipelineOf, isDraftTitle, mergeRequestParticipants, noteableKey, type Group, type MergeRequest, type MergeRequestVersion, type Project, projectReferenceBase } from '@forgefold/core';
import type { PresentContext } from '../context.js';
import { userBasic } from '../users/entities.js';
import { projectWebUrl } from '../repositories/entities.js';
import { NO_TIME_STATS, userNotesCount } from '../issues/entities.js';
import { pipelineBasicEntity, pipelineEntity } from '../pipelines/entities.js';

const user = (id: number | null, ctx: PresentContext) => {
  const found = id === null ? undefined : findUser(ctx.state.users, id);
  return found ? userBasic(found, ctx) : null;
};

/**
 * Where a list was asked from: the project of the URL (`project: user_project`), a group (`group: user_group`, the
 * group list), or nothing (`GET /merge_requests`). `reference` is `to_reference(options[:project])` and
 * `references.relative` `to_reference(options[:group] || options[:project])`.
 */
export type ReferenceFrom = { readonly project: Project } | { readonly group: Group } | null;

/** `Project#to_reference_base` seen from a project, a namespace (always cross-project) or nothing. */
const referenceBase = (project: Project, from: ReferenceFrom): string => {
  if (from === null) return '';
  if ('project' in from) return projectReferenceBase(project, from.project);
  return project.namespace_kind === 'group' && project.namespace_id === from.group.id ? project.path : project.path_with_namespace;
};

/**
 * `Taskable.get_tasks` (`ITEM_PATTERN`): list items of the description (after any blockquote markers) that start
 * with a checkbox, `[ ]` open and `[x]`/`[X]` done, followed by text; `task_completion_status` counts them.
 */
const TASK_ITEM = /^(?:>\s{0,4})*(?:\s*(?:[-+*]|\d+\.))+\s+(\[[xX]\]|\[\s\])\s.+/gm;
const taskCompletionStatus = (description: string) => {
  const boxes = [...description.matchAll(TASK_ITEM)].map((match) => match[1]!);
  return { count: boxes.length, completed_count: boxes.filter((box) => /\[[xX]\]/.test(box)).length };
};

/** The user list's users, without the ones that are gone. */
const users = (ids: readonly number[], ctx: PresentContext) => ids.map((id) => user(id, ctx)).filter((entry) => entry !== null);

/** `Entities::IssuableEntity`'s own fields, first in both the simple and the basic entity. */
const issuableFields = (mr: MergeRequest) => ({
  id: mr.id,
  iid: mr.iid,
  project_id: mr.project_id,
  title: mr.title,
  description: mr.description,
  state: mr.state,
  created_at: mr.created_at,
  updated_at: mr.updated_at,
});

/**
 * `Entities::MergeRequestBasic` (14.7, with EE's `approvals_before_merge`). `from`: the project the request named
 * (`project: user_project`), which `reference` and `references.relative` are relative to, or the group of a group
 * list, or null.
 */
export const mergeRequestBasicEntity = (mr: MergeRequest, project: Project, ctx: PresentContext, from: Project | ReferenceFrom = project) => {
  const assignees = users(mr.assignee_ids, ctx);
  const version = currentVersion(mr) ?? null;
  const reference = `!${mr.iid}`;
  const origin: ReferenceFrom = from !== null && 'id' in from ? { project: from } : from;
  const draft = isDraftTitle(mr.title);
  return {
    ...issuableFields(mr),
    merged_by: user(mr.merged_by_id, ctx),
    // 14.7 (`merged_by` deprecated): who merged, or who set it to merge when the pipeline succeeds (never here).
    merge_user: user(mr.merged_by_id, ctx),
    merged_at: mr.merged_at,
    closed_by: mr.state === 'closed' ? user(mr.closed_by_id, ctx) : null,
    closed_at: mr.state === 'closed' ? mr.closed_at : null,
    target_branch: mr.target_branch,
    source_branch: mr.source_branch,
    user_notes_count: userNotesCount(ctx, noteableKey('MergeRequest', mr.id)),
    upvotes: 0,
    downvotes: 0,
    author: user(mr.author_id, ctx),
    assignees,
    assignee: assignees[0] ?? null,
    reviewers: users(mr.reviewer_ids, ctx),
    source_project_id: project.id,
    target_project_id: project.id,
    labels: [...mr.labels].sort(),
    draft,
    work_in_progress: draft,
    milestone: null,
    merge_when_pipeline_succeeds: false,
    merge_status: mr.state === 'opened' ? 'can_be_merged' : 'cannot_be_merged',
    sha: version?.head_commit_sha ?? null,
    merge_commit_sha: mr.merge_commit_sha,
    squash_commit_sha: null,
    discussion_locked: mr.discussion_locked ?? null,
    should_remove_source_branch: mr.should_remove_source_branch ?? null,
    force_remove_source_branch: mr.remove_source_branch,
    reference: `${origin !== null && 'project' in origin ? referenceBase(project, origin) : ''}${reference}`,
    references: { short: reference, relative: `${referenceBase(project, origin)}${reference}`, full: `${project.path_with_namespace}${reference}` },
    web_url: `${projectWebUrl(project, ctx)}/-/merge_requests/${mr.iid}`,
    time_stats: NO_TIME_STATS,
    squash: mr.squash,
    task_completion_status: taskCompletionStatus(mr.description),
    has_conflicts: false,
    blocking_discussions_resolved: true,
    approvals_before_merge: null,
  };
};

/** `subscribed?`: the viewer's own choice, else whether the viewer participates (`subscribed_without_subscriptions?`). */
export const isSubscribedToMergeRequest = (mr: MergeRequest, project: Project, ctx: PresentContext): boolean => {
  const viewer = ctx.viewerId;
  if (viewer === null) return false;
  return mr.subscriptions?.[viewer] ?? mergeRequestParticipants(ctx.state, project, mr, viewer).includes(viewer);
};

/** `Entities::MergeRequestSimple` (`view=simple`): the issuable's own fields and `web_url`. */
export const mergeRequestSimpleEntity = (mr: MergeRequest, project: Project, ctx: PresentContext) => ({
  ...issuableFields(mr),
  web_url: `${projectWebUrl(project, ctx)}/-/merge_requests/${mr.iid}`,
});

/** `Entities::MergeRequest`: the basic entity and its details; `mergeStatus` comes from git (conflicts). */
export const mergeRequestEntity = (
  mr: MergeRequest,
  project: Project,
  ctx: PresentContext,
  git: { readonly hasConflicts: boolean; readonly changesCount: number | null; readonly canMerge: boolean },
  from: Project = project,
  included: { readonly rebaseInProgress?: boolean; readonly divergedCommitsCount?: number; readonly firstContribution?: boolean } = {},
) => {
  const version = currentVersion(mr) ?? null;
  const basic = mergeRequestBasicEntity(mr, project, ctx, from);
  const headPipeline = headPipelineOf(ctx.state.pipelines, project.id, mr.source_branch, version?.head_commit_sha ?? null);
  return {
    ...basic,
    merge_status: mr.state !== 'opened' ? basic.merge_status : git.hasConflicts ? 'cannot_be_merged' : 'can_be_merged',
    has_conflicts: mr.state === 'opened' && git.hasConflicts,
    subscribed: isSubscribedToMergeRequest(mr, project, ctx),
    changes_count: git.changesCount === null ? null : String(git.changesCount),
    latest_build_started_at: null,
    latest_build_finished_at: null,
    first_deployed_to_production_at: null,
    // `metrics.pipeline` and `head_pipeline`: the source branch's newest pipeline at the head sha, read here alike.
    pipeline: headPipeline ? pipelineBasicEntity(headPipeline, ctx) : null,
    head_pipeline: headPipeline ? pipelineEntity(headPipeline, ctx) : null,
    diff_refs: version ? { base_sha: version.base_commit_sha, head_sha: version.head_commit_sha, start_sha: version.start_commit_sha } : null,
    merge_error: null,
    // Exposed only when asked (`include_rebase_in_progress`, `include_diverged_commits_count`) or on the single GET
    // (`include_first_contribution: true`): a member above Guest, as every author here is, is never a first contributor.
    ...(included.rebaseInProgress !== undefined ? { rebase_in_progress: included.rebaseInProgress } : {}),
    ...(included.divergedCommitsCount !== undefined ? { diverged_commits_count: included.divergedCommitsCount } : {}),
    ...(included.firstContribution !== undefined ? { first_contribution: included.firstContribution } : {}),
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

/**
 * EE `ApprovalState` of a merge request without approval rules (none are kept): the fallback requires no approval
 * (`approvals_before_merge` unset), so it is approved and needs none; who approved, whether the viewer did and may.
 */
export const approvalStateEntity = (mr: MergeRequest, ctx: PresentContext, viewerCanApprove: boolean) => ({
  id: mr.id,
  iid: mr.iid,
  project_id: mr.project_id,
  title: mr.title,
  description: mr.description,
  state: mr.state,
  created_at: mr.created_at,
  updated_at: mr.updated_at,
  merge_status: mr.state === 'opened' ? 'can_be_merged' : 'cannot_be_merged',
  approved: true,
  approvals_required: 0,
  approvals_left: 0,
  require_password_to_approve: false,
  approved_by: users(mr.approved_by, ctx).map((approver) => ({ user: approver })),
  suggested_approvers: [],
  approvers: [],
  approver_groups: [],
  user_has_approved: ctx.viewerId !== null && mr.approved_by.includes(ctx.viewerId),
  user_can_approve: viewerCanApprove,
  approval_rules_left: [],
  has_approval_rules: false,
  merge_request_approvers_available: true,
  multiple_approval_rules_available: true,
});

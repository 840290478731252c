/** `Entities::Issue` (14.7, with EE's fields), lean: no milestones, time tracking or epics here. */
import { blockingIssuesCount, findUser, issueReference, issueParticipants, notesOfNoteable, noteableKey, type Issue, type IssueLink, type Project } from '@forgefold/core';
import type { PresentContext } from '../context.js';
import { userBasic } from '../users/entities.js';
import { projectWebUrl } from '../repositories/entities.js';

const user = (id: number | null, ctx: PresentContext) => {
  const found = id === null ? undefined : findUser(ctx.state.users, id);
  return found ? userBasic(found, ctx) : null;
};

/** `Entities::IssuableTimeStats` where no time is tracked (none is, here). */
export const NO_TIME_STATS = { time_estimate: 0, total_time_spent: 0, human_time_estimate: null, human_total_time_spent: null };

/** Notes written by people (system notes excluded), as `user_notes_count`. */
export const userNotesCount = (ctx: PresentContext, key: string): number => notesOfNoteable(ctx.state.discussions, key).filter((note) => !note.system).length;

/**
 * `Issue#subscribed?`: the viewer's own choice through the subscription endpoints, else whether the viewer is one
 * of its participants (`subscribed_without_subscriptions?`).
 */
export const isSubscribed = (issue: Issue, project: Project, ctx: PresentContext): boolean => {
  const viewer = ctx.viewerId;
  if (viewer === null) return false;
  return issue.subscriptions?.[viewer] ?? issueParticipants(ctx.state, project, issue, viewer).includes(viewer);
};

/** `Entities::Issue`; `subscribed` only where the platform includes it (a single issue, not lists). */
export const issueEntity = (issue: Issue, project: Project, ctx: PresentContext, options: { readonly subscribed?: boolean; readonly from?: Project } = {}) => {
  const assignees = issue.assignee_ids.map((id) => user(id, ctx)).filter((entry) => entry !== null);
  const apiBase = `${ctx.baseUrl}/api/v4/projects/${project.id}`;
  return {
    id: issue.id,
    iid: issue.iid,
    project_id: issue.project_id,
    title: issue.title,
    description: issue.description,
    state: issue.state,
    created_at: issue.created_at,
    updated_at: issue.updated_at,
    closed_at: issue.closed_at,
    closed_by: issue.state === 'closed' ? user(issue.closed_by_id, ctx) : null,
    labels: [...issue.labels].sort(),
    milestone: null,
    assignees,
    author: user(issue.author_id, ctx),
    type: 'ISSUE',
    assignee: assignees[0] ?? null,
    user_notes_count: userNotesCount(ctx, noteableKey('Issue', issue.id)),
    merge_requests_count: 0,
    upvotes: 0,
    downvotes: 0,
    due_date: issue.due_date ?? null,
    confidential: issue.confidential,
    discussion_locked: issue.discussion_locked ?? null,
    issue_type: 'issue',
    web_url: `${projectWebUrl(project, ctx)}/-/issues/${issue.iid}`,
    time_stats: NO_TIME_STATS,
    task_completion_status: { count: 0, completed_count: 0 },
    weight: null,
    blocking_issues_count: blockingIssuesCount(ctx.state.issues, issue),
    has_tasks: false,
    _links: {
      self: `${apiBase}/issues/${issue.iid}`,
      notes: `${apiBase}/issues/${issue.iid}/notes`,
      award_emoji: `${apiBase}/issues/${issue.iid}/award_emoji`,
      project: apiBase,
    },
    // `relative` to the project the request named (`project: user_project`), `short` to the issue's own.
    references: { short: `#${issue.iid}`, relative: issueReference(issue.iid, project, options.from ?? project), full: `${project.path_with_namespace}#${issue.iid}` },
    severity: 'UNKNOWN',
    ...(options.subscribed ? { subscribed: isSubscribed(issue, project, ctx) } : {}),
    moved_to_id: null,
    service_desk_reply_to: null,
    epic_iid: null,
    epic: null,
    health_status: null,
  };
};

/** `Entities::IssueBasic`: the issue entity without what `Entities::Issue` adds to it. */
export const issueBasicEntity = (issue: Issue, project: Project, ctx: PresentContext) => {
  const {
    has_tasks: _hasTasks,
    _links: _l,
    references: _r,
    severity: _s,
    moved_to_id: _m,
    service_desk_reply_to: _d,
    epic_iid: _ei,
    epic: _e,
    health_status: _h,
    ...basic
  } = issueEntity(issue, project, ctx);
  return basic;
};

/** `Entities::RelatedIssue`: the issue entity (no `subscribed`) with the link as this side sees it. */
export const relatedIssueEntity = (issue: Issue, project: Project, ctx: PresentContext, link: IssueLink, linkType: string, from: Project) => ({
  ...issueEntity(issue, project, ctx, { from }),
  issue_link_id: link.id,
  link_type: linkType,
  link_created_at: link.created_at,
  link_updated_at: link.updated_at,
});

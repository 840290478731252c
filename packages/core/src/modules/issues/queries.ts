/** Reads over the issues projection, and who may see and change an issue (`IssuePolicy`). */
import { tableGet, tableValues } from '../../kernel/table.js';
import { idsOwnedBy, type OwnerRole } from '../shared/owners.js';
import { canOnProject, canReadProject, isAdmin, type AccessView } from '../access/abilities.js';
import type { Project } from '../projects/projection.js';
import { projectReferenceBase } from '../projects/queries.js';
import type { Issue, IssueLink, IssueLinkType, IssuesSlice } from './projection.js';

export const findIssue = (issues: IssuesSlice, projectId: number, iid: number): Issue | undefined => {
  const id = tableGet(issues.byProject, projectId) && tableGet(tableGet(issues.byProject, projectId)!.byIid, iid);
  return id === undefined ? undefined : tableGet(issues.byId, id);
};

/** The issues `userId` authored (`by: 'author'`) or is assigned (`'assignee'`), from the indexes: O(theirs). */
export const issuesOfUser = (issues: IssuesSlice, userId: number, by: OwnerRole): Issue[] => {
  const out: Issue[] = [];
  for (const id of idsOwnedBy(issues, userId, by)) {
    const issue = tableGet(issues.byId, id);
    if (issue) out.push(issue);
  }
  return out;
};

/** A project's issues, by iid ascending. */
export const issuesOf = (issues: IssuesSlice, projectId: number): Issue[] => {
  const project = tableGet(issues.byProject, projectId);
  if (!project) return [];
  const out: Issue[] = [];
  for (const id of tableValues(project.byIid)) {
    const issue = tableGet(issues.byId, id);
    if (issue) out.push(issue);
  }
  return out.sort((a, b) => a.iid - b.iid);
};

/**
 * `read_issue`: whoever reads the project (the issues feature is on for everyone who sees it); a confidential
 * issue only for its author, its assignees, Reporters and above, and administrators.
 */
export const canReadIssue = (state: AccessView, userId: number | null, project: Project, issue: Issue): boolean => {
  if (!canReadProject(state, userId, project)) return false;
  if (!issue.confidential) return true;
  if (userId === null) return false;
  return issue.author_id === userId || issue.assignee_ids.includes(userId) || isAdmin(state, userId) || canOnProject(state, userId, 'read_confidential_issues', project);
};

/** `update_issue`: the author, an assignee, or Reporters and above. */
export const canUpdateIssue = (state: AccessView, userId: number | null, project: Project, issue: Issue): boolean =>
  userId !== null && canReadIssue(state, userId, project, issue) && (issue.author_id === userId || issue.assignee_ids.includes(userId) || canOnProject(state, userId, 'admin_issue', project));

/** `create_issue`: Guests and above; in a public or internal project, any signed-in user who sees it. */
export const canCreateIssue = (state: AccessView, userId: number | null, project: Project): boolean =>
  userId !== null && canReadProject(state, userId, project) && (project.visibility !== 'private' || canOnProject(state, userId, 'create_issue', project));

export const findIssueById = (issues: IssuesSlice, id: number): Issue | undefined => tableGet(issues.byId, id);
export const findIssueLink = (issues: IssuesSlice, id: number): IssueLink | undefined => tableGet(issues.links, id);

/** The issue's links with the other issue and the type as seen from this one (`Issue#issue_link_type`), oldest first. */
export const linksOf = (issues: IssuesSlice, issue: Issue): { readonly link: IssueLink; readonly other: Issue; readonly link_type: IssueLinkType | 'is_blocked_by' }[] => {
  const out: { link: IssueLink; other: Issue; link_type: IssueLinkType | 'is_blocked_by' }[] = [];
  for (const id of issue.link_ids ?? []) {
    const link = tableGet(issues.links, id);
    const other = link && tableGet(issues.byId, link.source_id === issue.id ? link.target_id : link.source_id);
    if (!link || !other) continue;
    out.push({ link, other, link_type: link.source_id === issue.id || link.link_type === 'relates_to' ? link.link_type : 'is_blocked_by' });
  }
  return out.sort((a, b) => a.link.id - b.link.id);
};

/** `blocking_issues_count` (`IssueLink.blocking_issues_count_for`): the open issues this one blocks. */
export const blockingIssuesCount = (issues: IssuesSlice, issue: Issue): number =>
  linksOf(issues, issue).filter(({ link_type, other }) => link_type === 'blocks' && other.state === 'opened').length;

/** `admin_issue_link` on an issue: Reporters and above of its project (or an administrator). */
export const canAdminIssueLink = (state: AccessView, userId: number | null, project: Project, issue: Issue): boolean =>
  userId !== null && canReadIssue(state, userId, project, issue) && (isAdmin(state, userId) || canOnProject(state, userId, 'admin_issue', project));

/** `Issue#to_reference(from)`: `#1` in the same project, `project#1` in the same namespace, else the full path. */
export const issueReference = (iid: number, of: Project, from: Project): string => `${projectReferenceBase(of, from)}#${iid}`;

/** Reads over the issues projection, and who may see and change an issue (`IssuePolicy`). */
import { tableGet, tableValues } from '../../kernel/table.js';
import { canOnProject, canReadProject, isAdmin, type AccessView } from '../access/abilities.js';
import type { Project } from '../projects/projection.js';
import type { Issue, IssuesSlice } from './projection.js';

export const findIssue = (issues: IssuesSlice, projectId: number, iid: number): Issue | undefined => {
  const id = tableGet(issues.byProject, projectId) && tableGet(tableGet(issues.byProject, projectId)!.byIid, iid);
  return id === undefined ? undefined : tableGet(issues.byId, id);
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

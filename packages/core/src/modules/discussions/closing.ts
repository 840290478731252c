/**
 * The merge requests an issue is tied to (14.7): those that close it when merged (`MergeRequest#closes_issues`, the
 * `merge_requests_closing_issues` rows `GET …/issues/:iid/closed_by` lists) and those it references or is referenced
 * by (`Issues::ReferencedMergeRequestsService`, `GET …/issues/:iid/related_merge_requests`).
 *
 * A merge request closes the issues its closing statements reference (`Gitlab::ClosingIssueExtractor` with the
 * default `issue_closing_pattern`: "Closes #1", "fixes group/project#2", "Resolves: #3 and #4", an issue's URL) in its
 * title and description, when it targets the project's default branch. Read from the merge request as it is now
 * (the platform caches the rows while it is open); commit messages are not read (the log does not hold them). Merging
 * closes those the merger may update (`issuesClosedByMerge`; the merge route closes each as the merger).
 */
import { findRepository, defaultBranchOf, mergeRequestsOf, findMergeRequest } from '../repositories/queries.js';
import type { MergeRequest } from '../repositories/projection.js';
import { canDownloadCode } from '../access/abilities.js';
import type { Issue } from '../issues/projection.js';
import { canReadIssue, canUpdateIssue, findIssue } from '../issues/queries.js';
import type { Project } from '../projects/projection.js';
import { projectReferenceBase } from '../projects/queries.js';
import { referencedNoteables } from './mentions.js';
import type { DiscussionsView } from './projection.js';
import { noteableKey, notesOfNoteable } from './queries.js';

/** `Issue.reference_pattern` or `Issue.link_reference_pattern`, loosely: what `referencedNoteables` then reads. */
const ISSUE_REF = String.raw`(?:https?:\/\/[^\s<>"'()\[\]]+\/issues\/\d+|(?:[A-Za-z0-9_.][A-Za-z0-9_.\/-]*)?#\d+)`;
/** The default `issue_closing_pattern` (gitlab.yml, 14.x) with `%{issue_ref}` filled in. */
const CLOSING_STATEMENT = new RegExp(
  String.raw`\b((?:[Cc]los(?:e[sd]?|ing)|\b[Ff]ix(?:e[sd]|ing)?|\b[Rr]esolv(?:e[sd]?|ing)|\b[Ii]mplement(?:s|ed|ing)?)(:?) +(?:(?:issues? +)?${ISSUE_REF}(?:(?: *,? +and +| *,? *)?)|([A-Z][A-Z0-9_]+-\d+))+)`,
  'g',
);

/** The issues a merge request closes when merged, with their projects. */
const closingIssues = (state: DiscussionsView, project: Project, mr: MergeRequest): { readonly project: Project; readonly issue: Issue }[] => {
  const repository = findRepository(state.repositories, project.id);
  if (!repository || mr.target_branch !== defaultBranchOf(repository)) return [];
  const statements = [...`${mr.title}\n${mr.description}`.matchAll(CLOSING_STATEMENT)].map((match) => match[0]);
  if (statements.length === 0) return [];
  const out: { project: Project; issue: Issue }[] = [];
  for (const noteable of referencedNoteables(state, statements.join(' '), project)) {
    const issue = noteable.type === 'Issue' && noteable.project && noteable.iid !== null ? findIssue(state.issues, noteable.project.id, noteable.iid) : undefined;
    if (issue) out.push({ project: noteable.project!, issue });
  }
  return out;
};

/** The ids of the issues a merge request closes when merged. */
export const issuesClosedBy = (state: DiscussionsView, project: Project, mr: MergeRequest): number[] => closingIssues(state, project, mr).map(({ issue }) => issue.id);

/**
 * What merging closes (`MergeRequests::PostMergeService#close_issues`): its open closing issues that the merger may
 * update (`visible_closing_issues_for`, then `can?(current_user, :update_issue, issue)`).
 */
export const issuesClosedByMerge = (state: DiscussionsView, merger: number | null, project: Project, mr: MergeRequest): Issue[] =>
  closingIssues(state, project, mr)
    .filter(({ project: of, issue }) => issue.state === 'opened' && (merger === null || canUpdateIssue(state, merger, of, issue)))
    .map(({ issue }) => issue);

/**
 * `GET …/merge_requests/:iid/closes_issues` (`visible_closing_issues_for`): the issues it closes when merged, open or
 * closed, that the viewer may read, with their projects.
 */
export const visibleClosingIssues = (state: DiscussionsView, viewer: number | null, project: Project, mr: MergeRequest): { readonly project: Project; readonly issue: Issue }[] =>
  closingIssues(state, project, mr).filter(({ project: of, issue }) => canReadIssue(state, viewer, of, issue));

/** `closed_by`: the merge requests of the issue's project that close it and that the viewer reads, newest first. */
export const mergeRequestsClosing = (state: DiscussionsView, viewer: number | null, project: Project, issue: Issue): MergeRequest[] =>
  canDownloadCode(state, viewer, project)
    ? mergeRequestsOf(state.repositories, project.id)
        .filter((mr) => issuesClosedBy(state, project, mr).includes(issue.id))
        .sort((a, b) => b.id - a.id)
    : [];

/** `VersionSorter`'s order: runs of digits compare as numbers. */
const naturalCompare = (a: string, b: string): number => {
  const chunks = (text: string) => text.match(/\d+|\D+/g) ?? [];
  const [x, y] = [chunks(a), chunks(b)];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const [p, q] = [x[i]!, y[i]!];
    const numeric = /^\d/.test(p) && /^\d/.test(q);
    const order = numeric ? Number(p) - Number(q) : p < q ? -1 : p > q ? 1 : 0;
    if (order !== 0) return order;
  }
  return x.length - y.length;
};

/**
 * `related_merge_requests` (`ReferencedMergeRequestsService#execute(issue).first`): the merge requests the issue's
 * title, description and notes reference (the cross references "mentioned in merge request !1" among them) that the
 * viewer reads, each once, in `Gitlab::IssuableSorter`'s order: the issue's project, then its namespace's other
 * projects, then the rest, each group by the merge request's reference from the issue's project, naturally.
 */
export const relatedMergeRequests = (state: DiscussionsView, viewer: number | null, project: Project, issue: Issue): MergeRequest[] => {
  const texts = [issue.title, issue.description, ...notesOfNoteable(state.discussions, noteableKey('Issue', issue.id)).map((note) => note.body)];
  const found = new Map<number, { mr: MergeRequest; level: number; reference: string }>();
  for (const text of texts) {
    for (const noteable of referencedNoteables(state, text, project)) {
      if (noteable.type !== 'MergeRequest' || noteable.project === null || noteable.iid === null || !noteable.readableBy(viewer)) continue;
      const mr = findMergeRequest(state.repositories, noteable.project.id, noteable.iid);
      if (!mr) continue;
      // The reference's base says the level: none (the issue's project), a path (its namespace), a full path.
      const base = projectReferenceBase(noteable.project, project);
      const level = base === '' ? 0 : base.includes('/') ? 2 : 1;
      found.set(mr.id, { mr, level, reference: `${base}!${mr.iid}` });
    }
  }
  return [...found.values()].sort((a, b) => a.level - b.level || naturalCompare(a.reference, b.reference)).map(({ mr }) => mr);
};

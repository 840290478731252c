/** The issues module's decisions. */
import * as E from 'fp-ts/lib/Either.js';
import { conflict, forbidden, notFound, unprocessable, type DomainError } from '../../kernel/domain-error.js';
import { decideByType, type IssuedAs } from '../../kernel/decider.js';
import { canOnProject, canReadProject, effectiveProjectAccess, isAdmin } from '../access/abilities.js';
import { AccessLevel } from '../shared/access.js';
import { findProject } from '../projects/queries.js';
import type { Project } from '../projects/projection.js';
import { Errors, isRubyBlank, MAX_NAME, rubyStrip, sameMembers } from '../shared/validation.js';
import type { IssueCommand } from './commands.js';
import type { IssueEvent } from './events.js';
import type { IssuesView } from './projection.js';
import { canAdminIssueLink, canCreateIssue, canReadIssue, canUpdateIssue, findIssue, findIssueById, findIssueLink, issueReference, linksOf } from './queries.js';
import { tableGet } from '../../kernel/table.js';

type Decided = E.Either<DomainError, readonly IssueEvent[]>;

const MAX_DESCRIPTION = 1_048_576;

const checkText = (title: string | undefined, description: string | undefined) =>
  new Errors()
    .check(title === undefined || !isRubyBlank(title), 'title', "can't be blank")
    .maxLength('title', title, MAX_NAME)
    .maxLength('description', description, MAX_DESCRIPTION);

/**
 * `set_issue_metadata` (IssuePolicy, 14.x): Reporters and above (`admin_issue`); on a new issue any project member
 * too. Without it `filter_params` drops labels, assignees, milestone and due date without a word.
 */
const maySetMetadata = (state: IssuesView, userId: number | null, project: Project, creating: boolean): boolean =>
  userId === null || canOnProject(state, userId, 'admin_issue', project) || (creating && effectiveProjectAccess(state, userId, project) >= AccessLevel.GUEST);

/** `set_issue_created_at` / `set_issue_updated_at` (and `iid`): administrators and the project's owners. */
const mayBackdateIn = (state: IssuesView, userId: number | null, project: Project): boolean =>
  userId === null || isAdmin(state, userId) || canOnProject(state, userId, 'remove_project', project);

const uniq = (values: readonly string[]): string[] => [...new Set(values.map(rubyStrip).filter((value) => value !== ''))];

const decideCreate = ({ command, actor, at }: IssuedAs<IssueCommand, 'CreateIssue'>, state: IssuesView): Decided => {
  const project = findProject(state.projects, command.project_id);
  if (!project || (actor.userId !== null && !canCreateIssue(state, actor.userId, project))) return E.left(project ? forbidden() : notFound('Project'));
  const errors = checkText(command.title, command.description);
  if (!errors.empty) return errors.toEither([]);
  const mayBackdate = mayBackdateIn(state, actor.userId, project);
  const metadata = maySetMetadata(state, actor.userId, project, true);
  // `iid` (`set_issue_iid`, as `created_at`): one in use is the unique index's `RecordNotUnique`, "Duplicated issue".
  const given = mayBackdate && command.iid !== undefined && command.iid > 0 ? command.iid : undefined;
  if (given !== undefined && findIssue(state.issues, project.id, given)) return E.left(conflict('Duplicated issue'));
  const iid = given ?? (tableGet(state.issues.byProject, project.id)?.last_iid ?? 0) + 1;
  return E.right([
    {
      type: 'IssueCreated',
      data: {
        project_id: project.id,
        id: state.issues.sequence + 1,
        iid,
        title: command.title,
        description: command.description ?? '',
        confidential: command.confidential ?? false,
        labels: metadata ? uniq(command.labels ?? []) : [],
        assignee_ids: metadata ? [...(command.assignee_ids ?? [])] : [],
        ...(metadata && command.due_date !== undefined ? { due_date: command.due_date } : {}),
        ...(metadata && command.discussion_locked !== undefined ? { discussion_locked: command.discussion_locked } : {}),
        author_id: actor.userId,
        created_at: mayBackdate && command.created_at ? command.created_at : at,
      },
    },
  ]);
};

const decideUpdate = ({ command, actor, at }: IssuedAs<IssueCommand, 'UpdateIssue'>, state: IssuesView): Decided => {
  const project = findProject(state.projects, command.project_id);
  const issue = project ? findIssue(state.issues, project.id, command.iid) : undefined;
  if (!project || !issue) return E.left(notFound(project ? 'Issue' : 'Project'));
  // `find_by!` then `authorize! :update_issue`: an issue the caller may not read is refused, not hidden.
  if (actor.userId !== null && !canUpdateIssue(state, actor.userId, project, issue)) return E.left(forbidden());
  const errors = checkText(command.title, command.description);
  if (!errors.empty) return errors.toEither([]);
  // Without `set_issue_metadata` these are dropped, and so is `confidential` (`Issues::UpdateService#filter_params`).
  const metadata = maySetMetadata(state, actor.userId, project, false);
  const changes: { title?: string; previous_title?: string; description?: string; confidential?: boolean; labels?: string[]; assignee_ids?: number[]; previous_assignee_ids?: number[]; due_date?: string | null; discussion_locked?: boolean } = {};
  if (command.title !== undefined && command.title !== issue.title) Object.assign(changes, { title: command.title, previous_title: issue.title });
  if (command.description !== undefined && command.description !== issue.description) changes.description = command.description;
  if (metadata && command.confidential !== undefined && command.confidential !== issue.confidential) changes.confidential = command.confidential;
  if (metadata && command.labels !== undefined && !sameMembers(issue.labels, uniq(command.labels))) changes.labels = uniq(command.labels);
  if (metadata && command.assignee_ids !== undefined && !sameMembers(issue.assignee_ids, command.assignee_ids)) {
    Object.assign(changes, { assignee_ids: [...command.assignee_ids], previous_assignee_ids: [...issue.assignee_ids] });
  }
  if (metadata && command.due_date !== undefined && command.due_date !== (issue.due_date ?? null)) changes.due_date = command.due_date;
  if (metadata && command.discussion_locked !== undefined && command.discussion_locked !== (issue.discussion_locked ?? null)) changes.discussion_locked = command.discussion_locked;
  const base = { project_id: project.id, id: issue.id, iid: issue.iid };
  const events: IssueEvent[] = [];
  // `updated_at` (`set_issue_updated_at`: administrators and owners) dates the update and its system notes
  // (`system_note_timestamp`).
  const mayBackdate = mayBackdateIn(state, actor.userId, project);
  const updatedAt = mayBackdate && command.updated_at !== undefined ? command.updated_at : at;
  if (Object.keys(changes).length > 0) events.push({ type: 'IssueUpdated', data: { ...base, updated_by_id: actor.userId, updated_at: updatedAt, ...changes } });
  if (command.state_event === 'close' && issue.state === 'opened') events.push({ type: 'IssueClosed', data: { ...base, closed_by_id: actor.userId, at } });
  if (command.state_event === 'reopen' && issue.state === 'closed') events.push({ type: 'IssueReopened', data: { ...base, at } });
  return E.right(events);
};

const decideDelete = ({ command, actor, at }: IssuedAs<IssueCommand, 'DeleteIssue'>, state: IssuesView): Decided => {
  const project = findProject(state.projects, command.project_id);
  const issue = project ? findIssue(state.issues, project.id, command.iid) : undefined;
  if (!project || !issue) return E.left(notFound(project ? 'Issue' : 'Project'));
  // `find_by` then `authorize!(:destroy_issue)`: an issue the caller may not read is refused, not hidden.
  if (actor.userId !== null && !canOnProject(state, actor.userId, 'destroy_issue', project)) return E.left(forbidden());
  return E.right([{ type: 'IssueDeleted', data: { project_id: project.id, id: issue.id, iid: issue.iid, at } }]);
};

/**
 * `find_project_issue` then `subscribe`/`unsubscribe` (lib/api/subscriptions.rb): a signed-in user who reads the issue.
 * Whether the request changes anything (the API's 304) is the caller's question: participation lives in the
 * discussions module. The same choice twice records it twice; only the last one counts.
 */
const decideSubscription = ({ command, actor, at }: IssuedAs<IssueCommand, 'SetIssueSubscription'>, state: IssuesView): Decided => {
  const project = findProject(state.projects, command.project_id);
  const issue = project ? findIssue(state.issues, project.id, command.iid) : undefined;
  if (!project || !issue || (actor.userId !== null && !canReadIssue(state, actor.userId, project, issue))) return E.left(notFound(project ? 'Issue' : 'Project'));
  if (actor.userId === null) return E.left(forbidden('only a user subscribes'));
  const data = { project_id: project.id, id: issue.id, iid: issue.iid, user_id: actor.userId, at };
  return E.right([command.subscribed ? { type: 'IssueSubscribed', data } : { type: 'IssueUnsubscribed', data }]);
};

const ISSUE_NOT_FOUND = notFound(undefined, '404 Not found');

/**
 * `IssueLinks::CreateService` (14.7): both issues readable (`find_project_issue`, "404 Not found"); an issue already
 * linked either way is a 409; `admin_issue_link` on the target, else "No matching issue found"; the issue itself a 422.
 */
const decideCreateLink = ({ command, actor, at }: IssuedAs<IssueCommand, 'CreateIssueLink'>, state: IssuesView): Decided => {
  const project = findProject(state.projects, command.project_id);
  const source = project ? findIssue(state.issues, project.id, command.iid) : undefined;
  if (!project || !canReadProject(state, actor.userId, project)) return E.left(notFound('Project'));
  if (!source || !canReadIssue(state, actor.userId, project, source)) return E.left(ISSUE_NOT_FOUND);
  const targetProject = findProject(state.projects, command.target_project_id);
  if (!targetProject || !canReadProject(state, actor.userId, targetProject)) return E.left(notFound('Project'));
  const target = findIssue(state.issues, targetProject.id, command.target_iid);
  if (!target || !canReadIssue(state, actor.userId, targetProject, target)) return E.left(ISSUE_NOT_FOUND);
  // `execute` answers "already assigned" before it looks at whether the target may be linked.
  if (linksOf(state.issues, source).some(({ other }) => other.id === target.id)) return E.left(conflict('Issue(s) already assigned'));
  if (actor.userId !== null && !canAdminIssueLink(state, actor.userId, targetProject, target)) {
    return E.left(notFound(undefined, 'No matching issue found. Make sure that you are adding a valid issue URL.'));
  }
  if (target.id === source.id) return E.left(unprocessable(`${issueReference(target.iid, targetProject, project)} cannot be added: cannot be related to itself`));
  return E.right([
    {
      type: 'IssueLinkCreated',
      data: {
        id: state.issues.link_sequence + 1,
        source: { project_id: project.id, id: source.id, iid: source.iid },
        target: { project_id: targetProject.id, id: target.id, iid: target.iid },
        link_type: command.link_type ?? 'relates_to',
        author_id: actor.userId,
        at,
      },
    },
  ]);
};

/** `IssueLinks::DestroyService`: `admin_issue_link` on both issues, else "No Issue Link found". */
const decideDestroyLink = ({ command, actor, at }: IssuedAs<IssueCommand, 'DestroyIssueLink'>, state: IssuesView): Decided => {
  const link = findIssueLink(state.issues, command.link_id);
  const source = link && findIssueById(state.issues, link.source_id);
  const target = link && findIssueById(state.issues, link.target_id);
  if (!link || !source || !target) return E.left(ISSUE_NOT_FOUND);
  const sourceProject = findProject(state.projects, source.project_id);
  const targetProject = findProject(state.projects, target.project_id);
  if (!sourceProject || !targetProject) return E.left(ISSUE_NOT_FOUND);
  if (actor.userId !== null && !(canAdminIssueLink(state, actor.userId, sourceProject, source) && canAdminIssueLink(state, actor.userId, targetProject, target))) {
    return E.left(notFound(undefined, 'No Issue Link found'));
  }
  return E.right([
    {
      type: 'IssueLinkDestroyed',
      data: {
        id: link.id,
        source: { project_id: source.project_id, id: source.id, iid: source.iid },
        target: { project_id: target.project_id, id: target.id, iid: target.iid },
        author_id: actor.userId,
        at,
      },
    },
  ]);
};

export const decide = decideByType<IssueCommand, IssuesView, Decided>({
  CreateIssue: decideCreate,
  UpdateIssue: decideUpdate,
  DeleteIssue: decideDelete,
  SetIssueSubscription: decideSubscription,
  CreateIssueLink: decideCreateLink,
  DestroyIssueLink: decideDestroyLink,
});

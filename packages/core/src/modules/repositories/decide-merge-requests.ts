/** Decisions about merge requests (`MergeRequests::CreateService`, `UpdateService`, `MergeService`). */
import * as E from 'fp-ts/lib/Either.js';
import { badRequest, conflict, forbidden, methodNotAllowed, notFound, unauthorized, unprocessable, validation, type DomainError } from '../../kernel/domain-error.js';
import type { Issued } from '../../kernel/decider.js';
import type { Project } from '../projects/projection.js';
import type { RepositoryCommand, VersionFact } from './commands.js';
import type { RepositoryEvent } from './events.js';
import { branchRef, type MergeRequest, type Repository, type RepositoriesView } from './projection.js';
import { canMergeToBranch, canPushToBranch, canRepository } from './policy.js';
import { branchSha, currentVersion, findMergeRequest, findRepository, mergeRequestsOf } from './queries.js';
import { versionEvents } from './decide-refs.js';
import { findProject } from '../projects/queries.js';
import { effectiveProjectAccess } from '../access/abilities.js';
import { AccessLevel } from '../shared/access.js';
import { isRubyBlank, sameMembers } from '../shared/validation.js';

type State = RepositoriesView;

type Command<T extends RepositoryCommand['type']> = Extract<RepositoryCommand, { type: T }>;
type Decided = E.Either<DomainError, readonly RepositoryEvent[]>;

const MERGE_REQUEST_MESSAGES = {
  same_branch: "You can't use same project/branch for source and target",
  source_missing: (branch: string) => `Source branch "${branch}" does not exist`,
  target_missing: (branch: string) => `Target branch "${branch}" does not exist`,
  duplicate: (iid: number) => `Another open merge request already exists for this source branch: !${iid}`,
} as const;

const locate = (state: State, projectId: number): E.Either<DomainError, { project: Project; repository: Repository }> => {
  const project = findProject(state.projects, projectId);
  if (!project) return E.left(notFound('Project'));
  const repository = findRepository(state.repositories, project.id);
  return repository ? E.right({ project, repository }) : E.left(notFound());
};

const locateMergeRequest = (state: State, projectId: number, iid: number): E.Either<DomainError, { project: Project; repository: Repository; mr: MergeRequest }> => {
  const located = locate(state, projectId);
  if (E.isLeft(located)) return located;
  const mr = findMergeRequest(state.repositories, projectId, iid);
  return mr ? E.right({ ...located.right, mr }) : E.left(notFound('Merge Request'));
};

/** The branch rules of `MergeRequest#validate_branches` and `BuildService`: distinct, existing, no open duplicate. */
const checkBranches = (state: State, repository: Repository, source: string, target: string, self: MergeRequest | null): DomainError | null => {
  if (source === target) return unprocessable(MERGE_REQUEST_MESSAGES.same_branch);
  if (branchSha(repository, source) === null) return conflict(MERGE_REQUEST_MESSAGES.source_missing(source));
  if (branchSha(repository, target) === null) return conflict(MERGE_REQUEST_MESSAGES.target_missing(target));
  const duplicate = mergeRequestsOf(state.repositories, repository.project_id).find(
    (other) => other.state === 'opened' && other.source_branch === source && other.target_branch === target && other.id !== self?.id,
  );
  return duplicate ? conflict(MERGE_REQUEST_MESSAGES.duplicate(duplicate.iid)) : null;
};

const versionEvent = (state: State, projectId: number, iid: number, fact: Omit<VersionFact, 'iid'>, at: string): RepositoryEvent => ({
  type: 'MergeRequestVersionCreated',
  data: {
    project_id: projectId,
    iid,
    id: state.repositories.sequences.merge_request_diff + 1,
    head_commit_sha: fact.head_commit_sha,
    base_commit_sha: fact.base_commit_sha,
    start_commit_sha: fact.start_commit_sha,
    created_at: at,
  },
});

export const decideCreateMergeRequest = (issued: Issued<Command<'CreateMergeRequest'>>, state: State): Decided => {
  const { command, actor, at } = issued;
  const located = locate(state, command.project_id);
  if (E.isLeft(located)) return located;
  const { project, repository } = located.right;
  if (actor.userId !== null && !canRepository(state, actor.userId, project, 'create_merge_request_in')) return E.left(forbidden());
  if (isRubyBlank(command.title)) return E.left(validation({ title: ["can't be blank"] }));
  const refused = checkBranches(state, repository, command.source_branch, command.target_branch, null);
  if (refused) return E.left(refused);
  // The shell read the version from git; the branches must still be where the log has them.
  const { version } = command;
  if (version === null || version.head_commit_sha !== branchSha(repository, command.source_branch) || version.start_commit_sha !== branchSha(repository, command.target_branch)) {
    return E.left(badRequest('the branches moved meanwhile; try again'));
  }
  const iid = repository.merge_request_iid + 1;
  return E.right([
    {
      type: 'MergeRequestCreated',
      data: {
        project_id: project.id,
        id: state.repositories.sequences.merge_request + 1,
        iid,
        title: command.title,
        description: command.description ?? '',
        source_branch: command.source_branch,
        target_branch: command.target_branch,
        author_id: actor.userId,
        assignee_ids: [...(command.assignee_ids ?? [])],
        ...(command.reviewer_ids && command.reviewer_ids.length > 0 ? { reviewer_ids: [...command.reviewer_ids] } : {}),
        ...(command.labels && command.labels.length > 0 ? { labels: [...command.labels] } : {}),
        squash: command.squash ?? false,
        remove_source_branch: command.remove_source_branch ?? null,
        created_at: at,
      },
    },
    versionEvent(state, project.id, iid, version, at),
  ]);
};

/**
 * `update_merge_request` (14.7): Developers and above (administrators), or its author or an assignee who is a member
 * of the project (IssuablePolicy `can?(:guest_access) & assignee_or_author`); an author who left does not.
 */
export const canUpdateMergeRequest = (state: State, userId: number, project: Project, mr: MergeRequest): boolean =>
  canRepository(state, userId, project, 'update_merge_request') ||
  ((mr.author_id === userId || mr.assignee_ids.includes(userId)) && effectiveProjectAccess(state, userId, project) >= AccessLevel.GUEST);

export const decideUpdateMergeRequest = (issued: Issued<Command<'UpdateMergeRequest'>>, state: State): Decided => {
  const { command, actor, at } = issued;
  const located = locateMergeRequest(state, command.project_id, command.iid);
  if (E.isLeft(located)) return located;
  const { project, repository, mr } = located.right;
  if (actor.userId !== null && !canUpdateMergeRequest(state, actor.userId, project, mr)) return E.left(forbidden());
  // `filter_params`: without `admin_merge_request` (Developers) labels, assignees, reviewers and the lock are dropped.
  const metadata = actor.userId === null || canRepository(state, actor.userId, project, 'update_merge_request');
  if (command.title !== undefined && isRubyBlank(command.title)) return E.left(validation({ title: ["can't be blank"] }));
  const targetChanges = command.target_branch !== undefined && command.target_branch !== mr.target_branch;
  if (targetChanges && mr.state === 'opened') {
    const refused = checkBranches(state, repository, mr.source_branch, command.target_branch!, mr);
    if (refused) return E.left(refused);
  }
  const events: RepositoryEvent[] = [];
  const changes: { -readonly [K in 'title' | 'description' | 'target_branch' | 'squash']?: MergeRequest[K] } & {
    remove_source_branch?: boolean;
    previous_title?: string;
    previous_target_branch?: string;
    previous_assignee_ids?: number[];
    previous_reviewer_ids?: number[];
    discussion_locked?: boolean;
    assignee_ids?: number[];
    reviewer_ids?: number[];
    labels?: string[];
  } = {};
  if (command.title !== undefined && command.title !== mr.title) Object.assign(changes, { title: command.title, previous_title: mr.title });
  if (command.description !== undefined && command.description !== mr.description) changes.description = command.description;
  if (targetChanges) Object.assign(changes, { target_branch: command.target_branch!, previous_target_branch: mr.target_branch });
  if (metadata && command.discussion_locked !== undefined && command.discussion_locked !== (mr.discussion_locked ?? null)) changes.discussion_locked = command.discussion_locked;
  if (command.squash !== undefined && command.squash !== mr.squash) changes.squash = command.squash;
  if (command.remove_source_branch !== undefined && command.remove_source_branch !== mr.remove_source_branch) changes.remove_source_branch = command.remove_source_branch;
  if (metadata && command.assignee_ids !== undefined && !sameMembers(mr.assignee_ids, command.assignee_ids)) {
    Object.assign(changes, { assignee_ids: [...command.assignee_ids], previous_assignee_ids: [...mr.assignee_ids] });
  }
  if (metadata && command.reviewer_ids !== undefined && !sameMembers(mr.reviewer_ids, command.reviewer_ids)) {
    Object.assign(changes, { reviewer_ids: [...command.reviewer_ids], previous_reviewer_ids: [...mr.reviewer_ids] });
  }
  if (metadata && command.labels !== undefined && !sameMembers(mr.labels, command.labels)) changes.labels = [...command.labels];
  if (Object.keys(changes).length > 0) events.push({ type: 'MergeRequestUpdated', data: { project_id: project.id, iid: mr.iid, updated_at: at, ...changes, updated_by_id: actor.userId } });
  if (command.state_event === 'close' && mr.state === 'opened') events.push({ type: 'MergeRequestClosed', data: { project_id: project.id, iid: mr.iid, closed_by_id: actor.userId, at } });
  // A closed merge request reopens only while both branches exist (`MergeRequest#reopenable?`), and not while its
  // discussion is locked (MergeRequestPolicy `rule { locked }.prevent :reopen_merge_request`; `ReopenService` then
  // does nothing). The state changes before the other attributes, so the lock is the one held before this update.
  const reopenable = mr.state === 'closed' && mr.discussion_locked !== true && branchSha(repository, mr.source_branch) !== null && branchSha(repository, changes.target_branch ?? mr.target_branch) !== null;
  if (command.state_event === 'reopen' && reopenable) events.push({ type: 'MergeRequestReopened', data: { project_id: project.id, iid: mr.iid, at } });
  const head = currentVersion(mr);
  const fact = command.version;
  const stale = fact && (targetChanges || fact.head_commit_sha !== head?.head_commit_sha || fact.start_commit_sha !== head?.start_commit_sha);
  if (fact && stale && fact.head_commit_sha === branchSha(repository, mr.source_branch)) events.push(versionEvent(state, project.id, mr.iid, fact, at));
  return E.right(events);
};

/** `MergeRequest#can_be_merged_by?`: may push or merge to the target branch. */
export const canMergeMergeRequest = (state: State, userId: number | null, project: Project, repository: Repository, mr: MergeRequest): boolean =>
  userId === null || canPushToBranch(state, userId, project, repository, mr.target_branch) || canMergeToBranch(state, userId, project, repository, mr.target_branch);

export const decideMergeMergeRequest = (issued: Issued<Command<'MergeMergeRequest'>>, state: State): Decided => {
  const { command, actor, at } = issued;
  const located = locateMergeRequest(state, command.project_id, command.iid);
  if (E.isLeft(located)) return located;
  const { project, repository, mr } = located.right;
  if (!canMergeMergeRequest(state, actor.userId, project, repository, mr)) return E.left(unauthorized);
  if (mr.state !== 'opened') return E.left(methodNotAllowed());
  const target = branchSha(repository, mr.target_branch);
  if (target !== command.old_sha) return E.left({ _tag: 'BadRequest', message: `Could not update ${branchRef(mr.target_branch)}. Please refresh and try again.` });
  if (branchSha(repository, mr.source_branch) !== command.source_sha) return E.left(conflict(`SHA does not match HEAD of source branch: ${branchSha(repository, mr.source_branch) ?? ''}`));
  const events: RepositoryEvent[] = [
    {
      type: 'BranchUpdated',
      data: { project_id: project.id, name: mr.target_branch, old_sha: command.old_sha, new_sha: command.merge_commit_sha, forced: false, via: 'api' },
    },
    {
      type: 'MergeRequestMerged',
      data: {
        project_id: project.id,
        iid: mr.iid,
        merged_by_id: actor.userId,
        merge_commit_sha: command.merge_commit_sha,
        at,
        ...(command.should_remove_source_branch !== undefined ? { should_remove_source_branch: command.should_remove_source_branch } : {}),
      },
    },
  ];
  return E.right([...events, ...versionEvents(state, project.id, [{ branch: mr.target_branch, sha: command.merge_commit_sha }], command.versions ?? [], at, 0, actor.userId)]);
};

/** `Issuable::DestroyService` after `authorize!(:destroy_merge_request)`: Owners and administrators. */
export const decideDeleteMergeRequest = (issued: Issued<Command<'DeleteMergeRequest'>>, state: State): Decided => {
  const { command, actor } = issued;
  const located = locateMergeRequest(state, command.project_id, command.iid);
  if (E.isLeft(located)) return located;
  const { project, mr } = located.right;
  if (actor.userId !== null && !canRepository(state, actor.userId, project, 'destroy_merge_request')) return E.left(forbidden());
  return E.right([{ type: 'MergeRequestDeleted', data: { project_id: project.id, iid: mr.iid, id: mr.id } }]);
};

/**
 * EE `ApprovalState#can_approve?` with no approval rules: `approve_merge_request` (MergeRequestPolicy 14.7:
 * `can?(:update_merge_request)`, administrators and member assignees included), not yet approved, and not its
 * author (`merge_requests_author_approval` is off by default).
 */
export const canApproveMergeRequest = (state: State, userId: number | null, project: Project, mr: MergeRequest): boolean => {
  if (userId === null || mr.approved_by.includes(userId) || mr.author_id === userId) return false;
  return canUpdateMergeRequest(state, userId, project, mr);
};

export const decideApproveMergeRequest = (issued: Issued<Command<'ApproveMergeRequest'>>, state: State): Decided => {
  const { command, actor, at } = issued;
  const located = locateMergeRequest(state, command.project_id, command.iid);
  if (E.isLeft(located)) return located;
  const { project, mr } = located.right;
  if (actor.userId === null || !canApproveMergeRequest(state, actor.userId, project, mr)) return E.left(unauthorized);
  return E.right([{ type: 'MergeRequestApproved', data: { project_id: project.id, iid: mr.iid, user_id: actor.userId, at } }]);
};

/** `not_found! unless merge_request.has_approved?(current_user)`. */
export const decideUnapproveMergeRequest = (issued: Issued<Command<'UnapproveMergeRequest'>>, state: State): Decided => {
  const { command, actor, at } = issued;
  const located = locateMergeRequest(state, command.project_id, command.iid);
  if (E.isLeft(located)) return located;
  const { project, mr } = located.right;
  if (actor.userId === null || !mr.approved_by.includes(actor.userId)) return E.left(notFound());
  return E.right([{ type: 'MergeRequestUnapproved', data: { project_id: project.id, iid: mr.iid, user_id: actor.userId, at } }]);
};

/**
 * `subscribe`/`unsubscribe` (lib/api/subscriptions.rb) by a signed-in reader. Whether it changes anything (the 304)
 * is the route's question, participation living in the discussions module; only the last choice counts.
 */
export const decideSetMergeRequestSubscription = (issued: Issued<Command<'SetMergeRequestSubscription'>>, state: State): Decided => {
  const { command, actor, at } = issued;
  const located = locateMergeRequest(state, command.project_id, command.iid);
  if (E.isLeft(located)) return located;
  const { project, mr } = located.right;
  if (actor.userId === null) return E.left(forbidden('only a user subscribes'));
  if (!canRepository(state, actor.userId, project, 'read_merge_request')) return E.left(notFound('Merge Request'));
  // The same explicit choice again (two requests racing past the route's 304) changes nothing.
  if (mr.subscriptions?.[actor.userId] === command.subscribed) return E.right([]);
  const data = { project_id: project.id, iid: mr.iid, user_id: actor.userId, at };
  return E.right([command.subscribed ? { type: 'MergeRequestSubscribed', data } : { type: 'MergeRequestUnsubscribed', data }]);
};

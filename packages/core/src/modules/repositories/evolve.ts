/** The repositories module's evolve: refs, protected refs and merge requests, from the module's own events. */
import type { Draft } from 'immer';
import { emptyTable, tableDelete, tableGet, tableSet, tableValues } from '../../kernel/table.js';
import type { Writable } from '../../kernel/module.js';
import { indexOwners, reindexAssignees } from '../shared/owners.js';
import type { ProjectEvent } from '../projects/events.js';
import type { RepositoryEvent } from './events.js';
import { branchRef, tagRef, type MergeRequest, type RefAccessLevel, type RepositoriesSlice, type Repository } from './projection.js';

export type RepositoriesDraft = Writable<{ readonly repositories: RepositoriesSlice }, 'repositories'>;
type MutableState = RepositoriesDraft;

const repositoryOf = (state: MutableState, projectId: number): Draft<Repository> | undefined => tableGet(state.repositories.byProject, projectId);

const raise = (state: MutableState, key: keyof MutableState['repositories']['sequences'], id: number): void => {
  if (id > state.repositories.sequences[key]) state.repositories.sequences[key] = id;
};

const raiseLevels = (state: MutableState, levels: readonly RefAccessLevel[]): void => {
  for (const level of levels) raise(state, 'access_level', level.id);
};

const setRef = (repository: Draft<Repository>, ref: string, sha: string | null, kind: 'branch' | 'tag'): void => {
  const had = tableGet(repository.refs, ref) !== undefined;
  if (sha === null) tableDelete(repository.refs, ref);
  else tableSet(repository.refs, ref, sha);
  const delta = (sha !== null ? 1 : 0) - (had ? 1 : 0);
  if (kind === 'branch') repository.branch_count += delta;
  else repository.tag_count += delta;
};

const mergeRequestOf = (state: MutableState, projectId: number, iid: number): Draft<MergeRequest> | undefined => {
  const repository = repositoryOf(state, projectId);
  const id = repository ? tableGet(repository.merge_requests, iid) : undefined;
  return id === undefined ? undefined : tableGet(state.repositories.mergeRequests, id);
};

export const evolve = (state: MutableState, event: RepositoryEvent): void => {
  switch (event.type) {
    case 'DefaultBranchChanged': {
      const repository = repositoryOf(state, event.data.project_id);
      if (repository) repository.default_branch = event.data.default_branch;
      return;
    }
    case 'BranchCreated': {
      const repository = repositoryOf(state, event.data.project_id);
      if (repository) setRef(repository, branchRef(event.data.name), event.data.sha, 'branch');
      return;
    }
    case 'BranchUpdated': {
      const repository = repositoryOf(state, event.data.project_id);
      if (repository) setRef(repository, branchRef(event.data.name), event.data.new_sha, 'branch');
      return;
    }
    case 'BranchDeleted': {
      const repository = repositoryOf(state, event.data.project_id);
      if (repository) setRef(repository, branchRef(event.data.name), null, 'branch');
      return;
    }
    case 'TagCreated':
    case 'TagUpdated': {
      const repository = repositoryOf(state, event.data.project_id);
      if (!repository) return;
      setRef(repository, tagRef(event.data.name), event.data.target, 'tag');
      if (event.data.committed_date === null) tableDelete(repository.tag_dates, event.data.name);
      else tableSet(repository.tag_dates, event.data.name, event.data.committed_date);
      return;
    }
    case 'TagDeleted': {
      const repository = repositoryOf(state, event.data.project_id);
      if (!repository) return;
      setRef(repository, tagRef(event.data.name), null, 'tag');
      tableDelete(repository.tag_dates, event.data.name);
      return;
    }
    case 'ProtectedTagCreated': {
      const { project_id, ...rule } = event.data;
      const repository = repositoryOf(state, project_id);
      if (!repository) return;
      repository.protected_tags.push(rule);
      raise(state, 'protected_ref', rule.id);
      raiseLevels(state, rule.create_access_levels);
      return;
    }
    case 'ProtectedTagDeleted': {
      const repository = repositoryOf(state, event.data.project_id);
      if (repository) repository.protected_tags = repository.protected_tags.filter((rule) => rule.id !== event.data.id);
      return;
    }
    case 'ProtectedBranchCreated': {
      const { project_id, ...rule } = event.data;
      const repository = repositoryOf(state, project_id);
      if (!repository) return;
      repository.protected_branches.push(rule);
      raise(state, 'protected_ref', rule.id);
      raiseLevels(state, [...rule.push_access_levels, ...rule.merge_access_levels, ...rule.unprotect_access_levels]);
      return;
    }
    case 'ProtectedBranchUpdated': {
      const repository = repositoryOf(state, event.data.project_id);
      const rule = repository?.protected_branches.find((candidate) => candidate.id === event.data.id);
      if (!rule) return;
      rule.push_access_levels = event.data.push_access_levels;
      rule.merge_access_levels = event.data.merge_access_levels;
      raiseLevels(state, [...event.data.push_access_levels, ...event.data.merge_access_levels]);
      return;
    }
    case 'ProtectedBranchCodeOwnerApprovalSet': {
      const rule = repositoryOf(state, event.data.project_id)?.protected_branches.find((candidate) => candidate.id === event.data.id);
      if (rule) rule.code_owner_approval_required = event.data.code_owner_approval_required;
      return;
    }
    case 'ProtectedBranchDeleted': {
      const repository = repositoryOf(state, event.data.project_id);
      if (repository) repository.protected_branches = repository.protected_branches.filter((rule) => rule.id !== event.data.id);
      return;
    }
    case 'MergeRequestCreated': {
      const { project_id, id, iid, created_at } = event.data;
      const repository = repositoryOf(state, project_id);
      if (!repository) return;
      tableSet(state.repositories.mergeRequests, id, {
        ...event.data,
        labels: event.data.labels ?? [],
        reviewer_ids: event.data.reviewer_ids ?? [],
        approved_by: [],
        state: 'opened',
        updated_at: created_at,
        merged_by_id: null,
        merged_at: null,
        merge_commit_sha: null,
        closed_by_id: null,
        closed_at: null,
        versions: [],
      });
      tableSet(repository.merge_requests, iid, id);
      indexOwners(state.repositories, event.data, true);
      if (iid > repository.merge_request_iid) repository.merge_request_iid = iid;
      raise(state, 'merge_request', id);
      return;
    }
    case 'MergeRequestUpdated': {
      // `updated_by_id` is the discussions' (cross-references), not a field of the merge request.
      const { project_id, iid, updated_at, updated_by_id: _updater, previous_title: _title, previous_target_branch: _target, previous_assignee_ids: _assignees, previous_reviewer_ids: _reviewers, ...changes } = event.data;
      const mr = mergeRequestOf(state, project_id, iid);
      if (!mr) return;
      if (changes.assignee_ids) reindexAssignees(state.repositories, mr.id, mr.assignee_ids, changes.assignee_ids);
      Object.assign(mr, changes);
      mr.updated_at = updated_at;
      return;
    }
    case 'MergeRequestClosed': {
      const mr = mergeRequestOf(state, event.data.project_id, event.data.iid);
      if (!mr) return;
      mr.state = 'closed';
      mr.closed_by_id = event.data.closed_by_id;
      mr.closed_at = event.data.at;
      mr.updated_at = event.data.at;
      return;
    }
    case 'MergeRequestReopened': {
      const mr = mergeRequestOf(state, event.data.project_id, event.data.iid);
      if (!mr) return;
      mr.state = 'opened';
      mr.updated_at = event.data.at;
      return;
    }
    case 'MergeRequestVersionCreated': {
      const { project_id, iid, commits: _commits, pushed_by_id: _pushedBy, ...version } = event.data;
      const mr = mergeRequestOf(state, project_id, iid);
      if (!mr) return;
      mr.versions.push(version);
      // A push to the source branch (`commits`) resets the approvals (EE `reset_approvals_on_push`, on by default).
      if (event.data.commits && event.data.commits.length > 0 && mr.approved_by.length > 0) mr.approved_by = [];
      raise(state, 'merge_request_diff', version.id);
      return;
    }
    case 'MergeRequestApproved': {
      const mr = mergeRequestOf(state, event.data.project_id, event.data.iid);
      if (mr && !mr.approved_by.includes(event.data.user_id)) mr.approved_by.push(event.data.user_id);
      return;
    }
    case 'MergeRequestUnapproved': {
      const mr = mergeRequestOf(state, event.data.project_id, event.data.iid);
      if (mr) mr.approved_by = mr.approved_by.filter((id) => id !== event.data.user_id);
      return;
    }
    case 'MergeRequestSubscribed':
    case 'MergeRequestUnsubscribed': {
      const mr = mergeRequestOf(state, event.data.project_id, event.data.iid);
      if (!mr) return;
      mr.subscriptions = { ...mr.subscriptions, [event.data.user_id]: event.type === 'MergeRequestSubscribed' };
      return;
    }
    case 'MergeRequestDeleted': {
      const repository = repositoryOf(state, event.data.project_id);
      if (repository) tableDelete(repository.merge_requests, event.data.iid);
      const mr = tableGet(state.repositories.mergeRequests, event.data.id);
      if (mr) indexOwners(state.repositories, mr, false);
      tableDelete(state.repositories.mergeRequests, event.data.id);
      return;
    }
    case 'MergeRequestMerged': {
      const mr = mergeRequestOf(state, event.data.project_id, event.data.iid);
      if (!mr) return;
      mr.state = 'merged';
      mr.merged_by_id = event.data.merged_by_id;
      mr.merged_at = event.data.at;
      mr.merge_commit_sha = event.data.merge_commit_sha;
      if (event.data.should_remove_source_branch !== undefined) mr.should_remove_source_branch = event.data.should_remove_source_branch;
      mr.updated_at = event.data.at;
      return;
    }
  }
};

/** A repository for a new project: HEAD on `main` (`POST /projects` with `default_branch` moves it next). */
const onProjectCreated = (state: MutableState, event: Extract<ProjectEvent, { type: 'ProjectCreated' }>): void => {
  const { id, created_at } = event.data;
  tableSet(state.repositories.byProject, id, {
    project_id: id,
    default_branch: 'main',
    created_at,
    refs: emptyTable<string>(),
    branch_count: 0,
    tag_count: 0,
    tag_dates: emptyTable<string>(),
    protected_tags: [],
    protected_branches: [],
    merge_requests: emptyTable<number>(),
    merge_request_iid: 0,
  });
};

/** The project's repository record and merge requests go with it. */
const onProjectDeleted = (state: MutableState, event: Extract<ProjectEvent, { type: 'ProjectDeleted' }>): void => {
  const repository = repositoryOf(state, event.data.id);
  if (!repository) return;
  for (const id of tableValues(repository.merge_requests)) {
    const mr = tableGet(state.repositories.mergeRequests, id);
    if (mr) indexOwners(state.repositories, mr, false);
    tableDelete(state.repositories.mergeRequests, id);
  }
  tableDelete(state.repositories.byProject, event.data.id);
};

export type RepositoriesFollowed = Extract<ProjectEvent, { type: 'ProjectCreated' | 'ProjectDeleted' }>;

/** Every project has a repository: created and removed with it. */
export const follows = { ProjectCreated: onProjectCreated, ProjectDeleted: onProjectDeleted };

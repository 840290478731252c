/** The issues module's evolve; a deleted project takes its issues along. */
import type { Draft } from 'immer';
import { emptyTable, tableDelete, tableGet, tableSet, tableValues } from '../../kernel/table.js';
import type { Writable } from '../../kernel/module.js';
import { indexOwners, reindexAssignees } from '../shared/owners.js';
import type { ProjectEvent } from '../projects/events.js';
import type { IssueEvent } from './events.js';
import type { Issue, IssuesSlice } from './projection.js';

export type IssuesDraft = Writable<{ readonly issues: IssuesSlice }, 'issues'>;
export type IssuesFollowed = Extract<ProjectEvent, { type: 'ProjectDeleted' }>;

const issueOf = (state: IssuesDraft, id: number): Draft<Issue> | undefined => tableGet(state.issues.byId, id);

const unlink = (state: IssuesDraft, linkId: number): void => {
  const link = tableGet(state.issues.links, linkId);
  if (!link) return;
  for (const id of [link.source_id, link.target_id]) {
    const issue = issueOf(state, id);
    if (issue?.link_ids) issue.link_ids = issue.link_ids.filter((other) => other !== linkId);
  }
  tableDelete(state.issues.links, linkId);
};

/** A deleted issue's links go with it (from the other issues' lists too). */
const unlinkAll = (state: IssuesDraft, issueId: number): void => {
  for (const linkId of [...(issueOf(state, issueId)?.link_ids ?? [])]) unlink(state, linkId);
};

/** A deleted issue (alone or with its project) leaves its links and the indexes. */
const removeIssue = (state: IssuesDraft, id: number): void => {
  unlinkAll(state, id);
  const issue = issueOf(state, id);
  if (issue) indexOwners(state.issues, issue, false);
  tableDelete(state.issues.byId, id);
};

export const evolve = (state: IssuesDraft, event: IssueEvent): void => {
  switch (event.type) {
    case 'IssueCreated': {
      const { created_at, ...data } = event.data;
      tableSet(state.issues.byId, data.id, { ...data, state: 'opened', created_at, updated_at: created_at, closed_at: null, closed_by_id: null });
      let project = tableGet(state.issues.byProject, data.project_id);
      if (!project) {
        tableSet(state.issues.byProject, data.project_id, { byIid: emptyTable(), last_iid: 0 });
        project = tableGet(state.issues.byProject, data.project_id)!;
      }
      tableSet(project.byIid, data.iid, data.id);
      indexOwners(state.issues, data, true);
      if (data.iid > project.last_iid) project.last_iid = data.iid;
      if (data.id > state.issues.sequence) state.issues.sequence = data.id;
      return;
    }
    case 'IssueUpdated': {
      const issue = issueOf(state, event.data.id);
      if (!issue) return;
      const { project_id: _p, id: _i, iid: _n, updated_at, updated_by_id: _u, previous_title: _t, previous_assignee_ids: _a, ...changes } = event.data;
      if (changes.assignee_ids) reindexAssignees(state.issues, issue.id, issue.assignee_ids, changes.assignee_ids);
      Object.assign(issue, changes, { updated_at });
      return;
    }
    case 'IssueClosed': {
      const issue = issueOf(state, event.data.id);
      if (issue) Object.assign(issue, { state: 'closed', closed_at: event.data.at, closed_by_id: event.data.closed_by_id, updated_at: event.data.at });
      return;
    }
    case 'IssueReopened': {
      const issue = issueOf(state, event.data.id);
      if (issue) Object.assign(issue, { state: 'opened', closed_at: null, closed_by_id: null, updated_at: event.data.at });
      return;
    }
    case 'IssueSubscribed':
    case 'IssueUnsubscribed': {
      const issue = issueOf(state, event.data.id);
      if (!issue) return;
      issue.subscriptions ??= {};
      issue.subscriptions[event.data.user_id] = event.type === 'IssueSubscribed';
      return;
    }
    case 'IssueLinkCreated': {
      const { id, source, target, link_type, at } = event.data;
      tableSet(state.issues.links, id, { id, source_id: source.id, target_id: target.id, link_type, created_at: at, updated_at: at });
      for (const issueId of [source.id, target.id]) {
        const issue = issueOf(state, issueId);
        if (issue) issue.link_ids = [...(issue.link_ids ?? []), id];
      }
      if (id > state.issues.link_sequence) state.issues.link_sequence = id;
      return;
    }
    case 'IssueLinkDestroyed':
      unlink(state, event.data.id);
      return;
    case 'IssueDeleted': {
      removeIssue(state, event.data.id);
      const project = tableGet(state.issues.byProject, event.data.project_id);
      if (project) tableDelete(project.byIid, event.data.iid);
      return;
    }
  }
};

export const follows = {
  ProjectDeleted: (state: IssuesDraft, event: IssuesFollowed): void => {
    const project = tableGet(state.issues.byProject, event.data.id);
    if (!project) return;
    for (const id of [...tableValues(project.byIid)]) removeIssue(state, id);
    tableDelete(state.issues.byProject, event.data.id);
  },
};

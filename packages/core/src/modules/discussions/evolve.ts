/**
 * The discussions module's evolve. It follows the noteables' deletions (their threads and notes go with them) and
 * projects the platform's system notes from the noteables' events (`system-notes.ts`).
 */
import type { Draft } from 'immer';
import { emptyTable, tableDelete, tableGet, tableSet, tableValues } from '../../kernel/table.js';
import type { Writable } from '../../kernel/module.js';
import type { ProjectEvent } from '../projects/events.js';
import type { GroupEvent } from '../groups/events.js';
import type { IssueEvent } from '../issues/events.js';
import type { SnippetEvent } from '../snippets/events.js';
import type { EpicEvent } from '../epics/events.js';
import type { RepositoryEvent } from '../repositories/events.js';
import { draftlessTitle, findMergeRequest, isDraftTitle } from '../repositories/queries.js';
import { findProject } from '../projects/queries.js';
import { findUser } from '../users/queries.js';
import type { DiscussionEvent, NoteableData, NoteData } from './events.js';
import type { DiscussionsSlice, DiscussionsView, Note, NoteableThreads } from './projection.js';
import { discussionIdFor, noteableData, noteableKey } from './queries.js';
import { findIssue, issueReference } from '../issues/queries.js';
import { gfmReference, referencedNoteables, refOfNoteable } from './mentions.js';
import type { NoteableRef } from './commands.js';
import { addedCommitsBody, dueDateBody, mergeRequestSystemNoteBodies, systemNoteBodies } from './system-notes.js';

/**
 * The follower reads the merge requests and projects (for the "added N commits" note), and the noteables and
 * memberships (cross-references: which noteables a text names and whether its author may read them); it writes
 * its own slice.
 */
export type DiscussionsDraft = Writable<DiscussionsView, 'discussions'>;
export type DiscussionsFollowed =
  | Extract<ProjectEvent, { type: 'ProjectDeleted' }>
  | Extract<GroupEvent, { type: 'GroupDeleted' }>
  | Extract<IssueEvent, { type: 'IssueCreated' | 'IssueDeleted' | 'IssueUpdated' | 'IssueLinkCreated' | 'IssueLinkDestroyed' }>
  | Extract<SnippetEvent, { type: 'SnippetDeleted' }>
  | Extract<EpicEvent, { type: 'EpicUpdated' | 'EpicDeleted' }>
  | Extract<RepositoryEvent, { type: 'MergeRequestCreated' | 'MergeRequestUpdated' | 'MergeRequestVersionCreated' | 'MergeRequestDeleted' | 'MergeRequestApproved' | 'MergeRequestUnapproved' }>;

type Slice = Draft<DiscussionsSlice>;

const threadsFor = (slice: Slice, noteable: NoteableData): Draft<NoteableThreads> => {
  let threads = tableGet(slice.noteables, noteable.key);
  if (!threads) {
    tableSet(slice.noteables, noteable.key, { ...noteable, threads: emptyTable(), next_ordinal: 0, thread_count: 0, note_count: 0 });
    threads = tableGet(slice.noteables, noteable.key)!;
  }
  return threads;
};

const noteOf = (data: NoteData, discussionId: string, noteableKey_: string, system: boolean): Note => ({
  ...data,
  discussion_id: discussionId,
  noteable_key: noteableKey_,
  updated_at: data.created_at,
  system,
});

/**
 * A decided note id held by a projected system note moves that system note to the next free id. Only a log recorded
 * before that system note was projected (cross-references are newer than the module) can get here; decided ids are
 * what later events and users' links name, so they keep theirs.
 */
const claimNoteId = (slice: Slice, id: number): void => {
  const taken = tableGet(slice.notes, id);
  if (!taken?.system) return;
  const moved = Math.max(slice.sequence, id) + 1;
  tableDelete(slice.notes, id);
  tableSet(slice.notes, moved, { ...taken, id: moved });
  const discussion = tableGet(slice.discussions, taken.discussion_id);
  if (discussion) discussion.note_ids = discussion.note_ids.map((noteId) => (noteId === id ? moved : noteId));
  slice.sequence = moved;
};

/** Starts a thread (a user's, or a system note's). */
const start = (slice: Slice, discussionId: string, noteable: NoteableData, individual: boolean, note: Note): void => {
  claimNoteId(slice, note.id);
  const threads = threadsFor(slice, noteable);
  const ordinal = threads.next_ordinal;
  tableSet(threads.threads, ordinal, discussionId);
  threads.next_ordinal = ordinal + 1;
  threads.thread_count += 1;
  threads.note_count += 1;
  tableSet(slice.discussions, discussionId, { id: discussionId, noteable_key: noteable.key, individual_note: individual, note_ids: [note.id], ordinal });
  tableSet(slice.notes, note.id, note);
  if (note.id > slice.sequence) slice.sequence = note.id;
};

const dropNoteable = (slice: Slice, key: string): void => {
  const threads = tableGet(slice.noteables, key);
  if (!threads) return;
  for (const id of [...tableValues(threads.threads)]) {
    const discussion = tableGet(slice.discussions, id);
    for (const noteId of discussion?.note_ids ?? []) tableDelete(slice.notes, noteId);
    tableDelete(slice.discussions, id);
  }
  tableDelete(slice.noteables, key);
  tableDelete(slice.cross_references, key);
};

export const evolve = (state: DiscussionsDraft, event: DiscussionEvent): void => {
  const slice = state.discussions;
  switch (event.type) {
    case 'DiscussionStarted': {
      const { discussion_id, noteable, individual_note, note } = event.data;
      start(slice, discussion_id, noteable, individual_note, noteOf(note, discussion_id, noteable.key, false));
      crossReference(state, noteable, note.body, note.author_id, note.created_at);
      return;
    }
    case 'NoteAdded': {
      const { discussion_id, note, converted_note_id } = event.data;
      const discussion = tableGet(slice.discussions, discussion_id);
      if (!discussion) return;
      claimNoteId(slice, note.id);
      tableSet(slice.notes, note.id, noteOf(note, discussion_id, discussion.noteable_key, false));
      discussion.note_ids.push(note.id);
      if (converted_note_id !== null) {
        discussion.individual_note = false;
        const converted = tableGet(slice.notes, converted_note_id);
        if (converted) converted.type = 'DiscussionNote';
      }
      const threads = tableGet(slice.noteables, discussion.noteable_key);
      if (threads) threads.note_count += 1;
      if (note.id > slice.sequence) slice.sequence = note.id;
      if (threads) crossReference(state, threads, note.body, note.author_id, note.created_at);
      return;
    }
    case 'NoteEdited': {
      const note = tableGet(slice.notes, event.data.note_id);
      if (!note) return;
      Object.assign(note, { body: event.data.body, updated_at: event.data.updated_at });
      if (event.data.confidential !== undefined) note.confidential = event.data.confidential;
      // `Notes::UpdateService`: the new body's cross-references, as the editor (before `edited_by_id`: the author).
      const threads = tableGet(slice.noteables, note.noteable_key);
      const editor = event.data.edited_by_id === undefined ? note.author_id : event.data.edited_by_id;
      if (threads) crossReference(state, threads, event.data.body, editor, event.data.updated_at);
      return;
    }
    case 'NoteDeleted': {
      const discussion = tableGet(slice.discussions, event.data.discussion_id);
      tableDelete(slice.notes, event.data.note_id);
      if (!discussion) return;
      const index = discussion.note_ids.indexOf(event.data.note_id);
      if (index >= 0) discussion.note_ids.splice(index, 1);
      const threads = tableGet(slice.noteables, discussion.noteable_key);
      if (threads) threads.note_count -= 1;
      if (discussion.note_ids.length > 0) return;
      // The last note gone, the thread is gone.
      if (threads) {
        tableDelete(threads.threads, discussion.ordinal);
        threads.thread_count -= 1;
      }
      tableDelete(slice.discussions, discussion.id);
      return;
    }
    case 'DiscussionResolved':
    case 'DiscussionUnresolved': {
      const resolved = event.type === 'DiscussionResolved';
      for (const id of event.data.note_ids) {
        const note = tableGet(slice.notes, id);
        if (note) Object.assign(note, resolved ? { resolved_by_id: event.data.resolved_by_id, resolved_at: event.data.at } : { resolved_by_id: null, resolved_at: null });
      }
      return;
    }
  }
};

/** A system note (`individual_note: true`, `type: null`, `system: true`), its id drawn from the note sequence. */
const systemNote = (state: DiscussionsDraft, noteable: NoteableData, body: string, authorId: number | null, at: string, mentioner?: NoteableRef): void => {
  const slice = state.discussions;
  const id = slice.sequence + 1;
  const discussionId = discussionIdFor(id);
  const data: NoteData = { id, type: null, body, author_id: authorId, created_at: at, position: null, line_code: null, commit_id: null, resolved_by_id: null, resolved_at: null };
  start(slice, discussionId, noteable, true, { ...noteOf(data, discussionId, noteable.key, true), ...(mentioner ? { mentioner } : {}) });
};

/**
 * `create_cross_references!(author)`: "mentioned in <the mentioner>" on each issue or merge request the text
 * references that the author may read (the system, null, reads everything), except the mentioner itself, unless
 * the target already holds that note (`cross_reference_exists?`). A note's mentioner is its noteable.
 */
const crossReference = (state: DiscussionsDraft, mentioner: NoteableData, text: string, authorId: number | null, at: string): void => {
  if (!/[#!]\d|\/(?:issues|merge_requests)\/\d/.test(text)) return;
  const ref = refOfNoteable(mentioner);
  if (!ref) return;
  const context = mentioner.project_id === null ? null : (findProject(state.projects, mentioner.project_id) ?? null);
  for (const target of referencedNoteables(state, text, context)) {
    if (target.key === mentioner.key || !target.project) continue;
    if (authorId !== null && !target.readableBy(authorId)) continue;
    const reference = gfmReference(state, mentioner, target.project);
    if (reference === null) continue;
    const body = `mentioned in ${reference}`;
    const existing = tableGet(state.discussions.cross_references, target.key) ?? [];
    if (existing.includes(body)) continue;
    tableSet(state.discussions.cross_references, target.key, [...existing, body]);
    systemNote(state, noteableData(target), body, authorId, at, ref);
  }
};

const issueNoteable = (data: { id: number; iid: number; project_id: number }): NoteableData => ({ key: noteableKey('Issue', data.id), type: 'Issue', id: data.id, iid: data.iid, project_id: data.project_id, group_id: null, commit_sha: null });
/** The issue's reference seen from another project (`Issue#to_reference(from)`). */
const referenceFrom = (state: DiscussionsDraft, issue: { project_id: number; iid: number }, fromProjectId: number): string => {
  const of = findProject(state.projects, issue.project_id);
  const from = findProject(state.projects, fromProjectId);
  return of && from ? issueReference(issue.iid, of, from) : `#${issue.iid}`;
};

/**
 * `SystemNoteService.relate_issue` / `unrelate_issue`, on both issues (14.x: the same words for every link type). Each
 * names the other issue, so a reader who may not read that one does not see the note (the `relate` and `unrelate`
 * note types are hidden as cross references are).
 */
const linkNotes = (state: DiscussionsDraft, data: Extract<IssueEvent, { type: 'IssueLinkCreated' | 'IssueLinkDestroyed' }>['data'], body: (reference: string) => string): void => {
  const ref = (issue: { project_id: number; iid: number }): NoteableRef => ({ kind: 'Issue', project_id: issue.project_id, iid: issue.iid });
  systemNote(state, issueNoteable(data.source), body(referenceFrom(state, data.target, data.source.project_id)), data.author_id, data.at, ref(data.target));
  systemNote(state, issueNoteable(data.target), body(referenceFrom(state, data.source, data.target.project_id)), data.author_id, data.at, ref(data.source));
};

const mergeRequestNoteable = (data: { id: number; iid: number; project_id: number }): NoteableData => ({
  key: noteableKey('MergeRequest', data.id),
  type: 'MergeRequest',
  id: data.id,
  iid: data.iid,
  project_id: data.project_id,
  group_id: null,
  commit_sha: null,
});
/** `attr_mentionable :title` and `:description`, joined as `mentionable_text` joins them. */
const mentionableText = (title: string, description: string): string => [title, description].join('\n\n');

const dropWhere = (slice: Slice, matches: (threads: NoteableThreads) => boolean): void => {
  const keys: string[] = [];
  for (const threads of tableValues(slice.noteables)) if (matches(threads)) keys.push(threads.key);
  for (const key of keys) dropNoteable(slice, key);
};

/** A user as a note names them (`User#to_reference`: `@username`), or null for one who no longer exists. */
const userReference =
  (state: DiscussionsDraft) =>
  (id: number): string | null => {
    const user = findUser(state.users, id);
    return user ? `@${user.username}` : null;
  };

const approvalNote = (state: DiscussionsDraft, data: { project_id: number; iid: number; user_id: number; at: string }, body: string): void => {
  const mr = findMergeRequest(state.repositories, data.project_id, data.iid);
  if (mr) systemNote(state, mergeRequestNoteable(mr), body, data.user_id, data.at);
};

export const follows = {
  IssueDeleted: (state: DiscussionsDraft, event: Extract<IssueEvent, { type: 'IssueDeleted' }>): void => dropNoteable(state.discussions, noteableKey('Issue', event.data.id)),
  SnippetDeleted: (state: DiscussionsDraft, event: Extract<SnippetEvent, { type: 'SnippetDeleted' }>): void => dropNoteable(state.discussions, noteableKey('Snippet', event.data.id)),
  EpicDeleted: (state: DiscussionsDraft, event: Extract<EpicEvent, { type: 'EpicDeleted' }>): void => dropNoteable(state.discussions, noteableKey('Epic', event.data.id)),
  // `SystemNoteService.approve_mr` / `unapprove_mr`.
  MergeRequestApproved: (state: DiscussionsDraft, event: Extract<RepositoryEvent, { type: 'MergeRequestApproved' }>): void => approvalNote(state, event.data, 'approved this merge request'),
  MergeRequestUnapproved: (state: DiscussionsDraft, event: Extract<RepositoryEvent, { type: 'MergeRequestUnapproved' }>): void => approvalNote(state, event.data, 'unapproved this merge request'),
  MergeRequestDeleted: (state: DiscussionsDraft, event: Extract<RepositoryEvent, { type: 'MergeRequestDeleted' }>): void =>
    dropNoteable(state.discussions, noteableKey('MergeRequest', event.data.id)),
  ProjectDeleted: (state: DiscussionsDraft, event: Extract<ProjectEvent, { type: 'ProjectDeleted' }>): void =>
    dropWhere(state.discussions, (threads) => threads.project_id === event.data.id),
  GroupDeleted: (state: DiscussionsDraft, event: Extract<GroupEvent, { type: 'GroupDeleted' }>): void => dropWhere(state.discussions, (threads) => threads.group_id === event.data.id),
  IssueCreated: (state: DiscussionsDraft, event: Extract<IssueEvent, { type: 'IssueCreated' }>): void => {
    const { data } = event;
    if (data.due_date !== undefined) systemNote(state, issueNoteable(data), dueDateBody(data.due_date), data.author_id, data.created_at);
    // `Issues::CreateService#handle_changes`: the assignees against none.
    for (const body of systemNoteBodies('issue', { previous_assignee_ids: [], assignee_ids: data.assignee_ids }, userReference(state))) {
      systemNote(state, issueNoteable(data), body, data.author_id, data.created_at);
    }
    crossReference(state, issueNoteable(data), mentionableText(data.title, data.description), data.author_id, data.created_at);
  },
  IssueUpdated: (state: DiscussionsDraft, event: Extract<IssueEvent, { type: 'IssueUpdated' }>): void => {
    const { data } = event;
    const noteable = issueNoteable(data);
    for (const body of systemNoteBodies('issue', data, userReference(state))) systemNote(state, noteable, body, data.updated_by_id, data.updated_at);
    // `create_new_cross_references!`: when the title or description changed, the current text's references.
    const issue = findIssue(state.issues, data.project_id, data.iid);
    if (issue && (data.title !== undefined || data.description !== undefined)) crossReference(state, noteable, mentionableText(issue.title, issue.description), data.updated_by_id, data.updated_at);
  },
  IssueLinkCreated: (state: DiscussionsDraft, event: Extract<IssueEvent, { type: 'IssueLinkCreated' }>): void =>
    linkNotes(state, event.data, (reference) => `marked this issue as related to ${reference}`),
  IssueLinkDestroyed: (state: DiscussionsDraft, event: Extract<IssueEvent, { type: 'IssueLinkDestroyed' }>): void =>
    linkNotes(state, event.data, (reference) => `removed the relation with ${reference}`),
  MergeRequestCreated: (state: DiscussionsDraft, event: Extract<RepositoryEvent, { type: 'MergeRequestCreated' }>): void => {
    const { data } = event;
    crossReference(state, mergeRequestNoteable(data), mentionableText(data.title, data.description), data.author_id, data.created_at);
  },
  MergeRequestUpdated: (state: DiscussionsDraft, event: Extract<RepositoryEvent, { type: 'MergeRequestUpdated' }>): void => {
    const { data } = event;
    const mr = findMergeRequest(state.repositories, data.project_id, data.iid);
    if (!mr) return;
    const author = data.updated_by_id === undefined ? mr.author_id : data.updated_by_id;
    for (const body of mergeRequestSystemNoteBodies(data, isDraftTitle, draftlessTitle, userReference(state))) systemNote(state, mergeRequestNoteable(mr), body, author, data.updated_at);
    if (data.title === undefined && data.description === undefined) return;
    crossReference(state, mergeRequestNoteable(mr), mentionableText(mr.title, mr.description), data.updated_by_id === undefined ? mr.author_id : data.updated_by_id, data.updated_at);
  },
  MergeRequestVersionCreated: (state: DiscussionsDraft, event: Extract<RepositoryEvent, { type: 'MergeRequestVersionCreated' }>): void => {
    const { data } = event;
    if (!data.commits || data.commits.length === 0) return;
    // The owner's evolve ran first: the merge request holds the new version as its last.
    const mr = findMergeRequest(state.repositories, data.project_id, data.iid);
    const project = findProject(state.projects, data.project_id);
    if (!mr || !project) return;
    const previous = mr.versions[mr.versions.length - 2]?.head_commit_sha ?? null;
    const noteable: NoteableData = { key: noteableKey('MergeRequest', mr.id), type: 'MergeRequest', id: mr.id, iid: mr.iid, project_id: data.project_id, group_id: null, commit_sha: null };
    const compare = `/${project.path_with_namespace}/-/merge_requests/${mr.iid}/diffs?diff_id=${data.id}${previous ? `&start_sha=${previous}` : ''}`;
    systemNote(state, noteable, addedCommitsBody(data.commits, compare), data.pushed_by_id ?? null, data.created_at);
  },
  EpicUpdated: (state: DiscussionsDraft, event: Extract<EpicEvent, { type: 'EpicUpdated' }>): void => {
    const { data } = event;
    const noteable: NoteableData = { key: noteableKey('Epic', data.id), type: 'Epic', id: data.id, iid: null, project_id: null, group_id: data.group_id, commit_sha: null };
    for (const body of systemNoteBodies('epic', data)) systemNote(state, noteable, body, data.updated_by_id, data.updated_at);
  },
};

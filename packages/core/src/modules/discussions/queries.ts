/**
 * Reads over the discussions projection, the noteables a discussion can hang on, and `NotePolicy`: who reads a
 * noteable's notes, who comments, who edits or deletes a note, who resolves.
 */
import { createHash } from 'node:crypto';
import { tableGet, tableIdsFrom, tableValues } from '../../kernel/table.js';
import { canDownloadCode, canOnGroup, canOnProject, canReadGroup, effectiveProjectAccess, isAdmin } from '../access/abilities.js';
import { findGroup } from '../groups/queries.js';
import { findProject } from '../projects/queries.js';
import type { Group } from '../groups/projection.js';
import type { Project } from '../projects/projection.js';
import { canReadIssue, findIssue } from '../issues/queries.js';
import { canReadSnippet, findSnippet } from '../snippets/queries.js';
import { canReadEpic, findEpicById } from '../epics/queries.js';
import { findMergeRequest } from '../repositories/queries.js';
import type { NoteableRef } from './commands.js';
import type { NoteableData, NoteableType } from './events.js';
import type { Discussion, DiscussionsSlice, DiscussionsView, Note, NoteableThreads } from './projection.js';

/** A noteable found, with what the policy needs. */
export interface Noteable extends NoteableData {
  readonly project: Project | null;
  readonly group: Group | null;
  readonly author_id: number | null;
  /** An issue's or merge request's assignees (`assignee_or_author?`); none for the other noteables. */
  readonly assignee_ids: readonly number[];
  /** Individual notes may be replied to (`Noteable::REPLYABLE_TYPES`; EE adds Epic). */
  readonly replyable: boolean;
  /** Only merge requests' threads resolve (`Noteable::RESOLVABLE_TYPES`). */
  readonly resolvable: boolean;
  readonly readableBy: (userId: number | null) => boolean;
  /** `discussion_locked`: only project members comment, edit or resolve (IssuablePolicy `locked & ~is_project_member`). */
  readonly locked: boolean;
}

export const noteableKey = (type: NoteableType, id: number | string): string => `${type}:${id}`;

/** The noteable a reference names, or undefined when it does not exist (readability is the caller's next check). */
export const findNoteable = (state: DiscussionsView, ref: NoteableRef): Noteable | undefined => {
  const base = { commit_sha: null, group_id: null, iid: null } as const;
  switch (ref.kind) {
    case 'Issue': {
      const project = findProject(state.projects, ref.project_id);
      const issue = project ? findIssue(state.issues, project.id, ref.iid) : undefined;
      if (!project || !issue) return undefined;
      return { ...base, key: noteableKey('Issue', issue.id), type: 'Issue', id: issue.id, iid: issue.iid, project_id: project.id, project, group: null, author_id: issue.author_id, assignee_ids: issue.assignee_ids, replyable: true, resolvable: false, locked: issue.discussion_locked === true, readableBy: (userId) => canReadIssue(state, userId, project, issue) };
    }
    case 'MergeRequest': {
      const project = findProject(state.projects, ref.project_id);
      const mr = project ? findMergeRequest(state.repositories, project.id, ref.iid) : undefined;
      if (!project || !mr) return undefined;
      return { ...base, key: noteableKey('MergeRequest', mr.id), type: 'MergeRequest', id: mr.id, iid: mr.iid, project_id: project.id, project, group: null, author_id: mr.author_id, assignee_ids: mr.assignee_ids, replyable: true, resolvable: true, locked: mr.discussion_locked === true, readableBy: (userId) => canDownloadCode(state, userId, project) };
    }
    case 'Snippet': {
      const project = findProject(state.projects, ref.project_id);
      const snippet = project ? findSnippet(state.snippets, project.id, ref.id) : undefined;
      if (!project || !snippet) return undefined;
      return { ...base, key: noteableKey('Snippet', snippet.id), type: 'Snippet', id: snippet.id, project_id: project.id, project, group: null, author_id: snippet.author_id, assignee_ids: [], replyable: false, resolvable: false, locked: false, readableBy: (userId) => canReadSnippet(state, userId, project, snippet) };
    }
    case 'Epic': {
      const group = findGroup(state.groups, ref.group_id);
      const epic = findEpicById(state.epics, ref.id);
      if (!group || !epic || epic.group_id !== group.id) return undefined;
      return { ...base, key: noteableKey('Epic', epic.id), type: 'Epic', id: epic.id, iid: null, project_id: null, group_id: group.id, project: null, group, author_id: epic.author_id, assignee_ids: [], replyable: true, resolvable: false, locked: false, readableBy: (userId) => canReadEpic(state, userId, group, epic) };
    }
    case 'Commit': {
      const project = findProject(state.projects, ref.project_id);
      if (!project) return undefined;
      return { ...base, key: noteableKey('Commit', `${project.id}:${ref.sha}`), type: 'Commit', id: null, project_id: project.id, commit_sha: ref.sha, project, group: null, author_id: null, assignee_ids: [], replyable: false, resolvable: false, locked: false, readableBy: (userId) => canDownloadCode(state, userId, project) };
    }
  }
};

/** The noteable's fields as events record them. */
export const noteableData = (noteable: Noteable): NoteableData => ({
  key: noteable.key,
  type: noteable.type,
  id: noteable.id,
  iid: noteable.iid,
  project_id: noteable.project_id,
  group_id: noteable.group_id,
  commit_sha: noteable.commit_sha,
});

/** `create_note`: a signed-in reader; on a private project, Guests and above. */
/** `is_project_member` of a locked noteable (administrators count, as they reach every project here). */
const lockedOut = (state: DiscussionsView, userId: number, noteable: Noteable): boolean =>
  noteable.locked && noteable.project !== null && effectiveProjectAccess(state, userId, noteable.project) === 0;

export const canCreateNote = (state: DiscussionsView, userId: number | null, noteable: Noteable): boolean => {
  if (userId === null || !noteable.readableBy(userId) || lockedOut(state, userId, noteable)) return false;
  if (noteable.project) return noteable.project.visibility !== 'private' || canOnProject(state, userId, 'create_note', noteable.project) || isAdmin(state, userId);
  return noteable.group !== null && canReadGroup(state, userId, noteable.group);
};

/**
 * NotePolicy's `can_read_confidential` (14.7): Reporters and above of the noteable's project or group
 * (administrators too, as they act as owners here), or the author or an assignee of an issue or merge request
 * (`noteable_assignee_or_author?`; snippets, epics and commits have none).
 */
const readsConfidentialNotes = (state: DiscussionsView, userId: number | null, noteable: Noteable): boolean => {
  if (userId === null) return false;
  if ((noteable.type === 'Issue' || noteable.type === 'MergeRequest') && (noteable.author_id === userId || noteable.assignee_ids.includes(userId))) return true;
  if (noteable.project) return canOnProject(state, userId, 'read_confidential_note', noteable.project);
  return noteable.group !== null && canOnGroup(state, userId, 'read_confidential_note', noteable.group);
};

/** `confidential & ~can_read_confidential` prevents `read_note`, `admin_note` and `resolve_note`. */
const confidentialTo = (state: DiscussionsView, userId: number | null, noteable: Noteable, note: { readonly confidential?: boolean | undefined } | null): boolean =>
  note?.confidential === true && !readsConfidentialNotes(state, userId, noteable);

/** `read_note` of a note of a noteable the caller reads: its cross-reference's mentioner, and its confidentiality. */
export const canReadNote = (state: DiscussionsView, userId: number | null, noteable: Noteable, note: Note): boolean =>
  noteVisibleTo(state, userId, note) && !confidentialTo(state, userId, noteable, note);

/** `admin_note`: the note's author (still a reader), Maintainers and administrators; never a system note. */
export const canAdminNote = (state: DiscussionsView, userId: number | null, noteable: Noteable, note: Note): boolean => {
  if (userId === null || note.system || !noteable.readableBy(userId) || lockedOut(state, userId, noteable) || confidentialTo(state, userId, noteable, note)) return false;
  if (note.author_id === userId || isAdmin(state, userId)) return true;
  if (noteable.project) return canOnProject(state, userId, 'admin_note', noteable.project);
  return noteable.group !== null && canOnGroup(state, userId, 'admin_epic_note', noteable.group);
};

/** `resolve_note`: the note's author, the noteable's author, Developers and above. */
export const canResolveNote = (state: DiscussionsView, userId: number | null, noteable: Noteable, note: Note | null): boolean => {
  if (userId === null || !noteable.readableBy(userId) || lockedOut(state, userId, noteable) || confidentialTo(state, userId, noteable, note)) return false;
  if (note?.author_id === userId || noteable.author_id === userId || isAdmin(state, userId)) return true;
  return noteable.project !== null && canOnProject(state, userId, 'resolve_note', noteable.project);
};

/** `Note#resolvable?`: a thread or diff note, not a system note, on a merge request. */
export const isResolvableNote = (note: Note, noteableType: NoteableType): boolean =>
  noteableType === 'MergeRequest' && !note.system && (note.type === 'DiscussionNote' || note.type === 'DiffNote');

export const findNote = (discussions: DiscussionsSlice, id: number): Note | undefined => tableGet(discussions.notes, id);
export const findDiscussion = (discussions: DiscussionsSlice, id: string): Discussion | undefined => tableGet(discussions.discussions, id);
export const threadsOf = (discussions: DiscussionsSlice, key: string): NoteableThreads | undefined => tableGet(discussions.noteables, key);

/** A note of this noteable (`noteable.notes.find(id)`). */
export const findNoteOf = (discussions: DiscussionsSlice, key: string, id: number): Note | undefined => {
  const note = findNote(discussions, id);
  return note && note.noteable_key === key ? note : undefined;
};

/** A thread of this noteable. */
export const findDiscussionOf = (discussions: DiscussionsSlice, key: string, id: string): Discussion | undefined => {
  const discussion = findDiscussion(discussions, id);
  return discussion && discussion.noteable_key === key ? discussion : undefined;
};

export const notesOfDiscussion = (discussions: DiscussionsSlice, discussion: Discussion): Note[] =>
  discussion.note_ids.map((id) => tableGet(discussions.notes, id)).filter((note): note is Note => note !== undefined);

/** Threads of a noteable in the order they started, from `offset`, at most `limit`: costs the page. */
export const discussionsPage = (discussions: DiscussionsSlice, key: string, offset: number, limit: number): Discussion[] => {
  const threads = threadsOf(discussions, key);
  if (!threads) return [];
  const out: Discussion[] = [];
  for (const ordinal of tableIdsFrom(threads.threads, offset)) {
    if (out.length >= limit) break;
    const id = tableGet(threads.threads, ordinal);
    const discussion = id === undefined ? undefined : tableGet(discussions.discussions, id);
    if (discussion) out.push(discussion);
  }
  return out;
};

/** Every note of a noteable, thread by thread. */
export const notesOfNoteable = (discussions: DiscussionsSlice, key: string): Note[] => {
  const threads = threadsOf(discussions, key);
  if (!threads) return [];
  const out: Note[] = [];
  for (const id of tableValues(threads.threads)) {
    const discussion = tableGet(discussions.discussions, id);
    if (discussion) out.push(...notesOfDiscussion(discussions, discussion));
  }
  return out;
};

/** A thread's id: 40 hex digits (`Discussion.discussion_id`), derived from its first note's id so replay agrees. */
export const discussionIdFor = (noteId: number): string => createHash('sha1').update(`discussion-${noteId}`).digest('hex');

/** Whether a reader sees a note: a cross-reference only when the reader may read its mentioner (which still exists). */
export const noteVisibleTo = (state: DiscussionsView, userId: number | null, note: { readonly mentioner?: NoteableRef | null }): boolean => {
  if (!note.mentioner) return true;
  const source = findNoteable(state, note.mentioner);
  return source !== undefined && source.readableBy(userId);
};

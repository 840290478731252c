/** The discussions module's decisions, in the order the platform's endpoints check (404, 400 shape, 403, 400 model). */
import * as E from 'fp-ts/lib/Either.js';
import { badRequest, forbidden, notFound, type DomainError } from '../../kernel/domain-error.js';
import { decideByType, type IssuedAs } from '../../kernel/decider.js';
import { canOnGroup, canOnProject, isAdmin } from '../access/abilities.js';
import type { DiscussionCommand, DiffFact, NoteableRef, Position } from './commands.js';
import type { DiscussionEvent, NoteData } from './events.js';
import type { DiscussionsView, Note } from './projection.js';
import {
  canAdminNote,
  canCreateNote,
  canReadNote,
  canResolveNote,
  discussionIdFor,
  findDiscussionOf,
  findNoteable,
  findNoteOf,
  isResolvableNote,
  noteableData,
  notesOfDiscussion,
  type Noteable,
} from './queries.js';
import { isRubyBlank, rubyErrorsInspect } from '../shared/validation.js';

type Decided = E.Either<DomainError, readonly DiscussionEvent[]>;

/** `Note` validates `note` with `length: { maximum: 1_000_000 }`. */
const MAX_NOTE = 1_000_000;

export const DISCUSSION_MESSAGES = {
  notResolvable: 'Note is not resolvable',
  cannotReply: 'Discussion can not be replied to.',
  invalidLineCode: ["can't be blank", 'must be a valid line code'],
  diffRefsMismatch: 'does not match the diff refs',
} as const;

const NOT_FOUND_NAMES: Record<NoteableRef['kind'], string> = { Issue: 'Issue', MergeRequest: 'MergeRequest', Snippet: 'Snippet', Epic: 'Epic', Commit: 'Commit' };

/** The noteable, found and readable by the actor, else "404 <Type> Not Found". */
const locate = (state: DiscussionsView, actorId: number | null, ref: NoteableRef): E.Either<DomainError, Noteable> => {
  const noteable = findNoteable(state, ref);
  if (!noteable || (actorId !== null && !noteable.readableBy(actorId))) return E.left(notFound(NOT_FOUND_NAMES[ref.kind]));
  return E.right(noteable);
};

const bodyErrors = (body: string): Record<string, string[]> => {
  if (isRubyBlank(body)) return { note: ["can't be blank"] };
  if ([...body].length > MAX_NOTE) return { note: [`is too long (maximum is ${MAX_NOTE} characters)`] };
  return {};
};

/** `Gitlab::Git.shas_eql?`: both absent, or equal over the shorter one's length of at least 7. */
const shasEql = (a: string | null | undefined, b: string | null | undefined): boolean => {
  if ((a ?? null) === null && (b ?? null) === null) return true;
  if (!a || !b) return false;
  const length = Math.min(a.length, b.length);
  return length >= 7 && a.slice(0, length) === b.slice(0, length);
};

const present = (value: string | null | undefined): boolean => value !== null && value !== undefined && !isRubyBlank(value);

/** `Position#complete?`: a file path, the formatter's fields (a line; or x, y, width, height), start and head SHAs. */
const positionComplete = (position: Position): boolean => {
  const formatter =
    position.position_type === 'image'
      ? [position.x, position.y, position.width, position.height].every((value) => value !== null && value !== undefined)
      : (position.old_line ?? null) !== null || (position.new_line ?? null) !== null;
  return (present(position.new_path) || present(position.old_path)) && formatter && present(position.start_sha) && present(position.head_sha);
};

/**
 * `DiffNote` validations in the model's order: on a commit, the position's SHAs are the commit's diff refs
 * (`DiffPositionableNote#diff_refs_match_commit`); a text position has a line code from the real diff; the position
 * is complete (`positions_complete`). Image positions carry no line code.
 */
const diffErrors = (noteable: Noteable, diff: DiffFact): Record<string, string[]> => {
  if (noteable.type !== 'MergeRequest' && noteable.type !== 'Commit') return { noteable_type: ['is not supported'] };
  const { position } = diff;
  const errors: Record<string, string[]> = {};
  if (noteable.type === 'Commit') {
    const refs = diff.commit_diff_refs;
    const matches = refs !== undefined && shasEql(position.base_sha, refs.base_sha) && shasEql(position.start_sha, refs.start_sha) && shasEql(position.head_sha, refs.head_sha);
    if (!matches) errors['commit_id'] = [DISCUSSION_MESSAGES.diffRefsMismatch];
  }
  if (position.position_type === 'text' && diff.line_code === null) errors['line_code'] = [...DISCUSSION_MESSAGES.invalidLineCode];
  if (!positionComplete(position)) errors['position'] = ['is incomplete'];
  return errors;
};

/** `set_note_created_at`: administrators and the owners of the noteable's project or group. */
const maySetCreatedAt = (state: DiscussionsView, actorId: number | null, noteable: Noteable): boolean =>
  actorId === null ||
  isAdmin(state, actorId) ||
  (noteable.project !== null && canOnProject(state, actorId, 'remove_project', noteable.project)) ||
  (noteable.group !== null && canOnGroup(state, actorId, 'admin_group', noteable.group));

const refused = (prefix: string, errors: Record<string, string[]>): DomainError => badRequest(`${prefix} ${rubyErrorsInspect(errors)}`);

const decideStart = ({ command, actor, at }: IssuedAs<DiscussionCommand, 'StartDiscussion'>, state: DiscussionsView): Decided => {
  const located = locate(state, actor.userId, command.noteable);
  if (E.isLeft(located)) return located;
  const noteable = located.right;
  if (actor.userId !== null && !canCreateNote(state, actor.userId, noteable)) return E.left(forbidden());
  const errors = { ...bodyErrors(command.body), ...(command.diff ? diffErrors(noteable, command.diff) : {}) };
  if (Object.keys(errors).length > 0) return E.left(refused('Note', errors));
  const id = state.discussions.sequence + 1;
  const createdAt = command.created_at && maySetCreatedAt(state, actor.userId, noteable) ? command.created_at : at;
  const diff = command.diff;
  const note: NoteData = {
    id,
    type: command.individual ? null : diff ? 'DiffNote' : 'DiscussionNote',
    body: command.body,
    author_id: actor.userId,
    created_at: createdAt,
    position: diff ? diff.position : null,
    line_code: diff?.line_code ?? null,
    commit_id: diff && noteable.type === 'MergeRequest' ? (command.commit_id ?? null) : null,
    resolved_by_id: null,
    resolved_at: null,
    // `Notes::CreateService` with `confidential: params[:confidential]` (14.7 lets any commenter set it).
    ...(command.confidential === true ? { confidential: true } : {}),
  };
  return E.right([{ type: 'DiscussionStarted', data: { discussion_id: discussionIdFor(id), noteable: noteableData(noteable), individual_note: command.individual ?? false, note } }]);
};

/** A thread is resolved when it has resolvable notes and all of them are resolved. */
const threadResolved = (notes: readonly Note[], noteable: Noteable): boolean => {
  const resolvable = notes.filter((note) => isResolvableNote(note, noteable.type));
  return resolvable.length > 0 && resolvable.every((note) => note.resolved_at !== null);
};

const decideAdd = ({ command, actor, at }: IssuedAs<DiscussionCommand, 'AddNote'>, state: DiscussionsView): Decided => {
  const located = locate(state, actor.userId, command.noteable);
  if (E.isLeft(located)) return located;
  const noteable = located.right;
  const discussion = findDiscussionOf(state.discussions, noteable.key, command.discussion_id);
  // `readable_discussion_notes`: a thread whose notes the caller may not read (confidential, or a hidden
  // cross-reference) is not found.
  const notes = discussion ? notesOfDiscussion(state.discussions, discussion).filter((note) => canReadNote(state, actor.userId, noteable, note)) : [];
  const first = notes[0];
  if (!discussion || !first) return E.left(notFound('Discussion'));
  if (discussion.individual_note && !noteable.replyable) return E.left(badRequest(DISCUSSION_MESSAGES.cannotReply));
  if (actor.userId !== null && !canCreateNote(state, actor.userId, noteable)) return E.left(forbidden());
  const errors = bodyErrors(command.body);
  if (Object.keys(errors).length > 0) return E.left(refused('Note', errors));
  const diffReply = first.type === 'DiffNote';
  const type = diffReply ? 'DiffNote' : 'DiscussionNote';
  // Replying to a resolved thread creates an already-resolved note (`Notes::BuildService`).
  const resolved = noteable.resolvable && threadResolved(notes, noteable);
  const id = state.discussions.sequence + 1;
  const note: NoteData = {
    id,
    type,
    body: command.body,
    author_id: actor.userId,
    created_at: command.created_at && maySetCreatedAt(state, actor.userId, noteable) ? command.created_at : at,
    position: diffReply ? first.position : null,
    line_code: diffReply ? first.line_code : null,
    commit_id: diffReply ? first.commit_id : null,
    resolved_by_id: resolved ? actor.userId : null,
    resolved_at: resolved ? at : null,
  };
  return E.right([{ type: 'NoteAdded', data: { discussion_id: discussion.id, note, converted_note_id: discussion.individual_note ? first.id : null } }]);
};

/** The noteable and one of its notes (`noteable.notes.find(id)`: "404 Not found"). */
const locateNote = (state: DiscussionsView, actorId: number | null, ref: NoteableRef, noteId: number): E.Either<DomainError, { noteable: Noteable; note: Note }> => {
  const located = locate(state, actorId, ref);
  if (E.isLeft(located)) return located;
  const note = findNoteOf(state.discussions, located.right.key, noteId);
  return note ? E.right({ noteable: located.right, note }) : E.left(notFound(undefined, '404 Not found'));
};

const decideEdit = ({ command, actor, at }: IssuedAs<DiscussionCommand, 'EditNote'>, state: DiscussionsView): Decided => {
  const located = locateNote(state, actor.userId, command.noteable, command.note_id);
  if (E.isLeft(located)) return located;
  const { noteable, note } = located.right;
  if (note.system || (actor.userId !== null && !canAdminNote(state, actor.userId, noteable, note))) return E.left(forbidden());
  const body = command.body ?? note.body;
  const errors = bodyErrors(body);
  if (Object.keys(errors).length > 0) return E.left(refused('Failed to save note', errors));
  const confidential = command.confidential !== undefined && command.confidential !== (note.confidential ?? false) ? command.confidential : undefined;
  if (body === note.body && confidential === undefined) return E.right([]);
  return E.right([
    {
      type: 'NoteEdited',
      data: { discussion_id: note.discussion_id, note_id: note.id, body, updated_at: at, edited_by_id: actor.userId, ...(confidential !== undefined ? { confidential } : {}) },
    },
  ]);
};

const decideResolveNote = ({ command, actor, at }: IssuedAs<DiscussionCommand, 'ResolveNote'>, state: DiscussionsView): Decided => {
  const located = locateNote(state, actor.userId, command.noteable, command.note_id);
  if (E.isLeft(located)) return located;
  const { noteable, note } = located.right;
  if (actor.userId !== null && !canResolveNote(state, actor.userId, noteable, note)) return E.left(forbidden());
  if (!isResolvableNote(note, noteable.type)) return E.left(badRequest(DISCUSSION_MESSAGES.notResolvable));
  const isResolved = note.resolved_at !== null;
  if (command.resolved === isResolved) return E.right([]);
  return E.right([
    command.resolved
      ? { type: 'DiscussionResolved', data: { discussion_id: note.discussion_id, note_ids: [note.id], resolved_by_id: actor.userId, at } }
      : { type: 'DiscussionUnresolved', data: { discussion_id: note.discussion_id, note_ids: [note.id], at } },
  ]);
};

const decideResolveDiscussion = ({ command, actor, at }: IssuedAs<DiscussionCommand, 'ResolveDiscussion'>, state: DiscussionsView): Decided => {
  const located = locate(state, actor.userId, command.noteable);
  if (E.isLeft(located)) return located;
  const noteable = located.right;
  const discussion = findDiscussionOf(state.discussions, noteable.key, command.discussion_id);
  if (!discussion) return E.left(notFound('Discussion'));
  const resolvable = notesOfDiscussion(state.discussions, discussion).filter((note) => isResolvableNote(note, noteable.type));
  // `Discussion#can_resolve?`: a resolvable thread, and the noteable's author or `resolve_note` on it.
  if (resolvable.length === 0 || (actor.userId !== null && !canResolveNote(state, actor.userId, noteable, null))) return E.left(forbidden());
  if (command.resolved) {
    const note_ids = resolvable.filter((note) => note.resolved_at === null).map((note) => note.id);
    return E.right(note_ids.length === 0 ? [] : [{ type: 'DiscussionResolved', data: { discussion_id: discussion.id, note_ids, resolved_by_id: actor.userId, at } }]);
  }
  const note_ids = resolvable.filter((note) => note.resolved_at !== null).map((note) => note.id);
  return E.right(note_ids.length === 0 ? [] : [{ type: 'DiscussionUnresolved', data: { discussion_id: discussion.id, note_ids, at } }]);
};

const decideDelete = ({ command, actor, at }: IssuedAs<DiscussionCommand, 'DeleteNote'>, state: DiscussionsView): Decided => {
  const located = locateNote(state, actor.userId, command.noteable, command.note_id);
  if (E.isLeft(located)) return located;
  const { noteable, note } = located.right;
  if (note.system || (actor.userId !== null && !canAdminNote(state, actor.userId, noteable, note))) return E.left(forbidden());
  return E.right([{ type: 'NoteDeleted', data: { discussion_id: note.discussion_id, note_id: note.id, at } }]);
};

export const decide = decideByType<DiscussionCommand, DiscussionsView, Decided>({
  StartDiscussion: decideStart,
  AddNote: decideAdd,
  EditNote: decideEdit,
  ResolveNote: decideResolveNote,
  ResolveDiscussion: decideResolveDiscussion,
  DeleteNote: decideDelete,
});

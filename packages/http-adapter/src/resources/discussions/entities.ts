/** `Entities::Discussion` and `Entities::Note` (14.x form; reference §5.4–5.6). */
import { findUser, isResolvableNote, notesOfDiscussion, threadsOf, type Discussion, type Note, type Position } from '@forgefold/core';
import type { PresentContext } from '../context.js';
import { userBasic } from '../users/entities.js';

const user = (id: number | null, ctx: PresentContext) => {
  const found = id === null ? undefined : findUser(ctx.state.users, id);
  return found ? userBasic(found, ctx) : null;
};

/** `Gitlab::Diff::Position#to_h`. */
export const positionEntity = (position: Position) =>
  position.position_type === 'image'
    ? {
        base_sha: position.base_sha,
        start_sha: position.start_sha,
        head_sha: position.head_sha,
        old_path: position.old_path,
        new_path: position.new_path,
        position_type: 'image',
        width: position.width ?? null,
        height: position.height ?? null,
        x: position.x ?? null,
        y: position.y ?? null,
      }
    : {
        base_sha: position.base_sha,
        start_sha: position.start_sha,
        head_sha: position.head_sha,
        old_path: position.old_path,
        new_path: position.new_path,
        position_type: 'text',
        old_line: position.old_line ?? null,
        new_line: position.new_line ?? null,
        line_range: position.line_range ?? null,
      };

export const noteEntity = (note: Note, ctx: PresentContext) => {
  const threads = threadsOf(ctx.state.discussions, note.noteable_key);
  const noteableType = threads?.type ?? 'Issue';
  const resolvable = isResolvableNote(note, noteableType);
  return {
    id: note.id,
    type: note.type,
    body: note.body,
    attachment: null,
    author: user(note.author_id, ctx),
    created_at: note.created_at,
    updated_at: note.updated_at,
    system: note.system,
    noteable_id: threads?.id ?? null,
    noteable_type: noteableType,
    ...(noteableType === 'MergeRequest' && note.type === 'DiffNote' ? { commit_id: note.commit_id } : {}),
    ...(note.type === 'DiffNote' && note.position ? { position: positionEntity(note.position) } : {}),
    resolvable,
    ...(resolvable ? { resolved: note.resolved_at !== null, resolved_by: user(note.resolved_by_id, ctx), resolved_at: note.resolved_at } : {}),
    confidential: note.confidential ?? false,
    noteable_iid: noteableType === 'Issue' || noteableType === 'MergeRequest' ? (threads?.iid ?? null) : null,
    commands_changes: {},
  };
};

export const discussionEntity = (discussion: Discussion, ctx: PresentContext) => ({
  id: discussion.id,
  individual_note: discussion.individual_note,
  notes: notesOfDiscussion(ctx.state.discussions, discussion).map((note) => noteEntity(note, ctx)),
});

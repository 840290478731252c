/**
 * Discussion events: a thread's history as it reads. The actor of each is the envelope's `actorId`; system notes
 * are not events of their own but projections of the noteables' events (see `system-notes.ts`).
 */
import * as t from 'io-ts';
import { defineEvents, type EventsOf } from '../../kernel/events.js';
import { nullable } from '../shared/codecs.js';

const stream = (data: { discussion_id: string }) => `discussion-${data.discussion_id}`;

export const noteableType = t.keyof({ Issue: null, MergeRequest: null, Snippet: null, Epic: null, Commit: null });
export const noteType = nullable(t.keyof({ DiscussionNote: null, DiffNote: null }));

const position = t.intersection([
  t.type({
    base_sha: nullable(t.string),
    start_sha: nullable(t.string),
    head_sha: nullable(t.string),
    old_path: nullable(t.string),
    new_path: nullable(t.string),
    position_type: t.keyof({ text: null, image: null }),
  }),
  t.partial({ old_line: nullable(t.number), new_line: nullable(t.number), line_range: t.unknown, width: nullable(t.number), height: nullable(t.number), x: nullable(t.number), y: nullable(t.number) }),
]);

const noteable = t.type({
  /** `Issue:<id>`, `MergeRequest:<id>`, `Snippet:<id>`, `Epic:<id>`, `Commit:<project id>:<sha>`. */
  key: t.string,
  type: noteableType,
  id: nullable(t.number),
  iid: nullable(t.number),
  project_id: nullable(t.number),
  group_id: nullable(t.number),
  commit_sha: nullable(t.string),
});

const note = t.intersection([
  t.type({
    id: t.number,
    type: noteType,
    body: t.string,
    author_id: nullable(t.number),
    created_at: t.string,
    position: nullable(position),
    line_code: nullable(t.string),
    /** DiffNotes on merge requests: the head commit of the position. */
    commit_id: nullable(t.string),
    /** A reply to a resolved thread is born resolved. */
    resolved_by_id: nullable(t.number),
    resolved_at: nullable(t.string),
  }),
  /** A confidential note (`confidential: true` on `POST …/notes`); absent: not confidential. */
  t.partial({ confidential: t.boolean }),
]);

export const discussionEvents = defineEvents({
  DiscussionStarted: { version: 1, stream, codec: t.type({ discussion_id: t.string, noteable, individual_note: t.boolean, note }) },
  /** A reply; `converted_note_id`: the individual note that became the first note of a thread (`becomes!`). */
  NoteAdded: { version: 1, stream, codec: t.type({ discussion_id: t.string, note, converted_note_id: nullable(t.number) }) },
  /**
   * `edited_by_id`: who edited (the cross-references of the new body are theirs); absent in logs before it.
   * `confidential`: the note's new confidentiality, when the edit changed it (14.7's `PUT …/notes/:id`).
   */
  NoteEdited: {
    version: 1,
    stream,
    codec: t.intersection([t.type({ discussion_id: t.string, note_id: t.number, body: t.string, updated_at: t.string }), t.partial({ edited_by_id: nullable(t.number), confidential: t.boolean })]),
  },
  NoteDeleted: { version: 1, stream, codec: t.type({ discussion_id: t.string, note_id: t.number, at: t.string }) },
  /** Notes of a thread resolved (all its unresolved resolvable notes, or the one note of `PUT …/notes/:id`). */
  DiscussionResolved: { version: 1, stream, codec: t.type({ discussion_id: t.string, note_ids: t.array(t.number), resolved_by_id: nullable(t.number), at: t.string }) },
  DiscussionUnresolved: { version: 1, stream, codec: t.type({ discussion_id: t.string, note_ids: t.array(t.number), at: t.string }) },
});

export type DiscussionEvent = EventsOf<typeof discussionEvents>;
export type NoteData = t.TypeOf<typeof note>;
export type NoteableData = t.TypeOf<typeof noteable>;
export type NoteableType = t.TypeOf<typeof noteableType>;
export type NoteType = t.TypeOf<typeof noteType>;

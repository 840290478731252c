/** Parameters of the discussions and notes APIs (lib/api/discussions.rb, notes.rb, 14.7). */
import { exactlyOneOf, extend, optional, pathParam, requires, schema, T } from '../../http/index.js';

const lineRangeEnd = schema(optional('line_code', T.String), optional('type', T.String), optional('old_line', T.Integer), optional('new_line', T.Integer));

const position = schema(
  requires('base_sha', T.String),
  requires('start_sha', T.String),
  requires('head_sha', T.String),
  requires('position_type', T.String, { values: ['text', 'image'] }),
  optional('new_path', T.String),
  optional('new_line', T.Integer),
  optional('old_path', T.String),
  optional('old_line', T.Integer),
  optional('line_range', T.Hash(schema(optional('start', T.Hash(lineRangeEnd)), optional('end', T.Hash(lineRangeEnd))))),
  optional('width', T.Integer),
  optional('height', T.Integer),
  optional('x', T.Integer),
  optional('y', T.Integer),
);

export const startParams = schema(requires('body', T.String), optional('commit_id', T.String), optional('created_at', T.String), optional('position', T.Hash(position)));

export const replyParams = schema(requires('body', T.String), optional('created_at', T.String));

export const editNoteParams = schema(optional('body', T.String), optional('resolved', T.Boolean), exactlyOneOf('body', 'resolved'));

export const resolveParams = schema(requires('resolved', T.Boolean));

export const pageParams = schema(optional('page', T.Integer, { default: 1 }), optional('per_page', T.Integer, { default: 20, exceptValues: [0] }));

export const listNotesParams = schema(
  optional('order_by', T.String, { values: ['created_at', 'updated_at'], default: 'created_at' }),
  optional('sort', T.String, { values: ['asc', 'desc'], default: 'desc' }),
  optional('activity_filter', T.String, { values: ['all_notes', 'only_comments', 'only_activity'], default: 'all_notes' }),
  optional('page', T.Integer, { default: 1 }),
  optional('per_page', T.Integer, { default: 20, exceptValues: [0] }),
);

export const createNoteParams = schema(requires('body', T.String), optional('created_at', T.String), optional('confidential', T.Boolean), optional('merge_request_diff_head_sha', T.String));

/** 14.7: `optional :body, allow_blank: false` (a blank body is "body is empty"; none changes nothing) and `confidential`. */
export const updateNoteParams = schema(optional('body', T.String, { allowBlank: false }), optional('confidential', T.Boolean));

/** `requires :note_id, type: Integer` (notes.rb and discussions.rb): `…/notes/abc` is 400 "note_id is invalid". */
export const noteIdParams = schema(pathParam('note_id', T.Integer));

/** notes.rb: `requires :noteable_id, type: Integer` (discussions.rb takes `[Integer, String]`). */
const noteableIdParams = schema(pathParam('noteable_id', T.Integer));
const noteOfNoteableParams = extend(noteableIdParams, noteIdParams);

/** The flat notes routes' parameters, path parameters first (Grape checks in declaration order). */
export const flatNotesParams = {
  list: extend(noteableIdParams, listNotesParams),
  one: noteOfNoteableParams,
  create: extend(noteableIdParams, createNoteParams),
  update: extend(noteOfNoteableParams, updateNoteParams),
} as const;

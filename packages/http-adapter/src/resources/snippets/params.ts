/** Parameters of the project snippets API (lib/api/project_snippets.rb and helpers/snippets_helpers.rb, 14.7). */
import { atLeastOneOf, mutuallyExclusive, exactlyOneOf, optional, pathParam, requires, schema, T } from '../../http/index.js';

const VISIBILITIES = ['private', 'internal', 'public'] as const;

export const createParams = schema(
  requires('title', T.String, { allowBlank: false }),
  optional('description', T.String),
  requires('visibility', T.String, { values: VISIBILITIES }),
  optional('files', T.Array(T.Hash(schema(requires('file_path', T.String, { allowBlank: false }), requires('content', T.String, { allowBlank: false }))))),
  optional('content', T.String, { allowBlank: false }),
  optional('file_name', T.String),
  mutuallyExclusive('files', 'content'),
  exactlyOneOf('files', 'content'),
);

/** `requires :snippet_id, type: Integer`: `…/snippets/abc` is 400 "snippet_id is invalid". */
export const snippetIdParams = schema(pathParam('snippet_id', T.Integer));

export const updateParams = schema(
  pathParam('snippet_id', T.Integer),
  optional('title', T.String, { allowBlank: false }),
  optional('description', T.String),
  optional('visibility', T.String, { values: VISIBILITIES }),
  optional(
    'files',
    T.Array(
      T.Hash(
        schema(
          requires('action', T.String, { values: ['create', 'update', 'delete', 'move'] }),
          optional('content', T.String),
          optional('file_path', T.String),
          optional('previous_path', T.String),
        ),
      ),
    ),
  ),
  optional('content', T.String),
  optional('file_name', T.String),
  mutuallyExclusive('files', 'content'),
  mutuallyExclusive('files', 'file_name'),
  atLeastOneOf('content', 'description', 'files', 'file_name', 'title', 'visibility'),
);

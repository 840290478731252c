/** Parameters of the files and tree API (lib/api/files.rb, repositories.rb, 14.7). */
import { optional, requires, schema, T } from '../../http/index.js';

export const showParams = schema(requires('ref', T.String, { allowBlank: false }));

export const rawParams = schema(optional('ref', T.String));

export const treeParams = schema(
        optional('ref', T.String),
        optional('path', T.String),
        optional('recursive', T.Boolean, { default: false }),
        optional('page', T.Integer, { default: 1 }),
        optional('per_page', T.Integer, { default: 20, exceptValues: [0] }),
      );

/**
 * `simple_file_params` (delete) and `extended_file_params` (create, update: `content` required, `encoding`,
 * `last_commit_id`, `execute_filemode`). A delete declares no `last_commit_id`, so `declared_params` drops it and
 * `Files::DeleteService` never compares it.
 */
const simpleFileParams = [
  requires('branch', T.String, { allowBlank: false }),
  requires('commit_message', T.String, { allowBlank: false }),
  optional('start_branch', T.String),
  optional('author_email', T.String),
  optional('author_name', T.String),
] as const;

export const extendedFileParams = schema(
  ...simpleFileParams,
  requires('content', T.String),
  optional('encoding', T.String, { values: ['base64', 'text'], default: 'text' }),
  optional('last_commit_id', T.String),
  optional('execute_filemode', T.Boolean),
);

export const deleteFileParams = schema(...simpleFileParams);

export const archiveParams = schema(optional('sha', T.String), optional('format', T.String), optional('path', T.String));

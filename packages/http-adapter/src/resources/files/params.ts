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

/** Create, update (content required) and delete (no content) of one file. */
export const writeParams = (content: boolean) =>
  schema(
    requires('branch', T.String, { allowBlank: false }),
    requires('commit_message', T.String, { allowBlank: false }),
    ...(content ? [requires('content', T.String)] : [optional('content', T.String)]),
    optional('encoding', T.String, { values: ['base64', 'text'], default: 'text' }),
    optional('author_email', T.String),
    optional('author_name', T.String),
    optional('start_branch', T.String),
    optional('execute_filemode', T.Boolean),
    optional('last_commit_id', T.String),
  );

export const archiveParams = schema(optional('sha', T.String), optional('format', T.String), optional('path', T.String));

/** Parameters of the invitations API (lib/api/invitations.rb). */
import { optional, pathParam, requires, schema, T, withPagination } from '../../http/index.js';

export const inviteParams = schema(
  requires('email', T.String),
  requires('access_level', T.Integer, { values: [10, 20, 30, 40, 50] }),
  optional('expires_at', T.DateTime),
  optional('invite_source', T.String, { default: 'invitations-api' }),
);

export const listParams = withPagination(schema(optional('query', T.String)));

export const updateParams = schema(pathParam('email', T.String), optional('access_level', T.Integer, { values: [10, 20, 30, 40, 50] }), optional('expires_at', T.DateTime));

export const emailParams = schema(pathParam('email', T.String));

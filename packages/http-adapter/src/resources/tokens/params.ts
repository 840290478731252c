/** Parameters of the token APIs (personal_access_tokens.rb, users.rb, resource_access_tokens.rb). */
import { PERSONAL_SCOPES } from '@forgefold/core';
import { extend, optional, pathParam, requires, schema, T } from '../../http/index.js';

/** Scopes a project or group bot may hold (`Gitlab::Auth.resource_bot_scopes`). */
const RESOURCE_SCOPES = ['api', 'read_api', 'read_repository', 'write_repository', 'read_registry', 'write_registry'] as const;

const createTokenParams = schema(requires('name', T.String), requires('scopes', T.Array(T.String), { values: PERSONAL_SCOPES }), optional('expires_at', T.Date));

/** An administrator creates a personal (or impersonation) token for `:user_id`. */
export const createUserTokenParams = extend(schema(pathParam('user_id', T.Integer)), createTokenParams);

export const createResourceTokenParams = schema(
  requires('name', T.String),
  requires('scopes', T.Array(T.String), { values: RESOURCE_SCOPES }),
  optional('expires_at', T.Date),
  optional('access_level', T.Integer, { values: [10, 20, 30, 40, 50], default: 40 }),
);

export const tokenIdParams = schema(pathParam('token_id', T.Integer));

export const listPersonalParams = schema(optional('user_id', T.Integer), optional('state', T.String, { values: ['active', 'inactive'] }));

export const idParams = schema(pathParam('id', T.Integer));

export const listImpersonationParams = schema(pathParam('user_id', T.Integer), optional('state', T.String, { values: ['all', 'active', 'inactive'], default: 'all' }));

export const impersonationTokenParams = schema(pathParam('user_id', T.Integer), pathParam('impersonation_token_id', T.Integer));

/** Parameters of the project issues API (lib/api/issues.rb, 14.7), lean. */
import { atLeastOneOf, optional, requires, schema, T } from '../../http/index.js';

export const listParams = schema(
  optional('state', T.String, { values: ['opened', 'closed', 'all'], default: 'all' }),
  optional('labels', T.CommaSeparatedStrings),
  optional('search', T.String),
  optional('order_by', T.String, { values: ['created_at', 'updated_at'], default: 'created_at' }),
  optional('sort', T.String, { values: ['asc', 'desc'], default: 'desc' }),
  optional('iids', T.Array(T.Integer)),
  optional('confidential', T.Boolean),
  optional('author_id', T.Integer),
  optional('assignee_id', T.Integer),
  optional('page', T.Integer, { default: 1 }),
  optional('per_page', T.Integer, { default: 20, exceptValues: [0] }),
);

const optionalParams = [
  optional('description', T.String),
  optional('assignee_id', T.Integer),
  optional('assignee_ids', T.Array(T.Integer)),
  optional('labels', T.CommaSeparatedStrings),
  optional('confidential', T.Boolean),
  optional('discussion_locked', T.Boolean),
] as const;

export const createParams = schema(requires('title', T.String), optional('created_at', T.DateTime), ...optionalParams);

export const updateParams = schema(
  optional('title', T.String),
  optional('state_event', T.String, { values: ['reopen', 'close'] }),
  optional('updated_at', T.DateTime),
  ...optionalParams,
  atLeastOneOf('title', 'description', 'assignee_ids', 'assignee_id', 'labels', 'state_event', 'confidential', 'discussion_locked', 'updated_at'),
);

/** Parameters of the commits and compare API (lib/api/commits.rb, repositories.rb, 14.7). */
import { mutuallyExclusive, optional, requires, schema, T } from '../../http/index.js';

export const listParams = schema(
  optional('ref_name', T.String),
  optional('since', T.DateTime),
  optional('until', T.DateTime),
  optional('path', T.String),
  optional('all', T.Boolean),
  optional('with_stats', T.Boolean),
  optional('first_parent', T.Boolean),
  optional('order', T.String, { values: ['default', 'topo'], default: 'default' }),
  optional('trailers', T.Boolean, { default: false }),
  optional('page', T.Integer, { default: 1 }),
  optional('per_page', T.Integer, { default: 20, exceptValues: [0] }),
);

export const createParams = schema(
  requires('branch', T.String, { allowBlank: false }),
  requires('commit_message', T.String),
  requires('actions', T.Array(T.JSON)),
  optional('start_branch', T.String),
  optional('start_sha', T.String),
  mutuallyExclusive('start_branch', 'start_sha'),
  optional('start_project', T.IntegerOrString),
  optional('author_email', T.String),
  optional('author_name', T.String),
  optional('stats', T.Boolean, { default: true }),
  optional('force', T.Boolean, { default: false }),
);

export const showParams = schema(optional('stats', T.Boolean, { default: true }));

export const refsParams = schema(optional('type', T.String, { values: ['branch', 'tag', 'all'], default: 'all' }));

export const compareParams = schema(requires('from', T.String), requires('to', T.String), optional('from_project_id', T.String), optional('straight', T.Boolean, { default: false }));

export const mergeBaseParams = schema(requires('refs', T.CommaSeparatedStrings));

export const contributorsParams = schema(
  optional('order_by', T.String, { values: ['email', 'name', 'commits'], default: 'commits' }),
  optional('sort', T.String, { values: ['asc', 'desc'], default: 'asc' }),
  optional('page', T.Integer, { default: 1 }),
  optional('per_page', T.Integer, { default: 20, exceptValues: [0] }),
);

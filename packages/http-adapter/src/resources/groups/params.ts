/** Parameters of the groups API (lib/api/groups.rb). */
import { VISIBILITIES } from '@forgefold/core';
import { optional, requires, schema, T } from '../../http/index.js';

export const listParams = schema(
  optional('search', T.String),
  optional('owned', T.Boolean, { default: false }),
  optional('all_available', T.Boolean),
  optional('top_level_only', T.Boolean, { default: false }),
  optional('min_access_level', T.Integer, { values: [10, 20, 30, 40, 50] }),
  optional('skip_groups', T.Array(T.Integer)),
  optional('order_by', T.String, { values: ['name', 'path', 'id', 'similarity'], default: 'name' }),
  optional('sort', T.String, { values: ['asc', 'desc'], default: 'asc' }),
  optional('page', T.Integer, { default: 1 }),
  optional('per_page', T.Integer, { default: 20 }),
);

const visibility = { values: VISIBILITIES };
/** `Gitlab::Access.protection_values`. */
const branchProtection = { values: [0, 1, 2, 3] };

export const createParams = schema(
  requires('name', T.String),
  requires('path', T.String),
  optional('parent_id', T.Integer),
  optional('visibility', T.String, visibility),
  optional('description', T.String),
  optional('request_access_enabled', T.Boolean),
  optional('membership_lock', T.Boolean),
  optional('default_branch_protection', T.Integer, branchProtection),
);

export const updateParams = schema(
  requires('id', T.String),
  optional('name', T.String),
  optional('path', T.String),
  optional('visibility', T.String, visibility),
  optional('description', T.String),
  optional('request_access_enabled', T.Boolean),
  optional('new_user_signups_cap', T.Integer),
  optional('membership_lock', T.Boolean),
  optional('default_branch_protection', T.Integer, branchProtection),
);

export const transferParams = schema(optional('group_id', T.Integer));


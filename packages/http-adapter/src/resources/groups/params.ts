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
/** `Gitlab::Access.project_creation_string_values`, in the order of their levels (0, 1, 2). */
export const PROJECT_CREATION_LEVELS = ['noone', 'maintainer', 'developer'] as const;
/** `Gitlab::Access.subgroup_creation_string_values`, in the order of their levels (0, 1). */
export const SUBGROUP_CREATION_LEVELS = ['owner', 'maintainer'] as const;
const projectCreation = { values: PROJECT_CREATION_LEVELS };
const subgroupCreation = { values: SUBGROUP_CREATION_LEVELS };

/**
 * lib/api/groups.rb with `optional_params_ce` (lib/api/helpers/groups_helpers.rb) in its declaration order, which is
 * the order of Grape's messages, then EE's `membership_lock`.
 */
const settings = [
  optional('description', T.String),
  optional('visibility', T.String, visibility),
  optional('share_with_group_lock', T.Boolean),
  optional('project_creation_level', T.String, projectCreation),
  optional('subgroup_creation_level', T.String, subgroupCreation),
  optional('request_access_enabled', T.Boolean),
  optional('default_branch_protection', T.Integer, branchProtection),
  optional('membership_lock', T.Boolean),
] as const;

export const createParams = schema(requires('name', T.String), requires('path', T.String), optional('parent_id', T.Integer), ...settings);

export const updateParams = schema(
  requires('id', T.String),
  optional('name', T.String),
  optional('path', T.String),
  ...settings,
  optional('new_user_signups_cap', T.Integer),
);

/** `GET /groups/:id`: `with_projects=false` answers the Group entity, without the projects. */
export const showParams = schema(requires('id', T.String), optional('with_projects', T.Boolean, { default: true }));

export const transferParams = schema(optional('group_id', T.Integer));


/** Parameters of the projects API (lib/api/projects.rb). */
import { VISIBILITIES } from '@forgefold/core';
import { atLeastOneOf, extend, optional, pathParam, requires, schema, T } from '../../http/index.js';

const ORDERS = ['id', 'name', 'path', 'created_at', 'updated_at', 'last_activity_at', 'similarity'] as const;

export const listParams = schema(
  optional('order_by', T.String, { values: ORDERS, default: 'created_at' }),
  optional('sort', T.String, { values: ['asc', 'desc'], default: 'desc' }),
  optional('search', T.String),
  optional('visibility', T.String, { values: VISIBILITIES }),
  optional('owned', T.Boolean, { default: false }),
  optional('membership', T.Boolean, { default: false }),
  optional('simple', T.Boolean, { default: false }),
  optional('min_access_level', T.Integer, { values: [10, 20, 30, 40, 50] }),
  optional('pagination', T.String, { values: ['offset', 'keyset'] }),
  optional('id_after', T.Integer),
  optional('id_before', T.Integer),
  optional('page', T.Integer, { default: 1 }),
  optional('per_page', T.Integer, { default: 20 }),
);

const createFields = [
  optional('name', T.String),
  optional('path', T.String),
  optional('namespace_id', T.Integer),
  optional('visibility', T.String, { values: VISIBILITIES }),
  optional('description', T.String),
  optional('initialize_with_readme', T.Boolean),
  optional('default_branch', T.String),
  atLeastOneOf('name', 'path'),
] as const;

export const createParams = schema(...createFields);

/** `POST /projects/user/:user_id`: an administrator creates a project for a user. */
export const createForUserParams = schema(pathParam('user_id', T.Integer), ...createFields);

export const updateParams = schema(
  optional('default_branch', T.String),
  optional('merge_method', T.String, { values: ['merge', 'rebase_merge', 'ff'] }),
  optional('name', T.String),
  optional('path', T.String),
  optional('visibility', T.String, { values: VISIBILITIES }),
  optional('description', T.String),
);

/** `GET /users/:user_id/projects`: the user by id or username. */
export const userProjectsParams = extend(schema(pathParam('user_id', T.String)), listParams);

/** `GET /projects/:id/groups` (Projects::GroupsFinder). */
export const projectGroupsParams = schema(
  optional('search', T.String),
  optional('skip_groups', T.Array(T.Integer)),
  optional('with_shared', T.Boolean, { default: false }),
  optional('shared_min_access_level', T.Integer, { values: [10, 20, 30, 40, 50] }),
  optional('page', T.Integer, { default: 1 }),
  optional('per_page', T.Integer, { default: 20 }),
);

export const transferParams = schema(requires('namespace', T.String));

/** `POST /projects/:id/fork`: the namespace by `namespace_id`, `namespace_path` or (deprecated) `namespace` (id or path). */
export const forkParams = schema(
  optional('namespace', T.String),
  optional('namespace_id', T.Integer),
  optional('namespace_path', T.String),
  optional('path', T.String),
  optional('name', T.String),
  optional('description', T.String),
  optional('visibility', T.String, { values: VISIBILITIES }),
);

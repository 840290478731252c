/** Parameters of the environments API (lib/api/environments.rb, 14.7). */
import { mutuallyExclusiveWith, optional, pathParam, requires, schema, T, withPagination } from '../../http/index.js';

export const listParams = withPagination(
  schema(optional('name', T.String), optional('search', T.String), optional('states', T.String, { values: ['available', 'stopped'] }), mutuallyExclusiveWith('cannot be used together', 'name', 'search')),
);

/** `optional :slug, absence: { message: … }`: the slug is generated. */
const slugAbsent = optional('slug', T.String);
export const SLUG_GIVEN = 'slug is automatically generated and cannot be changed';

export const createParams = schema(requires('name', T.String), optional('external_url', T.String), slugAbsent);

export const updateParams = schema(pathParam('environment_id', T.Integer), optional('name', T.String), optional('external_url', T.String), slugAbsent);

export const environmentIdParams = schema(pathParam('environment_id', T.Integer));

/**
 * `DELETE …/environments/review_apps`: `before` (Time; its default, 30 days ago, is the route's), `limit` (1..1000,
 * default 100), `dry_run` (default true). A blank value is nil, which no default replaces.
 */
export const reviewAppsParams = schema(
  optional('before', T.DateTime),
  optional('limit', T.Integer, { values: (limit: number) => limit >= 1 && limit <= 1000, default: 100 }),
  optional('dry_run', T.Boolean, { default: true }),
);


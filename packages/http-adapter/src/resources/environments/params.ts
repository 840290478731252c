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


/** Parameters of the Geo nodes API (ee/lib/api/geo_nodes.rb, 14.x; reference §3.1). */
import { optional, pathParam, requires, schema, T, withPagination } from '../../http/index.js';

const attributes = [
  optional('internal_url', T.String),
  optional('files_max_capacity', T.Integer),
  optional('repos_max_capacity', T.Integer),
  optional('verification_max_capacity', T.Integer),
  optional('container_repositories_max_capacity', T.Integer),
  optional('sync_object_storage', T.Boolean),
  optional('selective_sync_type', T.String),
  optional('selective_sync_shards', T.CommaSeparatedStrings),
  optional('selective_sync_namespace_ids', T.CommaSeparatedIntegers),
  optional('minimum_reverification_interval', T.Integer),
] as const;

export const createParams = schema(optional('primary', T.Boolean), optional('enabled', T.Boolean), requires('name', T.String), requires('url', T.String), ...attributes);

/** Every parameter optional; there is no `primary`, so primary status cannot change through the API. */
export const updateParams = schema(pathParam('id', T.Integer), optional('enabled', T.Boolean), optional('name', T.String), optional('url', T.String), ...attributes);

export const idParams = schema(pathParam('id', T.Integer));

/** `refresh` is declared and never used. */
export const statusParams = schema(pathParam('id', T.Integer), optional('refresh', T.Boolean));

export const listParams = withPagination(schema());

export const failuresParams = withPagination(schema(optional('type', T.String, { values: ['wiki', 'repository'] }), optional('failure_type', T.String, { default: 'sync' })));

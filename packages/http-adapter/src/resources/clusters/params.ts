/** Parameters of the project clusters API (lib/api/project_clusters.rb, 14.7; reference §4.4, §4.6). */
import { optional, pathParam, requires, schema, T, withPagination } from '../../http/index.js';

export const listParams = withPagination(schema());

export const clusterIdParams = schema(pathParam('cluster_id', T.Integer));

export const addParams = schema(
  requires('name', T.String),
  optional('enabled', T.Boolean, { default: true }),
  optional('environment_scope', T.String, { default: '*' }),
  optional('namespace_per_environment', T.Boolean, { default: true }),
  optional('domain', T.String),
  optional('management_project_id', T.Integer),
  optional('managed', T.Boolean, { default: true }),
  requires(
    'platform_kubernetes_attributes',
    T.Hash(
      schema(
        requires('api_url', T.String, { allowBlank: false }),
        requires('token', T.String),
        optional('ca_cert', T.String),
        optional('namespace', T.String),
        optional('authorization_type', T.String, { values: ['rbac', 'abac', 'unknown_authorization'], default: 'rbac' }),
      ),
    ),
  ),
);

/** `authorization_type` cannot be changed; `namespace_per_environment` defaults to true here too (reference §4.6). */
export const editParams = schema(
  pathParam('cluster_id', T.Integer),
  optional('name', T.String),
  optional('domain', T.String),
  optional('environment_scope', T.String),
  optional('namespace_per_environment', T.Boolean, { default: true }),
  optional('management_project_id', T.Integer),
  optional('enabled', T.Boolean),
  optional('managed', T.Boolean),
  optional('platform_kubernetes_attributes', T.Hash(schema(optional('api_url', T.String), optional('token', T.String), optional('ca_cert', T.String), optional('namespace', T.String)))),
);

/** Parameters of the deployments API (lib/api/deployments.rb, 14.7; reference §3.3–3.6). */
import { extend, optional, pathParam, requires, schema, T, withPagination } from '../../http/index.js';
import { baseListParams as mergeRequestListParams } from '../merge-requests/params.js';

const STATUSES = ['created', 'running', 'success', 'failed', 'canceled', 'skipped'] as const;
/** What create and update accept: not `created` (reference §3.5, §7.5–6). */
const REQUESTED = ['running', 'success', 'failed', 'canceled'] as const;

export const listParams = withPagination(
  schema(
    optional('order_by', T.String, { values: ['id', 'iid', 'created_at', 'updated_at', 'ref'], default: 'id' }),
    optional('sort', T.String, { values: ['asc', 'desc'], default: 'asc' }),
    optional('updated_after', T.DateTime),
    optional('updated_before', T.DateTime),
    optional('environment', T.String),
    optional('status', T.String, { values: STATUSES }),
  ),
);

export const deploymentIdParams = schema(pathParam('deployment_id', T.Integer));

export const createParams = schema(
  requires('environment', T.String),
  requires('sha', T.String),
  requires('ref', T.String),
  requires('tag', T.Boolean),
  requires('status', T.String, { values: REQUESTED }),
);

export const updateParams = schema(pathParam('deployment_id', T.Integer), requires('status', T.String, { values: REQUESTED }));

/**
 * The merge request listing's `merge_requests_base_params` (the deployment's merge requests are filtered as any
 * listing); not the project list's `iids`, which the route does not declare, so that `declared_params` drops it.
 */
export const mergeRequestsParams = extend(schema(pathParam('deployment_id', T.Integer)), mergeRequestListParams);

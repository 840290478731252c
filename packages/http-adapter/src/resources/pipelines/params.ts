/** Parameters of the pipelines API (lib/api/ci/pipelines.rb, 14.7). */
import { optional, paramType, pathParam, requires, schema, T, withPagination } from '../../http/index.js';
import { PIPELINE_STATUSES } from '@forgefold/core';

/** `Ci::Pipeline.sources`. */
const SOURCES = [
  'unknown',
  'push',
  'web',
  'trigger',
  'schedule',
  'api',
  'external',
  'pipeline',
  'chat',
  'webide',
  'merge_request_event',
  'external_pull_request_event',
  'parent_pipeline',
  'ondemand_dast_scan',
  'ondemand_dast_validation',
] as const;

export const listParams = withPagination(
  schema(
    optional('scope', T.String, { values: ['running', 'pending', 'finished', 'branches', 'tags'] }),
    optional('status', T.String, { values: PIPELINE_STATUSES }),
    optional('ref', T.String),
    optional('sha', T.String),
    optional('yaml_errors', T.Boolean),
    optional('name', T.String),
    optional('username', T.String),
    optional('updated_before', T.DateTime),
    optional('updated_after', T.DateTime),
    optional('order_by', T.String, { values: ['id', 'status', 'ref', 'updated_at', 'user_id'], default: 'id' }),
    optional('sort', T.String, { values: ['asc', 'desc'], default: 'desc' }),
    optional('source', T.String, { values: SOURCES }),
  ),
);

export const createParams = schema(requires('ref', T.String), optional('variables', T.JSON));

export const pipelineIdParams = schema(pathParam('pipeline_id', T.Integer));

/** `GET …/pipelines/latest`: `optional :ref` (the default branch when absent or blank). */
export const latestParams = schema(optional('ref', T.String));

/** `types: [String, Array[String]]` with `coerce_with`: a string is a list of one, anything else `['unknown']`. */
const jobScope = paramType<string[]>('[String, Array[String]]', (raw) => (typeof raw === 'string' ? [raw] : Array.isArray(raw) ? raw.map((item) => (typeof item === 'string' ? item : String(item))) : ['unknown']));

/** `use :optional_scope` of the pipeline's jobs and bridges: each scope in `CommitStatus::AVAILABLE_STATUSES`, the pipelines' list. */
const optionalScope = optional('scope', jobScope, { values: PIPELINE_STATUSES });

/** `GET …/pipelines/:pipeline_id/jobs`. */
export const jobsParams = withPagination(schema(pathParam('pipeline_id', T.Integer), optional('include_retried', T.Boolean, { default: false }), optionalScope));

/** `GET …/pipelines/:pipeline_id/bridges`. */
export const bridgesParams = withPagination(schema(pathParam('pipeline_id', T.Integer), optionalScope));

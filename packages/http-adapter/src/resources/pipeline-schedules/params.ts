/** Parameters of the pipeline schedules API (lib/api/ci/pipeline_schedules.rb, 14.7). */
import { optional, pathParam, requires, schema, T, withPagination } from '../../http/index.js';

const scheduleId = pathParam('pipeline_schedule_id', T.Integer);
const variableType = { values: ['env_var', 'file'] as const };

export const listParams = withPagination(schema(optional('scope', T.String, { values: ['active', 'inactive'] })));

export const scheduleIdParams = schema(scheduleId);

export const createParams = schema(
  requires('description', T.String),
  requires('ref', T.String, { allowBlank: false }),
  requires('cron', T.String),
  optional('cron_timezone', T.String, { default: 'UTC' }),
  optional('active', T.Boolean, { default: true }),
);

export const updateParams = schema(
  scheduleId,
  optional('description', T.String),
  optional('ref', T.String),
  optional('cron', T.String),
  optional('cron_timezone', T.String),
  optional('active', T.Boolean),
);

export const createVariableParams = schema(scheduleId, requires('key', T.String), requires('value', T.String), optional('variable_type', T.String, variableType));

export const updateVariableParams = schema(scheduleId, pathParam('key', T.String), optional('value', T.String), optional('variable_type', T.String, variableType));

export const variableKeyParams = schema(scheduleId, pathParam('key', T.String));

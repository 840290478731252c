/** Parameters of the membership audit API (README "Membership audit"). */
import { optional, requires, schema, T, withPagination } from '../../http/index.js';

export const historyParams = withPagination(
  schema(
    optional('user_id', T.Integer),
    optional('group_id', T.String),
    optional('project_id', T.String),
    optional('include_descendants', T.Boolean, { default: false }),
    optional('since', T.DateTime),
    optional('until', T.DateTime),
  ),
);

/** `GET /audit/settings_events`: the changes of one field, and a time range. */
export const settingsHistoryParams = withPagination(schema(optional('field', T.String), optional('since', T.DateTime), optional('until', T.DateTime)));

export const asOfParams = withPagination(schema(requires('at', T.DateTime)));

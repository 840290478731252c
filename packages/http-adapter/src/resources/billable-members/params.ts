/** Parameters of the billable members API (ee/lib/ee/api/members.rb). */
import { optional, pathParam, schema, T, withPagination } from '../../http/index.js';

export const BILLABLE_SORTS = ['access_level_asc', 'access_level_desc', 'last_joined', 'name_asc', 'name_desc', 'oldest_joined', 'oldest_sign_in', 'recent_sign_in', 'last_activity_on_asc', 'last_activity_on_desc'] as const;

export const listParams = withPagination(schema(optional('search', T.String), optional('sort', T.String, { values: BILLABLE_SORTS })));

export const membershipsParams = withPagination(schema(pathParam('user_id', T.Integer)));

export const userIdParams = schema(pathParam('user_id', T.Integer));

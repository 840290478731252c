/** Parameters of the access requests API (lib/api/access_requests.rb). */
import { optional, pathParam, schema, T, withPagination } from '../../http/index.js';

export const listParams = withPagination(schema());

export const approveParams = schema(pathParam('user_id', T.Integer), optional('access_level', T.Integer));

export const userIdParams = schema(pathParam('user_id', T.Integer));

/** Parameters of sharing a group or a project with a group (groups.rb and projects.rb `share`). */
import { optional, pathParam, requires, schema, T } from '../../http/index.js';

export const shareGroupParams = schema(requires('group_id', T.Integer), requires('group_access', T.Integer, { values: [10, 20, 30, 40, 50] }), optional('expires_at', T.Date));

export const shareProjectParams = schema(requires('group_id', T.Integer), requires('group_access', T.Integer, { values: [10, 20, 30, 40] }), optional('expires_at', T.Date));

export const unshareParams = schema(pathParam('group_id', T.Integer));

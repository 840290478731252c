/** Parameters of the branches API (lib/api/branches.rb, 14.7). */
import { optional, requires, schema, T } from '../../http/index.js';

export const listParams = schema(optional('search', T.String), optional('sort', T.String), optional('page', T.Integer, { default: 1 }), optional('per_page', T.Integer, { default: 20, exceptValues: [0] }));

export const createParams = schema(requires('branch', T.String, { allowBlank: false }), requires('ref', T.String, { allowBlank: false }));

export const protectParams = schema(optional('developers_can_push', T.Boolean), optional('developers_can_merge', T.Boolean));

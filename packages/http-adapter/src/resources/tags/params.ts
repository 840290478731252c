/** Parameters of the tags API (lib/api/tags.rb, 14.7). */
import { optional, requires, schema, T } from '../../http/index.js';

export const listParams = schema(
  optional('order_by', T.String, { values: ['name', 'updated'], default: 'updated' }),
  optional('sort', T.String, { values: ['asc', 'desc'], default: 'desc' }),
  optional('search', T.String),
  optional('page', T.Integer, { default: 1 }),
  optional('per_page', T.Integer, { default: 20, exceptValues: [0] }),
);

export const createParams = schema(requires('tag_name', T.String), requires('ref', T.String), optional('message', T.String));

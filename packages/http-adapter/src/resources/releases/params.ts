/** Parameters of the releases API and the release links API (lib/api/releases.rb, lib/api/release/links.rb, 14.7). */
import { atLeastOneOf, optional, pathParam, requires, schema, T } from '../../http/index.js';

const LINK_TYPES = ['other', 'runbook', 'image', 'package'];

export const listParams = schema(
  optional('order_by', T.String, { values: ['released_at', 'created_at'], default: 'released_at' }),
  optional('sort', T.String, { values: ['asc', 'desc'], default: 'desc' }),
  optional('include_html_description', T.Boolean),
  optional('page', T.Integer, { default: 1 }),
  optional('per_page', T.Integer, { default: 20 }),
);

export const showParams = schema(optional('include_html_description', T.Boolean));

const assetLink = schema(requires('name', T.String), requires('url', T.String), optional('filepath', T.String), optional('link_type', T.String, { values: LINK_TYPES }));

export const createParams = schema(
  requires('tag_name', T.String),
  optional('name', T.String),
  optional('description', T.String),
  optional('ref', T.String),
  optional('assets', T.Hash(schema(optional('links', T.Array(T.Hash(assetLink)))))),
  optional('milestones', T.Array(T.String)),
  optional('released_at', T.DateTime),
);

export const updateParams = schema(optional('name', T.String), optional('description', T.String), optional('released_at', T.DateTime), optional('milestones', T.Array(T.String)));

export const linkListParams = schema(optional('page', T.Integer, { default: 1 }), optional('per_page', T.Integer, { default: 20 }));

export const linkCreateParams = schema(requires('name', T.String), requires('url', T.String), optional('filepath', T.String), optional('link_type', T.String, { values: LINK_TYPES, default: 'other' }));

export const linkIdParams = schema(pathParam('link_id', T.Integer));

export const linkUpdateParams = schema(pathParam('link_id', T.Integer), optional('name', T.String), optional('url', T.String), optional('filepath', T.String), optional('link_type', T.String, { values: LINK_TYPES }), atLeastOneOf('name', 'url'));

/** Parameters of the group epics API (ee/lib/api/epics.rb, 14.7), lean. */
import { atLeastOneOf, optional, pathParam, requires, schema, T } from '../../http/index.js';

export const listParams = schema(
  optional('state', T.String, { values: ['opened', 'closed', 'all'], default: 'all' }),
  optional('order_by', T.String, { values: ['created_at', 'updated_at'], default: 'created_at' }),
  optional('sort', T.String, { values: ['asc', 'desc'], default: 'desc' }),
  optional('search', T.String),
  optional('labels', T.CommaSeparatedStrings),
  optional('author_id', T.Integer),
  optional('with_labels_details', T.Boolean, { default: false }),
  optional('created_after', T.DateTime),
  optional('created_before', T.DateTime),
  optional('updated_after', T.DateTime),
  optional('updated_before', T.DateTime),
  optional('include_ancestor_groups', T.Boolean, { default: false }),
  optional('include_descendant_groups', T.Boolean, { default: true }),
  optional('my_reaction_emoji', T.String),
  optional('confidential', T.Boolean),
  optional('page', T.Integer, { default: 1 }),
  optional('per_page', T.Integer, { default: 20, exceptValues: [0] }),
);

export const createParams = schema(
  requires('title', T.String),
  optional('description', T.String),
  optional('labels', T.CommaSeparatedStrings),
  optional('confidential', T.Boolean),
);

/** `requires :epic_iid, type: Integer`: `…/epics/abc` is 400 "epic_iid is invalid". */
export const epicIidParams = schema(pathParam('epic_iid', T.Integer));

export const updateParams = schema(
  pathParam('epic_iid', T.Integer),
  optional('title', T.String),
  optional('description', T.String),
  optional('labels', T.CommaSeparatedStrings),
  optional('add_labels', T.CommaSeparatedStrings),
  optional('remove_labels', T.CommaSeparatedStrings),
  optional('confidential', T.Boolean),
  optional('state_event', T.String, { values: ['reopen', 'close'] }),
  atLeastOneOf('title', 'description', 'labels', 'add_labels', 'remove_labels', 'confidential', 'state_event'),
);

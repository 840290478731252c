/** Parameters of the group epics API (ee/lib/api/epics.rb, 14.7), lean. */
import { atLeastOneOfSentAs, optional, pathParam, requires, schema, T } from '../../http/index.js';

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

/** `optional :start_date, as: :start_date_fixed, type: String` and the others: the dates as a client sends them. */
const dateParams = [
  optional('start_date', T.String),
  optional('start_date_is_fixed', T.Boolean),
  optional('end_date', T.String),
  optional('due_date_is_fixed', T.Boolean),
] as const;

export const createParams = schema(
  requires('title', T.String),
  optional('description', T.String),
  optional('confidential', T.Boolean),
  optional('created_at', T.DateTime),
  ...dateParams,
  optional('labels', T.CommaSeparatedStrings),
);

/** `requires :epic_iid, type: Integer`: `…/epics/abc` is 400 "epic_iid is invalid". */
export const epicIidParams = schema(pathParam('epic_iid', T.Integer));

export const updateParams = schema(
  pathParam('epic_iid', T.Integer),
  optional('title', T.String),
  optional('description', T.String),
  optional('confidential', T.Boolean),
  optional('updated_at', T.DateTime),
  ...dateParams,
  optional('labels', T.CommaSeparatedStrings),
  optional('add_labels', T.CommaSeparatedStrings),
  optional('remove_labels', T.CommaSeparatedStrings),
  optional('state_event', T.String, { values: ['reopen', 'close'] }),
  // The rule sees the dates under their `as:` names, and says those.
  atLeastOneOfSentAs(
    { start_date_fixed: 'start_date', due_date_fixed: 'end_date' },
    'title',
    'description',
    'start_date_fixed',
    'start_date_is_fixed',
    'due_date_fixed',
    'due_date_is_fixed',
    'labels',
    'add_labels',
    'remove_labels',
    'state_event',
    'confidential',
  ),
);

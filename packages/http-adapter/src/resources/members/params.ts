/** Parameters of the members API (lib/api/members.rb, ee/lib/ee/api/members.rb). */
import { optional, pathParam, requires, rubySplitComma, schema, T, withPagination } from '../../http/index.js';

export const listParams = withPagination(schema(optional('query', T.String), optional('user_ids', T.CommaSeparatedIntegers), optional('show_seat_info', T.Boolean), optional('with_saml_identity', T.Boolean)));

export const allParams = withPagination(
  schema(optional('query', T.String), optional('user_ids', T.CommaSeparatedIntegers), optional('show_seat_info', T.Boolean), optional('state', T.String, { values: ['awaiting', 'active'] })),
);

export const userIdParams = schema(pathParam('user_id', T.Integer));

/**
 * `present_members` reads `params[:show_seat_info]` on every route, declared or not: where it is undeclared Grape
 * passes the raw value, which Ruby takes as true whenever it is given (even "false").
 */
const rawSeatInfo = optional('show_seat_info', T.JSON);

/** Ruby's truthiness of that raw value: anything but nil and false. */
export const rubyTruthy = (value: unknown): boolean => value !== undefined && value !== null && value !== false;

export const oneMemberParams = schema(pathParam('user_id', T.Integer), rawSeatInfo);

export const addParams = schema(
  requires('access_level', T.Integer),
  requires('user_id', T.IntegerOrString),
  optional('expires_at', T.DateTime),
  optional('invite_source', T.String, { default: 'members-api' }),
  optional('tasks_to_be_done', T.CommaSeparatedStrings),
  optional('tasks_project_id', T.Integer),
  rawSeatInfo,
);

/**
 * Whether `user_id` is a comma list (`add_multiple_members?`: its `to_s` holds a comma), and its items as
 * `Members::CreateService` reads them: `split(',')` (Ruby: trailing empty items dropped), nothing trimmed. What an item
 * is (an id, an address, or nothing to add) is the decision's to say.
 */
export const commaItems = (userId: number | string | null | undefined): string[] | null => {
  const raw = String(userId ?? '');
  return raw.includes(',') ? rubySplitComma(raw) : null;
};

export const updateParams = schema(pathParam('user_id', T.Integer), requires('access_level', T.Integer), optional('expires_at', T.DateTime), rawSeatInfo);

export const deleteParams = schema(pathParam('user_id', T.Integer), optional('skip_subresources', T.Boolean, { default: false }), optional('unassign_issuables', T.Boolean, { default: false }));

export const memberIdParams = schema(pathParam('member_id', T.Integer));

export const overrideParams = schema(pathParam('user_id', T.Integer), optional('override', T.Boolean));

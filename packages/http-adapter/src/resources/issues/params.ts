/** Parameters of the project issues API (lib/api/issues.rb and helpers/issues_helpers.rb, 14.x), lean. */
import * as t from 'io-ts';
import { isLeft } from 'fp-ts/lib/Either.js';
import { atLeastOneOf, mutuallyExclusive, optional, pathParam, requires, schema, T, type ParamType } from '../../http/index.js';

/** `IssuableFinder::Params::FILTER_NONE` / `FILTER_ANY`. */
export type NoneOrAny = 'none' | 'any';

/**
 * `types: [Integer, String], integer_none_any: true` (`IntegerOrCustomValue`): an integer, or `None` / `Any` in any
 * case (answered lower-case); anything else is "<name> should be an integer, None, or Any, however got <value>".
 */
export const IntegerNoneAny: ParamType<number | NoneOrAny> = new t.Type<number | NoneOrAny | null, unknown, unknown>(
  'IntegerNoneAny',
  (_u): _u is number | NoneOrAny | null => true,
  (u, c) => {
    if (u === null) return t.success(null);
    const integer = T.Integer.decode(u);
    if (!isLeft(integer) && integer.right !== null) return t.success(integer.right);
    const text = typeof u === 'string' ? u.toLowerCase() : '';
    if (text === 'none' || text === 'any') return t.success(text);
    return t.failure(u, c, `should be an integer, None, or Any, however got ${typeof u === 'string' || typeof u === 'number' ? u : ''}`);
  },
  (a) => a,
);

/** `CheckAssigneesCount.coerce`: a string is one username (no comma split), an array is kept, anything else is []. */
export const AssigneeUsernames: ParamType<string[]> = new t.Type<string[] | null, unknown, unknown>(
  'CheckAssigneesCount',
  (_u): _u is string[] | null => true,
  (u) => {
    if (typeof u === 'string') return t.success([u]);
    if (Array.isArray(u)) return t.success(u.map((value) => (typeof value === 'string' ? value : String(value))));
    return t.success(u === null ? null : []);
  },
  (a) => a,
);

/**
 * An issuable list's author and assignee filters (issues' and merge requests', and their `not[…]`), each pair
 * mutually exclusive; `assigneeId` as the list declares it.
 */
export const authorAndAssigneeParams = <A>(assigneeId: ParamType<A>) =>
  [
    optional('author_id', T.Integer),
    optional('author_username', T.String),
    mutuallyExclusive('author_id', 'author_username'),
    optional('assignee_id', assigneeId),
    optional('assignee_username', AssigneeUsernames),
    mutuallyExclusive('assignee_id', 'assignee_username'),
  ] as const;

/** `negatable_issue_filter_params`: what `not[…]` takes. */
const negatableParams = [
  optional('labels', T.CommaSeparatedStrings),
  optional('milestone', T.String),
  optional('iids', T.CommaSeparatedIntegers),
  ...authorAndAssigneeParams(T.Integer),
] as const;

const SCOPES = ['created-by-me', 'assigned-to-me', 'created_by_me', 'assigned_to_me', 'all'] as const;

/** `issues_stats_params`: the filters without state, order, due date, type or pages; `scope` as the caller's route declares it. */
const statsFilterParams = [
  optional('labels', T.CommaSeparatedStrings),
  optional('milestone', T.String),
  optional('iids', T.CommaSeparatedIntegers),
  optional('search', T.String),
  optional('in', T.String),
  ...authorAndAssigneeParams(IntegerNoneAny),
  optional('created_after', T.DateTime),
  optional('created_before', T.DateTime),
  optional('updated_after', T.DateTime),
  optional('updated_before', T.DateTime),
  optional('not', T.Hash(schema(...negatableParams))),
] as const;

/** `issues_params` with `issues_stats_params`, in the platform's order, up to `scope`. */
const filterParams = [
  optional('with_labels_details', T.Boolean, { default: false }),
  optional('state', T.String, { values: ['opened', 'closed', 'all'], default: 'all' }),
  optional('order_by', T.String, {
    values: ['created_at', 'updated_at', 'priority', 'due_date', 'relative_position', 'label_priority', 'milestone_due', 'popularity'],
    default: 'created_at',
  }),
  optional('sort', T.String, { values: ['asc', 'desc'], default: 'desc' }),
  optional('due_date', T.String, { values: ['0', 'overdue', 'week', 'month', 'next_month_and_previous_two_weeks', ''] }),
  optional('issue_type', T.String, { values: ['issue', 'incident', 'test_case'] }),
  ...statsFilterParams,
] as const;

/** What the lists and the statistics declare after `scope`. */
const reactionAndConfidential = [optional('my_reaction_emoji', T.String), optional('confidential', T.Boolean)] as const;

const afterScope = [...reactionAndConfidential, optional('page', T.Integer, { default: 1 }), optional('per_page', T.Integer, { default: 20, exceptValues: [0] })] as const;

/** `GET /projects/:id/issues`. */
export const listParams = schema(...filterParams, optional('scope', T.String, { values: SCOPES }), ...afterScope);

/** `GET /groups/:id/issues`: the same, and `non_archived` (every project here is). */
export const groupListParams = schema(...filterParams, optional('scope', T.String, { values: SCOPES }), ...afterScope, optional('non_archived', T.Boolean, { default: true }));

/** `GET /issues`: the caller's own issues unless `scope=all`. */
export const userListParams = schema(
  ...filterParams,
  optional('scope', T.String, { values: SCOPES, default: 'created_by_me' }),
  ...afterScope,
  optional('non_archived', T.Boolean, { default: true }),
);

/** `GET /projects/:id/issues_statistics` and `GET /groups/:id/issues_statistics`. */
export const statsParams = schema(...statsFilterParams, optional('scope', T.String, { values: SCOPES }), ...reactionAndConfidential);

/** `GET /issues_statistics`: `scope` declared again, without the hyphenated forms, `created_by_me` by default. */
export const userStatsParams = schema(
  ...statsFilterParams,
  optional('scope', T.String, { values: ['created_by_me', 'assigned_to_me', 'all'], default: 'created_by_me' }),
  ...reactionAndConfidential,
);

const optionalParams = [
  optional('description', T.String),
  optional('assignee_ids', T.CommaSeparatedIntegers),
  optional('assignee_id', T.Integer),
  optional('milestone_id', T.Integer),
  optional('labels', T.CommaSeparatedStrings),
  optional('add_labels', T.CommaSeparatedStrings),
  optional('remove_labels', T.CommaSeparatedStrings),
  optional('due_date', T.String),
  optional('confidential', T.Boolean),
  optional('discussion_locked', T.Boolean),
] as const;

/** `requires :issue_iid, type: Integer` of the routes on one issue. */
export const iidParams = schema(pathParam('issue_iid', T.Integer));

export const createParams = schema(requires('title', T.String), optional('created_at', T.DateTime), optional('iid', T.Integer), ...optionalParams);

export const updateParams = schema(
  pathParam('issue_iid', T.Integer),
  optional('title', T.String),
  optional('updated_at', T.DateTime, { allowBlank: false }),
  optional('state_event', T.String, { values: ['reopen', 'close'] }),
  ...optionalParams,
  // `IssuesHelpers.update_params_at_least_one_of` (14.x): `created_at` counts although PUT does not declare it.
  atLeastOneOf(
    'assignee_id',
    'assignee_ids',
    'confidential',
    'created_at',
    'description',
    'discussion_locked',
    'due_date',
    'labels',
    'add_labels',
    'remove_labels',
    'milestone_id',
    'state_event',
    'title',
  ),
);

interface LabelParams {
  readonly labels?: readonly string[] | null | undefined;
  readonly add_labels?: readonly string[] | null | undefined;
  readonly remove_labels?: readonly string[] | null | undefined;
}

/** `process_label_ids`: `labels` (else the current ones, when adding or removing), plus `add_labels`, minus `remove_labels`. */
export const labelsOf = (current: readonly string[], params: LabelParams): string[] | undefined => {
  if (!params.labels && !params.add_labels && !params.remove_labels) return undefined;
  const names = (list: readonly string[] | null | undefined) => (list ?? []).filter((label) => label !== '');
  const remove = names(params.remove_labels);
  return [...new Set([...(params.labels ? names(params.labels) : current), ...names(params.add_labels)])].filter((label) => !remove.includes(label));
};

/** `POST …/issues/:issue_iid/links` (lib/api/issue_links.rb): `target_project_id` is a String (an id or a full path). */
export const linkParams = schema(
  pathParam('issue_iid', T.Integer),
  requires('target_project_id', T.String),
  requires('target_issue_iid', T.Integer),
  optional('link_type', T.String, { values: ['relates_to', 'blocks'] }),
);

export const unlinkParams = schema(pathParam('issue_iid', T.Integer), pathParam('issue_link_id', T.Integer));

/** Parameters of the merge requests API (lib/api/merge_requests.rb and helpers/merge_requests_helpers.rb, 14.7). */
import { atLeastOneOf, mutuallyExclusive, optional, pathParam, requires, schema, T, withPagination } from '../../http/index.js';
import { authorAndAssigneeParams, IntegerNoneAny } from '../issues/params.js';

/** `merge_requests_negatable_params`: what the list filters on, and what `not[…]` takes. */
const negatableParams = [
  ...authorAndAssigneeParams(IntegerNoneAny),
  optional('reviewer_id', IntegerNoneAny),
  optional('reviewer_username', T.String),
  mutuallyExclusive('reviewer_id', 'reviewer_username'),
  optional('labels', T.CommaSeparatedStrings),
  optional('milestone', T.String),
  optional('my_reaction_emoji', T.String),
] as const;

const SCOPES = ['created-by-me', 'assigned-to-me', 'created_by_me', 'assigned_to_me', 'all'] as const;

/** `merge_requests_base_params` up to `scope` (which the user list declares with a default). */
const baseParams = [
  ...negatableParams,
  optional('state', T.String, { values: ['opened', 'closed', 'locked', 'merged', 'all'], default: 'all' }),
  optional('order_by', T.String, { values: ['created_at', 'updated_at'], default: 'created_at' }),
  optional('sort', T.String, { values: ['asc', 'desc'], default: 'desc' }),
  optional('with_labels_details', T.Boolean, { default: false }),
  optional('with_merge_status_recheck', T.Boolean, { default: false }),
  optional('created_after', T.DateTime),
  optional('created_before', T.DateTime),
  optional('updated_after', T.DateTime),
  optional('updated_before', T.DateTime),
  optional('view', T.String, { values: ['simple'] }),
] as const;

/** `merge_requests_base_params` after `scope`. */
const afterScope = [
  optional('source_branch', T.String),
  optional('source_project_id', T.Integer),
  optional('target_branch', T.String),
  optional('search', T.String),
  optional('in', T.String),
  optional('wip', T.String, { values: ['yes', 'no'] }),
  optional('not', T.Hash(schema(...negatableParams))),
  optional('deployed_before', T.String),
  optional('deployed_after', T.String),
  optional('environment', T.String),
  optional('page', T.Integer, { default: 1 }),
  optional('per_page', T.Integer, { default: 20, exceptValues: [0] }),
] as const;

/** `merge_requests_base_params` alone (`GET …/deployments/:deployment_id/merge_requests` declares no more). */
export const baseListParams = schema(...baseParams, optional('scope', T.String, { values: SCOPES }), ...afterScope);

/** `GET /projects/:id/merge_requests`: the base parameters and `iids` (`CommaSeparatedToIntegerArray`). */
export const listParams = schema(...baseParams, optional('scope', T.String, { values: SCOPES }), ...afterScope, optional('iids', T.CommaSeparatedIntegers));

/** `GET /groups/:id/merge_requests`: and `non_archived` (no project here is archived). */
export const groupListParams = schema(...baseParams, optional('scope', T.String, { values: SCOPES }), ...afterScope, optional('non_archived', T.Boolean, { default: true }));

/** `GET /merge_requests`: `optional_scope_param`, the caller's own merge requests unless `scope=all`. */
export const userListParams = schema(...baseParams, optional('scope', T.String, { values: SCOPES, default: 'created_by_me' }), ...afterScope);

/** `params :optional_params` of create and update (EE's `approvals_before_merge` is accepted and not kept). */
export const optionalParams = [
  optional('assignee_id', T.Integer),
  optional('assignee_ids', T.CommaSeparatedIntegers),
  optional('reviewer_ids', T.CommaSeparatedIntegers),
  optional('description', T.String),
  optional('labels', T.CommaSeparatedStrings),
  optional('add_labels', T.CommaSeparatedStrings),
  optional('remove_labels', T.CommaSeparatedStrings),
  optional('milestone_id', T.Integer),
  optional('remove_source_branch', T.Boolean),
  optional('allow_collaboration', T.Boolean),
  optional('allow_maintainer_to_push', T.Boolean),
  optional('squash', T.Boolean),
  optional('approvals_before_merge', T.Integer),
] as const;

export const createParams = schema(requires('title', T.String), requires('source_branch', T.String), requires('target_branch', T.String), optional('target_project_id', T.Integer), ...optionalParams);

/** `requires :merge_request_iid, type: Integer`: declared for the single GET and DELETE only. */
export const iidParams = schema(pathParam('merge_request_iid', T.Integer));

/** `GET …/versions` (merge_request_diffs.rb): the iid and `use :pagination`. */
export const versionsParams = withPagination(schema(pathParam('merge_request_iid', T.Integer)));

/** `GET …/versions/:version_id`: both ids integers. */
export const versionParams = schema(pathParam('merge_request_iid', T.Integer), pathParam('version_id', T.Integer));

/** The single GET: the iid, and what the entity may include. */
export const getParams = schema(
  pathParam('merge_request_iid', T.Integer),
  optional('render_html', T.Boolean),
  optional('include_diverged_commits_count', T.Boolean),
  optional('include_rebase_in_progress', T.Boolean),
);

export const updateParams = schema(
  optional('title', T.String, { allowBlank: false }),
  optional('target_branch', T.String, { allowBlank: false }),
  optional('state_event', T.String, { values: ['close', 'reopen'] }),
  optional('discussion_locked', T.Boolean),
  ...optionalParams,
  // `API::MergeRequests.update_params_at_least_one_of` (14.x).
  atLeastOneOf(
    'assignee_id',
    'assignee_ids',
    'reviewer_ids',
    'description',
    'labels',
    'add_labels',
    'remove_labels',
    'milestone_id',
    'remove_source_branch',
    'allow_collaboration',
    'allow_maintainer_to_push',
    'squash',
    'target_branch',
    'title',
    'state_event',
    'discussion_locked',
  ),
);

export const mergeParams = schema(
  optional('merge_commit_message', T.String),
  optional('squash_commit_message', T.String),
  optional('should_remove_source_branch', T.Boolean),
  optional('merge_when_pipeline_succeeds', T.Boolean),
  optional('sha', T.String),
  optional('squash', T.Boolean),
);

/** EE `POST …/approve`: `sha` (must be the head) and `approval_password` (not required here). */
export const approveParams = schema(optional('sha', T.String), optional('approval_password', T.String));

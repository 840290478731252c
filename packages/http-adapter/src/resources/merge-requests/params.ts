/** Parameters of the merge requests API (lib/api/merge_requests.rb, 14.7). */
import { atLeastOneOf, optional, requires, schema, T } from '../../http/index.js';

export const listParams = schema(
  optional('state', T.String, { values: ['opened', 'closed', 'locked', 'merged', 'all'], default: 'all' }),
  optional('order_by', T.String, { values: ['created_at', 'updated_at'], default: 'created_at' }),
  optional('sort', T.String, { values: ['asc', 'desc'], default: 'desc' }),
  optional('source_branch', T.String),
  optional('target_branch', T.String),
  optional('author_id', T.Integer),
  optional('search', T.String),
  optional('iids', T.Array(T.Integer)),
  optional('page', T.Integer, { default: 1 }),
  optional('per_page', T.Integer, { default: 20, exceptValues: [0] }),
);

export const optionalParams = [
  optional('description', T.String),
  optional('assignee_id', T.Integer),
  optional('assignee_ids', T.Array(T.Integer)),
  optional('milestone_id', T.Integer),
  optional('labels', T.CommaSeparatedStrings),
  optional('remove_source_branch', T.Boolean),
  optional('allow_collaboration', T.Boolean),
  optional('squash', T.Boolean),
] as const;

export const createParams = schema(requires('title', T.String), requires('source_branch', T.String), requires('target_branch', T.String), optional('target_project_id', T.Integer), ...optionalParams);

export const updateParams = schema(
        optional('title', T.String, { allowBlank: false }),
        optional('target_branch', T.String, { allowBlank: false }),
        optional('state_event', T.String, { values: ['close', 'reopen'] }),
        optional('discussion_locked', T.Boolean),
        ...optionalParams,
        atLeastOneOf('assignee_id', 'assignee_ids', 'description', 'labels', 'milestone_id', 'remove_source_branch', 'state_event', 'target_branch', 'title', 'discussion_locked', 'squash'),
      );

export const mergeParams = schema(
        optional('merge_commit_message', T.String),
        optional('squash_commit_message', T.String),
        optional('should_remove_source_branch', T.Boolean),
        optional('merge_when_pipeline_succeeds', T.Boolean),
        optional('sha', T.String),
        optional('squash', T.Boolean),
      );

/** Parameters of the projects API (lib/api/projects.rb). */
import { VISIBILITIES } from '@forgefold/core';
import { atLeastOneOf, extend, optional, pathParam, requires, schema, T } from '../../http/index.js';

const ORDERS = ['id', 'name', 'path', 'created_at', 'updated_at', 'last_activity_at', 'similarity'] as const;

export const listParams = schema(
  optional('order_by', T.String, { values: ORDERS, default: 'created_at' }),
  optional('sort', T.String, { values: ['asc', 'desc'], default: 'desc' }),
  optional('archived', T.Boolean),
  optional('visibility', T.String, { values: VISIBILITIES }),
  optional('search', T.String),
  optional('search_namespaces', T.Boolean),
  optional('owned', T.Boolean, { default: false }),
  optional('starred', T.Boolean, { default: false }),
  optional('membership', T.Boolean, { default: false }),
  optional('simple', T.Boolean, { default: false }),
  optional('with_issues_enabled', T.Boolean, { default: false }),
  optional('with_merge_requests_enabled', T.Boolean, { default: false }),
  optional('min_access_level', T.Integer, { values: [10, 20, 30, 40, 50] }),
  optional('pagination', T.String, { values: ['offset', 'keyset'] }),
  optional('id_after', T.Integer),
  optional('id_before', T.Integer),
  optional('page', T.Integer, { default: 1 }),
  optional('per_page', T.Integer, { default: 20 }),
);

const createFields = [
  optional('name', T.String),
  optional('path', T.String),
  optional('namespace_id', T.Integer),
  optional('visibility', T.String, { values: VISIBILITIES }),
  optional('description', T.String),
  optional('initialize_with_readme', T.Boolean),
  optional('default_branch', T.String),
  optional('request_access_enabled', T.Boolean),
  atLeastOneOf('name', 'path'),
] as const;

export const createParams = schema(...createFields);

/** `POST /projects/user/:user_id`: an administrator creates a project for a user. */
export const createForUserParams = schema(pathParam('user_id', T.Integer), ...createFields);

/**
 * `at_least_one_of(*ProjectsHelpers.update_params_at_least_one_of)` of `PUT /projects/:id`, in the platform's order:
 * the CE list, then EE's `super.concat`. Most of these names this route does not keep; any of them present (whatever
 * its value) is enough. Sources and what is uncertain about 14.7: docs/decisions.md, "No-op updates".
 */
const UPDATE_AT_LEAST_ONE_OF = [
  'allow_merge_on_skipped_pipeline',
  'autoclose_referenced_issues',
  'auto_devops_enabled',
  'auto_devops_deploy_strategy',
  'auto_cancel_pending_pipelines',
  'build_coverage_regex',
  'build_git_strategy',
  'build_timeout',
  'builds_access_level',
  'ci_config_path',
  'ci_default_git_depth',
  'ci_forward_deployment_enabled',
  'container_registry_enabled',
  'container_expiration_policy_attributes',
  'default_branch',
  'description',
  'emails_disabled',
  'forking_access_level',
  'issues_access_level',
  'lfs_enabled',
  'merge_requests_access_level',
  'merge_method',
  'name',
  'only_allow_merge_if_all_discussions_are_resolved',
  'only_allow_merge_if_pipeline_succeeds',
  'pages_access_level',
  'path',
  'printing_merge_request_link_enabled',
  'public_builds',
  'remove_source_branch_after_merge',
  'repository_access_level',
  'request_access_enabled',
  'resolve_outdated_diff_discussions',
  'restrict_user_defined_variables',
  'squash_option',
  'shared_runners_enabled',
  'snippets_access_level',
  'tag_list',
  'topics',
  'visibility',
  'wiki_access_level',
  'avatar',
  'suggestion_commit_message',
  'merge_commit_template',
  'squash_commit_template',
  'repository_storage',
  'compliance_framework_setting',
  'packages_enabled',
  'service_desk_enabled',
  'keep_latest_artifact',
  // "TODO: remove in API v5, replaced by *_access_level"
  'issues_enabled',
  'jobs_enabled',
  'merge_requests_enabled',
  'wiki_enabled',
  'snippets_enabled',
  // EE
  'approvals_before_merge',
  'external_authorization_classification_label',
  'fallback_approvals_required',
  'import_url',
  'issues_template',
  'merge_requests_template',
  'merge_pipelines_enabled',
  'merge_trains_enabled',
  'requirements_access_level',
];

export const updateParams = schema(
  optional('default_branch', T.String),
  optional('merge_method', T.String, { values: ['merge', 'rebase_merge', 'ff'] }),
  optional('name', T.String),
  optional('path', T.String),
  optional('visibility', T.String, { values: VISIBILITIES }),
  optional('description', T.String),
  optional('request_access_enabled', T.Boolean),
  atLeastOneOf(...UPDATE_AT_LEAST_ONE_OF),
);

/** `GET /users/:user_id/projects`: the user by id or username. */
export const userProjectsParams = extend(schema(pathParam('user_id', T.String)), listParams);

/** `GET /projects/:id/groups` (Projects::GroupsFinder). */
export const projectGroupsParams = schema(
  optional('search', T.String),
  optional('skip_groups', T.Array(T.Integer)),
  optional('with_shared', T.Boolean, { default: false }),
  optional('shared_min_access_level', T.Integer, { values: [10, 20, 30, 40, 50] }),
  optional('page', T.Integer, { default: 1 }),
  optional('per_page', T.Integer, { default: 20 }),
);

export const transferParams = schema(requires('namespace', T.String));

/**
 * `GET /groups/:id/projects` (lib/api/groups.rb): the projects list's filters, and where they come from —
 * `with_shared` (default true) adds the projects shared with the group, `include_subgroups` those of its subgroups.
 */
export const groupProjectsParams = extend(
  schema(requires('id', T.String), optional('with_shared', T.Boolean, { default: true }), optional('include_subgroups', T.Boolean, { default: false })),
  listParams,
);

/** `POST /groups/:id/projects/:project_id`: an administrator moves a project into the group. */
export const groupProjectTransferParams = schema(requires('id', T.String), requires('project_id', T.String));

/** `POST /projects/:id/fork`: the namespace by `namespace_id`, `namespace_path` or (deprecated) `namespace` (id or path). */
export const forkParams = schema(
  optional('namespace', T.String),
  optional('namespace_id', T.Integer),
  optional('namespace_path', T.String),
  optional('path', T.String),
  optional('name', T.String),
  optional('description', T.String),
  optional('visibility', T.String, { values: VISIBILITIES }),
);

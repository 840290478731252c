/** Decider specs of the settings module: the model's validations, the change record, and the deciders that read the settings. */
import { forbidden, validation, type ForgefoldEvent } from '@forgefold/core';
import { AT, groupCreated, memberAdded, userCreated, type Spec } from './spec.js';

const root = userCreated(1, 'root', { admin: true });
const alice = userCreated(2, 'alice');
const team = groupCreated(4, 'team');

const changed = (changes: { field: string; old: unknown; new: unknown }[], actor: number | null = 1): ForgefoldEvent =>
  ({ type: 'SettingsChanged', data: { changes, actor_id: actor, at: AT } }) as ForgefoldEvent;

const invalid = (changes: Record<string, unknown>, errors: Record<string, string[]>): Spec => ({ given: [root], as: 1, when: { type: 'ChangeSettings', changes: changes as never }, error: validation(errors) });

export const settingSpecs: Record<string, Spec> = {
  'an administrator changes settings: exactly the changed fields, old and new, and who': {
    given: [root],
    as: 1,
    when: { type: 'ChangeSettings', changes: { signup_enabled: false, default_projects_limit: 100000, after_sign_up_text: 'hi' } },
    then: [changed([{ field: 'after_sign_up_text', old: null, new: 'hi' }, { field: 'signup_enabled', old: true, new: false }])],
  },
  'nothing changed, nothing recorded': { given: [root], as: 1, when: { type: 'ChangeSettings', changes: { signup_enabled: true } }, then: [] },
  'write-only secrets are recorded filtered': {
    given: [root],
    as: 1,
    when: { type: 'ChangeSettings', changes: { asset_proxy_enabled: true, asset_proxy_url: 'https://proxy.example.com', asset_proxy_secret_key: 'shh' } },
    then: [
      changed([
        { field: 'asset_proxy_enabled', old: false, new: true },
        { field: 'asset_proxy_secret_key', old: null, new: '[FILTERED]' },
        { field: 'asset_proxy_url', old: null, new: 'https://proxy.example.com' },
      ]),
    ],
  },
  'only administrators': { given: [root, alice], as: 2, when: { type: 'ChangeSettings', changes: { signup_enabled: false } }, error: forbidden() },
  'a blank key for an enabled spam filter': invalid({ spamfilter_enabled: true, spamfilter_api_key: '' }, { spamfilter_api_key: ["can't be blank"] }),
  'an asset proxy without its URL and key': invalid({ asset_proxy_enabled: true }, { asset_proxy_url: ["can't be blank"], asset_proxy_secret_key: ["can't be blank"] }),
  'terms enforced without terms': invalid({ enforce_terms: true }, { base: ['You need to set terms to be enforced'] }),
  'an empty denylist while enabled': invalid({ domain_denylist_enabled: true, domain_denylist: [] }, { domain_denylist: ['Domain denylist cannot be empty if denylist is enabled.'] }),
  'attachments of at least 1 MB': invalid({ max_attachment_size: 0 }, { max_attachment_size: ['must be greater than 0'] }),
  'a blank attachment size': invalid({ max_attachment_size: null }, { max_attachment_size: ["can't be blank", 'is not a number'] }),
  'snippets of at least one byte': invalid({ snippet_size_limit: 0 }, { snippet_size_limit: ['must be greater than 0'] }),
  'wiki pages of at least 1 KiB': invalid({ wiki_page_max_content_bytes: 1000 }, { wiki_page_max_content_bytes: ['must be greater than or equal to 1024'] }),
  'housekeeping periods in order': invalid({ housekeeping_full_repack_period: 5 }, { housekeeping_full_repack_period: ['must be greater than or equal to 10'] }),
  'storage timeouts in order': invalid({ storage_timeout_fast: 40, storage_timeout_medium: 35 }, { storage_timeout_medium: ['must be greater than or equal to 40'] }),
  'diff limits within bounds': invalid({ diff_max_patch_bytes: 100 }, { diff_max_patch_bytes: ['must be greater than or equal to 204800'] }),
  'an e-mail host without @': invalid({ commit_email_hostname: 'a@b' }, { commit_email_hostname: ['is invalid'] }),
  'a CI path without traversal': invalid({ default_ci_config_path: '../x.yml' }, { default_ci_config_path: ['cannot include leading slash or directory traversal.'] }),
  'a token prefix of at most 20 characters': invalid({ personal_access_token_prefix: 'a'.repeat(21) }, { personal_access_token_prefix: ['is too long (maximum is 20 characters)'] }),
  'archives kept at least a day': invalid({ archive_builds_in_human_readable: '3 hours' }, { archive_builds_in_seconds: ['must be at least 1 day'] }),
  'storage weights between 0 and 100 on known storages': invalid({ repository_storages_weighted: { default: 101, foo: 1 } }, { repository_storages_weighted: ["can't include: foo", "value for 'default' must be between 0 and 100", "value for 'foo' must be between 0 and 100"].slice(0, 2) }),
  'throttles need positive periods': invalid({ throttle_authenticated_api_period_in_seconds: 0 }, { throttle_authenticated_api_period_in_seconds: ['must be greater than 0'] }),
  'adjourned deletion of at most 90 days': invalid({ deletion_adjourned_period: 91 }, { deletion_adjourned_period: ['must be less than or equal to 90'] }),
  'Geo allowed IPs as addresses or CIDRs': invalid({ geo_node_allowed_ips: '10.0.0.0/8, foo' }, { geo_node_allowed_ips: ['invalid address: foo'] }),
  'mirror capacity threshold within capacity': invalid({ mirror_capacity_threshold: 200 }, { mirror_capacity_threshold: ["Project's mirror capacity threshold can't be higher than it's maximum capacity"] }),
  'URLs with http or https': invalid({ home_page_url: 'javascript:alert(1)' }, { home_page_url: ['is blocked: Only allowed schemes are http, https'] }),
  'a spam check endpoint over grpc or tls': invalid({ spam_check_endpoint_enabled: true, spam_check_endpoint_url: 'https://x', spam_check_api_key: 'k' }, { spam_check_endpoint_url: ['is blocked: Only allowed schemes are tls, grpc'] }),
  // `addressable_url` (14.7's ApplicationSetting): the shared rule, so UrlBlocker's reasons follow "is blocked: ".
  'a URL setting without a scheme is blocked, not "must be a valid URL"': invalid({ home_page_url: 'example.com' }, { home_page_url: ['is blocked: Only allowed schemes are http, https'] }),
  'a URL setting that does not parse is blocked: URI is invalid': invalid({ after_sign_out_path: 'http://exa mple.com/' }, { after_sign_out_path: ['is blocked: URI is invalid'] }),
  'a URL setting whose host starts with neither a letter nor a digit is blocked': invalid({ help_page_support_url: 'http://-help.example.com' }, { help_page_support_url: ['is blocked: Hostname or IP address invalid'] }),
  'the pipeline validation service URL follows the same rule': invalid({ external_pipeline_validation_service_url: 'validate.example.com' }, { external_pipeline_validation_service_url: ['is blocked: Only allowed schemes are http, https'] }),
  'a URL setting is kept stripped': {
    given: [root],
    as: 1,
    when: { type: 'ChangeSettings', changes: { help_page_documentation_base_url: '  https://docs.example.com  ', external_authorization_service_url: ' https://auth.example.com ' } },
    // The authorization service URL is checked (and stripped) only while the service is enabled.
    then: [
      changed([
        { field: 'external_authorization_service_url', old: null, new: ' https://auth.example.com ' },
        { field: 'help_page_documentation_base_url', old: null, new: 'https://docs.example.com' },
      ]),
    ],
  },
  'the authorization service URL, while enabled, follows the same rule': invalid(
    { external_authorization_service_enabled: true, external_authorization_service_default_label: 'L', external_authorization_service_url: 'not a url' },
    { external_authorization_service_url: ['is blocked: Only allowed schemes are http, https'] },
  ),
  'a spam check endpoint whose host starts with neither a letter nor a digit is blocked': invalid({ spam_check_endpoint_url: 'grpc://-spam.example.com' }, { spam_check_endpoint_url: ['is blocked: Hostname or IP address invalid'] }),
  'a blank Gitpod URL while enabled: both presence and addressable_url': invalid({ gitpod_enabled: true, gitpod_url: '' }, { gitpod_url: ["can't be blank", 'must be a valid URL'] }),
  'a Gitpod URL without a scheme is blocked': invalid({ gitpod_enabled: true, gitpod_url: 'gitpod.example.com' }, { gitpod_url: ['is blocked: Only allowed schemes are http, https'] }),
  'a Gitpod URL is kept stripped': {
    given: [root],
    as: 1,
    when: { type: 'ChangeSettings', changes: { gitpod_enabled: true, gitpod_url: ' https://gitpod.example.com/ ' } },
    then: [
      changed([
        { field: 'gitpod_enabled', old: false, new: true },
        { field: 'gitpod_url', old: 'https://gitpod.io/', new: 'https://gitpod.example.com/' },
      ]),
    ],
  },
  // `validate_kroki_url`: UrlBlocker.validate! itself, its reason after "is not valid. ".
  'a diagram renderer URL whose host starts with neither a letter nor a digit': invalid({ diagramrender_enabled: true, diagramrender_url: 'http://-kroki.example.com' }, { diagramrender_url: ['is not valid. Hostname or IP address invalid'] }),
  // `grafana_url` (ApplicationSetting, 14.7): Addressable must read it ("must be a valid relative or absolute URL",
  // null too); an absolute one is also `system_hook_url` with the hint after UrlBlocker's reason.
  'a dashboard URL Addressable cannot read': invalid(
    { dashboard_url: 'http://exa mple.com/' },
    { dashboard_url: ['must be a valid relative or absolute URL. Please check your Grafana URL setting in Admin Area > Settings > Metrics and profiling > Metrics - Grafana'] },
  ),
  'a null dashboard URL': invalid(
    { dashboard_url: null },
    { dashboard_url: ['must be a valid relative or absolute URL. Please check your Grafana URL setting in Admin Area > Settings > Metrics and profiling > Metrics - Grafana'] },
  ),
  'an absolute dashboard URL with another scheme is blocked': invalid(
    { dashboard_url: 'ftp://grafana.example.com' },
    { dashboard_url: ['is blocked: Only allowed schemes are http, https. Please check your Grafana URL setting in Admin Area > Settings > Metrics and profiling > Metrics - Grafana'] },
  ),
  'a dashboard URL without a scheme is relative': {
    given: [root],
    as: 1,
    when: { type: 'ChangeSettings', changes: { dashboard_url: 'grafana.example.com' } },
    then: [changed([{ field: 'dashboard_url', old: '/-/grafana', new: 'grafana.example.com' }])],
  },
  'an empty dashboard URL is relative': { given: [root], as: 1, when: { type: 'ChangeSettings', changes: { dashboard_url: '' } }, then: [changed([{ field: 'dashboard_url', old: '/-/grafana', new: '' }])] },
  'an absolute dashboard URL is kept stripped': {
    given: [root],
    as: 1,
    when: { type: 'ChangeSettings', changes: { dashboard_url: 'https://grafana.example.com/d ' } },
    then: [changed([{ field: 'dashboard_url', old: '/-/grafana', new: 'https://grafana.example.com/d' }])],
  },
  // EE `check_elasticsearch_url_scheme` (if changed): every URL of the list through UrlBlocker, http or https.
  'a search engine URL that is not http(s)': invalid({ searchengine_url: ['http://es1.example.com:9200', 'es2.example.com:9200'] }, { searchengine_url: ['only supports valid HTTP(S) URLs.'] }),
  'an empty search engine URL in the list': invalid({ searchengine_url: ['', 'http://es.example.com'] }, { searchengine_url: ['only supports valid HTTP(S) URLs.'] }),
  'a search engine cluster over http and https': {
    given: [root],
    as: 1,
    when: { type: 'ChangeSettings', changes: { searchengine_url: ['http://es1.example.com:9200', 'https://es2.example.com'] } },
    then: [changed([{ field: 'searchengine_url', old: ['http://localhost:9200'], new: ['http://es1.example.com:9200', 'https://es2.example.com'] }])],
  },
  // `elasticsearch_aws_region`'s presence: `if: indexing? && aws?`.
  'the cloud region is not needed while indexing is off': {
    given: [root],
    as: 1,
    when: { type: 'ChangeSettings', changes: { searchengine_cloud: true, searchengine_cloud_region: '' } },
    then: [changed([{ field: 'searchengine_cloud', old: false, new: true }, { field: 'searchengine_cloud_region', old: 'us-east-1', new: '' }])],
  },
  'the cloud region while indexing': invalid(
    { searchengine_indexing: true, searchengine_cloud: true, searchengine_cloud_region: '' },
    { searchengine_cloud_region: ["can't be blank when using aws hosted elasticsearch"] },
  ),
  'the projects limit is not validated': {
    given: [root],
    as: 1,
    when: { type: 'ChangeSettings', changes: { default_projects_limit: -5 } },
    then: [changed([{ field: 'default_projects_limit', old: 100000, new: -5 }])],
  },
};

const restrict = (levels: string[]): ForgefoldEvent => changed([{ field: 'restricted_visibility_levels', old: [], new: levels }]);

/** Other modules' decisions under the settings (they read the slice; only the settings module writes it). */
export const settingEffectSpecs: Record<string, Spec> = {
  'a new project takes the default project visibility': {
    given: [alice, changed([{ field: 'default_project_visibility', old: 'private', new: 'internal' }])],
    as: 2,
    when: { type: 'CreateProject', path: 'app' },
    then: [
      { type: 'ProjectCreated', data: { id: 1, name: 'app', path: 'app', description: '', namespace_id: 102, namespace_kind: 'user', visibility: 'internal', creator_id: 2, created_at: AT } },
      { type: 'MemberAdded', data: { id: 1, source_type: 'Project', source_id: 1, user_id: 2, invite_email: null, access_level: 40, expires_at: null, state: 'active', ldap: false, created_at: AT, created_by_id: 2 } },
    ],
  },
  'a restricted level is refused to others than administrators': {
    given: [alice, restrict(['public'])],
    as: 2,
    when: { type: 'CreateProject', path: 'app', visibility: 'public' },
    error: validation({ visibility_level: ['public has been restricted by your GitLab administrator'] }),
  },
  // `POST /projects/user/:user_id`: `CreateService.new(user, attrs)` checks the level for the user, not the administrator.
  'a restricted level is refused to a project an administrator creates for someone else': {
    given: [root, alice, restrict(['public'])],
    as: 1,
    when: { type: 'CreateProject', path: 'app', visibility: 'public', owner_id: 2 },
    error: validation({ visibility_level: ['public has been restricted by your GitLab administrator'] }),
  },
  'a new group takes the default group visibility and project creation level': {
    given: [root, changed([{ field: 'default_group_visibility', old: 'private', new: 'public' }, { field: 'default_project_creation', old: 2, new: 1 }])],
    as: 1,
    when: { type: 'CreateGroup', name: 'G', path: 'gg' },
    then: [
      { type: 'GroupCreated', data: { id: 102, name: 'G', path: 'gg', parent_id: null, visibility: 'public', description: '', request_access_enabled: true, project_creation_level: 1, created_at: AT, created_by_id: 1 } },
      { type: 'MemberAdded', data: { id: 1, source_type: 'Namespace', source_id: 102, user_id: 1, invite_email: null, access_level: 50, expires_at: null, state: 'active', ldap: false, created_at: AT, created_by_id: 1 } },
    ],
  },
  'a new account takes default_projects_limit and user_default_external': {
    given: [root, changed([{ field: 'default_projects_limit', old: 100000, new: 3 }, { field: 'user_default_external', old: false, new: true }])],
    as: 1,
    when: { type: 'CreateUser', username: 'eve', name: 'Eve', email: 'eve@example.com', password_digest: null },
    then: [
      {
        type: 'UserCreated',
        data: { id: 2, username: 'eve', name: 'Eve', email: 'eve@example.com', public_email: null, is_admin: false, bot: null, password_digest: null, namespace_id: 102, created_at: AT, created_by_id: 1, projects_limit: 3, external: true },
      },
    ],
  },
  'a personal project past the limit': {
    given: [{ ...alice, data: { ...(alice.data as object), projects_limit: 0 } } as ForgefoldEvent],
    as: 2,
    when: { type: 'CreateProject', path: 'app' },
    error: validation({ limit_reached: ['Personal project creation is not allowed. Please contact your administrator with questions'] }),
  },
  'developers do not create projects where maintainers were the default': {
    given: [root, alice, changed([{ field: 'default_project_creation', old: 2, new: 1 }]), { ...team, data: { ...(team.data as object), project_creation_level: 1 } } as ForgefoldEvent, memberAdded(1, { group: 4 }, 2, 30)],
    as: 2,
    when: { type: 'CreateProject', path: 'app', namespace_id: 4 },
    error: validation({ namespace: ['is not valid'] }),
  },
};

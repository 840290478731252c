/**
 * The application settings (`ApplicationSetting`, one row, id 1): every field of the specification with a fresh
 * instance's value (reference/admin.md §2.7). Names use the specification's neutral words (§0). Values are kept as the
 * API shows them: visibilities as strings, restricted levels as strings, lists as arrays.
 */

export type SettingValue = boolean | number | string | null | readonly string[] | readonly number[] | { readonly [key: string]: number };

export type SettingKind = 'boolean' | 'integer' | 'float' | 'decimal' | 'string' | 'strings' | 'integers' | 'hash';

export interface SettingField {
  readonly kind: SettingKind;
  readonly default: SettingValue;
  /** Premium/Ultimate (EE) fields; Forgefold runs licensed, so they are stored and shown. */
  readonly ee?: boolean;
  /** Write-only secrets: never returned, and redacted in the event (reference §2.6.1). */
  readonly writeOnly?: boolean;
}

const b = (value: boolean, ee = false): SettingField => ({ kind: 'boolean', default: value, ...(ee ? { ee } : {}) });
const i = (value: number | null, ee = false): SettingField => ({ kind: 'integer', default: value, ...(ee ? { ee } : {}) });
const s = (value: string | null, ee = false): SettingField => ({ kind: 'string', default: value, ...(ee ? { ee } : {}) });
const list = (value: readonly string[] | null, ee = false): SettingField => ({ kind: 'strings', default: value, ...(ee ? { ee } : {}) });
const secret = (): SettingField => ({ kind: 'string', default: null, writeOnly: true });

/** The instance host in defaults that name it (`commit_email_hostname`). */
export const INSTANCE_HOST = 'localhost';

/** Every stored field, in the response's order. Aliases and response-only derived keys are the presenter's. */
export const SETTING_FIELDS = {
  admin_mode: b(false),
  abuse_notification_email: s(null),
  after_sign_out_path: s(null),
  after_sign_up_text: s(null),
  spamfilter_enabled: b(false),
  spamfilter_api_key: s(null),
  allow_group_owners_to_manage_ldap: b(true, true),
  allow_local_requests_from_web_hooks_and_services: b(false),
  allow_local_requests_from_system_hooks: b(true),
  archive_builds_in_human_readable: s(null),
  asset_proxy_enabled: b(false),
  asset_proxy_secret_key: secret(),
  asset_proxy_url: s(null),
  asset_proxy_allowlist: list([INSTANCE_HOST]),
  authorized_keys_enabled: b(true),
  auto_devops_domain: s(null),
  auto_devops_enabled: b(true),
  automatic_purchased_storage_allocation: b(false),
  check_namespace_plan: b(false, true),
  commit_email_hostname: s(`users.noreply.${INSTANCE_HOST}`),
  container_expiration_policies_enable_historic_entries: b(false),
  container_registry_token_expire_delay: i(5),
  deactivate_dormant_users: b(false),
  default_artifacts_expire_in: s('30 days'),
  default_branch_name: s(null),
  default_branch_protection: i(2),
  default_ci_config_path: s(null),
  default_group_visibility: s('private'),
  default_project_creation: i(2),
  default_project_visibility: s('private'),
  default_projects_limit: i(100000),
  default_snippet_visibility: s('private'),
  delayed_project_deletion: b(false, true),
  deletion_adjourned_period: i(7, true),
  diff_max_patch_bytes: i(204800),
  diff_max_files: i(1000),
  diff_max_lines: i(50000),
  disable_feed_token: b(false),
  disabled_oauth_sign_in_sources: list([]),
  dns_rebinding_protection_enabled: b(true),
  domain_denylist_enabled: b(false),
  domain_denylist: list([]),
  domain_allowlist: list([]),
  rsa_key_restriction: i(0),
  dsa_key_restriction: i(0),
  ecdsa_key_restriction: i(0),
  ed25519_key_restriction: i(0),
  cloudk8s_integration_enabled: b(false),
  cloudk8s_account_id: s(null),
  cloudk8s_access_key_id: s(null),
  cloudk8s_secret_access_key: secret(),
  searchengine_indexing: b(false, true),
  searchengine_search: b(false, true),
  searchengine_url: list(['http://localhost:9200'], true),
  searchengine_username: s(null, true),
  searchengine_password: s(null, true),
  searchengine_cloud: b(false, true),
  searchengine_cloud_access_key: s(null, true),
  searchengine_cloud_region: s('us-east-1', true),
  searchengine_cloud_secret_access_key: s(null, true),
  searchengine_limit_indexing: b(false, true),
  searchengine_namespace_ids: { kind: 'integers', default: [], ee: true },
  searchengine_project_ids: { kind: 'integers', default: [], ee: true },
  searchengine_indexed_field_length_limit: i(0, true),
  searchengine_indexed_file_size_limit_kb: i(1024, true),
  searchengine_max_bulk_concurrency: i(10, true),
  searchengine_max_bulk_size_mb: i(10, true),
  email_additional_text: s(null, true),
  email_author_in_body: b(false),
  enabled_git_access_protocol: s(null),
  enforce_namespace_storage_limit: b(false),
  enforce_terms: b(false),
  terms: s(null),
  external_auth_client_cert: s(null),
  external_auth_client_key: s(null),
  external_auth_client_key_pass: s(null),
  external_authorization_service_enabled: b(false),
  external_authorization_service_default_label: s(null),
  external_authorization_service_timeout: { kind: 'float', default: 0.5 },
  external_authorization_service_url: s(null),
  external_pipeline_validation_service_url: s(null),
  external_pipeline_validation_service_token: s(null),
  external_pipeline_validation_service_timeout: i(null),
  file_template_project_id: i(null, true),
  first_day_of_week: i(0),
  geo_node_allowed_ips: s('0.0.0.0/0, ::/0', true),
  geo_status_timeout: i(10, true),
  git_two_factor_session_expiry: i(15, true),
  storage_timeout_default: i(55),
  storage_timeout_fast: i(10),
  storage_timeout_medium: i(30),
  dashboard_enabled: b(false),
  dashboard_url: s('/-/grafana'),
  avatarservice_enabled: b(true),
  hashed_storage_enabled: b(true),
  help_page_hide_commercial_content: b(false),
  help_page_support_url: s(null),
  help_page_documentation_base_url: s(null),
  help_page_text: s(null),
  help_text: s(null, true),
  hide_third_party_offers: b(false),
  home_page_url: s(null),
  housekeeping_enabled: b(true),
  housekeeping_bitmaps_enabled: b(true),
  housekeeping_full_repack_period: i(50),
  housekeeping_gc_period: i(200),
  housekeeping_incremental_repack_period: i(10),
  html_emails_enabled: b(true),
  import_sources: list(['codehost_a', 'codehost_b', 'codehost_b_server', 'service', 'tracker_a', 'git', 'service_project', 'codehost_c', 'manifest', 'tracker_b']),
  in_product_marketing_emails_enabled: b(true),
  invisible_captcha_enabled: b(false),
  issues_create_limit: i(300),
  keep_latest_artifact: b(true),
  local_markdown_version: i(0),
  mailer_signing_key: s(null),
  mailer_events_enabled: b(false),
  maintenance_mode: b(false, true),
  maintenance_mode_message: s(null, true),
  max_artifacts_size: i(100),
  max_attachment_size: i(10),
  max_import_size: i(0),
  max_pages_size: i(100),
  max_personal_access_token_lifetime: i(null, true),
  max_ssh_key_lifetime: i(null, true),
  metrics_method_call_threshold: i(10),
  mirror_available: b(true),
  mirror_capacity_threshold: i(50, true),
  mirror_max_capacity: i(100, true),
  mirror_max_delay: i(300, true),
  node_package_requests_forwarding: b(true, true),
  python_package_requests_forwarding: b(true, true),
  outbound_local_requests_whitelist: list([]),
  pages_domain_verification_enabled: b(true),
  password_authentication_enabled_for_git: b(true),
  password_authentication_enabled_for_web: b(true),
  performance_bar_allowed_group_id: i(null),
  personal_access_token_prefix: s('glpat-'),
  umldiagram_enabled: b(false),
  umldiagram_url: s(null),
  polling_interval_multiplier: { kind: 'decimal', default: '1.0' },
  project_export_enabled: b(true),
  monitoring_metrics_enabled: b(true),
  protected_ci_variables: b(true),
  pseudonymizer_enabled: b(false, true),
  push_event_activities_limit: i(3),
  push_event_hooks_limit: i(3),
  rate_limiting_response_text: s(null),
  raw_blob_request_limit: i(300),
  captcha_enabled: b(false),
  captcha_private_key: s(null),
  captcha_site_key: s(null),
  login_captcha_protection_enabled: b(false),
  receive_max_input_size: i(null),
  repository_checks_enabled: b(true),
  repository_size_limit: i(0, true),
  repository_storages_weighted: { kind: 'hash', default: { default: 100 } },
  repository_storages: list(['default']),
  require_admin_approval_after_user_signup: b(true),
  require_two_factor_authentication: b(false),
  restricted_visibility_levels: list([]),
  send_user_confirmation_email: b(false),
  session_expire_delay: i(10080),
  shared_runners_enabled: b(true),
  shared_runners_minutes: i(0, true),
  shared_runners_text: s(null),
  jobqueue_job_limiter_mode: s('compress'),
  jobqueue_job_limiter_compression_threshold_bytes: i(100000),
  jobqueue_job_limiter_limit_bytes: i(0),
  sign_in_text: s(null),
  signup_enabled: b(true),
  chatapp_enabled: b(false, true),
  chatapp_id: s(null, true),
  chatapp_secret: s(null, true),
  chatapp_verification_token: s(null, true),
  snippet_size_limit: i(52428800),
  tracker_enabled: b(false),
  tracker_collector_hostname: s(null),
  tracker_app_id: s(null),
  tracker_cookie_domain: s(null),
  codeintel_enabled: b(false),
  codeintel_public_only: b(true),
  codeintel_url: s(null),
  spam_check_endpoint_enabled: b(false),
  spam_check_endpoint_url: s(null),
  spam_check_api_key: s(null),
  suggest_pipeline_enabled: b(true),
  terminal_max_session_time: i(0),
  throttle_authenticated_api_enabled: b(false),
  throttle_authenticated_api_period_in_seconds: i(3600),
  throttle_authenticated_api_requests_per_period: i(7200),
  throttle_authenticated_web_enabled: b(false),
  throttle_authenticated_web_period_in_seconds: i(3600),
  throttle_authenticated_web_requests_per_period: i(7200),
  throttle_unauthenticated_enabled: b(false),
  throttle_unauthenticated_period_in_seconds: i(3600),
  throttle_unauthenticated_requests_per_period: i(3600),
  throttle_authenticated_git_lfs_enabled: b(false),
  throttle_authenticated_git_lfs_period_in_seconds: i(60),
  throttle_authenticated_git_lfs_requests_per_period: i(1000),
  throttle_protected_paths_enabled: b(false),
  // The columns' defaults (10 per minute): the defaults hash names keys that are not columns, so they are dropped.
  throttle_protected_paths_period_in_seconds: i(60),
  throttle_protected_paths_requests_per_period: i(10),
  throttle_unauthenticated_packages_api_enabled: b(false),
  throttle_unauthenticated_packages_api_period_in_seconds: i(15),
  throttle_unauthenticated_packages_api_requests_per_period: i(800),
  throttle_authenticated_packages_api_enabled: b(false),
  throttle_authenticated_packages_api_period_in_seconds: i(15),
  throttle_authenticated_packages_api_requests_per_period: i(1000),
  two_factor_grace_period: i(48),
  unique_ips_limit_enabled: b(false),
  unique_ips_limit_per_user: i(10),
  unique_ips_limit_time_window: i(3600),
  usage_ping_enabled: b(true),
  user_default_external: b(false),
  user_default_internal_regex: s(null),
  user_oauth_applications: b(true),
  user_show_add_ssh_key_message: b(true),
  version_check_enabled: b(true),
  whats_new_variant: s('all_tiers'),
  wiki_page_max_content_bytes: i(52428800),
  floc_enabled: b(false),
  diagramrender_enabled: b(false),
  diagramrender_url: s(null),
  gitpod_enabled: b(false),
  gitpod_url: s('https://gitpod.io/'),
  valid_runner_registrars: list(['project', 'group']),
} as const satisfies Record<string, SettingField>;

export type SettingName = keyof typeof SETTING_FIELDS;

export const SETTING_NAMES = Object.keys(SETTING_FIELDS) as SettingName[];

export const isSettingName = (name: string): name is SettingName => Object.prototype.hasOwnProperty.call(SETTING_FIELDS, name);

export type ApplicationSettings = { readonly [K in SettingName]: SettingValue };

export interface SettingsSlice {
  readonly values: ApplicationSettings;
  /** When the settings last changed (null on a fresh instance). */
  readonly updated_at: string | null;
}

export const defaultSettings = (): ApplicationSettings => {
  const values: Record<string, SettingValue> = {};
  for (const name of SETTING_NAMES) values[name] = SETTING_FIELDS[name].default;
  return values as ApplicationSettings;
};

export const initialSettings = (): SettingsSlice => ({ values: defaultSettings(), updated_at: null });

/** The value an event records for a write-only secret (Rails' parameter filter word). */
export const FILTERED = '[FILTERED]';

/**
 * The settings module's decision: assign the changed fields, run the model's validations over the result
 * (ApplicationSetting and its EE counterpart, reference/admin.md §2.5 and §2.8.2), and record exactly what changed.
 */
import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import type { Issued } from '../../kernel/decider.js';
import { forbidden, type DomainError } from '../../kernel/domain-error.js';
import { isAdmin, type AccessView } from '../access/abilities.js';
import { addressableUrlError, localRequestReason, parseAddressable, urlBlockedReason } from '../shared/url-blocker.js';
import { Errors, isEmail, isRubyBlank, rubyStrip, tooLong } from '../shared/validation.js';
import type { SettingsCommand } from './commands.js';
import type { SettingsEvent } from './events.js';
import { FILTERED, SETTING_FIELDS, SETTING_NAMES, isSettingName, type ApplicationSettings, type SettingValue, type SettingsSlice } from './projection.js';

export type SettingsView = AccessView & { readonly settings: SettingsSlice };

const blank = (value: SettingValue | undefined): boolean =>
  value === null || value === undefined || (typeof value === 'string' && isRubyBlank(value)) || (Array.isArray(value) && value.length === 0);

const same = (a: SettingValue, b: SettingValue): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Storage names the instance has (`Gitlab.config.repositories.storages`). */
const STORAGES = ['default'];

/** `addressable_url: true, allow_blank: true`, always checked (reference §2.5; `app/models/application_setting.rb`). */
const URL_FIELDS = ['after_sign_out_path', 'home_page_url', 'help_page_support_url', 'help_page_documentation_base_url', 'external_pipeline_validation_service_url'] as const;

/**
 * Every setting the model validates with `addressable_url`: its schemes, whether a blank value is allowed, and the
 * flag its `if:` names. `external_authorization_service_url` only while the service is enabled; `gitpod_url` only
 * while Gitpod is, and without `allow_blank` (so a blank one is also "must be a valid URL").
 */
interface AddressableUrlSetting {
  readonly field: keyof ApplicationSettings;
  readonly schemes?: readonly string[];
  readonly allowBlank: boolean;
  readonly when?: keyof ApplicationSettings;
}
const ADDRESSABLE_URLS: readonly AddressableUrlSetting[] = [
  ...URL_FIELDS.map((field) => ({ field, allowBlank: true })),
  { field: 'external_authorization_service_url', allowBlank: true, when: 'external_authorization_service_enabled' },
  { field: 'spam_check_endpoint_url', schemes: ['tls', 'grpc'], allowBlank: true },
  { field: 'gitpod_url', allowBlank: false, when: 'gitpod_enabled' },
];
const ADDRESSABLE_BY_FIELD = new Map<string, AddressableUrlSetting>(ADDRESSABLE_URLS.map((rule) => [rule.field, rule]));

const checked = (values: ApplicationSettings, rule: AddressableUrlSetting): boolean => rule.when === undefined || values[rule.when] === true;

/**
 * The shared `addressable_url` rule on one setting, when its `if:` holds (the rule's `when`, the one place it is
 * checked: callers call this unconditionally) and, with `allow_blank`, when not blank.
 */
const checkAddressableUrl = (errors: Errors, values: ApplicationSettings, field: keyof ApplicationSettings): void => {
  const rule = ADDRESSABLE_BY_FIELD.get(field)!;
  if (!checked(values, rule)) return;
  const value = values[field];
  const url = typeof value === 'string' ? value : null;
  if (rule.allowBlank && (url === null || isRubyBlank(url))) return;
  const problem = addressableUrlError(url, rule.schemes);
  if (problem) errors.add(field, problem);
};

/** `GRAFANA_URL_ERROR_MESSAGE`: the hint after each of `dashboard_url`'s messages. */
const DASHBOARD_URL_HINT = 'Please check your Grafana URL setting in Admin Area > Settings > Metrics and profiling > Metrics - Grafana';

/** `grafana_url_absolute?`: Addressable reads it and finds a scheme (a relative URL such as the default `/-/grafana` has none). */
const dashboardUrlAbsolute = (values: Readonly<Record<string, SettingValue>>): boolean => {
  const value = values['dashboard_url'];
  return typeof value === 'string' && parseAddressable(value)?.scheme !== undefined;
};

/**
 * `grafana_url`: `validates … system_hook_url: { blocked_message: "is blocked: %{exception_message}. " + hint }, if:
 * :grafana_url_absolute?` (the shared `addressable_url` rule, stripped), then `validate_grafana_url`: what
 * `Gitlab::Utils.parse_url` cannot read, null included, "must be a valid relative or absolute URL". `system_hook_url`
 * refuses localhost and the local network unless `ApplicationSetting.current` (the settings as stored, before this
 * change) allows local requests from system hooks or its allowlist holds the host; a literal address only, names are
 * not resolved.
 */
const checkDashboardUrl = (errors: Errors, values: ApplicationSettings, before: ApplicationSettings): void => {
  const value = text(values, 'dashboard_url');
  if (value === null || parseAddressable(value) === null) return void errors.add('dashboard_url', `must be a valid relative or absolute URL. ${DASHBOARD_URL_HINT}`);
  if (!dashboardUrlAbsolute(values)) return;
  const url = rubyStrip(value);
  const parsed = parseAddressable(url);
  const allowLocal = before.allow_local_requests_from_system_hooks === true;
  const allowlist = Array.isArray(before.outbound_local_requests_whitelist) ? (before.outbound_local_requests_whitelist as readonly string[]) : [];
  const reason = urlBlockedReason(url) ?? (parsed && !allowLocal ? localRequestReason(parsed, { localhost: false, localNetwork: false, allowlist }) : null);
  if (reason) errors.add('dashboard_url', `is blocked: ${reason}. ${DASHBOARD_URL_HINT}`);
};

/**
 * `AddressableUrlValidator#strip_value!`: a URL the validator checks is kept without its surrounding whitespace
 * (it writes the stripped value back to the record before saving). Returns the fields it changed.
 */
const stripAddressableUrls = (values: Record<string, SettingValue>): string[] => {
  const stripped: string[] = [];
  const strip = (field: string): void => {
    const value = values[field];
    if (typeof value !== 'string' || isRubyBlank(value) || rubyStrip(value) === value) return;
    values[field] = rubyStrip(value);
    stripped.push(field);
  };
  for (const rule of ADDRESSABLE_URLS) if (checked(values as ApplicationSettings, rule)) strip(rule.field);
  if (dashboardUrlAbsolute(values)) strip('dashboard_url');
  return stripped;
};

/**
 * `asset_proxy_url`'s `url: true` (a plain URL check, not `addressable_url`): a URL WHATWG's parser reads
 * (else "must be a valid URL"), with the scheme http or https.
 */
const plainUrlProblem = (value: string): string | null => {
  try {
    new URL(value);
  } catch {
    return 'must be a valid URL';
  }
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(value.trim())?.[1]?.toLowerCase();
  return scheme === 'http' || scheme === 'https' ? null : 'is blocked: Only allowed schemes are http, https';
};

interface Numeric {
  readonly gt?: number;
  readonly gte?: number;
  readonly lt?: number;
  readonly lte?: number;
  readonly allowNil?: boolean;
  readonly presence?: boolean;
}

/** Rails' `numericality` (with `only_integer` where the column is an integer) and `presence`. */
const numeric = (errors: Errors, values: ApplicationSettings, field: keyof ApplicationSettings, rule: Numeric): void => {
  const value = values[field];
  if (value === null || value === undefined) {
    if (rule.presence) errors.add(field, "can't be blank");
    if (!rule.allowNil) errors.add(field, 'is not a number');
    return;
  }
  if (typeof value !== 'number') return void errors.add(field, 'is not a number');
  if (SETTING_FIELDS[field].kind === 'integer' && !Number.isInteger(value)) return void errors.add(field, 'must be an integer');
  if (rule.gt !== undefined && !(value > rule.gt)) errors.add(field, `must be greater than ${rule.gt}`);
  if (rule.gte !== undefined && !(value >= rule.gte)) errors.add(field, `must be greater than or equal to ${rule.gte}`);
  if (rule.lt !== undefined && !(value < rule.lt)) errors.add(field, `must be less than ${rule.lt}`);
  if (rule.lte !== undefined && !(value <= rule.lte)) errors.add(field, `must be less than or equal to ${rule.lte}`);
};

const text = (values: ApplicationSettings, field: keyof ApplicationSettings): string | null => {
  const value = values[field];
  return typeof value === 'string' ? value : null;
};

const HOSTNAME = /^(?=.{1,253}$)[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*(?::\d+)?$/;
const TOKEN_PREFIX = /^[a-zA-Z0-9_+=/@:.-]+$/;

/** ChronicDuration for "3 days", "1 month", "2 years", "45 mins": seconds, or null when it does not parse. */
const UNITS: Readonly<Record<string, number>> = { s: 1, sec: 1, second: 1, m: 60, min: 60, minute: 60, h: 3600, hr: 3600, hour: 3600, d: 86400, day: 86400, w: 604800, week: 604800, mo: 2592000, month: 2592000, y: 31557600, yr: 31557600, year: 31557600 };
export const durationSeconds = (value: string): number | null => {
  const parts = [...value.toLowerCase().matchAll(/(\d+(?:\.\d+)?)\s*([a-z]+)/g)];
  if (parts.length === 0) return /^\s*\d+\s*$/.test(value) ? Number(value) : null;
  if (value.toLowerCase().replace(/(\d+(?:\.\d+)?)\s*([a-z]+)/g, '').replace(/[\s,]|and/g, '') !== '') return null;
  let total = 0;
  for (const [, amount, unit] of parts) {
    const singular = unit!.endsWith('s') && unit!.length > 1 && UNITS[unit!] === undefined ? unit!.slice(0, -1) : unit!;
    const seconds = UNITS[singular];
    if (seconds === undefined) return null;
    total += Number(amount) * seconds;
  }
  return total;
};

/** A comma-separated entry of `geo_node_allowed_ips`: an IPv4/IPv6 address or CIDR. */
const isIpOrCidr = (entry: string): boolean => {
  const [address, bits, extra] = entry.split('/');
  if (extra !== undefined || address === undefined) return false;
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(address);
  if (v4) return v4.slice(1).every((octet) => Number(octet) <= 255) && (bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= 32));
  const v6 = /^[0-9a-fA-F:]+$/.test(address) && address.includes(':') && (address.match(/::/g) ?? []).length <= 1;
  return v6 && (bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= 128));
};

/** `X509CertificateCredentialsValidator`: the certificate parses, the key parses with its passphrase, and they match. */
const checkClientCertificate = (errors: Errors, values: ApplicationSettings): void => {
  let certificate: X509Certificate | null = null;
  try {
    certificate = new X509Certificate(text(values, 'external_auth_client_cert') ?? '');
  } catch {
    errors.add('external_auth_client_cert', 'is not a valid X509 certificate.');
  }
  let key: KeyObject | null = null;
  try {
    key = createPrivateKey({ key: text(values, 'external_auth_client_key') ?? '', passphrase: text(values, 'external_auth_client_key_pass') ?? '' });
  } catch {
    errors.add('external_auth_client_key', 'could not read private key, is the passphrase correct?');
  }
  if (certificate && key && !certificate.checkPrivateKey(key)) errors.add('external_auth_client_key', 'private key does not match certificate.');
};

/**
 * The model's validations over the settings as they would be saved (reference §2.5, §2.8.2); `before`, the stored
 * ones, for the validations that run only on a changed attribute.
 */
export const validateSettings = (values: ApplicationSettings, before: ApplicationSettings): Errors => {
  const errors = new Errors();
  const on = (field: keyof ApplicationSettings) => values[field] === true;
  const present = (field: keyof ApplicationSettings) => !blank(values[field]);
  const changed = (field: keyof ApplicationSettings) => !same(values[field], before[field]);
  const requirePresent = (field: keyof ApplicationSettings) => errors.check(present(field), field, "can't be blank");

  const abuse = text(values, 'abuse_notification_email');
  if (abuse && !isEmail(abuse)) errors.add('abuse_notification_email', 'is invalid');
  for (const field of URL_FIELDS) checkAddressableUrl(errors, values, field);
  checkDashboardUrl(errors, values, before);
  errors.maxLength('help_page_documentation_base_url', text(values, 'help_page_documentation_base_url'), 255);

  if (on('spamfilter_enabled')) requirePresent('spamfilter_api_key');
  if (on('captcha_enabled') || on('login_captcha_protection_enabled')) {
    requirePresent('captcha_site_key');
    requirePresent('captcha_private_key');
  }
  if (on('umldiagram_enabled')) requirePresent('umldiagram_url');
  if (on('codeintel_enabled')) requirePresent('codeintel_url');
  if (on('diagramrender_enabled')) {
    requirePresent('diagramrender_url');
    // validate_kroki_url: the blocker's reason after "is not valid."; without any URL, the settings page's hint.
    const kroki = text(values, 'diagramrender_url');
    const reason = kroki === null ? null : urlBlockedReason(kroki);
    if (kroki === null) errors.add('diagramrender_url', 'must be a valid relative or absolute URL. Please check your Kroki URL setting in Admin Area > Settings > General > Kroki');
    else if (reason) errors.add('diagramrender_url', `is not valid. ${reason}`);
  }
  if (on('gitpod_enabled')) requirePresent('gitpod_url');
  // Its `if: :gitpod_enabled` is the rule's `when` (ADDRESSABLE_URLS), as below for the external authorization URL.
  checkAddressableUrl(errors, values, 'gitpod_url');
  if (on('mailer_events_enabled')) {
    requirePresent('mailer_signing_key');
    errors.maxLength('mailer_signing_key', text(values, 'mailer_signing_key'), 255);
  }
  if (on('tracker_enabled')) {
    requirePresent('tracker_collector_hostname');
    const host = text(values, 'tracker_collector_hostname');
    if (host && !isRubyBlank(host) && !HOSTNAME.test(host)) errors.add('tracker_collector_hostname', 'is invalid');
  }
  if (on('asset_proxy_enabled')) {
    requirePresent('asset_proxy_url');
    const url = text(values, 'asset_proxy_url');
    const problem = url && !isRubyBlank(url) ? plainUrlProblem(url) : null;
    if (problem) errors.add('asset_proxy_url', problem);
    requirePresent('asset_proxy_secret_key');
  }
  if (on('spam_check_endpoint_enabled')) {
    requirePresent('spam_check_endpoint_url');
    requirePresent('spam_check_api_key');
  }
  checkAddressableUrl(errors, values, 'spam_check_endpoint_url');
  errors.maxLength('spam_check_api_key', text(values, 'spam_check_api_key'), 2000);
  if (on('cloudk8s_integration_enabled')) {
    const account = text(values, 'cloudk8s_account_id') ?? '';
    if (!/^\d{12}$/.test(account)) errors.add('cloudk8s_account_id', 'must be a 12-digit number');
    // The key pair is checked only when a key id is given: without one the integration uses the instance's role.
    if (present('cloudk8s_access_key_id')) {
      const keyId = text(values, 'cloudk8s_access_key_id') ?? '';
      if (keyId.length < 16) errors.add('cloudk8s_access_key_id', 'is too short (minimum is 16 characters)');
      else if (keyId.length > 128) errors.add('cloudk8s_access_key_id', tooLong(128));
      requirePresent('cloudk8s_secret_access_key');
    }
  }
  if (on('domain_denylist_enabled') && !present('domain_denylist')) errors.add('domain_denylist', 'Domain denylist cannot be empty if denylist is enabled.');
  if (on('enforce_terms') && !present('terms')) errors.add('base', 'You need to set terms to be enforced');
  if (on('external_authorization_service_enabled')) requirePresent('external_authorization_service_default_label');
  checkAddressableUrl(errors, values, 'external_authorization_service_url');
  if (on('external_authorization_service_enabled')) numeric(errors, values, 'external_authorization_service_timeout', { gt: 0, lte: 10 });
  if (present('external_auth_client_cert')) {
    requirePresent('external_auth_client_key');
    checkClientCertificate(errors, values);
  }

  numeric(errors, values, 'session_expire_delay', { presence: true, gte: 0 });
  numeric(errors, values, 'two_factor_grace_period', { gte: 0 });
  numeric(errors, values, 'max_attachment_size', { presence: true, gt: 0 });
  numeric(errors, values, 'max_artifacts_size', { presence: true, gt: 0 });
  numeric(errors, values, 'max_import_size', { presence: true, gte: 0 });
  numeric(errors, values, 'max_pages_size', { presence: true, gte: 0, lt: 1048576 });
  numeric(errors, values, 'container_registry_token_expire_delay', { presence: true, gt: 0 });
  numeric(errors, values, 'terminal_max_session_time', { presence: true, gte: 0 });
  numeric(errors, values, 'snippet_size_limit', { gt: 0 });
  numeric(errors, values, 'wiki_page_max_content_bytes', { presence: true, gte: 1024 });
  numeric(errors, values, 'push_event_hooks_limit', { gte: 0 });
  numeric(errors, values, 'push_event_activities_limit', { gte: 0 });
  numeric(errors, values, 'issues_create_limit', { gte: 0 });
  numeric(errors, values, 'raw_blob_request_limit', { gte: 0 });
  numeric(errors, values, 'local_markdown_version', { gte: 0, lt: 65536, allowNil: true });
  if (on('unique_ips_limit_enabled')) {
    numeric(errors, values, 'unique_ips_limit_per_user', { presence: true, gte: 1 });
    numeric(errors, values, 'unique_ips_limit_time_window', { presence: true, gte: 0 });
  }
  // A decimal column: the default is kept as its shown string ("1.0").
  const polling = values.polling_interval_multiplier;
  numeric(errors, { ...values, polling_interval_multiplier: typeof polling === 'string' ? Number(polling) : polling }, 'polling_interval_multiplier', { presence: true, gte: 0 });
  numeric(errors, values, 'external_pipeline_validation_service_timeout', { gt: 0, allowNil: true });
  numeric(errors, values, 'jobqueue_job_limiter_compression_threshold_bytes', { gte: 0 });
  numeric(errors, values, 'jobqueue_job_limiter_limit_bytes', { gte: 0 });
  const mode = text(values, 'jobqueue_job_limiter_mode');
  if (mode !== 'track' && mode !== 'compress') errors.add('jobqueue_job_limiter_mode', 'is not included in the list');

  numeric(errors, values, 'housekeeping_incremental_repack_period', { presence: true, gt: 0 });
  const incremental = values.housekeeping_incremental_repack_period;
  const full = values.housekeeping_full_repack_period;
  if (typeof incremental === 'number') numeric(errors, values, 'housekeeping_full_repack_period', { presence: true, gte: incremental });
  if (typeof full === 'number') numeric(errors, values, 'housekeeping_gc_period', { presence: true, gte: full });

  numeric(errors, values, 'storage_timeout_default', { presence: true, gte: 0, lte: 57 });
  const fast = values.storage_timeout_fast;
  const dflt = values.storage_timeout_default;
  if (typeof dflt === 'number') numeric(errors, values, 'storage_timeout_fast', { presence: true, gte: 0, lte: dflt });
  if (typeof dflt === 'number' && typeof fast === 'number') numeric(errors, values, 'storage_timeout_medium', { presence: true, gte: fast, lte: dflt });

  numeric(errors, values, 'diff_max_patch_bytes', { presence: true, gte: 204800, lte: 512000 });
  numeric(errors, values, 'diff_max_files', { presence: true, gte: 1000, lte: 3000 });
  numeric(errors, values, 'diff_max_lines', { presence: true, gte: 50000, lte: 150000 });
  numeric(errors, values, 'default_branch_protection', { presence: true });

  const commitHost = text(values, 'commit_email_hostname');
  if (commitHost && commitHost.includes('@')) errors.add('commit_email_hostname', 'is invalid');
  errors.maxLength('rate_limiting_response_text', text(values, 'rate_limiting_response_text'), 255);
  const ciPath = text(values, 'default_ci_config_path');
  if (ciPath) {
    if (ciPath.startsWith('/') || ciPath.includes('..')) errors.add('default_ci_config_path', 'cannot include leading slash or directory traversal.');
    errors.maxLength('default_ci_config_path', ciPath, 255);
  }
  const prefix = text(values, 'personal_access_token_prefix');
  if (prefix) {
    errors.maxLength('personal_access_token_prefix', prefix, 20);
    if (!TOKEN_PREFIX.test(prefix)) errors.add('personal_access_token_prefix', "can contain only letters of the Base64 alphabet (RFC4648) with the addition of '@', ':' and '.'");
  }
  const archive = text(values, 'archive_builds_in_human_readable');
  if (archive && !isRubyBlank(archive)) {
    const seconds = durationSeconds(archive);
    if (seconds === null || seconds < 86400) errors.add('archive_builds_in_seconds', 'must be at least 1 day');
  }
  requirePresent('default_artifacts_expire_in');
  const expireIn = text(values, 'default_artifacts_expire_in');
  if (expireIn && expireIn.trim() !== '' && expireIn.trim() !== '0' && durationSeconds(expireIn) === null) errors.add('default_artifacts_expire_in', 'is not a correct duration');

  requirePresent('repository_storages');
  const storages = values.repository_storages;
  const unknownStorages = Array.isArray(storages) ? (storages as readonly string[]).filter((name) => !STORAGES.includes(name)) : [];
  if (unknownStorages.length > 0) errors.add('repository_storages', `can't include: ${unknownStorages.join(', ')}`);
  const weighted = values.repository_storages_weighted;
  if (weighted && typeof weighted === 'object' && !Array.isArray(weighted)) {
    const entries = Object.entries(weighted as Record<string, number>);
    const unknown = entries.filter(([name]) => !STORAGES.includes(name)).map(([name]) => name);
    if (unknown.length > 0) errors.add('repository_storages_weighted', `can't include: ${unknown.join(', ')}`);
    for (const [name, weight] of entries) {
      if (!Number.isInteger(weight)) errors.add('repository_storages_weighted', `value for '${name}' must be an integer`);
      else if (weight < 0 || weight > 100) errors.add('repository_storages_weighted', `value for '${name}' must be between 0 and 100`);
    }
  }

  for (const kind of ['authenticated_api', 'authenticated_web', 'unauthenticated', 'authenticated_git_lfs', 'protected_paths', 'unauthenticated_packages_api', 'authenticated_packages_api'] as const) {
    numeric(errors, values, `throttle_${kind}_requests_per_period`, { presence: true, gt: 0 });
    numeric(errors, values, `throttle_${kind}_period_in_seconds`, { presence: true, gt: 0 });
  }

  // EE (≈14.1–14.3): deletion_adjourned_period 0..90, token and key lifetimes, Geo, mirrors, search.
  numeric(errors, values, 'deletion_adjourned_period', { presence: true, gte: 0, lte: 90 });
  numeric(errors, values, 'max_personal_access_token_lifetime', { gte: 1, lte: 365, allowNil: true });
  numeric(errors, values, 'max_ssh_key_lifetime', { gte: 1, lte: 365, allowNil: true });
  numeric(errors, values, 'git_two_factor_session_expiry', { presence: true, gte: 1, lte: 10080 });
  const ips = text(values, 'geo_node_allowed_ips');
  if (!ips || isRubyBlank(ips)) errors.add('geo_node_allowed_ips', "can't be blank");
  else {
    errors.maxLength('geo_node_allowed_ips', ips, 255);
    const bad = ips
      .split(',')
      .map((entry) => entry.trim())
      .find((entry) => !isIpOrCidr(entry));
    if (bad !== undefined) errors.add('geo_node_allowed_ips', `invalid address: ${bad}`);
  }
  errors.maxLength('email_additional_text', text(values, 'email_additional_text'), 10000);
  numeric(errors, values, 'repository_size_limit', { gte: 0, allowNil: true });
  numeric(errors, values, 'shared_runners_minutes', { gte: 0, allowNil: true });
  const threshold = values.mirror_capacity_threshold;
  const capacity = values.mirror_max_capacity;
  if (typeof threshold === 'number' && typeof capacity === 'number' && threshold > capacity) errors.add('mirror_capacity_threshold', "Project's mirror capacity threshold can't be higher than it's maximum capacity");
  if (on('searchengine_indexing') && !present('searchengine_url')) errors.add('searchengine_url', "can't be blank when indexing is enabled");
  // `check_elasticsearch_url_scheme, if: :elasticsearch_url_changed?`: each URL of the list through `UrlBlocker.validate!`
  // (http or https, local addresses allowed, no DNS), one message for the list.
  const searchUrls = values.searchengine_url;
  if (changed('searchengine_url') && Array.isArray(searchUrls) && (searchUrls as readonly string[]).some((url) => urlBlockedReason(url) !== null)) {
    errors.add('searchengine_url', 'only supports valid HTTP(S) URLs.');
  }
  if (on('searchengine_indexing') && on('searchengine_cloud') && !present('searchengine_cloud_region')) errors.add('searchengine_cloud_region', "can't be blank when using aws hosted elasticsearch");
  errors.maxLength('searchengine_username', text(values, 'searchengine_username'), 255);
  errors.maxLength('searchengine_password', text(values, 'searchengine_password'), 255);
  numeric(errors, values, 'searchengine_max_bulk_size_mb', { gt: 0 });
  numeric(errors, values, 'searchengine_max_bulk_concurrency', { gt: 0 });
  numeric(errors, values, 'searchengine_indexed_file_size_limit_kb', { gt: 0 });
  numeric(errors, values, 'searchengine_indexed_field_length_limit', { gte: 0 });
  return errors;
};

const ORDER = new Map<string, number>(SETTING_NAMES.map((name, index) => [name, index]));

/** What the event records of a value: write-only secrets as `[FILTERED]` (and null stays null). */
const recorded = (field: string, value: SettingValue): SettingValue => (isSettingName(field) && 'writeOnly' in SETTING_FIELDS[field] && value !== null && value !== '' ? FILTERED : value);

export const decide = (issued: Issued<SettingsCommand>, state: SettingsView): E.Either<DomainError, readonly SettingsEvent[]> => {
  const { command, at, actor } = issued;
  // `authenticated_as_admin!`: only administrators (or the system) change the instance's settings.
  if (actor.userId !== null && !isAdmin(state, actor.userId)) return E.left(forbidden());
  const current = state.settings.values;
  const next: Record<string, SettingValue> = { ...current };
  for (const [field, value] of Object.entries(command.changes)) if (isSettingName(field)) next[field] = value;
  const stripped = stripAddressableUrls(next);
  const errors = validateSettings(next as ApplicationSettings, current);
  if (!errors.empty) return errors.toEither([]);
  // In the field table's order, whatever order the request named them in; a URL as the validator kept it.
  const fields = new Set([...Object.keys(command.changes).filter(isSettingName), ...stripped]);
  const changes = [...fields]
    .filter((field) => !same(current[field as keyof ApplicationSettings], next[field]!))
    .sort((a, b) => ORDER.get(a)! - ORDER.get(b)!)
    .map((field) => ({ field, old: recorded(field, current[field as keyof ApplicationSettings]), new: recorded(field, next[field]!) }));
  // Re-sending a write-only secret is a change the event cannot show by value; its presence is what it records.
  return E.right(changes.length === 0 ? [] : [{ type: 'SettingsChanged', data: { changes, actor_id: actor.userId, at } }]);
};



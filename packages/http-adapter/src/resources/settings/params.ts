/**
 * Parameters of `PUT /application/settings` (lib/api/settings.rb, ee/lib/ee/api/settings.rb; reference/admin.md
 * §2.2–§2.4): every field typed by its column, the `values:` lists, the `given X do requires Y` groups (Y is required
 * only when X is truthy), the legacy names, `mutually_exclusive` of the three password names and
 * `at_least_one_of` every parameter. Failures are Grape's texts, in declaration order, and change nothing.
 */
import * as t from 'io-ts';
import { isLeft } from 'fp-ts/lib/Either.js';
import { SETTING_FIELDS, SETTING_NAMES, type SettingKind, type SettingName } from '@forgefold/core';
import { T, type Schema } from '../../http/index.js';

/** A parameter type with its output erased (the settings are a table of fields of several types). */
type ParamType<_A> = t.Decoder<unknown, unknown> & { readonly name: string };

type Raw = Record<string, unknown>;

const typeOf: Record<SettingKind, ParamType<unknown>> = {
  boolean: T.Boolean,
  integer: T.Integer,
  float: T.Float,
  decimal: T.Float,
  string: T.String,
  strings: T.CommaSeparatedStrings,
  // EE's namespace and project ids: `CommaSeparatedToIntegerArray` ("1,2" or `x[]=1&x[]=2`).
  integers: T.CommaSeparatedIntegers,
  hash: T.HashOfIntegerValues,
};

const VISIBILITIES = ['private', 'internal', 'public'];

/** `values:` lists (§2.3.20). Import sources use the specification's neutral names. */
const VALUES: Partial<Record<string, readonly unknown[]>> = {
  default_project_visibility: VISIBILITIES,
  default_group_visibility: VISIBILITIES,
  default_snippet_visibility: VISIBILITIES,
  default_branch_protection: [0, 1, 2, 3],
  default_project_creation: [0, 1, 2],
  enabled_git_access_protocol: ['ssh', 'http', 'nil'],
  import_sources: ['codehost_a', 'codehost_b', 'codehost_b_server', 'service', 'tracker_a', 'git', 'service_project', 'codehost_c', 'manifest', 'tracker_b'],
  whats_new_variant: ['all_tiers', 'current_tier', 'disabled'],
  rsa_key_restriction: [0, -1, 1024, 2048, 3072, 4096],
  dsa_key_restriction: [0, -1, 1024, 2048, 3072],
  ecdsa_key_restriction: [0, -1, 256, 384, 521],
  ed25519_key_restriction: [0, -1, 256],
  jobqueue_job_limiter_mode: ['track', 'compress'],
  valid_runner_registrars: ['project', 'group'],
};

/** `given X: ->(v){v} do requires … end` (§2.3), in the platform's order of the required names. */
export const REQUIRES: Readonly<Record<string, readonly string[]>> = {
  spamfilter_enabled: ['spamfilter_api_key'],
  cloudk8s_integration_enabled: ['cloudk8s_account_id', 'cloudk8s_access_key_id', 'cloudk8s_secret_access_key'],
  gitpod_enabled: ['gitpod_url'],
  housekeeping_enabled: ['housekeeping_bitmaps_enabled', 'housekeeping_full_repack_period', 'housekeeping_gc_period', 'housekeeping_incremental_repack_period'],
  diagramrender_enabled: ['diagramrender_url'],
  umldiagram_enabled: ['umldiagram_url'],
  captcha_enabled: ['captcha_site_key', 'captcha_private_key'],
  login_captcha_protection_enabled: ['captcha_site_key', 'captcha_private_key'],
  require_two_factor_authentication: ['two_factor_grace_period'],
  shared_runners_enabled: ['shared_runners_text'],
  codeintel_enabled: ['codeintel_url'],
  spam_check_endpoint_enabled: ['spam_check_endpoint_url', 'spam_check_api_key'],
  mailer_events_enabled: ['mailer_signing_key'],
  tracker_enabled: ['tracker_collector_hostname'],
  searchengine_cloud: ['searchengine_cloud_region'],
  searchengine_indexing: ['searchengine_url'],
};

/** Legacy and alternative names the API accepts (§2.4), with their types. */
const EXTRA: readonly (readonly [string, ParamType<unknown>])[] = [
  ['admin_notification_email', T.String],
  ['allow_local_requests_from_hooks_and_services', T.Boolean],
  ['asset_proxy_whitelist', T.CommaSeparatedStrings],
  ['password_authentication_enabled', T.Boolean],
  ['signin_enabled', T.Boolean],
  ['performance_bar_allowed_group_path', T.String],
  ['performance_bar_enabled', T.String],
  ['throttle_unauthenticated_web_enabled', T.Boolean],
  ['throttle_unauthenticated_web_period_in_seconds', T.Integer],
  ['throttle_unauthenticated_web_requests_per_period', T.Integer],
  ['domain_denylist_raw', T.String],
  ['domain_allowlist_raw', T.String],
  ['outbound_local_requests_allowlist_raw', T.String],
];

/**
 * Parameters not typed by their column: `performance_bar_allowed_group_id` takes a group path (a string), moved into
 * the path parameter; `searchengine_url` (EE `elasticsearch_url`, a list kept as one comma-joined column) is declared
 * `type: String` and split by the model's setter (`settingsChanges`), so an array or a hash is "is invalid".
 */
const OVERRIDES: Partial<Record<SettingName, ParamType<unknown>>> = { performance_bar_allowed_group_id: T.String, searchengine_url: T.String };

const NOT_WRITABLE = new Set<string>(['valid_runner_registrars']);

interface Param {
  readonly name: string;
  readonly type: ParamType<unknown>;
  readonly values?: readonly unknown[];
}

const PARAMS: readonly Param[] = [
  ...SETTING_NAMES.filter((name) => !NOT_WRITABLE.has(name)).map((name): Param => {
    const values = VALUES[name];
    return { name, type: OVERRIDES[name] ?? typeOf[SETTING_FIELDS[name].kind], ...(values ? { values } : {}) };
  }),
  ...EXTRA.map(([name, type]): Param => ({ name, type })),
];

export const SETTINGS_PARAM_NAMES: readonly string[] = PARAMS.map((param) => param.name);

const PASSWORD_NAMES = ['password_authentication_enabled_for_web', 'password_authentication_enabled', 'signin_enabled'];

export type SettingsParams = Readonly<Record<string, unknown>>;

const failure = (c: t.Context, key: string, message: string, value: unknown): t.ValidationError => ({ value, context: [...c, { key, type: t.unknown, actual: value }], message });

const isObject = (u: unknown): u is Raw => typeof u === 'object' && u !== null && !Array.isArray(u) && !Buffer.isBuffer(u);

const within = (values: readonly unknown[] | undefined, value: unknown): boolean =>
  values === undefined || value === null || (Array.isArray(value) ? value.every((item) => values.includes(item)) : values.includes(value));

/** The declared parameters that were sent, coerced; unknown keys are dropped (`declared_params(include_missing: false)`). */
export const settingsParams: Schema<SettingsParams> = Object.assign(
  new t.Type<SettingsParams, unknown, unknown>(
    'ApplicationSettingsParams',
    isObject,
    (input, c) => {
      const raw = isObject(input) ? input : {};
      const has = (name: string) => Object.prototype.hasOwnProperty.call(raw, name) && raw[name] !== undefined;
      const out: Record<string, unknown> = {};
      const errors: t.ValidationError[] = [];
      for (const param of PARAMS) {
        if (!has(param.name)) continue;
        const decoded = param.type.validate(raw[param.name], [...c, { key: param.name, type: param.type, actual: raw[param.name] }]);
        if (isLeft(decoded)) {
          errors.push(...decoded.left);
          continue;
        }
        if (!within(param.values, decoded.right)) {
          errors.push(failure(c, param.name, 'does not have a valid value', decoded.right));
          continue;
        }
        out[param.name] = decoded.right;
        // The `given` block follows its trigger: its requirements are checked when the trigger is truthy.
        if (decoded.right) for (const needed of REQUIRES[param.name] ?? []) if (!has(needed)) errors.push(failure(c, needed, 'is missing', undefined));
      }
      const passwords = PASSWORD_NAMES.filter(has);
      if (passwords.length > 1) errors.push(failure(c, passwords.join(', '), 'are mutually exclusive', raw));
      if (!PARAMS.some((param) => has(param.name))) errors.push(failure(c, SETTINGS_PARAM_NAMES.join(', '), 'are missing, at least one parameter must be provided', raw));
      return errors.length > 0 ? t.failures(errors) : t.success(out);
    },
    (a) => a,
  ),
  { decls: [], names: SETTINGS_PARAM_NAMES },
);

/**
 * `Entities::ApplicationSetting` (reference/admin.md §2.6): `id`, every visible field except the write-only secrets
 * (`asset_proxy_secret_key`, `cloudk8s_secret_access_key`), the legacy aliases with their current values, and the
 * `_raw` forms of the domain lists. `performance_bar_allowed_group_path` and `performance_bar_enabled` never appear.
 */
import { SETTING_FIELDS, SETTING_NAMES, type ApplicationSettings, type SettingValue } from '@forgefold/core';

const raw = (value: SettingValue): string | null => (Array.isArray(value) ? (value as readonly unknown[]).join('\n') : null);

/** BigDecimal in the platform's JSON (Oj rails mode): a string such as "1.0" (§2.6.7). */
const decimal = (value: SettingValue): SettingValue => (typeof value === 'number' ? (Number.isInteger(value) ? value.toFixed(1) : String(value)) : value);

export const applicationSettingEntity = (settings: ApplicationSettings): Record<string, unknown> => {
  const out: Record<string, unknown> = { id: 1 };
  for (const name of SETTING_NAMES) {
    const field = SETTING_FIELDS[name];
    if ('writeOnly' in field) continue;
    out[name] = field.kind === 'decimal' ? decimal(settings[name]) : settings[name];
  }
  out['password_authentication_enabled'] = settings.password_authentication_enabled_for_web;
  out['signin_enabled'] = settings.password_authentication_enabled_for_web;
  out['allow_local_requests_from_hooks_and_services'] = settings.allow_local_requests_from_web_hooks_and_services;
  out['asset_proxy_whitelist'] = settings.asset_proxy_allowlist;
  out['throttle_unauthenticated_web_enabled'] = settings.throttle_unauthenticated_enabled;
  out['throttle_unauthenticated_web_period_in_seconds'] = settings.throttle_unauthenticated_period_in_seconds;
  out['throttle_unauthenticated_web_requests_per_period'] = settings.throttle_unauthenticated_requests_per_period;
  out['domain_denylist_raw'] = raw(settings.domain_denylist);
  out['domain_allowlist_raw'] = raw(settings.domain_allowlist);
  out['outbound_local_requests_allowlist_raw'] = raw(settings.outbound_local_requests_whitelist);
  return out;
};

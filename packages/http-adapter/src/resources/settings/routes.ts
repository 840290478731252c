/**
 * `GET/PUT /application/settings` (lib/api/settings.rb with ee/lib/ee/api/settings.rb): administrators only, checked
 * before the parameters. PUT rewrites the legacy names as the platform's `put` block does (§2.4), then the
 * settings module validates and records the change; the answer is always the full entity.
 */
import * as E from 'fp-ts/lib/Either.js';
import { findGroupByFullPath, INSTANCE_HOST, validation, type DomainError, type SettingValue, type State } from '@forgefold/core';
import { ok, route, type AnyRouteDef } from '../../http/index.js';
import type { ApiDeps } from '../../app/deps.js';
import { commandRoute, nothing } from '../../app/routes.js';
import { applicationSettingEntity } from './entities.js';
import { settingsParams, type SettingsParams } from './params.js';

/** `VisibilityLevel.level_value`: a name or a number; anything else is 0, private (§2.5). */
const LEVELS: Readonly<Record<string, string>> = { private: 'private', '0': 'private', internal: 'internal', '10': 'internal', public: 'public', '20': 'public' };

/** `*_raw` setters: split on commas, semicolons, white space; blanks dropped, duplicates removed. */
const splitRaw = (value: string): string[] => [...new Set(value.split(/[,;\s]+/).map((item) => item.trim()).filter((item) => item !== ''))];

/**
 * EE `elasticsearch_url=(values)`: the string split on commas, each URL stripped of white space and of its trailing
 * slashes, the list kept joined by commas in one column, whose reader splits it again (Ruby's `split(',')`, which drops
 * the empty ones at the end).
 */
const searchEngineUrls = (value: string): string[] => {
  const cleaned = value.split(',').map((url) => url.trim().replace(/\/*$/, ''));
  while (cleaned.length > 0 && cleaned[cleaned.length - 1] === '') cleaned.pop();
  return cleaned;
};

type Changes = Record<string, SettingValue>;

const move = (attrs: Record<string, unknown>, from: string, to: string): void => {
  if (from in attrs) {
    attrs[to] = attrs[from];
    delete attrs[from];
  }
};

/** The `put` block of the settings API and the model's setters: names rewritten, values normalised. */
export const settingsChanges = (params: SettingsParams, state: State): E.Either<DomainError, Changes> => {
  const attrs: Record<string, unknown> = { ...params };
  move(attrs, 'performance_bar_allowed_group_id', 'performance_bar_allowed_group_path');
  if ('performance_bar_enabled' in attrs) {
    // The platform reads the group from a key it has just moved away: any performance_bar_enabled clears the group.
    delete attrs['performance_bar_enabled'];
    attrs['performance_bar_allowed_group_path'] = null;
  }
  if ('signin_enabled' in attrs) move(attrs, 'signin_enabled', 'password_authentication_enabled_for_web');
  else move(attrs, 'password_authentication_enabled', 'password_authentication_enabled_for_web');
  move(attrs, 'allow_local_requests_from_hooks_and_services', 'allow_local_requests_from_web_hooks_and_services');
  move(attrs, 'admin_notification_email', 'abuse_notification_email');
  move(attrs, 'asset_proxy_whitelist', 'asset_proxy_allowlist');
  for (const suffix of ['enabled', 'period_in_seconds', 'requests_per_period']) move(attrs, `throttle_unauthenticated_web_${suffix}`, `throttle_unauthenticated_${suffix}`);
  delete attrs['hashed_storage_enabled'];
  for (const [rawName, list] of [
    ['domain_denylist_raw', 'domain_denylist'],
    ['domain_allowlist_raw', 'domain_allowlist'],
    ['outbound_local_requests_allowlist_raw', 'outbound_local_requests_whitelist'],
  ] as const) {
    if (rawName in attrs) {
      const value = attrs[rawName];
      delete attrs[rawName];
      if (!(list in attrs)) attrs[list] = typeof value === 'string' ? splitRaw(value) : [];
    }
  }
  if ('performance_bar_allowed_group_path' in attrs) {
    const path = attrs['performance_bar_allowed_group_path'];
    delete attrs['performance_bar_allowed_group_path'];
    if (typeof path === 'string' && path !== '') {
      const group = findGroupByFullPath(state.groups, path);
      if (!group) return E.left(validation({ performance_bar_allowed_group_id: ['not found'] }));
      attrs['performance_bar_allowed_group_id'] = group.id;
    } else attrs['performance_bar_allowed_group_id'] = null;
  }
  if (Array.isArray(attrs['restricted_visibility_levels'])) attrs['restricted_visibility_levels'] = (attrs['restricted_visibility_levels'] as unknown[]).map((level) => LEVELS[String(level)] ?? 'private');
  if (Array.isArray(attrs['asset_proxy_allowlist']) && !(attrs['asset_proxy_allowlist'] as unknown[]).includes(INSTANCE_HOST)) attrs['asset_proxy_allowlist'] = [...(attrs['asset_proxy_allowlist'] as string[]), INSTANCE_HOST];
  // No OmniAuth provider is configured: the setter keeps only configured ones.
  if ('disabled_oauth_sign_in_sources' in attrs) attrs['disabled_oauth_sign_in_sources'] = [];
  if (attrs['enabled_git_access_protocol'] === 'nil') attrs['enabled_git_access_protocol'] = null;
  if (typeof attrs['searchengine_url'] === 'string') attrs['searchengine_url'] = searchEngineUrls(attrs['searchengine_url']);
  return E.right(attrs as Changes);
};

export const settingsRoutes = (deps: ApiDeps): AnyRouteDef[] => [
  route({ method: 'GET', path: '/application/settings', admin: true, handler: () => ok(applicationSettingEntity(deps.app.state.settings.values)) }),
  commandRoute(deps, {
    method: 'PUT',
    path: '/application/settings',
    admin: true,
    params: settingsParams,
    find: nothing,
    command: (ctx) => {
      const changes = settingsChanges(ctx.params, deps.app.state);
      return E.isLeft(changes) ? changes.left : { type: 'ChangeSettings' as const, changes: changes.right };
    },
    present: (done) => ok(applicationSettingEntity(done.state.settings.values)),
  }),
];

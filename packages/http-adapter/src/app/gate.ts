/**
 * The throttles in front of the API, as the platform's Rack middleware has them:
 *
 * - Rack::Attack's throttles (lib/gitlab/rack_attack.rb): `throttle_unauthenticated` counts unauthenticated requests
 *   per IP, `throttle_authenticated_api` authenticated `/api/` requests per user, `throttle_authenticated_web` the
 *   others per user; fixed windows of `period_in_seconds`, refused past `requests_per_period` with 429, the
 *   `rate_limiting_response_text` (or "Retry later") as text/plain, and the RateLimit-* and Retry-After headers.
 *   The counters are the adapter's, not domain state: one map entry per client and throttle, O(1) per request.
 *   The read-only middleware runs before this gate (see read-only.ts).
 */
import { settingBoolean, settingInteger, settingString, type ApplicationSettings, type SettingsSlice } from '@forgefold/core';
import { withStatus, type GateRequest, type Reply, type RequestGate } from '../http/index.js';

const DEFAULT_RATE_LIMITING_RESPONSE_TEXT = 'Retry later';
/** Beyond this many counters, those of past windows are dropped. */
const MAX_COUNTERS = 10_000;

type Throttle = 'throttle_unauthenticated' | 'throttle_authenticated_api' | 'throttle_authenticated_web';

interface Counter {
  window: number;
  count: number;
}

/**
 * Each throttle's setting names, spelled out once: a name built per request (`${throttle}_enabled`) was a fresh
 * string that V8 had to look up in its string table before reading the property, on every request, cached reads
 * included.
 */
const SETTING_NAMES = {
  throttle_unauthenticated: {
    enabled: 'throttle_unauthenticated_enabled',
    period: 'throttle_unauthenticated_period_in_seconds',
    limit: 'throttle_unauthenticated_requests_per_period',
  },
  throttle_authenticated_api: {
    enabled: 'throttle_authenticated_api_enabled',
    period: 'throttle_authenticated_api_period_in_seconds',
    limit: 'throttle_authenticated_api_requests_per_period',
  },
  throttle_authenticated_web: {
    enabled: 'throttle_authenticated_web_enabled',
    period: 'throttle_authenticated_web_period_in_seconds',
    limit: 'throttle_authenticated_web_requests_per_period',
  },
} as const satisfies Record<Throttle, { readonly enabled: keyof ApplicationSettings; readonly period: keyof ApplicationSettings; readonly limit: keyof ApplicationSettings }>;

/** Which throttle counts this request, and under which key (Gitlab::RackAttack::Request). */
const throttleOf = (request: GateRequest): Throttle => (request.userId === null ? 'throttle_unauthenticated' : request.path.startsWith('/api/') ? 'throttle_authenticated_api' : 'throttle_authenticated_web');

export const settingsGate = (settings: () => SettingsSlice, now: () => string): RequestGate => {
  const counters = new Map<string, Counter>();

  const throttled = (slice: SettingsSlice, request: GateRequest): Reply | null => {
    const name = throttleOf(request);
    const settingNames = SETTING_NAMES[name];
    if (!settingBoolean(slice, settingNames.enabled)) return null;
    const period = settingInteger(slice, settingNames.period);
    const limit = settingInteger(slice, settingNames.limit);
    if (period <= 0) return null;
    const epoch = Math.floor(Date.parse(now()) / 1000);
    const window = Math.floor(epoch / period);
    const key = `${name}:${request.userId ?? request.ip}`;
    let counter = counters.get(key);
    if (counter === undefined) {
      if (counters.size >= MAX_COUNTERS) for (const [k, c] of counters) if (c.window !== window) counters.delete(k);
      counter = { window, count: 0 };
      counters.set(key, counter);
    } else if (counter.window !== window) {
      counter.window = window;
      counter.count = 0;
    }
    counter.count += 1;
    if (counter.count <= limit) return null;
    const retryAfter = period - (epoch % period);
    const reset = epoch + retryAfter;
    const text = settingString(slice, 'rate_limiting_response_text');
    return {
      ...withStatus(429, undefined, {
        contentType: 'text/plain',
        etag: false,
        headers: {
          'RateLimit-Name': name,
          'RateLimit-Limit': String(Math.ceil((limit * 60) / period)),
          'RateLimit-Observed': String(counter.count),
          'RateLimit-Remaining': String(limit > counter.count ? limit - counter.count : 0),
          'RateLimit-Reset': String(reset),
          'RateLimit-ResetTime': new Date(reset * 1000).toUTCString(),
          'Retry-After': String(retryAfter),
        },
      }),
      rawBody: `${text && text.trim() !== '' ? text : DEFAULT_RATE_LIMITING_RESPONSE_TEXT}\n`,
    };
  };

  return {
    admit: (request) => throttled(settings(), request),
  };
};

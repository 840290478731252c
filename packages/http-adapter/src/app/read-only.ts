/**
 * The read-only middleware (CE Gitlab::Middleware::ReadOnly::Controller with EE's override), one for both reasons an
 * instance is read-only: it is a Geo secondary (its log is a replica) or `maintenance_mode` is on (the secondary
 * folds the primary's settings, so both may hold at once).
 *
 * It runs before anything else (routing, authentication, throttles, git's own checks), as the platform's sits in
 * front of its Rack::Attack and its router. POST/PATCH/PUT/DELETE are refused unless allow-listed; a JSON request
 * (`application/json`, `application/vnd.git-lfs+json`) gets 403 with the platform's message, any other a 301 back
 * to the Referer (else the root URL).
 *
 * Allow-listed for either reason (CE and EE), by path as the platform matches them: git's fetch (`POST
 * ….git/git-upload-pack`), the internal API (`api/v3/internal`, `api/v4/internal`), `/admin/sidekiq`, `POST
 * /api/graphql`, `/api/v4/geo_replication`, `/api/v4/geo/status` (a secondary's status report reaches a primary in
 * maintenance) and `POST /api/v4/geo/graphql`. The platform's entries that need a web route to be recognised (LFS
 * batch and locks, compare, sessions, `/admin/geo/`) allow nothing here: those routes are not served.
 * - Not on a Geo secondary: the settings (`/api/v4/application/settings`, `/admin/application_settings/general`),
 *   so that an administrator can switch maintenance mode off.
 * - In maintenance mode, on a primary: sign-in (`POST /oauth/token`).
 * - On a Geo secondary: the platform proxies pushes (`git-receive-pack`, `/api/v4/geo/proxy_git_ssh`) to the
 *   primary. Forgefold does not proxy, so a push (its ref advertisement too) is refused with 403 and the message,
 *   and sign-in stays refused in maintenance mode: nothing may write a replica's log.
 */
import { settingBoolean, type SettingsSlice } from '@forgefold/core';
import { withStatus, type ReadOnlyGate, type ReadOnlyRequest, type Reply } from '../http/index.js';

/** What a read-only instance answers a JSON write (ERROR_MESSAGE, reference §1.7). */
const READ_ONLY_MESSAGE = 'You cannot perform write operations on a read-only instance';
const DISALLOWED_METHODS = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);
const JSON_TYPES = new Set(['application/json', 'application/vnd.git-lfs+json']);
const API_VERSIONS = ['v3', 'v4'] as const;

/** Why an instance is read-only at the moment: both may hold. */
interface ReadOnlyReasons {
  readonly geoSecondary: boolean;
  readonly maintenanceMode: boolean;
}

const mediaType = (request: ReadOnlyRequest): string => {
  const type = request.headers['content-type'];
  return (Array.isArray(type) ? (type[0] ?? '') : (type ?? '')).split(';')[0]!.trim().toLowerCase();
};

const underApi = (path: string, suffix: string): boolean => API_VERSIONS.some((version) => path.includes(`/api/${version}/${suffix}`));

/** Allow-listed for either reason (CE `allowlisted_routes` and EE's additions served or matched by path alone). */
const allowedAlways = (method: string, path: string): boolean =>
  (method === 'POST' && path.endsWith('.git/git-upload-pack')) ||
  API_VERSIONS.some((version) => path.includes(`api/${version}/internal`)) ||
  path.startsWith('/admin/sidekiq') ||
  (method === 'POST' && path.startsWith('/api/graphql')) ||
  underApi(path, 'geo_replication') ||
  underApi(path, 'geo/status') ||
  (method === 'POST' && underApi(path, 'geo/graphql'));

const settingsUpdate = (path: string): boolean => path.startsWith('/api/v4/application/settings') || path.startsWith('/admin/application_settings/general');

/** Sign-in (EE `sign_in_route?`): the OAuth token grant, the one sign-in route served here. */
const signIn = (method: string, path: string): boolean => method === 'POST' && path === '/oauth/token';

/** A push's first leg (the receive-pack ref advertisement, a GET): only a secondary refuses it, for lack of a proxy. */
const pushAdvertisement = (request: ReadOnlyRequest): boolean =>
  /\.git\/info\/refs$/.test(request.path) && /(^|&)service=git-receive-pack(&|$)/.test(request.query);

const pushUpload = (path: string): boolean => path.endsWith('.git/git-receive-pack');

/** Whether the request may pass an instance that is read-only for these reasons (EE `allowlisted_routes`). */
const allowedWhileReadOnly = (reasons: ReadOnlyReasons, method: string, path: string): boolean => {
  const chomped = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  if (allowedAlways(method, chomped)) return true;
  if (!reasons.geoSecondary && settingsUpdate(path)) return true;
  if (reasons.geoSecondary) return false;
  return reasons.maintenanceMode && signIn(method, chomped);
};

/** The middleware over the node's role and its settings (read on every request: the setting takes effect at once). */
export const readOnlyGate = (geoSecondary: boolean, settings: () => SettingsSlice): ReadOnlyGate => ({
  admit: (request): Reply | null => {
    const reasons: ReadOnlyReasons = { geoSecondary, maintenanceMode: settingBoolean(settings(), 'maintenance_mode') };
    if (!reasons.geoSecondary && !reasons.maintenanceMode) return null;
    if (reasons.geoSecondary && (pushAdvertisement(request) || pushUpload(request.path))) return withStatus(403, { message: READ_ONLY_MESSAGE }, { etag: false });
    if (!DISALLOWED_METHODS.has(request.method) || allowedWhileReadOnly(reasons, request.method, request.path)) return null;
    if (JSON_TYPES.has(mediaType(request))) return withStatus(403, { message: READ_ONLY_MESSAGE }, { etag: false });
    const referer = request.headers['referer'];
    return withStatus(301, undefined, { etag: false, headers: { Location: typeof referer === 'string' && referer !== '' ? referer : `${request.baseUrl}/` } });
  },
});

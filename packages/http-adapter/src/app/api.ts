/** The Forgefold API over HTTP: the route table, the authentication backend and the server shell together. */
import type { Application, Clock, ForgefoldCommand, State } from '@forgefold/core';
import { createApiServer, type ApiServer, type Limits, type LogSink, type MetricsOptions, type Principal, type Timeouts } from '../http/index.js';
import { apiMounts, type ApiResource } from '../resources/index.js';
import { forgefoldAuthBackend } from './auth-backend.js';
import type { ServerConfig, UploadStore } from './deps.js';
import { memoryUploadStore } from './uploads.js';
import { newSecretKey, SecretBox } from './secrets.js';
import type { RepositoryHost } from './repositories.js';
import { gitHttpRoute } from '../resources/repositories/git-http.js';
import { primaryGeoRuntime, type GeoRuntime } from './geo.js';
import { geoReplicationRoute } from './geo-replication.js';
import { settingsGate } from './gate.js';
import { readOnlyGate } from './read-only.js';

export interface ForgefoldApiOptions extends Partial<ServerConfig> {
  readonly app: Application<ForgefoldCommand, State>;
  readonly clock: Clock;
  readonly repositories: RepositoryHost;
  readonly limits?: Partial<Limits>;
  readonly timeouts?: Partial<Timeouts>;
  /** The product's version, shown by `/-/readiness` and `/-/metrics`. */
  readonly version?: string;
  readonly metrics?: MetricsOptions;
  readonly log?: LogSink;
  /** False: no access-log lines (see ApiServerOptions.accessLog). */
  readonly accessLog?: boolean;
  /** OAuth access token lifetime in seconds (default 7200, the platform's two hours). */
  readonly accessTokenLifetime?: number;
  readonly readiness?: () => boolean | Promise<boolean>;
  /**
   * Called for every request a token authenticated and nothing refused (the activity behind `last_activity_on` and a
   * token's `last_used_at`): the token's user and, for an access token, the token's id.
   */
  readonly onAuthenticated?: (userId: number, tokenId: number | null) => void;
  /**
   * With `onAuthenticated`: whether a token's reads may be answered from the early response cache, which skips
   * authentication (false while the token's next use falls due within the day, so that it is recorded then).
   */
  readonly tokenUseSettled?: (tokenId: number) => boolean;
  /**
   * Longest wait for `X-Forgefold-Min-Position` (ms; default 5000). Every reply names the log position it
   * reflects in `X-Forgefold-Position`.
   */
  readonly positionWaitMs?: number;
  /** Where uploaded avatars are kept (default: in memory). */
  readonly uploads?: UploadStore;
  /** The resources served under `/api/v4` (default: the resource list, `apiResources`). */
  readonly resources?: readonly ApiResource[];
  /** The 32-byte key secrets at rest are sealed with (`forgefold serve`: the key file or FORGEFOLD_SECRET_KEY); default: a fresh one per process. */
  readonly secretKey?: Buffer;
  /** Geo: the node's name, live status and sync failures (default: a primary's runtime over this application). */
  readonly geo?: GeoRuntime;
  /** A Geo secondary: read-only whatever the settings say (see app/read-only.ts). */
  readonly readOnly?: boolean;
}

export const DEFAULT_POSITION_WAIT_MS = 5_000;

/**
 * The response cache's version: `position:generation:day`, asked at every cached read. Built again only when one of
 * the three changed, not as a new string per request.
 */
const cacheVersion = (options: Pick<ForgefoldApiOptions, 'app' | 'repositories' | 'clock'>): (() => string) => {
  let position = -1;
  let generation = -1;
  let day = '';
  let version = '';
  return () => {
    const now = options.clock.now();
    if (options.app.position !== position || options.repositories.generation !== generation || !now.startsWith(day)) {
      position = options.app.position;
      generation = options.repositories.generation;
      day = now.slice(0, 10);
      version = `${position}:${generation}:${day}`;
    }
    return version;
  };
};

export const createForgefoldApi = (options: ForgefoldApiOptions): ApiServer => {
  const config: ServerConfig = {
    impersonationEnabled: options.impersonationEnabled ?? true,
    ...(options.externalUrl ? { externalUrl: options.externalUrl.replace(/\/+$/, '') } : {}),
    ...(options.gravatarUrl ? { gravatarUrl: options.gravatarUrl } : {}),
    ...(options.geoSecret ? { geoSecret: options.geoSecret } : {}),
  };
  const deps = {
    app: options.app,
    clock: options.clock,
    config,
    uploads: options.uploads ?? memoryUploadStore(),
    repositories: options.repositories,
    secrets: new SecretBox(options.secretKey ?? newSecretKey()),
    geo: options.geo ?? primaryGeoRuntime(options.app, options.version ? { version: options.version } : {}),
  };
  const backend = forgefoldAuthBackend(options.app, { now: () => options.clock.now(), impersonationEnabled: config.impersonationEnabled });
  const onAuthenticated = options.onAuthenticated;
  return createApiServer({
    routes: apiMounts(deps, { accessTokenLifetime: options.accessTokenLifetime ?? 7200 }, options.resources),
    rawRoutes: [gitHttpRoute(deps), geoReplicationRoute(deps, config.geoSecret ?? null)],
    readOnly: readOnlyGate(options.readOnly ?? false, () => options.app.state.settings),
    gate: settingsGate(() => options.app.state.settings, () => options.clock.now()),
    authBackend: backend,
    // Only once the request is admitted (scopes, sudo, the administrator rule and the throttles passed): a refused
    // request records no activity and no use of its token. The token's own user, not a sudo target.
    ...(onAuthenticated
      ? { onAdmitted: (principal: Principal) => (principal.tokenKind === 'session' ? undefined : onAuthenticated(principal.realUserId, principal.tokenId ?? null)) }
      : {}),
    ...(onAuthenticated && options.tokenUseSettled
      ? { earlyCacheable: (principal: Principal) => principal.tokenId === undefined || principal.tokenId === null || options.tokenUseSettled!(principal.tokenId) }
      : {}),
    ...(config.externalUrl ? { externalUrl: config.externalUrl } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.timeouts ? { timeouts: options.timeouts } : {}),
    ...(options.version ? { version: options.version } : {}),
    ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(options.log ? { log: options.log } : {}),
    ...(options.accessLog === false ? { accessLog: false } : {}),
    ...(options.readiness ? { readiness: options.readiness } : {}),
    position: {
      current: () => options.app.position,
      waitFor: (min, timeoutMs) => options.app.waitForPosition(min, timeoutMs),
      waitMs: options.positionWaitMs ?? DEFAULT_POSITION_WAIT_MS,
    },
    // Reads depend on the projections (the log position) and on the day (expiry of tokens and memberships).
    // Git reads too: every ref move is an event, and a move undone bumps the host's generation.
    responseCache: { version: cacheVersion(options) },
  });
};

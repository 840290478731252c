/** The Forgefold API over HTTP: the route table, the authentication backend and the server shell together. */
import type { Application, Clock, ForgefoldCommand, State } from '@forgefold/core';
import { createApiServer, type ApiServer, type Limits, type LogSink, type MetricsOptions, type Timeouts } from '../http/index.js';
import { apiMounts } from '../routes/index.js';
import { forgefoldAuthBackend } from './auth-backend.js';
import type { ServerConfig } from './deps.js';
import type { RepositoryHost } from './repositories.js';
import { gitHttpRoute } from '../routes/repositories/git-http.js';

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
  /** OAuth access token lifetime in seconds (default 7200, the platform's two hours). */
  readonly accessTokenLifetime?: number;
  readonly readiness?: () => boolean | Promise<boolean>;
  /** Called for every authenticated request: the activity tracking behind `last_activity_on`. */
  readonly onAuthenticated?: (userId: number) => void;
}

export const createForgefoldApi = (options: ForgefoldApiOptions): ApiServer => {
  const config: ServerConfig = {
    impersonationEnabled: options.impersonationEnabled ?? true,
    ...(options.externalUrl ? { externalUrl: options.externalUrl.replace(/\/+$/, '') } : {}),
  };
  const deps = { app: options.app, clock: options.clock, config, repositories: options.repositories };
  const backend = forgefoldAuthBackend(options.app, { now: () => options.clock.now(), impersonationEnabled: config.impersonationEnabled });
  const onAuthenticated = options.onAuthenticated;
  return createApiServer({
    routes: apiMounts(deps, { accessTokenLifetime: options.accessTokenLifetime ?? 7200 }),
    rawRoutes: [gitHttpRoute(deps)],
    authBackend: onAuthenticated
      ? {
          ...backend,
          authenticate: (token, source) => {
            const result = backend.authenticate(token, source) as ReturnType<typeof backend.authenticate>;
            if (!(result instanceof Promise) && result.kind === 'ok') onAuthenticated(result.userId);
            return result;
          },
        }
      : backend,
    ...(config.externalUrl ? { externalUrl: config.externalUrl } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.timeouts ? { timeouts: options.timeouts } : {}),
    ...(options.version ? { version: options.version } : {}),
    ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(options.log ? { log: options.log } : {}),
    ...(options.readiness ? { readiness: options.readiness } : {}),
    // Reads depend on the projections (the log position) and on the day (expiry of tokens and memberships).
    // Git reads too: every ref move is an event, and a move undone bumps the host's generation.
    responseCache: { version: () => `${options.app.position}:${options.repositories.generation}:${options.clock.now().slice(0, 10)}` },
  });
};

/** `GET /version` and the OAuth token endpoint (`POST /oauth/token`, password and refresh_token grants). */
import * as E from 'fp-ts/lib/Either.js';
import { findUserByEmail, findUserByUsername, PERSONAL_SCOPES } from '@forgefold/core';
import { json, optional, route, schema, T, type AnyRouteDef } from '../../http/index.js';
import { execute, type ApiDeps } from '../../app/deps.js';
import { newTokenValue, tokenDigest, verifyPassword } from '../../app/secrets.js';

/** The platform release Forgefold follows. */
export const PLATFORM_VERSION = '14.7.0-ee';

export const versionRoutes = (_deps: ApiDeps): AnyRouteDef[] => [
  route({ method: 'GET', path: '/version', handler: () => ({ version: PLATFORM_VERSION, revision: 'forgefold' }) }),
];

/** Doorkeeper's error bodies (RFC 6749 §5.2), answered with 400 or 401. */
const oauthError = (status: number, error: string, description: string) => json({ error, error_description: description }, { status });

const INVALID_GRANT =
  'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.';

const INVALID_SCOPE = 'The requested scope is invalid, unknown, or malformed.';

/** `Gitlab::Auth.all_available_scopes` with the OpenID and profile scopes (14.7). */
const OAUTH_SCOPES: ReadonlySet<string> = new Set([...PERSONAL_SCOPES, 'openid', 'profile', 'email']);

export const oauthRoutes = (deps: ApiDeps, options: { readonly accessTokenLifetime: number }): AnyRouteDef[] => [
  route({
    method: 'POST',
    path: '/token',
    auth: 'none',
    params: schema(optional('grant_type', T.String), optional('username', T.String), optional('password', T.String), optional('refresh_token', T.String), optional('scope', T.String)),
    handler: async (ctx) => {
      const { params } = ctx;
      const lifetime = options.accessTokenLifetime;
      const issued = (accessToken: string, refreshToken: string, scopes: readonly string[]) =>
        json(
          { access_token: accessToken, token_type: 'Bearer', expires_in: lifetime, refresh_token: refreshToken, scope: scopes.join(' '), created_at: Math.floor(Date.parse(deps.clock.now()) / 1000) },
          { status: 200 },
        );
      if (!params.grant_type) return oauthError(400, 'invalid_request', 'Missing required parameter: grant_type.');
      if (params.grant_type === 'password') {
        if (!params.username) return oauthError(400, 'invalid_request', 'Missing required parameter: username.');
        if (!params.password) return oauthError(400, 'invalid_request', 'Missing required parameter: password.');
        const state = deps.app.state;
        // `User.by_login`: an e-mail when it holds an "@", else a username (never an id).
        const user = params.username.includes('@') ? findUserByEmail(state.users, params.username) : findUserByUsername(state.users, params.username);
        if (!user || user.state !== 'active' || !(await verifyPassword(params.password, user.password_digest))) return oauthError(400, 'invalid_grant', INVALID_GRANT);
        // A blank `scope` is no scope asked for: Doorkeeper's default ones (`api`).
        const scopes = (params.scope?.trim() ? params.scope : 'api').split(/\s+/).filter(Boolean);
        // Doorkeeper's server scopes (config/initializers/doorkeeper.rb: `default_scopes` and `optional_scopes`).
        if (scopes.some((scope) => !OAUTH_SCOPES.has(scope))) return oauthError(400, 'invalid_scope', INVALID_SCOPE);
        const accessToken = newTokenValue('');
        const refreshToken = newTokenValue('');
        const result = await execute(deps, { ...ctx, actor: { userId: null, origin: 'api', requestId: ctx.request.requestId } }, {
          type: 'IssueOAuthToken',
          user_id: user.id,
          scopes,
          token_digest: tokenDigest(accessToken),
          refresh_digest: tokenDigest(refreshToken),
          expires_in: lifetime,
        });
        return E.isLeft(result) ? oauthError(400, 'invalid_grant', INVALID_GRANT) : issued(accessToken, refreshToken, scopes);
      }
      if (params.grant_type === 'refresh_token') {
        if (!params.refresh_token) return oauthError(400, 'invalid_request', 'Missing required parameter: refresh_token.');
        const accessToken = newTokenValue('');
        const refreshToken = newTokenValue('');
        const result = await execute(deps, { ...ctx, actor: { userId: null, origin: 'api', requestId: ctx.request.requestId } }, {
          type: 'RefreshOAuthToken',
          refresh_digest: tokenDigest(params.refresh_token),
          token_digest: tokenDigest(accessToken),
          new_refresh_digest: tokenDigest(refreshToken),
          expires_in: lifetime,
        });
        if (E.isLeft(result)) return oauthError(400, 'invalid_grant', INVALID_GRANT);
        const issuedEvent = result.right.events.find((event) => event.type === 'OAuthTokenIssued')!;
        return issued(accessToken, refreshToken, (issuedEvent.data as { scopes: string[] }).scopes);
      }
      return oauthError(400, 'unsupported_grant_type', 'The authorization grant type is not supported by the authorization server.');
    },
  }),
];

/**
 * Authentication plumbing (reference §1.5, §1.6): token extraction, an injected backend, token errors, blocked
 * users, scopes per route, and sudo with GitLab's order of checks. The backend owns users and tokens; this module
 * only speaks HTTP.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Actor } from '@forgefold/core';
import { ApiError } from './errors.js';
import type { RawParams } from './validation.js';

export type TokenKind = 'personal' | 'impersonation' | 'oauth' | 'project' | 'group' | 'scim' | 'session';
export type TokenSource = 'private_token' | 'PRIVATE-TOKEN' | 'bearer' | 'access_token' | 'session';

export interface AuthSuccess {
  readonly kind: 'ok';
  /** The token's user. */
  readonly userId: number;
  readonly username?: string;
  readonly isAdmin: boolean;
  /** Token scopes (`api`, `read_api`, `read_user`, `sudo`, …); ignored for sessions. */
  readonly scopes: readonly string[];
  readonly tokenKind: TokenKind;
  /** For impersonation tokens: the administrator who created it (becomes `actor.sudoFromId`). */
  readonly impersonatorId?: number | null;
  /** The access token's id, for its `last_used_at` (personal, impersonation, project and group tokens). */
  readonly tokenId?: number | null;
}

export type AuthResult =
  | AuthSuccess
  /** Present but not a known token → 401 `{"message":"401 Unauthorized"}`. */
  | { readonly kind: 'unknown' }
  | { readonly kind: 'expired' }
  | { readonly kind: 'revoked' }
  | { readonly kind: 'impersonation_disabled' }
  /** The token's user may not use the API (blocked, deactivated…) → 403 "403 Forbidden - <reason>". */
  | { readonly kind: 'blocked'; readonly reason: string };

export interface AuthUser {
  readonly id: number;
  readonly username?: string;
  readonly isAdmin: boolean;
}

export interface AuthBackend {
  authenticate(token: string, source: TokenSource): AuthResult | Promise<AuthResult>;
  /** Sudo target lookup: `/^\d+$/` is an id, anything else a username (case-insensitive). */
  findUser(idOrUsername: string): AuthUser | null | Promise<AuthUser | null>;
  /** Optional session-cookie authentication (`_service_session` cookie). */
  authenticateSession?(cookie: string): AuthResult | Promise<AuthResult>;
}

/** Who is calling, after sudo. `null` principal = anonymous. */
export interface Principal {
  /** The effective user (the sudo target when sudo is used). */
  readonly userId: number;
  readonly username?: string;
  readonly isAdmin: boolean;
  /** The authenticated user (token owner) and their admin flag. */
  readonly realUserId: number;
  readonly realIsAdmin: boolean;
  readonly scopes: readonly string[];
  readonly tokenKind: TokenKind;
  readonly sudo: boolean;
  readonly impersonatorId: number | null;
  /** The access token that authenticated the request (personal, impersonation, project, group), else absent. */
  readonly tokenId?: number | null;
}

export type AuthMode = 'required' | 'optional' | 'none';

export interface RouteAuth {
  readonly auth: AuthMode;
  /** Extra scopes this route accepts besides `api` (always) and `read_api` (GET/HEAD only), e.g. `read_user`. */
  readonly scopes?: readonly string[];
  /** Scopes the route's endpoint class accepts on GET/HEAD only; listed in the error whatever the method. */
  readonly readScopes?: readonly string[];
  /** `authenticated_as_admin!`: 401 when anonymous, 403 "403 Forbidden" when not an administrator. */
  readonly admin?: boolean;
}

export const SESSION_COOKIE = '_service_session';

const INVALID_TOKEN_TEXTS = {
  expired: 'Token is expired. You can either do re-authorization or token refresh.',
  revoked: 'Token was revoked. You have to re-authorize from the user.',
  impersonation_disabled: 'Token is an impersonation token but impersonation was disabled.',
} as const;

export const INSUFFICIENT_SCOPE_DESCRIPTION = 'The request requires higher privileges than provided by the access token.';

/** rack-oauth2 `Bearer::Unauthorized`: 401 JSON body plus `WWW-Authenticate`. */
export function invalidTokenError(kind: keyof typeof INVALID_TOKEN_TEXTS): ApiError {
  const description = INVALID_TOKEN_TEXTS[kind];
  return new ApiError(
    401,
    { error: 'invalid_token', error_description: description },
    { 'WWW-Authenticate': `Bearer realm="Protected by OAuth 2.0", error="invalid_token", error_description="${description}"` },
  );
}

/** rack-oauth2 `Bearer::Forbidden` for insufficient_scope; `scope` is the accepted scopes space-joined. */
export function insufficientScopeError(scopes: readonly string[]): ApiError {
  return new ApiError(403, { error: 'insufficient_scope', error_description: INSUFFICIENT_SCOPE_DESCRIPTION, scope: scopes.join(' ') });
}

const firstHeader = (h: string | string[] | undefined): string | undefined => (Array.isArray(h) ? h[0] : h);

const present = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '';

/** The params authentication reads: the token ones and `sudo`. */
export const CREDENTIAL_PARAMS: readonly string[] = ['private_token', 'access_token', 'sudo'];

/**
 * The token and where it came from. Precedence (all "presence" checks, so empty values are skipped):
 * `private_token` param, `PRIVATE-TOKEN` header, `Authorization: Bearer`, `access_token` param.
 */
export function extractToken(headers: IncomingHttpHeaders, params: RawParams): { token: string; source: TokenSource } | null {
  const p = params['private_token'];
  if (present(p)) return { token: p, source: 'private_token' };
  const h = firstHeader(headers['private-token']);
  if (present(h)) return { token: h, source: 'PRIVATE-TOKEN' };
  const authz = firstHeader(headers['authorization']);
  if (authz) {
    const m = /^Bearer\s+(.+)$/i.exec(authz.trim());
    if (m && present(m[1])) return { token: m[1].trim(), source: 'bearer' };
  }
  const a = params['access_token'];
  if (present(a)) return { token: a, source: 'access_token' };
  return null;
}

/** The session cookie value, if any. */
export function extractSessionCookie(headers: IncomingHttpHeaders): string | null {
  const cookie = firstHeader(headers['cookie']);
  if (!cookie) return null;
  for (const part of cookie.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === SESSION_COOKIE) {
      const v = part.slice(eq + 1).trim();
      return v === '' ? null : v;
    }
  }
  return null;
}

/** The sudo identifier: the `sudo` param (a string, even empty, wins) or the `Sudo` header. */
export function sudoIdentifier(headers: IncomingHttpHeaders, params: RawParams): string | null {
  const p = params['sudo'];
  if (typeof p === 'string') return p;
  if (typeof p === 'number') return String(p);
  const h = firstHeader(headers['sudo']);
  return h === undefined ? null : h;
}

/**
 * Scopes listed in an insufficient_scope answer, as `scopes_registered_for_endpoint` concatenates them: the
 * endpoint class's own registrations first (conditional ones too), then `API::API`'s `api` and `read_api` (the
 * latter conditional on GET/HEAD, still listed).
 */
export function routeScopes(extra: readonly string[] = []): string[] {
  return [...new Set([...extra, 'api', 'read_api'])];
}

const isRead = (method: string): boolean => method === 'GET' || method === 'HEAD';

function scopeSufficient(tokenScopes: readonly string[], method: string, extra: readonly string[], readOnly: readonly string[]): boolean {
  if (tokenScopes.includes('api')) return true;
  if (isRead(method) && (tokenScopes.includes('read_api') || readOnly.some((s) => tokenScopes.includes(s)))) return true;
  return extra.some((s) => tokenScopes.includes(s));
}

function checkTokenResult(r: AuthResult): AuthSuccess {
  switch (r.kind) {
    case 'ok':
      return r;
    case 'unknown':
      throw ApiError.message(401, '401 Unauthorized');
    case 'expired':
    case 'revoked':
    case 'impersonation_disabled':
      throw invalidTokenError(r.kind);
    case 'blocked':
      throw ApiError.message(403, `403 Forbidden - ${r.reason}`);
  }
}

export interface AuthenticateInput {
  readonly method: string;
  readonly headers: IncomingHttpHeaders;
  readonly params: RawParams;
  readonly requestId: string;
  readonly route: RouteAuth;
}

export interface AuthOutcome {
  readonly principal: Principal | null;
  readonly actor: Actor;
  readonly token: string | null;
}

/** The outcome of an anonymous request, built only when that is the answer (every request used to build one). */
const anonymousOutcome = (requestId: string, token: string | null): AuthOutcome => ({ principal: null, actor: { userId: null, origin: 'api', requestId }, token });

/**
 * Runs GitLab's `current_user` + `authenticate!` sequence for one request; throws ApiError on failure:
 * 1. a present token is looked up (unknown → 401; expired/revoked/impersonation disabled → 401 invalid_token;
 *    blocked → 403); without a token, the session cookie (if the backend supports it);
 * 2. the token must carry a scope the route accepts → 403 insufficient_scope, with or without sudo (the
 *    hardening issue's rule: scopes are checked against the route first, then sudo applies; a `sudo` scope
 *    never widens what the token may do, it only lets an administrator act as someone else);
 * 3. sudo (§1.6 item 36): (a) anonymous → 401, (b) not admin → 403 "Must be admin to use sudo", (c) session →
 *    403 "Must be authenticated using an OAuth or Personal Access Token to use sudo", (d) no `sudo` scope →
 *    403 insufficient_scope "sudo", (e) unknown user → 404 "User with ID or username '<v>' Not Found";
 * 4. `auth: 'required'` and anonymous → 401; `admin` and not admin → 403.
 */
export async function authenticateRequest(backend: AuthBackend, input: AuthenticateInput): Promise<AuthOutcome> {
  const found = extractToken(input.headers, input.params);
  if (input.route.auth === 'none') return anonymousOutcome(input.requestId, found?.token ?? null);

  let success: AuthSuccess | null = null;
  if (found) {
    const result = backend.authenticate(found.token, found.source);
    // The product's backend answers synchronously: no promise and no turn of the microtask queue for it.
    success = checkTokenResult(result instanceof Promise ? await result : result);
  } else if (backend.authenticateSession) {
    const cookie = extractSessionCookie(input.headers);
    if (cookie) {
      const r = await backend.authenticateSession(cookie);
      // An invalid session is just anonymous (warden), not 401.
      if (r.kind === 'ok') success = { ...r, tokenKind: 'session' };
      else if (r.kind === 'blocked') checkTokenResult(r);
    }
  }

  if (success && success.tokenKind !== 'session' && success.tokenKind !== 'scim') {
    const extra = input.route.scopes ?? [];
    const readOnly = input.route.readScopes ?? [];
    if (!scopeSufficient(success.scopes, input.method, extra, readOnly)) throw insufficientScopeError(routeScopes([...extra, ...readOnly]));
  }

  const sudoId = sudoIdentifier(input.headers, input.params);
  let effective: { id: number; username?: string; isAdmin: boolean } | null = success
    ? { id: success.userId, username: success.username, isAdmin: success.isAdmin }
    : null;
  let sudo = false;
  if (sudoId !== null) {
    if (!success) throw ApiError.message(401, '401 Unauthorized');
    if (!success.isAdmin) throw ApiError.message(403, '403 Forbidden - Must be admin to use sudo');
    if (success.tokenKind === 'session')
      throw ApiError.message(403, '403 Forbidden - Must be authenticated using an OAuth or Personal Access Token to use sudo');
    if (!success.scopes.includes('sudo')) throw insufficientScopeError(['sudo']);
    const target = await backend.findUser(sudoId);
    if (!target) throw ApiError.message(404, `404 User with ID or username '${sudoId}' Not Found`);
    effective = { id: target.id, username: target.username, isAdmin: target.isAdmin };
    sudo = true;
  }

  if (!success || !effective) {
    if (input.route.auth === 'required' || input.route.admin) throw ApiError.message(401, '401 Unauthorized');
    return anonymousOutcome(input.requestId, null);
  }
  if (input.route.admin && !effective.isAdmin) throw ApiError.message(403, '403 Forbidden');

  const impersonatorId = success.tokenKind === 'impersonation' ? (success.impersonatorId ?? null) : null;
  const principal: Principal = {
    userId: effective.id,
    username: effective.username,
    isAdmin: effective.isAdmin,
    realUserId: success.userId,
    realIsAdmin: success.isAdmin,
    scopes: success.scopes,
    tokenKind: success.tokenKind,
    sudo,
    impersonatorId,
    ...(success.tokenId !== undefined && success.tokenId !== null ? { tokenId: success.tokenId } : {}),
  };
  const sudoFromId = sudo ? success.userId : impersonatorId;
  const actor: Actor = { userId: effective.id, sudoFromId, origin: 'api', requestId: input.requestId };
  return { principal, actor, token: found?.token ?? null };
}

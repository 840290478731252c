import { tableGet, tableValues } from '../../kernel/table.js';
import type { AccessToken, OAuthToken, TokensSlice } from './projection.js';
import { DAY_MS } from '../shared/validation.js';

export type TokenMatch = { readonly kind: 'access'; readonly token: AccessToken } | { readonly kind: 'oauth'; readonly token: OAuthToken } | { readonly kind: 'refresh'; readonly token: OAuthToken };

export const findTokenByDigest = (tokens: TokensSlice, digest: string): TokenMatch | undefined => {
  const ref = tableGet(tokens.byDigest, digest);
  if (ref === undefined) return undefined;
  const [kind, id] = ref.split(':') as [string, string];
  if (kind === 'pat') {
    const token = tableGet(tokens.byId, Number(id));
    return token && { kind: 'access', token };
  }
  const token = tableGet(tokens.oauthById, Number(id));
  return token && { kind: kind === 'refresh' ? 'refresh' : 'oauth', token };
};

export const findAccessToken = (tokens: TokensSlice, id: number): AccessToken | undefined => tableGet(tokens.byId, id);

export const accessTokensOf = (tokens: TokensSlice, predicate: (token: AccessToken) => boolean): AccessToken[] => [...tableValues(tokens.byId)].filter(predicate);

/** Active while `expires_at >= CURRENT_DATE` (the platform's `active` scope): expired from the day after. */
export const isExpiredOn = (token: AccessToken, day: string): boolean => token.expires_at !== null && token.expires_at < day;

export const isOAuthExpiredAt = (token: OAuthToken, at: string): boolean => Date.parse(token.created_at) + token.expires_in * 1000 <= Date.parse(at);

export const isTokenActive = (token: AccessToken, day: string): boolean => !token.revoked && !isExpiredOn(token, day);


/** PersonalAccessTokens::LastUsedService#update? (14.7): never used, or last used a day ago or more. */
export const tokenUseDue = (token: AccessToken, at: string): boolean =>
  token.last_used_at === undefined || token.last_used_at === null || Date.parse(token.last_used_at) <= Date.parse(at) - DAY_MS;

/** What a presented token amounts to, before routes and scopes are considered. */
export type TokenResolution =
  | { readonly _tag: 'Unknown' }
  | { readonly _tag: 'Expired' }
  | { readonly _tag: 'Revoked' }
  | { readonly _tag: 'ImpersonationDisabled' }
  | {
      readonly _tag: 'Valid';
      readonly userId: number;
      readonly scopes: readonly string[];
      readonly kind: 'personal' | 'impersonation' | 'project' | 'group' | 'oauth';
      readonly createdById: number | null;
      /** The access token's id (null for OAuth tokens, which keep no `last_used_at`). */
      readonly tokenId: number | null;
    };

/** Resolves a token digest at a moment: unknown, revoked, expired, or valid with its user and scopes. */
export const resolveToken = (tokens: TokensSlice, digest: string, at: string, options: { readonly impersonationEnabled: boolean }): TokenResolution => {
  const match = findTokenByDigest(tokens, digest);
  if (!match || match.kind === 'refresh') return { _tag: 'Unknown' };
  if (match.kind === 'oauth') {
    if (match.token.revoked) return { _tag: 'Revoked' };
    if (isOAuthExpiredAt(match.token, at)) return { _tag: 'Expired' };
    return { _tag: 'Valid', userId: match.token.user_id, scopes: match.token.scopes, kind: 'oauth', createdById: null, tokenId: null };
  }
  const token = match.token;
  if (token.kind === 'impersonation' && !options.impersonationEnabled) return { _tag: 'ImpersonationDisabled' };
  if (token.revoked) return { _tag: 'Revoked' };
  if (isExpiredOn(token, at.slice(0, 10))) return { _tag: 'Expired' };
  return { _tag: 'Valid', userId: token.user_id, scopes: token.scopes, kind: token.kind, createdById: token.created_by_id, tokenId: token.id };
};

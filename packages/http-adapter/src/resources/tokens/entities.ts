import { isTokenActive, type AccessToken } from '@forgefold/core';

/** Entities::PersonalAccessToken: what `GET /personal_access_tokens` shows of any kind of token. */
export const personalAccessTokenEntity = (token: AccessToken, today: string) => ({
  id: token.id,
  name: token.name,
  revoked: token.revoked,
  created_at: token.created_at,
  scopes: token.scopes,
  user_id: token.user_id,
  last_used_at: token.last_used_at ?? null,
  active: isTokenActive(token, today),
  expires_at: token.expires_at,
});

/** PersonalAccessToken / ImpersonationToken / ResourceAccessToken entities. The value appears only at creation. */
export const accessTokenEntity = (token: AccessToken, today: string, value?: string) => ({
  ...personalAccessTokenEntity(token, today),
  ...(token.kind === 'impersonation' ? { impersonation: true } : {}),
  ...(token.access_level !== null ? { access_level: token.access_level } : {}),
  ...(value !== undefined ? { token: value } : {}),
});

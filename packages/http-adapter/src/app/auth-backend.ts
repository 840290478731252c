/** The HTTP layer's AuthBackend over the projections: token digests resolved against the tokens projection. */
import { findUser, findUserByIdOrUsername, resolveToken, type Application, type ForgefoldCommand, type State } from '@forgefold/core';
import type { AuthBackend, AuthResult } from '../http/index.js';
import { tokenDigest } from './secrets.js';

const REJECTION: Record<string, string> = {
  blocked: 'Your account has been blocked.',
  // The platform's `blocked?` holds for banned users: the same rejection.
  banned: 'Your account has been blocked.',
  deactivated: 'Your account has been deactivated by your administrator. Please log back in from a web browser to reactivate your account.',
};

export const forgefoldAuthBackend = (
  app: Application<ForgefoldCommand, State>,
  options: { readonly now: () => string; readonly impersonationEnabled: boolean },
): AuthBackend => {
  /**
   * The last successful personal, impersonation, project or group token, with the tokens and users slices and the
   * day its answer was worked out on. Those slices are immutable and shared by every later state that did not
   * change them (a group creation changes neither), and such a token's validity changes only with them (revoked,
   * created, the user blocked, deactivated, deleted or their admin flag changed) or with the day (expiry): while
   * all three are the same, the answer is the same, and a client repeating its token (every request of a session or
   * a load tool) skips the digest and both lookups. OAuth tokens expire at an instant and are never kept here.
   */
  let last: { readonly token: string; readonly tokens: State['tokens']; readonly users: State['users']; readonly day: string; readonly result: AuthResult } | null = null;
  return {
    authenticate(token): AuthResult {
      const state = app.state;
      const now = options.now();
      if (last !== null && last.token === token && last.tokens === state.tokens && last.users === state.users && now.startsWith(last.day)) return last.result;
      const resolution = resolveToken(state.tokens, tokenDigest(token), now, options);
      switch (resolution._tag) {
        case 'Unknown':
          return { kind: 'unknown' };
        case 'Expired':
          return { kind: 'expired' };
        case 'Revoked':
          return { kind: 'revoked' };
        case 'ImpersonationDisabled':
          return { kind: 'impersonation_disabled' };
        case 'Valid': {
          const user = findUser(state.users, resolution.userId);
          if (!user) return { kind: 'unknown' };
          if (user.state !== 'active') return { kind: 'blocked', reason: REJECTION[user.state] ?? 'Your account is not active.' };
          const result: AuthResult = {
            kind: 'ok',
            userId: user.id,
            username: user.username,
            isAdmin: user.is_admin,
            scopes: resolution.scopes,
            tokenKind: resolution.kind,
            impersonatorId: resolution.kind === 'impersonation' ? resolution.createdById : null,
            tokenId: resolution.tokenId,
          };
          last = resolution.kind === 'oauth' ? null : { token, tokens: state.tokens, users: state.users, day: now.slice(0, 10), result };
          return result;
        }
      }
    },
    findUser(idOrUsername) {
      const user = findUserByIdOrUsername(app.state.users, idOrUsername);
      return user ? { id: user.id, username: user.username, isAdmin: user.is_admin } : null;
    },
  };
};

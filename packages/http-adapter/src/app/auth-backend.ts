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
): AuthBackend => ({
  authenticate(token): AuthResult {
    const state = app.state;
    const resolution = resolveToken(state.tokens, tokenDigest(token), options.now(), options);
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
        return {
          kind: 'ok',
          userId: user.id,
          username: user.username,
          isAdmin: user.is_admin,
          scopes: resolution.scopes,
          tokenKind: resolution.kind,
          impersonatorId: resolution.kind === 'impersonation' ? resolution.createdById : null,
        };
      }
    }
  },
  findUser(idOrUsername) {
    const user = findUserByIdOrUsername(app.state.users, idOrUsername);
    return user ? { id: user.id, username: user.username, isAdmin: user.is_admin } : null;
  },
});

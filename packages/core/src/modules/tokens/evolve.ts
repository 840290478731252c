/** The tokens module's evolve: tokens by id and by digest. */
import { tableGet, tableSet } from '../../kernel/table.js';
import type { Writable } from '../../kernel/module.js';
import { advance, type Sequences } from '../../kernel/sequences.js';
import type { TokenEvent } from './events.js';
import type { TokensSlice } from './projection.js';

export type TokensDraft = Writable<{ readonly sequences: Sequences; readonly tokens: TokensSlice }, 'tokens' | 'sequences'>;

export const evolve = (state: TokensDraft, event: TokenEvent): void => {
  const tokens = state.tokens;
  switch (event.type) {
    case 'AccessTokenCreated':
      tableSet(tokens.byId, event.data.id, { ...event.data, revoked: false });
      tableSet(tokens.byDigest, event.data.token_digest, `pat:${event.data.id}`);
      advance(state, 'token', event.data.id);
      return;
    case 'AccessTokenRevoked': {
      const token = tableGet(tokens.byId, event.data.id);
      if (token) token.revoked = true;
      return;
    }
    case 'AccessTokenUsed': {
      const token = tableGet(tokens.byId, event.data.id);
      if (token) token.last_used_at = event.data.at;
      return;
    }
    case 'OAuthTokenIssued':
      tableSet(tokens.oauthById, event.data.id, { ...event.data, revoked: false });
      tableSet(tokens.byDigest, event.data.token_digest, `oauth:${event.data.id}`);
      tableSet(tokens.byDigest, event.data.refresh_digest, `refresh:${event.data.id}`);
      advance(state, 'oauth', event.data.id);
      return;
    case 'OAuthTokenRevoked': {
      const token = tableGet(tokens.oauthById, event.data.id);
      if (token) token.revoked = true;
      return;
    }
  }
};

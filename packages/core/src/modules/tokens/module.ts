/** The tokens module: access tokens (personal, impersonation, project, group) and OAuth tokens. */
import { defineModule } from '../../kernel/module.js';
import type { TokenCommand } from './commands.js';
import { decide, type TokensView } from './decider.js';
import { evolve, type TokensDraft } from './evolve.js';
import { tokenEvents } from './events.js';
import { initialTokens, type TokensSlice } from './projection.js';

export const tokensModule = defineModule<'tokens', { readonly tokens: TokensSlice }, TokensView, TokensDraft, TokenCommand, typeof tokenEvents>({
  name: 'tokens',
  // 2: last_used_at.
  version: 2,
  initial: () => ({ tokens: initialTokens() }),
  events: tokenEvents,
  commands: ['CreatePersonalAccessToken', 'RevokePersonalAccessToken', 'CreateResourceAccessToken', 'RevokeResourceAccessToken', 'IssueOAuthToken', 'RefreshOAuthToken', 'RecordAccessTokenUse'],
  decide,
  evolve,
});

/** The SCIM module: SAML SSO configuration, SCIM tokens and the identities identity providers provision. */
import { defineModule } from '../../kernel/module.js';
import type { ScimCommand } from './commands.js';
import { decide, type ScimView } from './decider.js';
import { evolve, follows, type ScimDraft, type ScimFollowed } from './evolve.js';
import { scimEvents } from './events.js';
import { initialScim, type ScimSlice } from './projection.js';

export const scimModule = defineModule<'scim', { readonly scim: ScimSlice }, ScimView, ScimDraft, ScimCommand, typeof scimEvents, ScimFollowed>({
  name: 'scim',
  version: 1,
  initial: () => ({ scim: initialScim() }),
  events: scimEvents,
  commands: ['ConfigureSamlProvider', 'RotateScimToken', 'ProvisionScimIdentity', 'UpdateScimIdentity', 'DeleteScimIdentity'],
  decide,
  evolve,
  follows,
});

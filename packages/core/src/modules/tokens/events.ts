import * as t from 'io-ts';
import { defineEvents, type EventsOf } from '../../kernel/events.js';
import { nullable } from '../shared/codecs.js';


export const tokenEvents = defineEvents({
  AccessTokenCreated: {
    version: 1,
    stream: (data: { user_id: number }) => `user-${data.user_id}-tokens`,
    codec: t.type({
      id: t.number,
      kind: t.keyof({ personal: null, impersonation: null, project: null, group: null }),
      user_id: t.number,
      name: t.string,
      scopes: t.array(t.string),
      created_at: t.string,
      expires_at: nullable(t.string),
      token_digest: t.string,
      resource_type: nullable(t.keyof({ project: null, group: null })),
      resource_id: nullable(t.number),
      access_level: nullable(t.number),
      created_by_id: nullable(t.number),
    }),
  },
  AccessTokenRevoked: { version: 1, stream: (data: { user_id: number }) => `user-${data.user_id}-tokens`, codec: t.type({ id: t.number, user_id: t.number, at: t.string }) },
  /** The token authenticated a request (PersonalAccessTokens::LastUsedService): at most once a day per token. */
  AccessTokenUsed: { version: 1, stream: (data: { user_id: number }) => `user-${data.user_id}-tokens`, codec: t.type({ id: t.number, user_id: t.number, at: t.string }) },
  OAuthTokenIssued: {
    version: 1,
    stream: (data: { user_id: number }) => `user-${data.user_id}-oauth`,
    codec: t.type({ id: t.number, user_id: t.number, scopes: t.array(t.string), token_digest: t.string, refresh_digest: t.string, created_at: t.string, expires_in: t.number }),
  },
  OAuthTokenRevoked: { version: 1, stream: (data: { user_id: number }) => `user-${data.user_id}-oauth`, codec: t.type({ id: t.number, user_id: t.number, at: t.string }) },
});

export type TokenEvent = EventsOf<typeof tokenEvents>;

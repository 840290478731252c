import * as t from 'io-ts';
import { defineEvents, type EventsOf } from '../../kernel/events.js';
import { nullable } from '../shared/codecs.js';

/** One stream per group for its SSO configuration, token and identities. */
const stream = (data: { group_id: number }) => `group-${data.group_id}-scim`;
const ref = { id: t.number, group_id: t.number, user_id: t.number, at: t.string };

export const scimEvents = defineEvents({
  SamlProviderConfigured: {
    version: 1,
    stream,
    codec: t.type({
      id: t.number,
      group_id: t.number,
      enabled: t.boolean,
      sso_url: t.string,
      certificate_fingerprint: t.string,
      enforced_sso: t.boolean,
      default_membership_role: t.number,
      at: t.string,
    }),
  },
  /** A new SCIM token replaced the group's previous one (if any): only its digest is recorded. */
  ScimTokenRotated: { version: 1, stream, codec: t.type({ group_id: t.number, token_digest: t.string, at: t.string }) },
  ScimIdentityProvisioned: {
    version: 1,
    stream,
    codec: t.type({ ...ref, extern_uid: t.string, user_name: t.string, given_name: nullable(t.string), family_name: nullable(t.string), active: t.boolean }),
  },
  /** Attributes of the identity changed; `changed` names the SCIM attributes the identity provider changed. */
  ScimIdentityUpdated: {
    version: 1,
    stream,
    codec: t.intersection([
      t.type({ ...ref, changed: t.array(t.string) }),
      t.partial({ extern_uid: t.string, user_name: t.string, given_name: nullable(t.string), family_name: nullable(t.string) }),
    ]),
  },
  ScimIdentityDeprovisioned: { version: 1, stream, codec: t.type(ref) },
  ScimIdentityReprovisioned: { version: 1, stream, codec: t.type(ref) },
  ScimIdentityDeleted: { version: 1, stream, codec: t.type({ ...ref, extern_uid: t.string }) },
});

export type ScimEvent = EventsOf<typeof scimEvents>;

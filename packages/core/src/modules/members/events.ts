/**
 * Membership events: each one a fact an auditor reads (who got which access to what, when). The acting user and
 * the sudo origin are in every event's envelope metadata (`actorId`, `sudoFromId`, `origin`).
 */
import * as t from 'io-ts';
import { defineEvents, type EventsOf } from '../../kernel/events.js';
import { nullable } from '../shared/codecs.js';

const sourceType = t.keyof({ Namespace: null, Project: null });
const stream = (data: { source_type: string; source_id: number }) => `${data.source_type === 'Project' ? 'project' : 'group'}-${data.source_id}-members`;
const ref = { id: t.number, source_type: sourceType, source_id: t.number };
/** Why a change happened when it was not a direct API call on that membership (e.g. "ldap_sync", "source_deleted"). */
const reason = t.partial({ reason: t.string });

export const memberEvents = defineEvents({
  MemberAdded: {
    version: 1,
    stream,
    codec: t.type({
      ...ref,
      user_id: nullable(t.number),
      invite_email: nullable(t.string),
      access_level: t.number,
      expires_at: nullable(t.string),
      state: t.keyof({ active: null, awaiting: null }),
      ldap: t.boolean,
      created_at: t.string,
      created_by_id: nullable(t.number),
    }),
  },
  MemberAccessLevelChanged: { version: 1, stream, codec: t.intersection([t.type({ ...ref, user_id: nullable(t.number), from: t.number, to: t.number, at: t.string }), reason]) },
  MemberExpirySet: { version: 1, stream, codec: t.type({ ...ref, user_id: nullable(t.number), expires_at: nullable(t.string), at: t.string }) },
  MemberRemoved: { version: 1, stream, codec: t.intersection([t.type({ ...ref, user_id: nullable(t.number), at: t.string }), reason]) },
  /** The clock passed the membership's `expires_at`: the access ended without anyone acting. */
  MemberExpired: { version: 1, stream, codec: t.type({ ...ref, user_id: nullable(t.number), expires_at: t.string, at: t.string }) },
  /** An awaiting membership (user cap reached) became active. */
  MemberApproved: { version: 1, stream, codec: t.type({ ...ref, user_id: nullable(t.number), at: t.string }) },
  /** An LDAP-synced membership stops (true) or resumes (false) following the directory. */
  MemberOverrideSet: { version: 1, stream, codec: t.type({ ...ref, user_id: nullable(t.number), override: t.boolean, at: t.string }) },
  /** An e-mail invitation became the membership of the account created with that address. */
  MemberInvitationAccepted: { version: 1, stream, codec: t.type({ ...ref, user_id: t.number, invite_email: t.string, at: t.string }) },
  /** A group was shared into a group or a project (`source`), granting its members access up to `group_access`. */
  GroupLinkCreated: {
    version: 1,
    stream,
    codec: t.type({ ...ref, group_id: t.number, group_access: t.number, expires_at: nullable(t.string), created_at: t.string, created_by_id: nullable(t.number) }),
  },
  GroupLinkRemoved: { version: 1, stream, codec: t.intersection([t.type({ ...ref, group_id: t.number, at: t.string }), reason]) },
  GroupLinkExpired: { version: 1, stream, codec: t.type({ ...ref, group_id: t.number, expires_at: t.string, at: t.string }) },
  LdapGroupLinkAdded: {
    version: 1,
    stream: (data: { group_id: number }) => `group-${data.group_id}-members`,
    codec: t.type({ group_id: t.number, cn: nullable(t.string), filter: nullable(t.string), group_access: t.number, provider: t.string, at: t.string }),
  },
  LdapGroupLinkRemoved: {
    version: 1,
    stream: (data: { group_id: number }) => `group-${data.group_id}-members`,
    codec: t.type({ group_id: t.number, cn: nullable(t.string), filter: nullable(t.string), provider: t.string, at: t.string }),
  },
});

export type MemberEvent = EventsOf<typeof memberEvents>;

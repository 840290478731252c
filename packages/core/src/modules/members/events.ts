import * as t from 'io-ts';
import { defineEvents, type EventsOf } from '../../kernel/events.js';

const sourceType = t.keyof({ Namespace: null, Project: null });
const stream = (data: { source_type: string; source_id: number }) => `${data.source_type === 'Project' ? 'project' : 'group'}-${data.source_id}-members`;
const nullable = <C extends t.Mixed>(codec: C) => t.union([codec, t.null]);
const ref = { id: t.number, source_type: sourceType, source_id: t.number };

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
  MemberAccessLevelChanged: { version: 1, stream, codec: t.type({ ...ref, user_id: nullable(t.number), from: t.number, to: t.number, at: t.string }) },
  MemberExpirySet: { version: 1, stream, codec: t.type({ ...ref, user_id: nullable(t.number), expires_at: nullable(t.string), at: t.string }) },
  MemberRemoved: { version: 1, stream, codec: t.type({ ...ref, user_id: nullable(t.number), at: t.string }) },
});

export type MemberEvent = EventsOf<typeof memberEvents>;

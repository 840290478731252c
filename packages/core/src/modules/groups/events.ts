import * as t from 'io-ts';
import { defineEvents, type EventsOf } from '../../kernel/events.js';
import { nullable, visibility } from '../shared/codecs.js';

const stream = (data: { id: number }) => `group-${data.id}`;

export const groupEvents = defineEvents({
  GroupCreated: {
    version: 1,
    stream,
    codec: t.intersection([
      t.type({
        id: t.number,
        name: t.string,
        path: t.string,
        parent_id: nullable(t.number),
        visibility,
        description: t.string,
        request_access_enabled: t.boolean,
        created_at: t.string,
        created_by_id: nullable(t.number),
      }),
      // Optional, so that events recorded before the field existed still decode (absent means false).
      t.partial({
        membership_lock: t.boolean,
        project_creation_level: t.number,
        default_branch_protection: t.number,
        /** Absent: 1 (maintainers). */
        subgroup_creation_level: t.number,
        /** Absent: false. */
        share_with_group_lock: t.boolean,
      }),
    ]),
  },
  GroupUpdated: {
    version: 1,
    stream,
    codec: t.intersection([
      t.type({ id: t.number, updated_at: t.string }),
      t.partial({
        name: t.string,
        path: t.string,
        visibility,
        description: t.string,
        request_access_enabled: t.boolean,
        new_user_signups_cap: nullable(t.number),
        membership_lock: t.boolean,
        /** null: the instance's level again. */
        default_branch_protection: nullable(t.number),
        project_creation_level: t.number,
        subgroup_creation_level: t.number,
        share_with_group_lock: t.boolean,
      }),
    ]),
  },
  /** The group, with everything below it, moved under another parent (null: to the top). */
  GroupTransferred: { version: 1, stream, codec: t.type({ id: t.number, from_parent_id: nullable(t.number), parent_id: nullable(t.number), at: t.string }) },
  GroupDeleted: { version: 1, stream, codec: t.type({ id: t.number, at: t.string }) },
});

export type GroupEvent = EventsOf<typeof groupEvents>;

import * as t from 'io-ts';
import { defineEvents, type EventsOf } from '../../kernel/events.js';
import { visibility } from '../shared/codecs.js';

const stream = (data: { id: number }) => `project-${data.id}`;

export const projectEvents = defineEvents({
  ProjectCreated: {
    version: 1,
    stream,
    codec: t.intersection([
      t.type({
        id: t.number,
        name: t.string,
        path: t.string,
        description: t.string,
        namespace_id: t.number,
        namespace_kind: t.keyof({ group: null, user: null }),
        visibility,
        creator_id: t.union([t.number, t.null]),
        created_at: t.string,
      }),
      // Only when created with access requests off (absent: on, the default).
      t.partial({ request_access_enabled: t.boolean }),
    ]),
  },
  ProjectUpdated: {
    version: 1,
    stream,
    codec: t.intersection([t.type({ id: t.number, updated_at: t.string }), t.partial({ name: t.string, path: t.string, description: t.string, visibility, merge_method: t.keyof({ merge: null, rebase_merge: null, ff: null }), request_access_enabled: t.boolean })]),
  },
  /** The project moved to another namespace (a group or a personal namespace). */
  ProjectTransferred: {
    version: 1,
    stream,
    codec: t.type({ id: t.number, from_namespace_id: t.number, namespace_id: t.number, namespace_kind: t.keyof({ group: null, user: null }), at: t.string }),
  },
  ProjectDeleted: { version: 1, stream, codec: t.type({ id: t.number, at: t.string }) },
  /** The project (just created) is a fork of `forked_from_id` (the fork relation; its repository is a copy). */
  ProjectForked: { version: 1, stream, codec: t.type({ id: t.number, forked_from_id: t.number, at: t.string }) },
  /** The project left its fork network: no longer a fork of `forked_from_id` (its own forks stay its forks). */
  ProjectUnforked: { version: 1, stream, codec: t.type({ id: t.number, forked_from_id: t.number, at: t.string }) },
  /** `user_id` starred the project (a UsersStarProject row: `starred_since` is `at`). */
  ProjectStarred: { version: 1, stream, codec: t.type({ id: t.number, user_id: t.number, at: t.string }) },
  /** `user_id` took their star back. */
  ProjectUnstarred: { version: 1, stream, codec: t.type({ id: t.number, user_id: t.number, at: t.string }) },
});

export type ProjectEvent = EventsOf<typeof projectEvents>;

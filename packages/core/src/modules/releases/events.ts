/**
 * Release events. The acting user is each event's `actorId` (the release's author on creation). A release goes
 * with its tag when the tag is deleted through the API (`Tags::DestroyService`), which the module follows.
 */
import * as t from 'io-ts';
import { defineEvents, type EventsOf } from '../../kernel/events.js';
import { nullable } from '../shared/codecs.js';

const stream = (data: { project_id: number }) => `releases-${data.project_id}`;

const link = t.type({ id: t.number, name: t.string, url: t.string, filepath: nullable(t.string), link_type: t.string, created_at: t.string });

export const releaseEvents = defineEvents({
  ReleaseCreated: {
    version: 1,
    stream,
    codec: t.type({
      project_id: t.number,
      id: t.number,
      tag: t.string,
      /** Null: the release shows its tag's name. */
      name: nullable(t.string),
      description: nullable(t.string),
      /** The commit the tag pointed at when the release was made. */
      sha: nullable(t.string),
      author_id: nullable(t.number),
      created_at: t.string,
      released_at: t.string,
      links: t.array(link),
    }),
  },
  ReleaseUpdated: {
    version: 1,
    stream,
    codec: t.intersection([
      t.type({ project_id: t.number, id: t.number, updated_at: t.string }),
      t.partial({ name: nullable(t.string), description: t.string, released_at: t.string }),
    ]),
  },
  ReleaseDeleted: { version: 1, stream, codec: t.type({ project_id: t.number, id: t.number }) },
  ReleaseLinkCreated: { version: 1, stream, codec: t.intersection([t.type({ project_id: t.number, release_id: t.number }), link]) },
  ReleaseLinkUpdated: {
    version: 1,
    stream,
    codec: t.intersection([
      t.type({ project_id: t.number, release_id: t.number, id: t.number }),
      t.partial({ name: t.string, url: t.string, filepath: nullable(t.string), link_type: t.string }),
    ]),
  },
  ReleaseLinkDeleted: { version: 1, stream, codec: t.type({ project_id: t.number, release_id: t.number, id: t.number }) },
});

export type ReleaseEvent = EventsOf<typeof releaseEvents>;
export type ReleaseLinkData = t.TypeOf<typeof link>;

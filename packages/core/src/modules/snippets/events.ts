/** Project snippet events. */
import * as t from 'io-ts';
import { defineEvents, type EventsOf } from '../../kernel/events.js';
import { nullable, visibility } from '../shared/codecs.js';

const stream = (data: { project_id: number }) => `snippets-${data.project_id}`;
const file = t.type({ path: t.string, content: t.string });

export const snippetEvents = defineEvents({
  SnippetCreated: {
    version: 1,
    stream,
    codec: t.type({
      project_id: t.number,
      id: t.number,
      title: t.string,
      description: t.string,
      visibility,
      files: t.array(file),
      author_id: nullable(t.number),
      created_at: t.string,
    }),
  },
  SnippetUpdated: {
    version: 1,
    stream,
    codec: t.intersection([
      t.type({ project_id: t.number, id: t.number, updated_at: t.string }),
      t.partial({ title: t.string, description: t.string, visibility, files: t.array(file) }),
    ]),
  },
  SnippetDeleted: { version: 1, stream, codec: t.type({ project_id: t.number, id: t.number, at: t.string }) },
});

export type SnippetEvent = EventsOf<typeof snippetEvents>;

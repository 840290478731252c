/** Epic events; `EpicUpdated` carries the previous title, as `IssueUpdated` does, for the system notes. */
import * as t from 'io-ts';
import { defineEvents, type EventsOf } from '../../kernel/events.js';
import { nullable } from '../shared/codecs.js';

const stream = (data: { group_id: number }) => `epics-${data.group_id}`;

/** The fixed dates (absent in logs before them, and when never set: no date, not in force). */
const dates = { start_date_fixed: nullable(t.string), start_date_is_fixed: t.boolean, due_date_fixed: nullable(t.string), due_date_is_fixed: t.boolean };

export const epicEvents = defineEvents({
  EpicCreated: {
    version: 1,
    stream,
    codec: t.intersection([
      t.type({
        group_id: t.number,
        id: t.number,
        iid: t.number,
        title: t.string,
        description: t.string,
        confidential: t.boolean,
        labels: t.array(t.string),
        author_id: nullable(t.number),
        created_at: t.string,
      }),
      t.partial(dates),
    ]),
  },
  EpicUpdated: {
    version: 1,
    stream,
    codec: t.intersection([
      t.type({ group_id: t.number, id: t.number, iid: t.number, updated_by_id: nullable(t.number), updated_at: t.string }),
      t.partial({ title: t.string, previous_title: t.string, description: t.string, confidential: t.boolean, labels: t.array(t.string), ...dates }),
    ]),
  },
  EpicClosed: { version: 1, stream, codec: t.type({ group_id: t.number, id: t.number, iid: t.number, closed_by_id: nullable(t.number), at: t.string }) },
  EpicReopened: { version: 1, stream, codec: t.type({ group_id: t.number, id: t.number, iid: t.number, at: t.string }) },
  EpicDeleted: { version: 1, stream, codec: t.type({ group_id: t.number, id: t.number, iid: t.number, at: t.string }) },
});

export type EpicEvent = EventsOf<typeof epicEvents>;

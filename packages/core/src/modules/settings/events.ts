import * as t from 'io-ts';
import { defineEvents, type EventsOf } from '../../kernel/events.js';
import { nullable } from '../shared/codecs.js';

/** A setting's value as the API shows it. */
const value = t.union([t.boolean, t.number, t.string, t.null, t.readonlyArray(t.union([t.string, t.number])), t.record(t.string, t.number)]);

/** One changed field: what it was and what it became (write-only secrets as `[FILTERED]`). */
const change = t.type({ field: t.string, old: value, new: value });

export const settingsEvents = defineEvents({
  /** Exactly the fields whose value changed, who changed them and when: the audit trail of the instance's settings. */
  SettingsChanged: {
    version: 1,
    stream: () => 'application-settings',
    codec: t.type({ changes: t.array(change), actor_id: nullable(t.number), at: t.string }),
  },
});

export type SettingsEvent = EventsOf<typeof settingsEvents>;

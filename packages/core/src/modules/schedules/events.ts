/**
 * Pipeline schedule events. A scheduled run is `ScheduleRan` (with the pipeline's `PipelineCreated` after it) or
 * `ScheduleRunSkipped` with the reason; both carry the next run. The scheduler records them as the system, for the
 * owner (`owner_id`).
 */
import * as t from 'io-ts';
import { defineEvents, type EventsOf } from '../../kernel/events.js';
import { nullable } from '../shared/codecs.js';
import { variableCodec } from '../pipelines/events.js';

const stream = (data: { project_id: number }) => `schedules-${data.project_id}`;

const variable = t.intersection([t.type({ project_id: t.number, schedule_id: t.number }), variableCodec]);

/** Why a run created no pipeline. */
const reason = t.keyof({ owner_missing: null, owner_blocked: null, insufficient_permissions: null, protected_ref: null, ref_missing: null, ref_ambiguous: null });

export const scheduleEvents = defineEvents({
  ScheduleCreated: {
    version: 1,
    stream,
    codec: t.type({
      project_id: t.number,
      id: t.number,
      description: t.string,
      ref: t.string,
      cron: t.string,
      cron_timezone: t.string,
      active: t.boolean,
      owner_id: t.number,
      next_run_at: nullable(t.string),
      created_at: t.string,
    }),
  },
  /** Every update reschedules (`next_run_at` is set before every save). */
  ScheduleUpdated: {
    version: 1,
    stream,
    codec: t.intersection([
      t.type({ project_id: t.number, id: t.number, next_run_at: nullable(t.string), updated_at: t.string }),
      t.partial({ description: t.string, ref: t.string, cron: t.string, cron_timezone: t.string, active: t.boolean }),
    ]),
  },
  ScheduleDeleted: { version: 1, stream, codec: t.type({ project_id: t.number, id: t.number }) },
  ScheduleOwnershipTaken: { version: 1, stream, codec: t.type({ project_id: t.number, id: t.number, owner_id: t.number, next_run_at: nullable(t.string), updated_at: t.string }) },
  /** `play`: a run now, as `user_id` (a pipeline, or a skipped run, follows). */
  SchedulePlayed: { version: 1, stream, codec: t.type({ project_id: t.number, id: t.number, user_id: t.number, at: t.string }) },
  ScheduleVariableCreated: { version: 1, stream, codec: variable },
  ScheduleVariableUpdated: { version: 1, stream, codec: variable },
  ScheduleVariableDeleted: { version: 1, stream, codec: t.type({ project_id: t.number, schedule_id: t.number, key: t.string }) },
  /** The scheduler ran the schedule for its owner: pipeline `pipeline_id`; the next run moves on. */
  ScheduleRan: {
    version: 1,
    stream,
    codec: t.type({ project_id: t.number, id: t.number, owner_id: t.number, pipeline_id: t.number, next_run_at: nullable(t.string), at: t.string }),
  },
  /** A run (`trigger`: the scheduler, or `play`) that created no pipeline; the platform's message beside the reason. */
  ScheduleRunSkipped: {
    version: 1,
    stream,
    codec: t.type({
      project_id: t.number,
      id: t.number,
      trigger: t.keyof({ schedule: null, play: null }),
      user_id: nullable(t.number),
      reason,
      message: t.string,
      next_run_at: nullable(t.string),
      at: t.string,
    }),
  },
});

export type ScheduleEvent = EventsOf<typeof scheduleEvents>;
export type ScheduleRunSkipReason = t.TypeOf<typeof reason>;

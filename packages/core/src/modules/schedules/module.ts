/** The schedules module: pipeline schedules, their variables, and the scheduler that runs them when due. */
import { defineModule } from '../../kernel/module.js';
import type { ScheduleCommand } from './commands.js';
import { decide } from './decider.js';
import { evolve, follows, type SchedulesDraft, type SchedulesFollowed } from './evolve.js';
import { scheduleEvents } from './events.js';
import { initialSchedules, type SchedulesSlice, type SchedulesView } from './projection.js';
import { anyScheduleDue } from './queries.js';

export const schedulesModule = defineModule<'schedules', { readonly schedules: SchedulesSlice }, SchedulesView, SchedulesDraft, ScheduleCommand, typeof scheduleEvents, SchedulesFollowed>({
  name: 'schedules',
  version: 1,
  initial: () => ({ schedules: initialSchedules() }),
  events: scheduleEvents,
  commands: [
    'CreatePipelineSchedule',
    'UpdatePipelineSchedule',
    'DeletePipelineSchedule',
    'TakePipelineScheduleOwnership',
    'PlayPipelineSchedule',
    'CreatePipelineScheduleVariable',
    'UpdatePipelineScheduleVariable',
    'DeletePipelineScheduleVariable',
    'RunDueSchedules',
  ],
  decide,
  evolve,
  follows,
  processes: [
    {
      // PipelineScheduleWorker: due once the earliest active schedule's next run has passed (an index lookup).
      name: 'run-pipeline-schedules',
      due: (state, now) => anyScheduleDue(state.schedules, now),
      command: { type: 'RunDueSchedules' },
      reads: (state) => state.schedules,
    },
  ],
});

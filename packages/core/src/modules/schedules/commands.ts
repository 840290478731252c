/** Pipeline schedule commands (lib/api/ci/pipeline_schedules.rb, 14.7) and the scheduler's run. */
import type { VariableType } from '../pipelines/projection.js';

export interface ScheduleChanges {
  readonly description?: string;
  readonly ref?: string;
  readonly cron?: string;
  readonly cron_timezone?: string;
  readonly active?: boolean;
}

interface OfSchedule {
  readonly project_id: number;
  readonly schedule_id: number;
}

export type ScheduleCommand =
  | { readonly type: 'CreatePipelineSchedule'; readonly project_id: number; readonly description: string; readonly ref: string; readonly cron: string; readonly cron_timezone: string; readonly active: boolean }
  | ({ readonly type: 'UpdatePipelineSchedule'; readonly changes: ScheduleChanges } & OfSchedule)
  | ({ readonly type: 'DeletePipelineSchedule' } & OfSchedule)
  | ({ readonly type: 'TakePipelineScheduleOwnership' } & OfSchedule)
  /** Runs the schedule now, as the caller (its next run is unaffected). */
  | ({ readonly type: 'PlayPipelineSchedule' } & OfSchedule)
  | ({ readonly type: 'CreatePipelineScheduleVariable'; readonly key: string; readonly value: string; readonly variable_type: VariableType } & OfSchedule)
  | ({ readonly type: 'UpdatePipelineScheduleVariable'; readonly key: string; readonly value?: string; readonly variable_type?: VariableType } & OfSchedule)
  | ({ readonly type: 'DeletePipelineScheduleVariable'; readonly key: string } & OfSchedule)
  /** The scheduler's tick (the system): every active schedule whose `next_run_at` has passed runs once. */
  | { readonly type: 'RunDueSchedules' };

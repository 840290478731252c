/**
 * The schedules projection: pipeline schedules by id and by project, and the index the scheduler reads — active
 * schedules by the minute of their `next_run_at` (an integer table, whose keys iterate in ascending order), so that
 * the due schedules are found by walking the earliest minutes only, never every schedule.
 */
import { emptyTable, type Table } from '../../kernel/table.js';
import type { MembershipView } from '../members/projection.js';
import type { RepositoriesSlice } from '../repositories/projection.js';
import type { PipelineVariable, PipelinesSlice } from '../pipelines/projection.js';

export type ScheduleVariable = PipelineVariable;

export interface Schedule {
  readonly id: number;
  readonly project_id: number;
  readonly description: string;
  /** Stored as given (14.7 does not expand it to `refs/heads/…`). */
  readonly ref: string;
  readonly cron: string;
  /** As given (a Rails or IANA name). */
  readonly cron_timezone: string;
  /** Null only when the cron has no next time. */
  readonly next_run_at: string | null;
  readonly active: boolean;
  readonly owner_id: number | null;
  readonly created_at: string;
  readonly updated_at: string;
  /** In creation order. */
  readonly variables: readonly ScheduleVariable[];
}

export interface SchedulesSlice {
  readonly byId: Table<Schedule>;
  /** Project id → its schedule ids. */
  readonly byProject: Table<Table<1>>;
  /**
   * Day of `next_run_at` (from INDEX_EPOCH) → its minute of the day → the active schedules due then. Two small
   * integer keys rather than one large one: every table on the path keeps a short root (immer copies and walks it).
   */
  readonly due: Table<Table<Table<1>>>;
  readonly sequence: number;
}

export type SchedulesView = MembershipView & { readonly repositories: RepositoriesSlice; readonly pipelines: PipelinesSlice; readonly schedules: SchedulesSlice };

export const initialSchedules = (): SchedulesSlice => ({ byId: emptyTable(), byProject: emptyTable(), due: emptyTable(), sequence: 0 });

/** The index counts minutes from here (earlier times share minute 0): a small root for the integer table. */
const INDEX_EPOCH = Date.UTC(2020, 0, 1);

/** The index keys of a `next_run_at`: its day and its minute of the day. */
export const dueMinute = (at: string): readonly [day: number, minute: number] => {
  const minutes = Math.max(0, Math.floor((Date.parse(at) - INDEX_EPOCH) / 60_000));
  return [Math.floor(minutes / 1_440), minutes % 1_440];
};

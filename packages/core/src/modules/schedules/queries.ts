/** Reads over the schedules projection: lookups, a project's list, the due schedules and the 14.7 schedule policy. */
import { tableGet, tableIds } from '../../kernel/table.js';
import { canOnProject, type AccessView } from '../access/abilities.js';
import type { Project } from '../projects/projection.js';
import { refFactOf, refProtectedFor } from '../pipelines/queries.js';
import { dueMinute, type Schedule, type SchedulesSlice, type SchedulesView } from './projection.js';

export const findSchedule = (schedules: SchedulesSlice, projectId: number, id: number): Schedule | undefined => {
  const schedule = tableGet(schedules.byId, id);
  return schedule && schedule.project_id === projectId ? schedule : undefined;
};

/** `PipelineSchedulesFinder` with `scope` (active, inactive, or all), by descending id. */
export const schedulesOfProject = (schedules: SchedulesSlice, projectId: number, scope?: 'active' | 'inactive' | null): Schedule[] => {
  const ids = tableGet(schedules.byProject, projectId);
  if (!ids) return [];
  const list = [...tableIds(ids)].map((id) => tableGet(schedules.byId, id)!).reverse();
  return scope ? list.filter((schedule) => schedule.active === (scope === 'active')) : list;
};

/**
 * The active schedules whose `next_run_at` is at or before `now`, earliest first (ids ascending within a minute):
 * walks the index's minutes up to now's, so the cost is the due schedules', whatever the others' number.
 */
export function* dueSchedules(schedules: SchedulesSlice, now: string): Generator<Schedule> {
  const [lastDay, lastMinute] = dueMinute(now);
  for (const day of tableIds(schedules.due)) {
    if (day > lastDay) return;
    const minutes = tableGet(schedules.due, day)!;
    for (const minute of tableIds(minutes)) {
      if (day === lastDay && minute > lastMinute) return;
      for (const id of tableIds(tableGet(minutes, minute)!)) {
        const schedule = tableGet(schedules.byId, id)!;
        if (schedule.next_run_at !== null && schedule.next_run_at <= now) yield schedule;
      }
    }
  }
}

/** Whether any schedule is due (the scheduler process's `due`). */
export const anyScheduleDue = (schedules: SchedulesSlice, now: string): boolean => !dueSchedules(schedules, now).next().done;

/** `read_pipeline_schedule`: Reporters and above. */
export const canReadSchedule = (state: AccessView, userId: number | null, project: Project): boolean => userId === null || canOnProject(state, userId, 'read_pipeline_schedule', project);

/**
 * `update_pipeline_schedule` and `admin_pipeline_schedule` (14.7): Maintainers (`admin_pipeline`), or the owner
 * when they may `update_build`.
 */
export const canAdminSchedule = (state: AccessView, userId: number | null, project: Project, schedule: Schedule): boolean =>
  userId === null || canOnProject(state, userId, 'admin_pipeline', project) || (schedule.owner_id === userId && canOnProject(state, userId, 'update_build', project));

/** `play_pipeline_schedule`: `create_pipeline`, unless the ref (a tag when a tag has that name) is protected from the user. */
export const canPlaySchedule = (state: Omit<SchedulesView, 'schedules'>, userId: number | null, project: Project, schedule: Schedule): boolean => {
  if (userId === null) return true;
  if (!canOnProject(state, userId, 'create_pipeline', project)) return false;
  return !refProtectedFor(state, userId, project, schedule.ref, refFactOf(state, project.id, schedule.ref).tag);
};

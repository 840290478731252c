/** The schedules module's evolve: schedules, their variables, and the index of active schedules by next run. */
import type { Draft } from 'immer';
import { emptyTable, tableDelete, tableGet, tableIds, tableIsEmpty, tableSet, type Table } from '../../kernel/table.js';
import type { Writable } from '../../kernel/module.js';
import type { ProjectEvent } from '../projects/events.js';
import type { ScheduleEvent } from './events.js';
import { dueMinute, type Schedule, type SchedulesSlice } from './projection.js';

export type SchedulesDraft = Writable<{ readonly schedules: SchedulesSlice }, 'schedules'>;

const indexAdd = (state: SchedulesDraft, schedule: Pick<Schedule, 'id' | 'active' | 'next_run_at'>): void => {
  if (!schedule.active || schedule.next_run_at === null) return;
  const [day, minute] = dueMinute(schedule.next_run_at);
  const due = state.schedules.due;
  if (tableGet(due, day) === undefined) tableSet(due, day, emptyTable<Table<1>>());
  const minutes = tableGet(due, day)!;
  if (tableGet(minutes, minute) === undefined) tableSet(minutes, minute, emptyTable<1>());
  tableSet(tableGet(minutes, minute)!, schedule.id, 1);
};

const indexRemove = (state: SchedulesDraft, schedule: Pick<Schedule, 'id' | 'active' | 'next_run_at'>): void => {
  if (!schedule.active || schedule.next_run_at === null) return;
  const [day, minute] = dueMinute(schedule.next_run_at);
  const minutes = tableGet(state.schedules.due, day);
  const ids = minutes ? tableGet(minutes, minute) : undefined;
  if (!minutes || !ids) return;
  tableDelete(ids, schedule.id);
  if (!tableIsEmpty(ids)) return;
  tableDelete(minutes, minute);
  if (tableIsEmpty(minutes)) tableDelete(state.schedules.due, day);
};

/** Applies a change to a schedule, keeping its index entry where its (active) next run is. */
const change = (state: SchedulesDraft, id: number, apply: (schedule: Draft<Schedule>) => void): void => {
  const schedule = tableGet(state.schedules.byId, id);
  if (!schedule) return;
  indexRemove(state, schedule);
  apply(schedule);
  indexAdd(state, schedule);
};

const remove = (state: SchedulesDraft, schedule: Schedule): void => {
  indexRemove(state, schedule);
  tableDelete(state.schedules.byId, schedule.id);
  const ids = tableGet(state.schedules.byProject, schedule.project_id);
  if (ids) tableDelete(ids, schedule.id);
};

export const evolve = (state: SchedulesDraft, event: ScheduleEvent): void => {
  switch (event.type) {
    case 'ScheduleCreated': {
      const { created_at, ...data } = event.data;
      const schedule: Schedule = { ...data, created_at, updated_at: created_at, variables: [] };
      tableSet(state.schedules.byId, schedule.id, schedule);
      if (tableGet(state.schedules.byProject, schedule.project_id) === undefined) tableSet(state.schedules.byProject, schedule.project_id, emptyTable<1>());
      tableSet(tableGet(state.schedules.byProject, schedule.project_id)!, schedule.id, 1);
      indexAdd(state, schedule);
      if (schedule.id > state.schedules.sequence) state.schedules.sequence = schedule.id;
      return;
    }
    case 'ScheduleUpdated': {
      const { project_id: _project, id, ...changes } = event.data;
      change(state, id, (schedule) => Object.assign(schedule, changes));
      return;
    }
    case 'ScheduleDeleted': {
      const schedule = tableGet(state.schedules.byId, event.data.id);
      if (schedule) remove(state, schedule);
      return;
    }
    case 'ScheduleOwnershipTaken':
      change(state, event.data.id, (schedule) => {
        schedule.owner_id = event.data.owner_id;
        schedule.next_run_at = event.data.next_run_at;
        schedule.updated_at = event.data.updated_at;
      });
      return;
    case 'SchedulePlayed':
      return;
    case 'ScheduleVariableCreated': {
      const { project_id: _project, schedule_id, ...variable } = event.data;
      const schedule = tableGet(state.schedules.byId, schedule_id);
      if (schedule) schedule.variables.push(variable);
      return;
    }
    case 'ScheduleVariableUpdated': {
      const { project_id: _project, schedule_id, ...variable } = event.data;
      const target = tableGet(state.schedules.byId, schedule_id)?.variables.find((candidate) => candidate.key === variable.key);
      if (target) Object.assign(target, variable);
      return;
    }
    case 'ScheduleVariableDeleted': {
      const schedule = tableGet(state.schedules.byId, event.data.schedule_id);
      if (schedule) schedule.variables = schedule.variables.filter((variable) => variable.key !== event.data.key);
      return;
    }
    case 'ScheduleRan':
    case 'ScheduleRunSkipped': {
      const { next_run_at, at } = event.data;
      if (event.type === 'ScheduleRunSkipped' && event.data.trigger === 'play') return;
      change(state, event.data.id, (schedule) => {
        schedule.next_run_at = next_run_at;
        schedule.updated_at = at;
      });
      return;
    }
  }
};

/** A deleted project's schedules go with it. */
const onProjectDeleted = (state: SchedulesDraft, event: Extract<ProjectEvent, { type: 'ProjectDeleted' }>): void => {
  const ids = tableGet(state.schedules.byProject, event.data.id);
  if (!ids) return;
  for (const id of [...tableIds(ids)]) {
    const schedule = tableGet(state.schedules.byId, id);
    if (schedule) remove(state, schedule);
  }
  tableDelete(state.schedules.byProject, event.data.id);
};

export type SchedulesFollowed = Extract<ProjectEvent, { type: 'ProjectDeleted' }>;

export const follows = { ProjectDeleted: onProjectDeleted };

/** `Entities::Ci::PipelineSchedule`, `PipelineScheduleDetails` and `Entities::Ci::Variable` of a schedule (14.7). */
import { findUser, lastPipelineOfSchedule, type Schedule, type ScheduleVariable } from '@forgefold/core';
import type { PresentContext } from '../context.js';
import { userBasic } from '../users/entities.js';
import { pipelineBasicEntity } from '../pipelines/entities.js';

export const scheduleEntity = (schedule: Schedule, ctx: PresentContext) => {
  const owner = schedule.owner_id === null ? undefined : findUser(ctx.state.users, schedule.owner_id);
  return {
    id: schedule.id,
    description: schedule.description,
    ref: schedule.ref,
    cron: schedule.cron,
    cron_timezone: schedule.cron_timezone,
    next_run_at: schedule.next_run_at,
    active: schedule.active,
    created_at: schedule.created_at,
    updated_at: schedule.updated_at,
    owner: owner ? userBasic(owner, ctx) : null,
  };
};

export const scheduleVariableEntity = (variable: ScheduleVariable) => ({ variable_type: variable.variable_type, key: variable.key, value: variable.value });

export const scheduleDetailsEntity = (schedule: Schedule, ctx: PresentContext) => {
  const last = lastPipelineOfSchedule(ctx.state.pipelines, schedule.id);
  return {
    ...scheduleEntity(schedule, ctx),
    last_pipeline: last ? pipelineBasicEntity(last, ctx) : null,
    variables: schedule.variables.map(scheduleVariableEntity),
  };
};

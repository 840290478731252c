/**
 * Pipeline schedules (lib/api/ci/pipeline_schedules.rb, 14.7; reference §1): list, get, create, update, delete,
 * take_ownership, play and variables. Every route authenticates first, then validates its parameters, then finds
 * the project; a schedule the caller cannot read is "404 Pipeline Schedule Not Found".
 */
import * as E from 'fp-ts/lib/Either.js';
import {
  canAdminSchedule,
  canOnProject,
  canReadSchedule,
  findSchedule,
  forbidden,
  notFound,
  schedulesOfProject,
  type CommandResult,
  type DomainError,
  type Project,
  type Schedule,
  type ScheduleChanges,
  type State,
} from '@forgefold/core';
import { checkUnmodifiedSince, created, noContent, ok, route, withStatus, type AnyRouteDef } from '../../http/index.js';
import { presentContext, viewerId, type ApiDeps, type Ctx } from '../../app/deps.js';
import { commandRoute, listRoute, projectOfRoute } from '../../app/routes.js';
import { scheduleDetailsEntity, scheduleEntity, scheduleVariableEntity } from './entities.js';
import { createParams, createVariableParams, listParams, scheduleIdParams, updateParams, updateVariableParams, variableKeyParams } from './params.js';

const BASE = '/projects/:id/pipeline_schedules';
const ONE = `${BASE}/:pipeline_schedule_id`;

const scheduleIdOf = (ctx: Ctx): number => Number(ctx.routeParams['pipeline_schedule_id']);

/** `user_project`, then the `pipeline_schedule` helper. */
const scheduleOfRoute = (ctx: Ctx, state: State): E.Either<DomainError, { project: Project; schedule: Schedule }> => {
  const project = projectOfRoute(ctx, state);
  if (E.isLeft(project)) return project;
  const schedule = findSchedule(state.schedules, project.right.id, scheduleIdOf(ctx));
  if (!schedule || !canReadSchedule(state, viewerId(ctx), project.right)) return E.left(notFound('Pipeline Schedule'));
  return E.right({ project: project.right, schedule });
};

export const pipelineScheduleRoutes = (deps: ApiDeps): AnyRouteDef[] => {
  const details = (done: CommandResult<State>, ctx: Ctx, projectId: number, id: number) =>
    scheduleDetailsEntity(findSchedule(done.state.schedules, projectId, id)!, presentContext(deps, ctx, done.state));
  const ofSchedule = (ctx: Ctx, project: Project) => ({ project_id: project.id, schedule_id: scheduleIdOf(ctx) });
  const variableOf = (done: CommandResult<State>, projectId: number, id: number, key: string) =>
    scheduleVariableEntity(findSchedule(done.state.schedules, projectId, id)!.variables.find((variable) => variable.key === key)!);
  return [
    listRoute(deps, {
      path: BASE,
      params: listParams,
      find: projectOfRoute,
      authorize: (ctx, state, project) => (canOnProject(state, viewerId(ctx), 'read_pipeline_schedule', project) ? null : forbidden()),
      rows: (ctx, state, project) => schedulesOfProject(state.schedules, project.id, ctx.params.scope),
      present: scheduleEntity,
    }),
    route({
      method: 'GET',
      path: ONE,
      params: scheduleIdParams,
      handler: (ctx) => {
        const state = deps.app.state;
        const found = scheduleOfRoute(ctx, state);
        if (E.isLeft(found)) return found.left;
        return ok(scheduleDetailsEntity(found.right.schedule, presentContext(deps, ctx, state)));
      },
    }),
    commandRoute(deps, {
      method: 'POST',
      path: BASE,
      params: createParams,
      find: projectOfRoute,
      authorize: (ctx, state, project) => (canOnProject(state, viewerId(ctx), 'create_pipeline_schedule', project) ? null : forbidden()),
      command: ({ params }, project) => ({
        type: 'CreatePipelineSchedule',
        project_id: project.id,
        description: params.description ?? '',
        ref: params.ref ?? '',
        cron: params.cron ?? '',
        cron_timezone: params.cron_timezone ?? 'UTC',
        active: params.active ?? true,
      }),
      present: (done, ctx, project) => {
        const event = done.events.find((candidate) => candidate.type === 'ScheduleCreated')!;
        return created(details(done, ctx, project.id, (event.data as { id: number }).id));
      },
    }),
    commandRoute(deps, {
      method: 'PUT',
      path: ONE,
      params: updateParams,
      find: projectOfRoute,
      command: (ctx, project) => {
        const { description, ref, cron, cron_timezone, active } = ctx.params;
        const changes: ScheduleChanges = {
          ...(description !== undefined && description !== null ? { description } : {}),
          ...(ref !== undefined && ref !== null ? { ref } : {}),
          ...(cron !== undefined && cron !== null ? { cron } : {}),
          ...(cron_timezone !== undefined && cron_timezone !== null ? { cron_timezone } : {}),
          ...(active !== undefined && active !== null ? { active } : {}),
        };
        return { type: 'UpdatePipelineSchedule', ...ofSchedule(ctx, project), changes };
      },
      present: (done, ctx, project) => ok(details(done, ctx, project.id, scheduleIdOf(ctx))),
    }),
    commandRoute(deps, {
      method: 'POST',
      path: `${ONE}/take_ownership`,
      params: scheduleIdParams,
      find: projectOfRoute,
      command: (ctx, project) => ({ type: 'TakePipelineScheduleOwnership', ...ofSchedule(ctx, project) }),
      present: (done, ctx, project) => created(details(done, ctx, project.id, scheduleIdOf(ctx))),
    }),
    commandRoute(deps, {
      method: 'DELETE',
      path: ONE,
      params: scheduleIdParams,
      find: scheduleOfRoute,
      authorize: (ctx, state, { project, schedule }) => (canAdminSchedule(state, viewerId(ctx), project, schedule) ? null : forbidden()),
      command: (ctx, { project, schedule }) => {
        checkUnmodifiedSince(ctx.request.headers, schedule.updated_at);
        return { type: 'DeletePipelineSchedule', project_id: project.id, schedule_id: schedule.id };
      },
      present: () => noContent(),
    }),
    commandRoute(deps, {
      method: 'POST',
      path: `${ONE}/play`,
      params: scheduleIdParams,
      find: projectOfRoute,
      command: (ctx, project) => ({ type: 'PlayPipelineSchedule', ...ofSchedule(ctx, project) }),
      present: () => created({ message: '201 Created' }),
    }),
    commandRoute(deps, {
      method: 'POST',
      path: `${ONE}/variables`,
      params: createVariableParams,
      find: projectOfRoute,
      command: (ctx, project) => ({
        type: 'CreatePipelineScheduleVariable',
        ...ofSchedule(ctx, project),
        key: ctx.params.key ?? '',
        value: ctx.params.value ?? '',
        variable_type: ctx.params.variable_type ?? 'env_var',
      }),
      present: (done, ctx, project) => created(variableOf(done, project.id, scheduleIdOf(ctx), (ctx.params.key ?? '').trim())),
    }),
    commandRoute(deps, {
      method: 'PUT',
      path: `${ONE}/variables/:key`,
      params: updateVariableParams,
      find: projectOfRoute,
      command: (ctx, project) => ({
        type: 'UpdatePipelineScheduleVariable',
        ...ofSchedule(ctx, project),
        key: ctx.params.key,
        ...(ctx.params.value !== undefined && ctx.params.value !== null ? { value: ctx.params.value } : {}),
        ...(ctx.params.variable_type ? { variable_type: ctx.params.variable_type } : {}),
      }),
      present: (done, ctx, project) => ok(variableOf(done, project.id, scheduleIdOf(ctx), ctx.params.key)),
    }),
    commandRoute(deps, {
      method: 'DELETE',
      path: `${ONE}/variables/:key`,
      params: variableKeyParams,
      find: scheduleOfRoute,
      command: (ctx, { project, schedule }) => ({ type: 'DeletePipelineScheduleVariable', project_id: project.id, schedule_id: schedule.id, key: ctx.params.key }),
      // `status :accepted; present pipeline_schedule_variable.destroy`: the variable as it was.
      present: (_done, ctx, { schedule }) => withStatus(202, scheduleVariableEntity(schedule.variables.find((variable) => variable.key === ctx.params.key)!)),
    }),
  ];
};

/**
 * Environments (lib/api/environments.rb, 14.7): list (`name` or `search`, `states`), create, get (with
 * `last_deployment`), update (`external_url`, the deprecated rename), stop, delete (stopped ones only), and the
 * stopped review apps' clean-up (`DELETE …/review_apps`, scheduled deletion a week on). Every route
 * authenticates first; the project is looked up after parameter validation (reference §0.2).
 */
import * as E from 'fp-ts/lib/Either.js';
import {
  canOnProject,
  DAY_MS,
  environmentsOf,
  findEnvironment,
  forbidden,
  notFound,
  stoppedReviewApps,
  type DomainError,
  type Environment,
  type Project,
  type ReviewAppsOutcome,
  type State,
} from '@forgefold/core';
import { ApiError, checkUnmodifiedSince, created, noContent, ok, route, withStatus, type AnyRouteDef, type HandlerContext } from '../../http/index.js';
import { commandRoute, listRoute, projectOfRoute } from '../../app/routes.js';
import { presentContext, viewerId, type ApiDeps } from '../../app/deps.js';
import type { PresentContext } from '../context.js';
import { deploymentsProjectOfRoute, mayReadDeployments } from '../deployments/routes.js';
import { environmentEntity } from './entities.js';
import { createParams, environmentIdParams, listParams, reviewAppsParams, SLUG_GIVEN, updateParams } from './params.js';

const RECORD_NOT_FOUND = '404 Not found';

/** `user_project` then `environments.find(:environment_id)`, after the read check. */
const environmentOfRoute = (ctx: HandlerContext<{ environment_id: number }>, state: State): E.Either<DomainError, { project: Project; environment: Environment }> => {
  const project = deploymentsProjectOfRoute(ctx, state);
  if (E.isLeft(project)) return project;
  const environment = findEnvironment(state.deployments, project.right.id, ctx.params.environment_id);
  return environment ? E.right({ project: project.right, environment }) : E.left(notFound(undefined, RECORD_NOT_FOUND));
};

const refuseSlug = (ctx: { readonly params: { readonly slug?: string | null } }): void => {
  if (ctx.params.slug !== undefined) throw ApiError.error(400, SLUG_GIVEN);
};

/** The environment a command acted on, from the state after it. */
const presentEnvironment = (deps: ApiDeps, ctx: HandlerContext<unknown>, state: State, projectId: number, id: number, status: 200 | 201) => {
  const environment = findEnvironment(state.deployments, projectId, id);
  if (!environment) throw ApiError.domain(notFound(undefined, RECORD_NOT_FOUND));
  const body = environmentEntity(environment, presentContext(deps, ctx, state));
  return status === 201 ? created(body) : ok(body);
};

const NO_DESTROY_PERMISSION = 'You do not have permission to destroy environments in this project';
const NOTHING_SCHEDULED = 'Failed to authorize deletions for some or all of the environments. Ask someone with more permissions to delete the environments.';

/**
 * The answer of `DELETE …/review_apps`: 14.x's `Entities::Environment.represent` of what was (or would be) scheduled,
 * and of what could not be: each as a list row (`project`, `state`); `represent` is given no options, so no
 * `last_deployment` and none of the fields that need the current user. (`EnvironmentBasic` is 15.x's.)
 */
const reviewAppsBody = (scheduled: readonly Environment[], ctx: PresentContext) => ({
  scheduled_entries: scheduled.map((environment) => environmentEntity(environment, ctx)),
  unprocessable_entries: [],
});

/** A refusal: nothing scheduled, nothing unprocessable (no protected environments here), the text under `message`. */
const reviewAppsRefusal = (status: 400 | 401, message: string) => withStatus(status, { message: { scheduled_entries: [], unprocessable_entries: [], message } });

export const environmentRoutes = (deps: ApiDeps): AnyRouteDef[] => [
  listRoute(deps, {
    path: '/projects/:id/environments',
    params: listParams,
    find: projectOfRoute,
    authorize: mayReadDeployments,
    rows: (ctx, state, project) => {
      const { name, search, states } = ctx.params;
      // `for_name_like`: a case-insensitive prefix (`LOWER(name) LIKE LOWER(?) || '%'`).
      const prefix = search?.toLowerCase();
      return environmentsOf(state.deployments, project.id).filter(
        (environment) => (!name || environment.name === name) && (!prefix || environment.name.toLowerCase().startsWith(prefix)) && (!states || environment.state === states),
      );
    },
    present: (environment, view) => environmentEntity(environment, view),
  }),
  commandRoute(deps, {
    method: 'POST',
    path: '/projects/:id/environments',
    params: createParams,
    find: projectOfRoute,
    command: (ctx, project) => {
      refuseSlug(ctx);
      return { type: 'CreateEnvironment', project_id: project.id, name: ctx.params.name ?? '', external_url: ctx.params.external_url ?? null };
    },
    present: (done, ctx, project) => {
      const event = done.events.find((candidate) => candidate.type === 'EnvironmentCreated');
      return presentEnvironment(deps, ctx, done.state, project.id, (event!.data as { id: number }).id, 201);
    },
  }),
  commandRoute(deps, {
      method: 'PUT',
      path: '/projects/:id/environments/:environment_id',
      params: updateParams,
      find: projectOfRoute,
      command: (ctx, project) => {
        refuseSlug(ctx);
        const { name, external_url } = ctx.params;
        return {
          type: 'UpdateEnvironment',
          project_id: project.id,
          environment_id: ctx.params.environment_id,
          ...(name !== undefined && name !== null ? { name } : {}),
          ...(external_url !== undefined ? { external_url } : {}),
        };
      },
      present: (done, ctx, project) => presentEnvironment(deps, ctx, done.state, project.id, ctx.params.environment_id, 200),
    }),
  // Declared before `:environment_id`, which would take `review_apps` for an id (400 "environment_id is invalid").
  route({
    method: 'DELETE',
    path: '/projects/:id/environments/review_apps',
    params: reviewAppsParams,
    handler: async (ctx) => {
      const state = deps.app.state;
      const project = deploymentsProjectOfRoute(ctx, state);
      if (E.isLeft(project)) return project.left;
      const { before: given, limit, dry_run } = ctx.params;
      const before = given === undefined ? new Date(Date.parse(deps.clock.now()) - 30 * DAY_MS).toISOString() : given;
      // `ScheduleToDeleteReviewAppsService`: refusals render `{scheduled_entries, unprocessable_entries, message}`
      // under `message` (`render_api_error!`), with the service's status.
      if (!canOnProject(state, viewerId(ctx), 'destroy_environment', project.right)) return reviewAppsRefusal(401, NO_DESTROY_PERMISSION);
      const environments = stoppedReviewApps(state.deployments, project.right.id, before, limit);
      // Whoever may destroy the project's environments may destroy each stopped one: none is unprocessable.
      if (environments.length === 0) return reviewAppsRefusal(400, NOTHING_SCHEDULED);
      // `dry_run` nil is a dry run too (`dry_run?`).
      if (dry_run !== false) return ok(reviewAppsBody(environments, presentContext(deps, ctx, state)));
      const result = await deps.app.execute(ctx.actor, { type: 'ScheduleReviewAppsDeletion', project_id: project.right.id, before, limit });
      if (E.isLeft(result)) return result.left;
      const { environment_ids } = result.right.outcome as ReviewAppsOutcome;
      const done = result.right.state;
      return ok(reviewAppsBody(environment_ids.map((id) => findEnvironment(done.deployments, project.right.id, id)!), presentContext(deps, ctx, done)));
    },
  }),
  commandRoute(deps, {
    method: 'DELETE',
    path: '/projects/:id/environments/:environment_id',
    params: environmentIdParams,
    find: environmentOfRoute,
    command: (ctx, { project, environment }) => {
      // `destroy_environment` comes before `destroy_conditionally!`'s precondition: check it here first.
      if (!canOnProject(deps.app.state, viewerId(ctx), 'destroy_environment', project) || environment.state !== 'stopped') return forbidden();
      checkUnmodifiedSince(ctx.request.headers, environment.updated_at);
      return { type: 'DeleteEnvironment', project_id: project.id, environment_id: environment.id };
    },
    present: () => noContent(),
  }),
  commandRoute(deps, {
    method: 'POST',
    path: '/projects/:id/environments/:environment_id/stop',
    // 14.7 declares only the id (`force` came in 15.x): anything else is ignored.
    params: environmentIdParams,
    find: environmentOfRoute,
    command: (_ctx, { project, environment }) => ({ type: 'StopEnvironment', project_id: project.id, environment_id: environment.id }),
    present: (done, ctx, { project, environment }) => presentEnvironment(deps, ctx, done.state, project.id, environment.id, 200),
  }),
  route({
    method: 'GET',
    path: '/projects/:id/environments/:environment_id',
    params: environmentIdParams,
    handler: (ctx) => {
      const state = deps.app.state;
      const found = environmentOfRoute(ctx, state);
      if (E.isLeft(found)) return found.left;
      return ok(environmentEntity(found.right.environment, presentContext(deps, ctx, state), { lastDeployment: true }));
    },
  }),
];


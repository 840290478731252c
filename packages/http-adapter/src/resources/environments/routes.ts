/**
 * Environments (lib/api/environments.rb, 14.7): list (`name` or `search`, `states`), create, get (with
 * `last_deployment`), update (`external_url`, the deprecated rename), stop, delete (stopped ones only). Every route
 * authenticates first; the project is looked up after parameter validation (reference §0.2).
 */
import * as E from 'fp-ts/lib/Either.js';
import { canOnProject, canReadDeployments, environmentsOf, findEnvironment, forbidden, notFound, type DomainError, type Environment, type Project, type State } from '@forgefold/core';
import { ApiError, checkUnmodifiedSince, created, noContent, ok, route, type AnyRouteDef, type HandlerContext } from '../../http/index.js';
import { commandRoute, listRoute, projectOfRoute } from '../../app/routes.js';
import { presentContext, viewerId, type ApiDeps } from '../../app/deps.js';
import { environmentEntity } from './entities.js';
import { createParams, environmentIdParams, listParams, SLUG_GIVEN, updateParams } from './params.js';

const RECORD_NOT_FOUND = '404 Not found';

/** `authorize! :read_environment, user_project` (public and internal projects' readers too). */
const mayRead = (ctx: HandlerContext<unknown>, state: State, project: Project): DomainError | null =>
  canReadDeployments(state, viewerId(ctx), project) ? null : forbidden();

/** `user_project` then `environments.find(:environment_id)`, after the read check. */
const environmentOfRoute = (ctx: HandlerContext<{ environment_id: number }>, state: State): E.Either<DomainError, { project: Project; environment: Environment }> => {
  const project = projectOfRoute(ctx, state);
  if (E.isLeft(project)) return project;
  const refused = mayRead(ctx, state, project.right);
  if (refused) return E.left(refused);
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

export const environmentRoutes = (deps: ApiDeps): AnyRouteDef[] => [
  listRoute(deps, {
    path: '/projects/:id/environments',
    params: listParams,
    find: projectOfRoute,
    authorize: mayRead,
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


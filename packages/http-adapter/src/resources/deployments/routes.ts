/**
 * Deployments (lib/api/deployments.rb, 14.7; reference §3): list, get, create (the environment found or created by
 * name; `sha` and `ref` must name commits of the project's git repository), status updates through the machine,
 * and the merge requests a deployment shipped, computed from git ancestry. There is no DELETE in 14.7.
 */
import * as E from 'fp-ts/lib/Either.js';
import {
  canReadDeployments,
  deploymentCount,
  environmentDeploymentAt,
  environmentDeployments,
  findDeployment,
  findEnvironment,
  findEnvironmentByName,
  forbidden,
  mergeRequestsOf,
  notFound,
  projectDeploymentsFrom,
  projectDeploymentsInOrder,
  type Deployment,
  type DeploymentOutcome,
  type DomainError,
  type Project,
  type State,
} from '@forgefold/core';
import { arraySource, created, ok, paginate, route, type AnyRouteDef, type HandlerContext, type OffsetSource } from '../../http/index.js';
import { commandRoute, listRoute, projectOfRoute } from '../../app/routes.js';
import { presentContext, viewerId, type ApiDeps } from '../../app/deps.js';
import { mergeRequestBasicEntity } from '../merge-requests/entities.js';
import { filterMergeRequests } from '../merge-requests/filter.js';
import { deploymentEntity } from './entities.js';
import { deployedMergeRequests, deploymentMatches } from './shipped.js';
import { createParams, deploymentIdParams, listParams, mergeRequestsParams, updateParams } from './params.js';

const RECORD_NOT_FOUND = '404 Not found';

/**
 * `authorize! :read_deployment, user_project` (`:read_environment`, the same level: public and internal projects'
 * readers too), for the deployments and environments routes.
 */
export const mayReadDeployments = (ctx: HandlerContext<unknown>, state: State, project: Project): DomainError | null =>
  canReadDeployments(state, viewerId(ctx), project) ? null : forbidden();

/** `user_project` then the read check (`mayReadDeployments`). */
export const deploymentsProjectOfRoute = (ctx: HandlerContext<unknown>, state: State): E.Either<DomainError, Project> => {
  const project = projectOfRoute(ctx, state);
  if (E.isLeft(project)) return project;
  const refused = mayReadDeployments(ctx, state, project.right);
  return refused ? E.left(refused) : project;
};

type ListParams = typeof listParams._A;

/** A source over rows produced in id order by `from(offset)`, `count` known: a page costs the page. */
const idOrderSource = (count: number, at: (index: number) => Deployment | undefined, descending: boolean): OffsetSource<Deployment> => ({
  count: () => count,
  slice: (offset, limit) => {
    const out: Deployment[] = [];
    for (let i = offset; i < Math.min(count, offset + limit); i++) {
      const row = at(descending ? count - 1 - i : i);
      if (row) out.push(row);
    }
    return out;
  },
});

/** `DeploymentsFinder`: filters, then the order (`created_at` and `iid` are `id`; `updated_at` breaks ties by id desc). */
const deploymentRows = (state: State, project: Project, params: ListParams): OffsetSource<Deployment> | readonly Deployment[] => {
  const slice = state.deployments;
  const descending = params.sort === 'desc';
  const byId = params.order_by === 'id' || params.order_by === 'iid' || params.order_by === 'created_at';
  const filtered = params.status !== undefined || params.updated_after !== undefined || params.updated_before !== undefined;
  let environment = undefined;
  // `by_environment` applies when the name is present (a blank one filters nothing).
  if (params.environment) {
    environment = findEnvironmentByName(slice, project.id, params.environment);
    if (!environment) return [];
  }
  // The indexed paths: an environment's deployments by ordinal, a project's by iid.
  if (byId && !filtered) {
    if (environment) {
      const env = environment;
      return idOrderSource(env.deployment_count, (index) => environmentDeploymentAt(slice, env, index), descending);
    }
    const count = deploymentCount(slice, project.id);
    const source: OffsetSource<Deployment> = {
      count: () => count,
      slice: (offset, limit) => {
        const start = descending ? Math.max(0, count - offset - limit) : offset;
        const take = descending ? Math.max(0, Math.min(limit, count - offset)) : limit;
        const rows: Deployment[] = [];
        for (const deployment of projectDeploymentsFrom(slice, project.id, start)) {
          if (rows.length >= take) break;
          rows.push(deployment);
        }
        return descending ? rows.reverse() : rows;
      },
    };
    return source;
  }
  const all = [...(environment ? environmentDeployments(slice, environment) : projectDeploymentsInOrder(slice, project.id))].filter(
    (deployment) =>
      (!params.status || deployment.status === params.status) &&
      (!params.updated_after || deployment.updated_at >= params.updated_after) &&
      (!params.updated_before || deployment.updated_at <= params.updated_before),
  );
  if (params.order_by === 'updated_at') all.sort((a, b) => (a.updated_at < b.updated_at ? -1 : a.updated_at > b.updated_at ? 1 : 0) * (descending ? -1 : 1) || b.id - a.id);
  else if (params.order_by === 'ref') all.sort((a, b) => (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0) * (descending ? -1 : 1) || a.id - b.id);
  else if (descending) all.reverse();
  return all;
};

const presentDeployment = (deps: ApiDeps, ctx: HandlerContext<unknown>, state: State, deployment: Deployment) =>
  deploymentEntity(deployment, findEnvironment(state.deployments, deployment.project_id, deployment.environment_id), presentContext(deps, ctx, state));

/** Whether a revision names a commit of the project's repository (`project.commit(revision)`). */
const commitExists = async (deps: ApiDeps, projectId: number, revision: string): Promise<boolean> => {
  if (revision === '') return false;
  const found = await deps.repositories.open(projectId).findCommit(revision);
  return E.isRight(found);
};

export const deploymentRoutes = (deps: ApiDeps): AnyRouteDef[] => {
  const deploymentOfRoute = (ctx: HandlerContext<{ deployment_id: number }>, state: State): E.Either<DomainError, { project: Project; deployment: Deployment }> => {
    const project = deploymentsProjectOfRoute(ctx, state);
    if (E.isLeft(project)) return project;
    const deployment = findDeployment(state.deployments, project.right.id, ctx.params.deployment_id);
    return deployment ? E.right({ project: project.right, deployment }) : E.left(notFound(undefined, RECORD_NOT_FOUND));
  };

  return [
    listRoute(deps, {
      path: '/projects/:id/deployments',
      params: listParams,
      find: projectOfRoute,
      authorize: mayReadDeployments,
      rows: (ctx, state, project) => deploymentRows(state, project, ctx.params),
      present: (deployment, view) => deploymentEntity(deployment, findEnvironment(view.state.deployments, deployment.project_id, deployment.environment_id), view),
    }),
    route({
      method: 'GET',
      path: '/projects/:id/deployments/:deployment_id',
      params: deploymentIdParams,
      handler: (ctx) => {
        const state = deps.app.state;
        const found = deploymentOfRoute(ctx, state);
        if (E.isLeft(found)) return found.left;
        return ok(presentDeployment(deps, ctx, state, found.right.deployment));
      },
    }),
    commandRoute(deps, {
      method: 'POST',
      path: '/projects/:id/deployments',
      params: createParams,
      find: projectOfRoute,
      command: async (ctx, project) => {
        const { environment, sha, ref, tag, status } = ctx.params;
        const [shaExists, refExists] = await Promise.all([commitExists(deps, project.id, sha ?? ''), commitExists(deps, project.id, ref ?? '')]);
        return {
          type: 'CreateDeployment',
          project_id: project.id,
          environment: environment ?? '',
          sha: sha ?? '',
          ref: ref ?? '',
          tag: tag ?? false,
          status,
          sha_exists: shaExists,
          ref_exists: refExists,
        };
      },
      // POST answers 201 even when an identical request returned the existing deployment (reference §0.8, §3.5).
      present: (done, ctx, project) => {
        const { deployment_id } = done.outcome as DeploymentOutcome;
        return created(presentDeployment(deps, ctx, done.state, findDeployment(done.state.deployments, project.id, deployment_id)!));
      },
    }),
    commandRoute(deps, {
      method: 'PUT',
      path: '/projects/:id/deployments/:deployment_id',
      params: updateParams,
      find: projectOfRoute,
      command: (ctx, project) => ({ type: 'UpdateDeploymentStatus', project_id: project.id, deployment_id: ctx.params.deployment_id, status: ctx.params.status }),
      present: (done, ctx, project) => ok(presentDeployment(deps, ctx, done.state, findDeployment(done.state.deployments, project.id, ctx.params.deployment_id)!)),
    }),
    route({
      method: 'GET',
      path: '/projects/:id/deployments/:deployment_id/merge_requests',
      params: mergeRequestsParams,
      handler: async (ctx) => {
        const state = deps.app.state;
        const project = deploymentsProjectOfRoute(ctx, state);
        if (E.isLeft(project)) return project.left;
        // `MergeRequestsFinder` filters by `deployment_id` without finding the deployment: an unknown one lists none.
        const deployment = findDeployment(state.deployments, project.right.id, ctx.params.deployment_id);
        // Every link of these merge requests is to this deployment: the deployment filters keep all of them or none.
        // The finder's other filters first, so that git is read only when a merged merge request is left.
        const rows =
          deployment && deploymentMatches(state, deployment, ctx.params)
            ? await deployedMergeRequests(deps, state, deployment, filterMergeRequests(mergeRequestsOf(state.repositories, project.right.id), ctx.params, state.users, viewerId(ctx)))
            : [];
        const view = presentContext(deps, ctx, state);
        return paginate(ctx, arraySource(rows), { map: (mr) => mergeRequestBasicEntity(mr, project.right, view) });
      },
    }),
  ];
};

/**
 * The merge requests a deployment shipped (`DeploymentMergeRequest`, which `Deployments::LinkMergeRequestsService`
 * fills), computed when asked from git ancestry, and `MergeRequestsFinder#by_deployments`: the `environment`,
 * `deployed_before` and `deployed_after` filters of every merge request listing.
 */
import * as E from 'fp-ts/lib/Either.js';
import {
  environmentDeployments,
  environmentsOf,
  findEnvironment,
  findEnvironmentByName,
  mergeRequestsOf,
  previousSuccessfulDeployment,
  type Deployment,
  type Environment,
  type MergeRequest,
  type State,
} from '@forgefold/core';
import { T } from '../../http/index.js';
import type { ApiDeps } from '../../app/deps.js';

/** The deployment filters of `merge_requests_base_params` (untyped there: strings as sent). */
export interface DeploymentFilters {
  readonly environment?: string | null | undefined;
  readonly deployed_before?: string | null | undefined;
  readonly deployed_after?: string | null | undefined;
}

/** A time the finder can compare with, or null: what no time parses from filters nothing. */
const timeOf = (value: string | null | undefined): number | null => {
  if (value === undefined || value === null) return null;
  const parsed = T.DateTime.decode(value);
  return E.isRight(parsed) && parsed.right !== null ? Date.parse(parsed.right) : null;
};

/**
 * Whether the filters ask anything: `return items if !env && !before && !after`. A blank `environment` asks (an
 * empty string is true in Ruby, and no environment has that name); a time that does not parse does not.
 */
export const filtersByDeployments = (params: DeploymentFilters): boolean =>
  (params.environment !== undefined && params.environment !== null) || timeOf(params.deployed_before) !== null || timeOf(params.deployed_after) !== null;

/**
 * Whether one deployment passes the filters: its environment's name (`deployed_to`), its `finished_at` strictly
 * before and after the times (`deployed_before`, `deployed_after`).
 */
export const deploymentMatches = (state: State, deployment: Deployment, params: DeploymentFilters): boolean => {
  if (params.environment !== undefined && params.environment !== null) {
    if (findEnvironment(state.deployments, deployment.project_id, deployment.environment_id)?.name !== params.environment) return false;
  }
  const before = timeOf(params.deployed_before);
  const after = timeOf(params.deployed_after);
  if (before === null && after === null) return true;
  if (deployment.finished_at === null) return false;
  const finished = Date.parse(deployment.finished_at);
  return (before === null || finished < before) && (after === null || finished > after);
};

/**
 * `Deployments::LinkMergeRequestsService`, computed when asked: for a successful deployment, the merge requests
 * merged into its ref whose merge commit is in git's range from the environment's previous successful deployment
 * to this one (from the root of history for the first); none for other statuses.
 */
export const deployedMergeRequests = async (deps: ApiDeps, state: State, deployment: Deployment): Promise<MergeRequest[]> => {
  if (deployment.status !== 'success') return [];
  const merged = mergeRequestsOf(state.repositories, deployment.project_id).filter(
    (mr) => mr.state === 'merged' && mr.target_branch === deployment.ref && mr.merge_commit_sha !== null,
  );
  if (merged.length === 0) return [];
  const previous = previousSuccessfulDeployment(state.deployments, deployment);
  const range = await deps.repositories.open(deployment.project_id).commitsBetween(previous?.sha ?? null, deployment.sha);
  if (E.isLeft(range)) return [];
  const shipped = new Set<string>(range.right.items.map((commit) => commit.id));
  return merged.filter((mr) => shipped.has(mr.merge_commit_sha!));
};

/**
 * `by_deployments` over a listing's rows: those a deployment of their project that passes the filters shipped
 * (`environments.project_id = merge_requests.target_project_id`). Only the rows' projects are read, and in each
 * only its successful deployments (the others link nothing), in the named environment when one is given.
 */
export const shippedByDeployments = async (deps: ApiDeps, state: State, rows: readonly MergeRequest[], params: DeploymentFilters): Promise<MergeRequest[]> => {
  const shipped = new Set<number>();
  for (const projectId of new Set(rows.map((mr) => mr.project_id))) {
    const named = params.environment !== undefined && params.environment !== null ? findEnvironmentByName(state.deployments, projectId, params.environment) : undefined;
    const environments: Environment[] = named ? [named] : params.environment !== undefined && params.environment !== null ? [] : environmentsOf(state.deployments, projectId);
    for (const environment of environments) {
      for (const deployment of environmentDeployments(state.deployments, environment)) {
        if (deployment.status !== 'success' || !deploymentMatches(state, deployment, params)) continue;
        for (const mr of await deployedMergeRequests(deps, state, deployment)) shipped.add(mr.id);
      }
    }
  }
  return rows.filter((mr) => shipped.has(mr.id));
};

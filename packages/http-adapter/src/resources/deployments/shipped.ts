/**
 * The merge requests a deployment shipped (`DeploymentMergeRequest`, which `Deployments::LinkMergeRequestsService`
 * fills), computed when asked from git ancestry, and `MergeRequestsFinder#by_deployments`: the `environment`,
 * `deployed_before` and `deployed_after` filters of every merge request listing.
 */
import * as E from 'fp-ts/lib/Either.js';
import {
  environmentDeployments,
  environmentsOf,
  environmentType,
  findEnvironment,
  findEnvironmentByName,
  type Deployment,
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
 * `Deployments::LinkMergeRequestsService`, computed when asked, over `candidates` (the rows a listing already
 * filtered): none for a deployment that never succeeded (the service links on success only, and the links stay when
 * the status changes again) or is a review app's (its environment's name has a folder: `environment_type`). Each
 * success linked one range (`links.previous_shas`, their union is what it shipped): after a previous successful
 * deployment, the merged merge requests whose merge commit is in git's range from that one to this one, whatever
 * branch they targeted (`merged.by_merge_commit_sha`); with none, those merged into its ref whose merge commit is in
 * its history (the platform links all merged into the ref at that moment; ancestry stands for "merged by then"). Git
 * is read only while a candidate may still pass.
 */
export const deployedMergeRequests = async (deps: ApiDeps, state: State, deployment: Deployment, candidates: readonly MergeRequest[]): Promise<MergeRequest[]> => {
  if (deployment.links === null) return [];
  const environment = findEnvironment(state.deployments, deployment.project_id, deployment.environment_id);
  if (!environment || environmentType(environment.name) !== null) return [];
  let waiting = candidates.filter((mr) => mr.project_id === deployment.project_id && mr.state === 'merged' && mr.merge_commit_sha !== null);
  const found = new Set<number>();
  for (const previous of deployment.links.previous_shas) {
    const linkable = previous === null ? waiting.filter((mr) => mr.target_branch === deployment.ref) : waiting;
    if (linkable.length === 0) continue;
    const shipped = await commitsOfRange(deps, deployment.project_id, previous, deployment.sha);
    if (shipped === null) continue;
    for (const mr of linkable) if (shipped.has(mr.merge_commit_sha!)) found.add(mr.id);
    waiting = waiting.filter((mr) => !found.has(mr.id));
    if (waiting.length === 0) break;
  }
  return candidates.filter((mr) => found.has(mr.id));
};

/** How many commit shas the kept ranges may hold together (a first deployment's range is its whole history). */
const SHAS_KEPT = 100_000;

/** The ranges read, per repository host; `sizes` has those read (not those in flight), least recently used first. */
interface KeptRanges {
  readonly reads: Map<string, Promise<ReadonlySet<string> | null>>;
  readonly sizes: Map<string, number>;
  total: number;
}
const keptRanges = new WeakMap<object, KeptRanges>();

const isFullSha = (revision: string): boolean => /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(revision);

const forget = (kept: KeptRanges, key: string): void => {
  kept.reads.delete(key);
  kept.total -= kept.sizes.get(key) ?? 0;
  kept.sizes.delete(key);
};

/**
 * The shas of git's range `from..to` (null `from`: all of `to`'s history), or null when git cannot read it. What
 * is between two commits never changes (a full sha names a commit and all its history), so a range read is kept for the
 * next requests, until `SHAS_KEPT` is reached (the least recently used go first): filtered listings ask for the same
 * deployments' ranges again and again, and the response cache is emptied by any write. A failed read is not kept.
 */
const commitsOfRange = (deps: ApiDeps, projectId: number, from: string | null, to: string): Promise<ReadonlySet<string> | null> => {
  let kept = keptRanges.get(deps.repositories);
  if (!kept) keptRanges.set(deps.repositories, (kept = { reads: new Map(), sizes: new Map(), total: 0 }));
  const ranges = kept;
  const key = `${projectId}:${from ?? ''}..${to}`;
  const hit = ranges.reads.get(key);
  if (hit) {
    const size = ranges.sizes.get(key);
    if (size !== undefined) {
      ranges.sizes.delete(key);
      ranges.sizes.set(key, size);
    }
    return hit;
  }
  const read = deps.repositories
    .open(projectId)
    .commitsBetween(from, to)
    .then(
      (range) => (E.isLeft(range) ? null : new Set(range.right.items.map((commit) => commit.id))),
      // The port answers failures as values; should it throw, the listing still answers (without those rows).
      () => null,
    );
  // A deployment's `sha` is kept as sent: a branch name or a short sha may name another commit tomorrow.
  if (!isFullSha(to) || (from !== null && !isFullSha(from))) return read;
  ranges.reads.set(key, read);
  void read.then((shas) => {
    if (ranges.reads.get(key) !== read) return;
    if (shas === null || shas.size > SHAS_KEPT) return forget(ranges, key);
    // An empty range (the same sha deployed again) weighs one, so that the number of ranges kept is bounded too.
    ranges.sizes.set(key, shas.size + 1);
    ranges.total += shas.size + 1;
    for (const oldest of ranges.sizes.keys()) {
      if (ranges.total <= SHAS_KEPT) break;
      forget(ranges, oldest);
    }
  });
  return read;
};

/**
 * `by_deployments` over a listing's rows: those a deployment of their project that passes the filters shipped
 * (`environments.project_id = merge_requests.target_project_id`). Only the projects with a merged row are read, in
 * each only its deployments that succeeded once (the others link nothing), in the named environment when one is
 * given, and only until every merged row of the project was found shipped: a range is read only while it can add one.
 */
export const shippedByDeployments = async (deps: ApiDeps, state: State, rows: readonly MergeRequest[], params: DeploymentFilters): Promise<MergeRequest[]> => {
  const named = params.environment !== undefined && params.environment !== null ? params.environment : null;
  const shipped = new Set<number>();
  const byProject = new Map<number, MergeRequest[]>();
  for (const mr of rows) {
    if (mr.state !== 'merged') continue;
    const merged = byProject.get(mr.project_id);
    if (merged) merged.push(mr);
    else byProject.set(mr.project_id, [mr]);
  }
  for (const [projectId, merged] of byProject) {
    let waiting = merged;
    const environments = named === null ? environmentsOf(state.deployments, projectId) : [findEnvironmentByName(state.deployments, projectId, named)].filter((found) => found !== undefined);
    for (const environment of environments) {
      for (const deployment of environmentDeployments(state.deployments, environment)) {
        if (waiting.length === 0) break;
        if (deployment.links === null || !deploymentMatches(state, deployment, params)) continue;
        const found = new Set((await deployedMergeRequests(deps, state, deployment, waiting)).map((mr) => mr.id));
        for (const id of found) shipped.add(id);
        waiting = waiting.filter((mr) => !found.has(mr.id));
      }
    }
  }
  return rows.filter((mr) => shipped.has(mr.id));
};

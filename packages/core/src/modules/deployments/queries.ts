/** Reads of the deployments slice. */
import { tableGet, tableIds, tableIdsFrom, tableValues } from '../../kernel/table.js';
import { canOnVisibleProject, type AccessView } from '../access/abilities.js';
import type { Project } from '../projects/projection.js';
import type { Deployment, DeploymentsSlice, Environment, ProjectDeployments } from './projection.js';

/**
 * `read_environment` and `read_deployment` (ProjectPolicy 14.x): Reporters and above; on a public or internal
 * project whoever sees it (`public_access` enables both).
 */
export const canReadDeployments = (state: AccessView, userId: number | null, project: Project): boolean => canOnVisibleProject(state, userId, 'read_deployment', project);

export const projectDeployments = (slice: DeploymentsSlice, projectId: number): ProjectDeployments | undefined => tableGet(slice.byProject, projectId);

export const findEnvironment = (slice: DeploymentsSlice, projectId: number, id: number): Environment | undefined => {
  const environment = tableGet(slice.environments, id);
  return environment?.project_id === projectId ? environment : undefined;
};

export const findEnvironmentByName = (slice: DeploymentsSlice, projectId: number, name: string): Environment | undefined => {
  const id = projectDeployments(slice, projectId) ? tableGet(projectDeployments(slice, projectId)!.environments, name) : undefined;
  return id === undefined ? undefined : tableGet(slice.environments, id);
};

/** A project's environments, by id ascending. */
export const environmentsOf = (slice: DeploymentsSlice, projectId: number): Environment[] => {
  const project = projectDeployments(slice, projectId);
  if (!project) return [];
  const out: Environment[] = [];
  for (const id of tableValues(project.environments)) {
    const environment = tableGet(slice.environments, id);
    if (environment) out.push(environment);
  }
  return out.sort((a, b) => a.id - b.id);
};

/** `Environment#set_environment_type`: the folder of a name with a `/` (`review/app-1` → `review`), else none. */
export const environmentType = (name: string): string | null => {
  const names = name.split('/');
  return names.length > 1 ? names[0]! : null;
};

/**
 * `project.environments.not_scheduled_for_deletion.stopped_review_apps(before, limit)`: stopped environments of the
 * `review` folder not yet scheduled for deletion, created before `before` (null matches none, as `created_at < NULL`
 * does), oldest first (then by id), at most `limit` (null: no limit).
 */
export const stoppedReviewApps = (slice: DeploymentsSlice, projectId: number, before: string | null, limit: number | null): Environment[] => {
  if (before === null) return [];
  const cutoff = Date.parse(before);
  const found = environmentsOf(slice, projectId).filter(
    (environment) => environment.state === 'stopped' && environment.auto_delete_at === null && environmentType(environment.name) === 'review' && Date.parse(environment.created_at) < cutoff,
  );
  found.sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at) || a.id - b.id);
  return limit === null ? found : found.slice(0, limit);
};

/** `Environment.auto_deletable`'s condition (`stopped.where('auto_delete_at < ?', now)`), `now` in milliseconds. */
const isAutoDeletable = (environment: Environment, now: number): boolean =>
  environment.state === 'stopped' && environment.auto_delete_at !== null && Date.parse(environment.auto_delete_at) < now;

/** The `auto_deletable` environments at `now`, by id (the index's integer keys ascend; only the stopped scheduled ones are looked at). */
function* autoDeletable(slice: DeploymentsSlice, now: string): Generator<Environment> {
  const at = Date.parse(now);
  for (const id of tableIds(slice.scheduledDeletions)) {
    const environment = tableGet(slice.environments, id);
    if (environment && isAutoDeletable(environment, at)) yield environment;
  }
}

/** Whether any environment is `auto_deletable` at `now` (the clean-up process's due check: no list built). */
export const anyAutoDeletable = (slice: DeploymentsSlice, now: string): boolean => !autoDeletable(slice, now).next().done;

/** `Environment.auto_deletable`: stopped environments whose `auto_delete_at` is before `now`, by id. */
export const autoDeletableEnvironments = (slice: DeploymentsSlice, now: string): Environment[] => [...autoDeletable(slice, now)];

export const findDeployment = (slice: DeploymentsSlice, projectId: number, id: number): Deployment | undefined => {
  const deployment = tableGet(slice.deployments, id);
  return deployment?.project_id === projectId ? deployment : undefined;
};

export const deploymentCount = (slice: DeploymentsSlice, projectId: number): number => projectDeployments(slice, projectId)?.deployment_count ?? 0;

/** A project's deployments in id order from the `offset`-th (a page deep in the list skips whole table leaves). */
export function* projectDeploymentsFrom(slice: DeploymentsSlice, projectId: number, offset: number): Generator<Deployment> {
  const project = projectDeployments(slice, projectId);
  if (!project) return;
  for (const iid of tableIdsFrom(project.deployments, offset)) {
    const id = tableGet(project.deployments, iid);
    const deployment = id === undefined ? undefined : tableGet(slice.deployments, id);
    if (deployment) yield deployment;
  }
}

/** The `index`-th deployment of an environment in id order: one lookup, whatever the environment's size. */
export const environmentDeploymentAt = (slice: DeploymentsSlice, environment: Environment, index: number): Deployment | undefined => {
  const id = tableGet(environment.deployments, index);
  return id === undefined ? undefined : tableGet(slice.deployments, id);
};

/** Every deployment of an environment, in id order. */
export function* environmentDeployments(slice: DeploymentsSlice, environment: Environment): Generator<Deployment> {
  for (let index = 0; index < environment.deployment_count; index++) {
    const deployment = environmentDeploymentAt(slice, environment, index);
    if (deployment) yield deployment;
  }
}

/** Every deployment of a project, in id order. */
export function* projectDeploymentsInOrder(slice: DeploymentsSlice, projectId: number): Generator<Deployment> {
  const project = projectDeployments(slice, projectId);
  if (!project) return;
  for (const id of tableValues(project.deployments)) {
    const deployment = tableGet(slice.deployments, id);
    if (deployment) yield deployment;
  }
}

/** `last_deployment`: the environment's latest successful deployment. */
export const lastDeployment = (slice: DeploymentsSlice, environment: Environment): Deployment | undefined =>
  environment.last_success_id === null ? undefined : tableGet(slice.deployments, environment.last_success_id);

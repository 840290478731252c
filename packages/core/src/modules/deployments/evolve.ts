/** The deployments module's evolve: environments and deployments, from the module's own events. */
import type { Draft } from 'immer';
import { emptyTable, tableDelete, tableGet, tableSet, tableValues } from '../../kernel/table.js';
import type { Writable } from '../../kernel/module.js';
import type { ProjectEvent } from '../projects/events.js';
import type { DeploymentEvent } from './events.js';
import type { Deployment, DeploymentsSlice, Environment, ProjectDeployments } from './projection.js';
import { isFinished } from './status.js';

export type DeploymentsDraft = Writable<{ readonly deployments: DeploymentsSlice }, 'deployments'>;

const projectOf = (state: DeploymentsDraft, projectId: number): Draft<ProjectDeployments> => {
  let project = tableGet(state.deployments.byProject, projectId);
  if (!project) {
    tableSet(state.deployments.byProject, projectId, { project_id: projectId, iid: 0, deployments: emptyTable<number>(), deployment_count: 0, environments: emptyTable<number>() });
    project = tableGet(state.deployments.byProject, projectId)!;
  }
  return project;
};

const environmentOf = (state: DeploymentsDraft, id: number): Draft<Environment> | undefined => tableGet(state.deployments.environments, id);

/** The latest successful deployment of an environment, searched from its newest (after a success is undone). */
const recomputeLastSuccess = (state: DeploymentsDraft, environment: Draft<Environment>): void => {
  for (let index = environment.deployment_count - 1; index >= 0; index--) {
    const id = tableGet(environment.deployments, index);
    if (id !== undefined && tableGet(state.deployments.deployments, id)?.status === 'success') {
      environment.last_success_id = id;
      return;
    }
  }
  environment.last_success_id = null;
};

/**
 * `Deployment#previous_deployment` when a deployment succeeds: the environment's latest successful deployment with a
 * lower id (`last_success_id` when it is lower, the usual case; else a walk back), its sha; null for none.
 */
const previousSuccessSha = (state: DeploymentsDraft, environment: Draft<Environment>, id: number): string | null => {
  const last = environment.last_success_id;
  if (last !== null && last < id) return tableGet(state.deployments.deployments, last)?.sha ?? null;
  for (let index = environment.deployment_count - 1; index >= 0; index--) {
    const candidate = tableGet(state.deployments.deployments, tableGet(environment.deployments, index) ?? -1);
    if (candidate && candidate.id < id && candidate.status === 'success') return candidate.sha;
  }
  return null;
};

/**
 * `Deployments::LinkMergeRequestWorker` on a transition to success: one more range, from the previous successful
 * deployment the deployment has now (the rows of an earlier success stay: `ON CONFLICT DO NOTHING` only adds).
 */
const link = (state: DeploymentsDraft, environment: Draft<Environment>, deployment: Draft<Deployment>): void => {
  const from = previousSuccessSha(state, environment, deployment.id);
  if (deployment.links === null) deployment.links = { previous_shas: [from] };
  else if (!deployment.links.previous_shas.includes(from)) deployment.links.previous_shas.push(from);
};

/** Keeps `scheduledDeletions` to the stopped environments with an `auto_delete_at`. */
const indexScheduled = (state: DeploymentsDraft, environment: Draft<Environment>): void => {
  if (environment.state === 'stopped' && environment.auto_delete_at !== null) tableSet(state.deployments.scheduledDeletions, environment.id, 1);
  else tableDelete(state.deployments.scheduledDeletions, environment.id);
};

export const evolve = (state: DeploymentsDraft, event: DeploymentEvent): void => {
  switch (event.type) {
    case 'EnvironmentCreated': {
      const { project_id, id, created_at } = event.data;
      tableSet(state.deployments.environments, id, {
        ...event.data,
        state: 'available',
        updated_at: created_at,
        deployments: emptyTable<number>(),
        deployment_count: 0,
        last_success_id: null,
        auto_delete_at: null,
      });
      tableSet(projectOf(state, project_id).environments, event.data.name, id);
      if (id > state.deployments.sequences.environment) state.deployments.sequences.environment = id;
      return;
    }
    case 'EnvironmentUpdated': {
      const { project_id, id, updated_at, ...changes } = event.data;
      const environment = environmentOf(state, id);
      if (!environment) return;
      if (changes.name !== undefined && changes.name !== environment.name) {
        const project = projectOf(state, project_id);
        tableDelete(project.environments, environment.name);
        tableSet(project.environments, changes.name, id);
      }
      Object.assign(environment, changes);
      environment.updated_at = updated_at;
      return;
    }
    case 'EnvironmentStopped':
    case 'EnvironmentStarted': {
      const environment = environmentOf(state, event.data.id);
      if (!environment) return;
      environment.state = event.type === 'EnvironmentStopped' ? 'stopped' : 'available';
      environment.updated_at = event.data.at;
      indexScheduled(state, environment);
      return;
    }
    case 'EnvironmentDeleted': {
      const environment = environmentOf(state, event.data.id);
      if (!environment) return;
      // Its deployments go with it (`has_many :deployments, dependent: :destroy`).
      const project = projectOf(state, event.data.project_id);
      for (const id of [...tableValues(environment.deployments)]) {
        const deployment = tableGet(state.deployments.deployments, id);
        if (deployment) {
          tableDelete(project.deployments, deployment.iid);
          project.deployment_count -= 1;
        }
        tableDelete(state.deployments.deployments, id);
      }
      tableDelete(project.environments, environment.name);
      tableDelete(state.deployments.environments, event.data.id);
      tableDelete(state.deployments.scheduledDeletions, event.data.id);
      return;
    }
    case 'EnvironmentDeletionScheduled': {
      const environment = environmentOf(state, event.data.id);
      if (!environment) return;
      // `update_all`: the column alone, `updated_at` untouched.
      environment.auto_delete_at = event.data.auto_delete_at;
      indexScheduled(state, environment);
      return;
    }
    case 'DeploymentCreated': {
      const { project_id, id, iid, environment_id, status, created_at } = event.data;
      const environment = environmentOf(state, environment_id);
      if (!environment) return;
      const links = status === 'success' ? { previous_shas: [previousSuccessSha(state, environment, id)] } : null;
      tableSet(state.deployments.deployments, id, { ...event.data, updated_at: created_at, finished_at: isFinished(status) ? created_at : null, links });
      const project = projectOf(state, project_id);
      tableSet(project.deployments, iid, id);
      project.deployment_count += 1;
      if (iid > project.iid) project.iid = iid;
      tableSet(environment.deployments, environment.deployment_count, id);
      environment.deployment_count += 1;
      if (status === 'success') environment.last_success_id = id;
      if (id > state.deployments.sequences.deployment) state.deployments.sequences.deployment = id;
      return;
    }
    case 'DeploymentStatusChanged': {
      const deployment = tableGet(state.deployments.deployments, event.data.id);
      if (!deployment) return;
      const environment = environmentOf(state, deployment.environment_id);
      if (environment && event.data.to === 'success') link(state, environment, deployment);
      deployment.status = event.data.to;
      deployment.updated_at = event.data.at;
      if (isFinished(event.data.to)) deployment.finished_at = event.data.at;
      if (!environment) return;
      if (event.data.to === 'success') {
        if (environment.last_success_id === null || environment.last_success_id < deployment.id) environment.last_success_id = deployment.id;
      } else if (environment.last_success_id === deployment.id) {
        recomputeLastSuccess(state, environment);
      }
      return;
    }
  }
};

/** A deleted project's environments and deployments go with it. */
const onProjectDeleted = (state: DeploymentsDraft, event: Extract<ProjectEvent, { type: 'ProjectDeleted' }>): void => {
  const project = tableGet(state.deployments.byProject, event.data.id);
  if (!project) return;
  for (const id of [...tableValues(project.deployments)]) tableDelete(state.deployments.deployments, id);
  for (const id of [...tableValues(project.environments)]) {
    tableDelete(state.deployments.environments, id);
    tableDelete(state.deployments.scheduledDeletions, id);
  }
  tableDelete(state.deployments.byProject, event.data.id);
};

export type DeploymentsFollowed = Extract<ProjectEvent, { type: 'ProjectDeleted' }>;

export const follows = { ProjectDeleted: onProjectDeleted };

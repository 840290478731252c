/** `Entities::Environment` (EnvironmentBasic, `project`, `last_deployment` on get, `state`). */
import { findProject, lastDeployment, type Environment } from '@forgefold/core';
import type { PresentContext } from '../context.js';
import { deploymentEntity, environmentBasicEntity } from '../deployments/entities.js';
import { basicProjectDetails } from '../clusters/entities.js';

/**
 * The list, create, update and stop answers carry the project; the get answers drop it and carry `last_deployment`
 * (without its environment), as `present … except: [:project, { last_deployment: [:environment] }]` does.
 */
export const environmentEntity = (environment: Environment, ctx: PresentContext, options: { readonly lastDeployment?: boolean } = {}) => {
  if (options.lastDeployment) {
    const last = lastDeployment(ctx.state.deployments, environment);
    return {
      ...environmentBasicEntity(environment),
      last_deployment: last ? deploymentEntity(last, environment, ctx, { withEnvironment: false }) : null,
      state: environment.state,
    };
  }
  const project = findProject(ctx.state.projects, environment.project_id);
  return { ...environmentBasicEntity(environment), project: project ? basicProjectDetails(project, ctx) : null, state: environment.state };
};

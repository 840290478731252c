/** `Entities::Deployment` and `Entities::EnvironmentBasic` (lib/api/entities, 14.7; reference §3.2). */
import { findUser, type Deployment, type Environment } from '@forgefold/core';
import type { PresentContext } from '../context.js';
import { userBasic } from '../users/entities.js';

/** `EnvironmentBasic`: the spec omits `slug`; the platform has it (reference §7.12). */
export const environmentBasicEntity = (environment: Environment) => ({
  id: environment.id,
  name: environment.name,
  slug: environment.slug,
  external_url: environment.external_url,
});

/** `Deployment`; `deployable` is null for deployments created through the API (the only ones here). */
export const deploymentEntity = (deployment: Deployment, environment: Environment | undefined, ctx: PresentContext, options: { readonly withEnvironment?: boolean } = {}) => {
  const user = deployment.user_id === null ? undefined : findUser(ctx.state.users, deployment.user_id);
  return {
    id: deployment.id,
    iid: deployment.iid,
    ref: deployment.ref,
    sha: deployment.sha,
    created_at: deployment.created_at,
    updated_at: deployment.updated_at,
    user: user ? userBasic(user, ctx) : null,
    ...(options.withEnvironment === false ? {} : { environment: environment ? environmentBasicEntity(environment) : null }),
    deployable: null,
    status: deployment.status,
  };
};

/** `Entities::Cluster`, `ClusterProject`, `ProjectIdentity` and `BasicProjectDetails` (reference §4.2). */
import { findProject, findUser, type Cluster, type Project } from '@forgefold/core';
import type { PresentContext } from '../context.js';
import { projectEntity } from '../projects/entities.js';
import { userBasic } from '../users/entities.js';

export const projectIdentity = (project: Project) => ({
  id: project.id,
  description: project.description,
  name: project.name,
  name_with_namespace: project.name_with_namespace,
  path: project.path,
  path_with_namespace: project.path_with_namespace,
  created_at: project.created_at,
});

/** `BasicProjectDetails`: the project entity's identity, URLs, counters and namespace. */
export const basicProjectDetails = (project: Project, ctx: PresentContext) => {
  const full = projectEntity(project, ctx);
  return {
    ...projectIdentity(project),
    default_branch: full.default_branch,
    tag_list: full.tag_list,
    topics: full.topics,
    ssh_url_to_repo: full.ssh_url_to_repo,
    http_url_to_repo: full.http_url_to_repo,
    web_url: full.web_url,
    readme_url: full.readme_url,
    avatar_url: full.avatar_url,
    forks_count: full.forks_count,
    star_count: full.star_count,
    last_activity_at: full.last_activity_at,
    namespace: (({ id, name, path, kind, full_path, parent_id, avatar_url, web_url }) => ({ id, name, path, kind, full_path, parent_id, avatar_url, web_url }))(full.namespace),
  };
};

/**
 * `Entities::Cluster`. The token is never exposed (the platform's rule); the CA certificate is not either (the
 * issue's decision: it is kept encrypted like the token), so `ca_cert` is always null.
 */
export const clusterEntity = (cluster: Cluster, ctx: PresentContext) => {
  const user = cluster.user_id === null ? undefined : findUser(ctx.state.users, cluster.user_id);
  const management = cluster.management_project_id === null ? undefined : findProject(ctx.state.projects, cluster.management_project_id);
  return {
    id: cluster.id,
    name: cluster.name,
    created_at: cluster.created_at,
    domain: cluster.domain,
    enabled: cluster.enabled,
    managed: cluster.managed,
    provider_type: 'user',
    platform_type: 'kubernetes',
    environment_scope: cluster.environment_scope,
    cluster_type: 'project_type',
    namespace_per_environment: cluster.namespace_per_environment,
    user: user ? userBasic(user, ctx) : null,
    platform_kubernetes: {
      api_url: cluster.platform_kubernetes.api_url,
      namespace: cluster.platform_kubernetes.namespace,
      authorization_type: cluster.platform_kubernetes.authorization_type,
      ca_cert: null,
    },
    provider_gcp: null,
    management_project: management ? projectIdentity(management) : null,
  };
};

/** `ClusterProject`: the cluster with its project (get, add, edit). */
export const clusterProjectEntity = (cluster: Cluster, ctx: PresentContext) => {
  const project = findProject(ctx.state.projects, cluster.project_id);
  return { ...clusterEntity(cluster, ctx), project: project ? basicProjectDetails(project, ctx) : null };
};

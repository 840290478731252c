/**
 * Certificate-based project clusters (lib/api/project_clusters.rb, 14.7; reference §4): list, get, add, edit,
 * delete, Maintainers and above only. The token and the CA certificate are sealed here, in the adapter, before the
 * command is built: the core, the log and the events hold ciphertext only, and no answer carries either.
 */
import { X509Certificate } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import { canOnProject, clustersOf, findCluster, forbidden, isRubyBlank, notFound, type CaCertInput, type Cluster, type DomainError, type Project, type SecretInput, type State } from '@forgefold/core';
import { checkUnmodifiedSince, created, noContent, ok, route, type AnyRouteDef, type HandlerContext } from '../../http/index.js';
import { commandRoute, listRoute, projectOfRoute } from '../../app/routes.js';
import { presentContext, viewerId, type ApiDeps } from '../../app/deps.js';
import type { SecretBox } from '../../app/secrets.js';
import { clusterEntity, clusterProjectEntity } from './entities.js';
import { addParams, clusterIdParams, editParams, listParams } from './params.js';

const RECORD_NOT_FOUND = '404 Not found';

type ClusterAbility = 'read_cluster' | 'add_cluster' | 'update_cluster' | 'admin_cluster';

const may = (ability: ClusterAbility) => (ctx: HandlerContext<unknown>, state: State, project: Project): DomainError | null =>
  canOnProject(state, viewerId(ctx), ability, project) ? null : forbidden();

/** `CertificateValidator`: a PEM (or DER) X.509 certificate. */
const isCertificate = (value: string): boolean => {
  try {
    new X509Certificate(value);
    return true;
  } catch {
    return false;
  }
};

const seal = (secrets: SecretBox, value: string): SecretInput => ({ ciphertext: secrets.encrypt(value), blank: isRubyBlank(value) });

/** A blank certificate is no certificate (`allow_blank: true`). */
const sealCertificate = (secrets: SecretBox, value: string | null | undefined): CaCertInput | null =>
  value === undefined || value === null || isRubyBlank(value) ? null : { ciphertext: secrets.encrypt(value), blank: false, valid_pem: isCertificate(value) };

const clusterOfRoute =
  (ability: ClusterAbility) =>
  (ctx: HandlerContext<{ cluster_id: number }>, state: State): E.Either<DomainError, { project: Project; cluster: Cluster }> => {
    const project = projectOfRoute(ctx, state);
    if (E.isLeft(project)) return project;
    // `authorize! :<ability>, cluster`: the cluster is found first (`clusters_for_current_user.find`, 404), then checked (403).
    const cluster = findCluster(state.clusters, project.right.id, ctx.params.cluster_id);
    if (!cluster) return E.left(notFound(undefined, RECORD_NOT_FOUND));
    const refused = may(ability)(ctx, state, project.right);
    return refused ? E.left(refused) : E.right({ project: project.right, cluster });
  };

export const clusterRoutes = (deps: ApiDeps): AnyRouteDef[] => {
  const presentProjectCluster = (ctx: HandlerContext<unknown>, state: State, projectId: number, id: number) => {
    const cluster = findCluster(state.clusters, projectId, id);
    return cluster ? clusterProjectEntity(cluster, presentContext(deps, ctx, state)) : null;
  };
  return [
    listRoute(deps, {
      path: '/projects/:id/clusters',
      params: listParams,
      find: projectOfRoute,
      authorize: may('read_cluster'),
      rows: (_ctx, state, project) => clustersOf(state.clusters, project.id),
      present: (cluster, view) => clusterEntity(cluster, view),
    }),
    route({
      method: 'GET',
      path: '/projects/:id/clusters/:cluster_id',
      params: clusterIdParams,
      handler: (ctx) => {
        const state = deps.app.state;
        const found = clusterOfRoute('read_cluster')(ctx, state);
        if (E.isLeft(found)) return found.left;
        return ok(clusterProjectEntity(found.right.cluster, presentContext(deps, ctx, state)));
      },
    }),
    commandRoute(deps, {
      method: 'POST',
      path: '/projects/:id/clusters/user',
      params: addParams,
      find: projectOfRoute,
      command: (ctx, project) => {
        const { params } = ctx;
        const platform = params.platform_kubernetes_attributes!;
        return {
          type: 'AddCluster',
          project_id: project.id,
          name: params.name ?? '',
          enabled: params.enabled,
          managed: params.managed,
          environment_scope: params.environment_scope ?? '',
          namespace_per_environment: params.namespace_per_environment,
          ...(params.domain !== undefined ? { domain: params.domain || null } : {}),
          ...(params.management_project_id !== undefined ? { management_project_id: params.management_project_id } : {}),
          platform_kubernetes: {
            api_url: platform.api_url ?? '',
            token: seal(deps.secrets, platform.token ?? ''),
            ca_cert: sealCertificate(deps.secrets, platform.ca_cert),
            namespace: platform.namespace ?? null,
            authorization_type: platform.authorization_type,
          },
        };
      },
      present: (done, ctx, project) => {
        const event = done.events.find((candidate) => candidate.type === 'ClusterAdded')!;
        return created(presentProjectCluster(ctx, done.state, project.id, (event.data as { id: number }).id));
      },
    }),
    commandRoute(deps, {
      method: 'PUT',
      path: '/projects/:id/clusters/:cluster_id',
      params: editParams,
      find: projectOfRoute,
      command: (ctx, project) => {
        const { params } = ctx;
        const platform = params.platform_kubernetes_attributes;
        const defined = <K extends string, V>(key: K, value: V | null | undefined) => (value === undefined || value === null ? {} : ({ [key]: value } as Record<K, V>));
        return {
          type: 'UpdateCluster',
          project_id: project.id,
          cluster_id: params.cluster_id,
          ...defined('name', params.name),
          ...(params.domain !== undefined ? { domain: params.domain || null } : {}),
          ...defined('environment_scope', params.environment_scope),
          ...defined('namespace_per_environment', params.namespace_per_environment),
          ...(params.management_project_id !== undefined ? { management_project_id: params.management_project_id } : {}),
          ...defined('enabled', params.enabled),
          ...defined('managed', params.managed),
          ...(platform
            ? {
                platform_kubernetes: {
                  ...defined('api_url', platform.api_url),
                  // `Clusters::UpdateService`: a blank token is dropped from the parameters, so the cluster keeps its own.
                  ...(platform.token !== undefined && platform.token !== null && !isRubyBlank(platform.token) ? { token: seal(deps.secrets, platform.token) } : {}),
                  ...(platform.ca_cert !== undefined ? { ca_cert: sealCertificate(deps.secrets, platform.ca_cert) } : {}),
                  ...(platform.namespace !== undefined ? { namespace: platform.namespace } : {}),
                },
              }
            : {}),
        };
      },
      present: (done, ctx, project) => ok(presentProjectCluster(ctx, done.state, project.id, ctx.params.cluster_id)),
    }),
    commandRoute(deps, {
      method: 'DELETE',
      path: '/projects/:id/clusters/:cluster_id',
      params: clusterIdParams,
      find: clusterOfRoute('admin_cluster'),
      command: (ctx, { project, cluster }) => {
        checkUnmodifiedSince(ctx.request.headers, cluster.updated_at);
        return { type: 'RemoveCluster', project_id: project.id, cluster_id: cluster.id };
      },
      present: () => noContent(),
    }),
  ];
};

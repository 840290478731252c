/**
 * Decisions about certificate-based project clusters (`Clusters::CreateService`, `UpdateService`, the `Cluster` and
 * `Platforms::Kubernetes` validations; reference §4). Errors of the nested platform use dotted keys
 * (`platform_kubernetes.namespace`).
 */
import * as E from 'fp-ts/lib/Either.js';
import { notFound, validation, type DomainError } from '../../kernel/domain-error.js';
import { decideByType, type Issued } from '../../kernel/decider.js';
import { authorizeProject, canOnProject } from '../access/abilities.js';
import type { Project } from '../projects/projection.js';
import { findProject } from '../projects/queries.js';
import type { SettingsSlice } from '../settings/projection.js';
import { settingBoolean, settingList } from '../settings/queries.js';
import { checkAddressableUrl, localRequestReason } from '../shared/url-blocker.js';
import { Errors, isRubyBlank, MAX_NAME, rubyStrip } from '../shared/validation.js';
import type { ClusterCommand, PlatformKubernetesInput } from './commands.js';
import type { ClusterEvent } from './events.js';
import type { Cluster, ClustersView } from './projection.js';
import { allClusters, clustersOf, findCluster } from './queries.js';

type State = ClustersView;
type Command<T extends ClusterCommand['type']> = Extract<ClusterCommand, { type: T }>;
type Decided = E.Either<DomainError, readonly ClusterEvent[]>;

const CLUSTER_MESSAGES = {
  name_blank: ' has to be present',
  duplicated_scope: 'cannot add duplicated environment scope',
  scope_format: "can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', '*' and spaces",
  blank: "can't be blank",
  domain: 'contains invalid characters (valid characters: [a-z0-9\\-])',
  management_project: "Project does not exist or you don't have permission to perform this action",
  namespace_format: "can contain only lowercase letters, digits, and '-'. Must start with a letter, and cannot end with '-'",
  namespace_long: 'is too long (maximum is 63 characters)',
  reserved: 'is reserved',
  pem: 'must be a valid PEM certificate',
} as const;

const SCOPE = /^[a-zA-Z0-9_/${}. *-]+$/;
const NAMESPACE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DOMAIN_LABEL = /^[a-z0-9-]+$/i;
const RESERVED_NAMESPACES = ['gitlab-managed-apps'];

/**
 * `public_url` on `api_url`: `addressable_url`'s answers (UrlBlocker's reasons; "must be a valid URL" when blank),
 * then localhost and the local network, unless `ApplicationSetting.current` (the settings as stored) allows local
 * requests from web hooks and services (off by default), which lets both through, or its allowlist holds the host.
 */
const apiUrlError = (value: string, settings: SettingsSlice): string | null => {
  const checked = checkAddressableUrl(value);
  if (checked.error !== null) return checked.error;
  const allowLocal = settingBoolean(settings, 'allow_local_requests_from_web_hooks_and_services');
  const reason = localRequestReason(checked.url, { localhost: allowLocal, localNetwork: allowLocal, allowlist: settingList(settings, 'outbound_local_requests_whitelist') });
  return reason === null ? null : `is blocked: ${reason}`;
};

/** The validations of `Platforms::Kubernetes`, on the fields given. */
const checkPlatform = (errors: Errors, platform: Partial<PlatformKubernetesInput>, settings: SettingsSlice): void => {
  if (platform.api_url !== undefined) {
    // `validates :api_url, public_url: true, presence: true`: a blank one gets both, in that order.
    const problem = apiUrlError(platform.api_url, settings);
    if (problem) errors.add('platform_kubernetes.api_url', problem);
    if (isRubyBlank(platform.api_url)) errors.add('platform_kubernetes.api_url', CLUSTER_MESSAGES.blank);
  }
  if (platform.token?.blank) errors.add('platform_kubernetes.token', CLUSTER_MESSAGES.blank);
  if (platform.ca_cert && !platform.ca_cert.valid_pem) errors.add('platform_kubernetes.ca_cert', CLUSTER_MESSAGES.pem);
  const namespace = platform.namespace;
  if (namespace !== undefined && namespace !== null && namespace !== '') {
    if (namespace.length > 63) errors.add('platform_kubernetes.namespace', CLUSTER_MESSAGES.namespace_long);
    if (!NAMESPACE.test(namespace)) errors.add('platform_kubernetes.namespace', CLUSTER_MESSAGES.namespace_format);
    if (RESERVED_NAMESPACES.includes(namespace)) errors.add('platform_kubernetes.namespace', CLUSTER_MESSAGES.reserved);
  }
};

interface Candidate {
  readonly name: string;
  readonly domain: string | null;
  readonly environment_scope: string;
  readonly management_project_id: number | null;
}

/** The `Cluster` validations over the cluster as it would be (`self`: the cluster being edited). */
const checkCluster = (state: State, errors: Errors, project: Project, candidate: Candidate, self: Cluster | null, given: ReadonlySet<string>): void => {
  if (given.has('name')) {
    if (isRubyBlank(candidate.name)) errors.add('name', CLUSTER_MESSAGES.name_blank);
    errors.maxLength('name', candidate.name, MAX_NAME);
  }
  if (given.has('domain') && candidate.domain) {
    if (!candidate.domain.split('.').every((label) => DOMAIN_LABEL.test(label))) errors.add('domain', CLUSTER_MESSAGES.domain);
  }
  const scope = candidate.environment_scope;
  if (scope === '') errors.add('environment_scope', CLUSTER_MESSAGES.blank);
  else if (!SCOPE.test(scope)) errors.add('environment_scope', CLUSTER_MESSAGES.scope_format);
  const duplicate = clustersOf(state.clusters, project.id).some((other) => other.id !== self?.id && other.environment_scope === scope);
  // A management project serves one cluster per environment scope, across projects.
  const managed =
    candidate.management_project_id !== null &&
    [...allClusters(state.clusters)].some((other) => other.id !== self?.id && other.management_project_id === candidate.management_project_id && other.environment_scope === scope);
  if (duplicate || managed) errors.add('environment_scope', CLUSTER_MESSAGES.duplicated_scope);
};

/**
 * `ValidateManagementProjectPermissionsService`: a project of the cluster's namespace on which the caller may
 * `admin_pipeline`. Its refusal is the only error reported (the service stops before the model validates).
 */
const managementProjectError = (state: State, actorId: number | null, project: Project, managementProjectId: number | null | undefined): DomainError | null => {
  if (managementProjectId === undefined || managementProjectId === null) return null;
  const management = findProject(state.projects, managementProjectId);
  const allowed = management !== undefined && management.namespace_id === project.namespace_id && (actorId === null || canOnProject(state, actorId, 'admin_pipeline', management));
  return allowed ? null : validation({ management_project_id: [CLUSTER_MESSAGES.management_project] });
};

const locate = (state: State, issued: Issued<{ readonly project_id: number }>, ability: 'add_cluster'): E.Either<DomainError, Project> => {
  const project = findProject(state.projects, issued.command.project_id);
  if (!project) return E.left(notFound('Project'));
  return authorizeProject(state, issued.actor.userId, ability, project, project);
};

/** `clusters_for_current_user.find(id)` (404), then `authorize! <ability>, cluster` (403), as the routes do. */
const locateCluster = (
  state: State,
  issued: Issued<{ readonly project_id: number; readonly cluster_id: number }>,
  ability: 'update_cluster' | 'admin_cluster',
): E.Either<DomainError, { readonly project: Project; readonly cluster: Cluster }> => {
  const project = findProject(state.projects, issued.command.project_id);
  if (!project) return E.left(notFound('Project'));
  const cluster = findCluster(state.clusters, project.id, issued.command.cluster_id);
  if (!cluster) return E.left(notFound(undefined, '404 Not found'));
  return authorizeProject(state, issued.actor.userId, ability, project, { project, cluster });
};

const decideAddCluster = (issued: Issued<Command<'AddCluster'>>, state: State): Decided => {
  const located = locate(state, issued, 'add_cluster');
  if (E.isLeft(located)) return located;
  const project = located.right;
  const { command, actor, at } = issued;
  const refused = managementProjectError(state, actor.userId, project, command.management_project_id);
  if (refused) return E.left(refused);
  const candidate: Candidate = {
    name: command.name,
    domain: command.domain ?? null,
    environment_scope: command.environment_scope ?? '*',
    management_project_id: command.management_project_id ?? null,
  };
  const errors = new Errors();
  checkPlatform(errors, command.platform_kubernetes, state.settings);
  checkCluster(state, errors, project, candidate, null, new Set(['name', 'domain']));
  const checked = errors.toEither(null);
  if (E.isLeft(checked)) return checked;
  const platform = command.platform_kubernetes;
  return E.right([
    {
      type: 'ClusterAdded',
      data: {
        project_id: project.id,
        id: state.clusters.sequence + 1,
        ...candidate,
        enabled: command.enabled ?? true,
        managed: command.managed ?? true,
        namespace_per_environment: command.namespace_per_environment ?? true,
        user_id: actor.userId,
        platform_kubernetes: {
          api_url: rubyStrip(platform.api_url),
          token_encrypted: platform.token.ciphertext,
          ca_cert_encrypted: platform.ca_cert?.ciphertext ?? null,
          namespace: platform.namespace || null,
          authorization_type: platform.authorization_type ?? 'rbac',
        },
        created_at: at,
      },
    },
  ]);
};

const CLUSTER_FIELDS = ['name', 'domain', 'enabled', 'managed', 'environment_scope', 'namespace_per_environment', 'management_project_id'] as const;

const decideUpdateCluster = (issued: Issued<Command<'UpdateCluster'>>, state: State): Decided => {
  const located = locateCluster(state, issued, 'update_cluster');
  if (E.isLeft(located)) return located;
  const { project, cluster } = located.right;
  const { command, actor, at } = issued;
  if (command.management_project_id !== cluster.management_project_id) {
    const refused = managementProjectError(state, actor.userId, project, command.management_project_id);
    if (refused) return E.left(refused);
  }
  const changes: Record<string, unknown> = {};
  const changed: string[] = [];
  for (const field of CLUSTER_FIELDS) {
    const value = field === 'domain' && command.domain === '' ? null : command[field];
    if (value !== undefined && value !== cluster[field]) {
      changes[field] = value;
      changed.push(field);
    }
  }
  const given = command.platform_kubernetes ?? {};
  const platform: Record<string, unknown> = {};
  // `addressable_url` strips what it validates (`strip_value!`).
  if (given.api_url !== undefined && rubyStrip(given.api_url) !== cluster.platform_kubernetes.api_url) platform['api_url'] = rubyStrip(given.api_url);
  // A secret given counts as a change: ciphertexts never compare equal, and the plaintext is not here to compare.
  if (given.token !== undefined) platform['token_encrypted'] = given.token.ciphertext;
  if (given.ca_cert !== undefined) platform['ca_cert_encrypted'] = given.ca_cert?.ciphertext ?? null;
  if (given.namespace !== undefined && (given.namespace || null) !== cluster.platform_kubernetes.namespace) platform['namespace'] = given.namespace || null;
  const candidate: Candidate = {
    name: command.name ?? cluster.name,
    domain: command.domain === undefined ? cluster.domain : command.domain || null,
    environment_scope: command.environment_scope ?? cluster.environment_scope,
    management_project_id: command.management_project_id === undefined ? cluster.management_project_id : command.management_project_id,
  };
  const errors = new Errors();
  checkPlatform(errors, given, state.settings);
  checkCluster(state, errors, project, candidate, cluster, new Set(changed));
  const checked = errors.toEither(null);
  if (E.isLeft(checked)) return checked;
  const platformChanged = Object.keys(platform).map((key) => `platform_kubernetes.${key.replace(/_encrypted$/, '')}`);
  if (changed.length + platformChanged.length === 0) return E.right([]);
  return E.right([
    {
      type: 'ClusterUpdated',
      data: {
        project_id: project.id,
        id: cluster.id,
        changed: [...changed, ...platformChanged],
        ...changes,
        ...(platformChanged.length > 0 ? { platform_kubernetes: platform } : {}),
        updated_at: at,
      },
    },
  ]);
};

const decideRemoveCluster = (issued: Issued<Command<'RemoveCluster'>>, state: State): Decided => {
  const located = locateCluster(state, issued, 'admin_cluster');
  if (E.isLeft(located)) return located;
  const { cluster } = located.right;
  return E.right([{ type: 'ClusterRemoved', data: { project_id: cluster.project_id, id: cluster.id } }]);
};

export const decide = decideByType<ClusterCommand, State, Decided>({
  AddCluster: decideAddCluster,
  UpdateCluster: decideUpdateCluster,
  RemoveCluster: decideRemoveCluster,
});

/**
 * The GeoNode and GeoNodeStatus entities (ee/lib/ee/api/entities/geo_node.rb, GeoNodeStatusEntity; reference §3.4)
 * and the project registry entity of `current/failures`.
 */
import { findGroup, findUserByNamespace, internalUrlOf, type GeoNode, type GeoNodeStatus, type State } from '@forgefold/core';
import type { GeoSyncFailure } from '../../app/geo.js';
import { groupNamespaceEntity, userNamespaceEntity } from '../projects/entities.js';

export const geoNodeEntity = (node: GeoNode, baseUrl: string, currentName: string) => ({
  id: node.id,
  name: node.name,
  url: node.url,
  internal_url: internalUrlOf(node),
  primary: node.primary,
  enabled: node.enabled,
  files_max_capacity: node.files_max_capacity,
  repos_max_capacity: node.repos_max_capacity,
  verification_max_capacity: node.verification_max_capacity,
  container_repositories_max_capacity: node.container_repositories_max_capacity,
  selective_sync_type: node.selective_sync_type,
  selective_sync_shards: node.selective_sync_shards,
  selective_sync_namespace_ids: node.selective_sync_namespace_ids,
  minimum_reverification_interval: node.minimum_reverification_interval,
  ...(node.primary ? {} : { sync_object_storage: node.sync_object_storage }),
  clone_protocol: 'http',
  web_edit_url: `${baseUrl}/admin/geo/nodes/${node.id}/edit`,
  ...(node.primary ? {} : { web_geo_projects_url: `${node.url}admin/geo/replication/projects` }),
  _links: {
    self: `${baseUrl}/api/v4/geo_nodes/${node.id}`,
    status: `${baseUrl}/api/v4/geo_nodes/${node.id}/status`,
    repair: `${baseUrl}/api/v4/geo_nodes/${node.id}/repair`,
  },
  current: node.name === currentName,
});

/** A status older than this is outdated, hence unhealthy (`GeoNodeStatus#outdated?`). */
const OUTDATED_MS = 10 * 60 * 1000;

/** `number_to_percentage(x, precision: 2)`, "0.00%" without a denominator. */
const percentage = (part: number | null, whole: number | null): string => (whole ? `${((100 * (part ?? 0)) / whole).toFixed(2)}%` : '0.00%');

/** `<attr>.to_i` of a timestamp: epoch seconds, 0 when unset. */
const epoch = (at: string | null): number => (at === null ? 0 : Math.floor(Date.parse(at) / 1000));

/** Replicable types Forgefold does not hold: their counters are null, their percentages 0. */
const REPLICABLES = ['lfs_objects', 'merge_request_diffs', 'package_files', 'pages_deployments', 'terraform_state_versions', 'snippet_repositories', 'group_wiki_repositories', 'pipeline_artifacts', 'uploads'];

const notReplicated = (): Record<string, unknown> => {
  const fields: Record<string, unknown> = {};
  for (const type of REPLICABLES) {
    for (const suffix of ['count', 'checksum_total_count', 'checksummed_count', 'checksum_failed_count', 'synced_count', 'failed_count', 'registry_count', 'verification_total_count', 'verified_count', 'verification_failed_count']) {
      fields[`${type}_${suffix}`] = null;
    }
    fields[`${type}_synced_in_percentage`] = '0.00%';
    fields[`${type}_verified_in_percentage`] = '0.00%';
  }
  for (const type of ['job_artifacts', 'container_repositories', 'design_repositories']) {
    fields[`${type}_count`] = null;
    fields[`${type}_synced_count`] = null;
    fields[`${type}_failed_count`] = null;
    if (type === 'job_artifacts') fields['job_artifacts_synced_missing_on_primary_count'] = null;
    fields[`${type}_synced_in_percentage`] = '0.00%';
  }
  return fields;
};

export const geoNodeStatusEntity = (status: GeoNodeStatus, node: GeoNode | undefined, state: State, baseUrl: string, now: string) => {
  const outdated = Date.parse(now) - Date.parse(status.updated_at) > OUTDATED_MS;
  const message = status.status_message;
  const healthy = !outdated && (message === null || message === '' || message === 'Healthy');
  const health = healthy ? 'Healthy' : outdated && (message === null || message === '' || message === 'Healthy') ? 'Status check timed out' : message;
  const repositories = status.repositories_count;
  const id = status.geo_node_id;
  return {
    geo_node_id: id,
    healthy,
    health,
    health_status: healthy ? 'Healthy' : 'Unhealthy',
    // Forgefold's secondaries authenticate by the shared secret, never by an OAuth application.
    missing_oauth_application: false,
    db_replication_lag_seconds: status.db_replication_lag_seconds,
    ...notReplicated(),
    projects_count: status.projects_count,
    repositories_count: repositories,
    repositories_failed_count: status.repositories_failed_count,
    repositories_synced_count: status.repositories_synced_count,
    repositories_synced_in_percentage: percentage(status.repositories_synced_count, repositories),
    repositories_checked_count: null,
    repositories_checked_failed_count: null,
    repositories_checked_in_percentage: '0.00%',
    repositories_checksummed_count: null,
    repositories_checksum_failed_count: null,
    repositories_checksummed_in_percentage: '0.00%',
    repositories_verified_count: null,
    repositories_verification_failed_count: null,
    repositories_verified_in_percentage: '0.00%',
    repositories_checksum_mismatch_count: null,
    repositories_retrying_verification_count: null,
    wikis_count: null,
    wikis_failed_count: null,
    wikis_synced_count: null,
    wikis_synced_in_percentage: '0.00%',
    wikis_checksummed_count: null,
    wikis_checksum_failed_count: null,
    wikis_checksummed_in_percentage: '0.00%',
    wikis_verified_count: null,
    wikis_verification_failed_count: null,
    wikis_verified_in_percentage: '0.00%',
    wikis_checksum_mismatch_count: null,
    wikis_retrying_verification_count: null,
    replication_slots_count: null,
    replication_slots_used_count: null,
    replication_slots_used_in_percentage: '0.00%',
    replication_slots_max_retained_wal_bytes: null,
    repository_verification_enabled: false,
    last_event_id: status.last_event_id,
    last_event_timestamp: epoch(status.last_event_timestamp),
    cursor_last_event_id: status.cursor_last_event_id,
    cursor_last_event_timestamp: epoch(status.cursor_last_event_timestamp),
    last_successful_status_check_timestamp: epoch(status.last_successful_status_check_at),
    version: status.version,
    revision: status.revision,
    selective_sync_type: node?.selective_sync_type ?? null,
    namespaces: (node?.selective_sync_namespace_ids ?? []).flatMap((namespaceId) => {
      const group = findGroup(state.groups, namespaceId);
      if (group) return [groupNamespaceEntity(namespaceId, group, baseUrl)];
      // A personal namespace, shown as a project's namespace shows it.
      const owner = findUserByNamespace(state.users, namespaceId);
      return owner ? [userNamespaceEntity(namespaceId, owner, baseUrl)] : [];
    }),
    updated_at: status.updated_at,
    storage_shards_match: true,
    _links: { self: `${baseUrl}/api/v4/geo_nodes/${id}/status`, node: `${baseUrl}/api/v4/geo_nodes/${id}` },
  };
};

/** `GeoProjectRegistryEntity`: Forgefold syncs repositories only (no wikis, no verification). */
export const syncFailureEntity = (failure: GeoSyncFailure) => ({
  project_id: failure.project_id,
  last_repository_synced_at: failure.last_repository_synced_at,
  last_repository_successful_sync_at: failure.last_repository_successful_sync_at,
  last_wiki_synced_at: null,
  last_wiki_successful_sync_at: null,
  repository_retry_count: failure.repository_retry_count,
  wiki_retry_count: null,
  last_repository_sync_failure: failure.last_repository_sync_failure,
  last_wiki_sync_failure: null,
  last_repository_verification_failure: null,
  last_wiki_verification_failure: null,
  repository_verification_checksum_sha: null,
  wiki_verification_checksum_sha: null,
  repository_checksum_mismatch: false,
  wiki_checksum_mismatch: false,
});

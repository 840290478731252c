/**
 * Geo: the sites of a distributed installation (one primary, secondaries) and the status each secondary last
 * reported (the platform's `geo_nodes` and `geo_node_statuses` tables). Node ids come from the module's own counter.
 */
import { emptyTable, type Table } from '../../kernel/table.js';

export interface GeoNode {
  readonly id: number;
  /** Stripped; ends in '/' when it is the url without its slash (the platform's backward-compatibility path). */
  readonly name: string;
  /** Always ends in '/'. */
  readonly url: string;
  /** Null when unset or equal to `url` (then `url` is shown). */
  readonly internal_url: string | null;
  readonly primary: boolean;
  readonly enabled: boolean;
  readonly files_max_capacity: number;
  readonly repos_max_capacity: number;
  readonly verification_max_capacity: number;
  readonly container_repositories_max_capacity: number;
  readonly sync_object_storage: boolean;
  readonly selective_sync_type: string | null;
  readonly selective_sync_shards: readonly string[];
  readonly selective_sync_namespace_ids: readonly number[];
  readonly minimum_reverification_interval: number;
  readonly created_at: string;
  readonly updated_at: string;
}

/** What a node reports about itself (positions are the primary's global log positions). */
export interface GeoNodeStatusReport {
  /** Null or "Healthy" when healthy, else the reason. */
  readonly status_message: string | null;
  readonly db_replication_lag_seconds: number | null;
  readonly last_event_id: number | null;
  readonly last_event_timestamp: string | null;
  readonly cursor_last_event_id: number | null;
  readonly cursor_last_event_timestamp: string | null;
  readonly projects_count: number | null;
  readonly repositories_count: number | null;
  readonly repositories_synced_count: number | null;
  readonly repositories_failed_count: number | null;
  readonly version: string | null;
  readonly revision: string | null;
}

export interface GeoNodeStatus extends GeoNodeStatusReport {
  readonly geo_node_id: number;
  /** When a report last arrived without error (the platform's `last_successful_status_check_at`). */
  readonly last_successful_status_check_at: string | null;
  readonly updated_at: string;
}

export interface GeoSlice {
  readonly nodes: Table<GeoNode>;
  readonly statuses: Table<GeoNodeStatus>;
  /** The last node id drawn (ids are never reused). */
  readonly lastNodeId: number;
}

export const initialGeo = (): GeoSlice => ({ nodes: emptyTable(), statuses: emptyTable(), lastNodeId: 0 });

/** The platform's column defaults. */
export const GEO_NODE_DEFAULTS = {
  primary: false,
  enabled: true,
  files_max_capacity: 10,
  repos_max_capacity: 25,
  verification_max_capacity: 100,
  container_repositories_max_capacity: 10,
  sync_object_storage: false,
  selective_sync_type: null,
  selective_sync_shards: [],
  selective_sync_namespace_ids: [],
  minimum_reverification_interval: 7,
} as const;

import type { GeoNodeStatusReport } from './projection.js';

/** The attributes an administrator sets (every one optional on update; `primary` only on create). */
export interface GeoNodeAttributes {
  readonly name?: string | null;
  readonly url?: string | null;
  readonly internal_url?: string | null;
  readonly enabled?: boolean | null;
  readonly files_max_capacity?: number | null;
  readonly repos_max_capacity?: number | null;
  readonly verification_max_capacity?: number | null;
  readonly container_repositories_max_capacity?: number | null;
  readonly sync_object_storage?: boolean | null;
  readonly selective_sync_type?: string | null;
  readonly selective_sync_shards?: readonly string[] | null;
  readonly selective_sync_namespace_ids?: readonly number[] | null;
  readonly minimum_reverification_interval?: number | null;
}

export type GeoCommand =
  | {
      readonly type: 'CreateGeoNode';
      readonly attributes: GeoNodeAttributes & { readonly primary?: boolean | null };
      /** The serving node's name (`geo.node_name`): a secondary of that name would lock the administrator out. */
      readonly current_node_name: string;
    }
  | { readonly type: 'UpdateGeoNode'; readonly id: number; readonly attributes: GeoNodeAttributes; readonly current_node_name: string }
  | { readonly type: 'DeleteGeoNode'; readonly id: number }
  /** A node's status report, as the primary receives it (the secondary's `POST /api/v4/geo/status`). */
  | { readonly type: 'RecordGeoNodeStatus'; readonly geo_node_id: number; readonly report: GeoNodeStatusReport };

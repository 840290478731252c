/** The clusters projection: certificate-based project clusters (secrets as ciphertext only). */
import { emptyTable, type Table } from '../../kernel/table.js';
import type { MembershipView } from '../members/projection.js';
import type { SettingsSlice } from '../settings/projection.js';
import type { PlatformKubernetesData } from './events.js';

export interface Cluster {
  readonly id: number;
  readonly project_id: number;
  readonly name: string;
  readonly domain: string | null;
  readonly enabled: boolean;
  readonly managed: boolean;
  readonly environment_scope: string;
  readonly namespace_per_environment: boolean;
  readonly management_project_id: number | null;
  readonly user_id: number | null;
  readonly platform_kubernetes: PlatformKubernetesData;
  readonly created_at: string;
  readonly updated_at: string;
}

export interface ClustersSlice {
  readonly byId: Table<Cluster>;
  /** Project id → its cluster ids, ascending. */
  readonly byProject: Table<readonly number[]>;
  readonly sequence: number;
}

/** The settings are read for `public_url`'s local requests (`allow_local_requests_from_web_hooks_and_services`). */
export type ClustersView = MembershipView & { readonly clusters: ClustersSlice; readonly settings: SettingsSlice };

export const initialClusters = (): ClustersSlice => ({ byId: emptyTable(), byProject: emptyTable(), sequence: 0 });

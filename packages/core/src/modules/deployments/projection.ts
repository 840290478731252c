/**
 * The deployments projection: every project's environments and deployments. Each environment keeps its
 * deployments in creation order in a table keyed by ordinal (deployments are never deleted one by one), so a page
 * of an environment's deployments costs the page, whatever their number; the project keeps its own by iid.
 */
import { emptyTable, type Table } from '../../kernel/table.js';
import type { MembershipView } from '../members/projection.js';
import type { DeploymentStatus } from './status.js';

export type EnvironmentState = 'available' | 'stopped';

export interface Environment {
  readonly id: number;
  readonly project_id: number;
  readonly name: string;
  readonly slug: string;
  readonly external_url: string | null;
  readonly state: EnvironmentState;
  readonly created_at: string;
  readonly updated_at: string;
  /** Ordinal (0, 1, …) → deployment id, in creation order. */
  readonly deployments: Table<number>;
  readonly deployment_count: number;
  /** `last_deployment`: the latest successful deployment, or null. */
  readonly last_success_id: number | null;
  /** When a review apps clean-up scheduled it for deletion (kept when it starts again, as the platform's column is). */
  readonly auto_delete_at: string | null;
}

export interface Deployment {
  readonly id: number;
  readonly iid: number;
  readonly project_id: number;
  readonly environment_id: number;
  readonly ref: string;
  readonly tag: boolean;
  readonly sha: string;
  readonly status: DeploymentStatus;
  readonly user_id: number | null;
  readonly created_at: string;
  readonly updated_at: string;
  /** Set on entering success, failed or canceled. */
  readonly finished_at: string | null;
  /**
   * What `Deployments::LinkMergeRequestsService` linked, set each time it became successful (the worker runs on every
   * transition to success, and `link_merge_requests` only adds rows: `ON CONFLICT DO NOTHING`; the links stay
   * whatever its status becomes): the start of each range it linked, the sha of the environment's previous successful
   * deployment at that moment (`previous_deployment`), null for "none" (all merged into its ref), each once, in the
   * order they were linked. Null while it never succeeded.
   */
  readonly links: { readonly previous_shas: readonly (string | null)[] } | null;
}

export interface ProjectDeployments {
  readonly project_id: number;
  /** The last deployment iid drawn (AtomicInternalId: per project, shared by its environments). */
  readonly iid: number;
  /** Deployment iid → id. */
  readonly deployments: Table<number>;
  readonly deployment_count: number;
  /** Environment name → id. */
  readonly environments: Table<number>;
}

export interface DeploymentsSlice {
  readonly byProject: Table<ProjectDeployments>;
  readonly environments: Table<Environment>;
  readonly deployments: Table<Deployment>;
  readonly sequences: { readonly environment: number; readonly deployment: number };
  /**
   * Environment id → 1: the stopped environments with an `auto_delete_at` (the clean-up process reads these, and
   * their date from the environment). One started again leaves it (its `auto_delete_at` stays) and is back once stopped.
   */
  readonly scheduledDeletions: Table<1>;
}

/** What the module's decisions read: memberships (abilities) and its slice. */
export type DeploymentsView = MembershipView & { readonly deployments: DeploymentsSlice };

export const initialDeployments = (): DeploymentsSlice => ({
  byProject: emptyTable(),
  environments: emptyTable(),
  deployments: emptyTable(),
  sequences: { environment: 0, deployment: 0 },
  scheduledDeletions: emptyTable(),
});

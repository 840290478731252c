/**
 * Deployment and environment commands. Facts from git (whether `sha` and `ref` name commits) enter through the
 * command, as the repositories module's do: the shell reads them from the repository, the decider validates.
 */

/** The statuses `POST`/`PUT …/deployments` accept (reference §3.5/3.6): `created` and `skipped` are not. */
export type RequestedDeploymentStatus = 'running' | 'success' | 'failed' | 'canceled';

export type DeploymentCommand =
  | { readonly type: 'CreateEnvironment'; readonly project_id: number; readonly name: string; readonly external_url?: string | null }
  | { readonly type: 'UpdateEnvironment'; readonly project_id: number; readonly environment_id: number; readonly name?: string; readonly external_url?: string | null }
  | { readonly type: 'StopEnvironment'; readonly project_id: number; readonly environment_id: number }
  | { readonly type: 'DeleteEnvironment'; readonly project_id: number; readonly environment_id: number }
  /**
   * `Environments::ScheduleToDeleteReviewAppsService` without its dry run: the project's stopped review apps created
   * before `before` (null matches none), oldest first, at most `limit` (null: no limit), scheduled for deletion.
   */
  | { readonly type: 'ScheduleReviewAppsDeletion'; readonly project_id: number; readonly before: string | null; readonly limit: number | null }
  /** `Environments::AutoDeleteCronWorker` (the system): deletes the stopped environments whose `auto_delete_at` has passed. */
  | { readonly type: 'DeleteAutoDeletableEnvironments' }
  | {
      readonly type: 'CreateDeployment';
      readonly project_id: number;
      /** The environment's name: found, or created on first use. */
      readonly environment: string;
      readonly sha: string;
      readonly ref: string;
      readonly tag: boolean;
      readonly status: RequestedDeploymentStatus;
      /** Git facts: whether `sha` and `ref` resolve to commits of the project's repository. */
      readonly sha_exists: boolean;
      readonly ref_exists: boolean;
    }
  | { readonly type: 'UpdateDeploymentStatus'; readonly project_id: number; readonly deployment_id: number; readonly status: RequestedDeploymentStatus };

/**
 * The pipelines projection: every project's pipelines as the log recorded them (no job runner: a pipeline stays
 * `created` until it is canceled, and a retry puts it back to `pending`), with the commits annotated tags peel to,
 * so that a schedule's ref resolves to a commit without asking git.
 */
import { emptyTable, type Table } from '../../kernel/table.js';
import type { MembershipView } from '../members/projection.js';
import type { RepositoriesSlice } from '../repositories/projection.js';

export type VariableType = 'env_var' | 'file';

export interface PipelineVariable {
  readonly key: string;
  readonly value: string;
  readonly variable_type: VariableType;
}

/** `Ci::Pipeline.sources` the product creates. */
export type PipelineSource = 'push' | 'web' | 'trigger' | 'schedule' | 'api' | 'external' | 'pipeline' | 'chat' | 'merge_request_event' | 'external_pull_request_event' | 'parent_pipeline' | 'ondemand_dast_scan' | 'ondemand_dast_validation';

/** `Ci::HasStatus::AVAILABLE_STATUSES`. */
export const PIPELINE_STATUSES = ['created', 'waiting_for_resource', 'preparing', 'pending', 'running', 'success', 'failed', 'canceled', 'skipped', 'manual', 'scheduled'] as const;
export type PipelineStatus = (typeof PIPELINE_STATUSES)[number];

export interface Pipeline {
  readonly id: number;
  /** Per project, from 1. */
  readonly iid: number;
  readonly project_id: number;
  readonly sha: string;
  /** `Gitlab::Git::BLANK_SHA` for pipelines not created by a push. */
  readonly before_sha: string;
  readonly ref: string;
  readonly tag: boolean;
  readonly status: PipelineStatus;
  readonly source: PipelineSource;
  /** Who the pipeline runs as (a schedule's owner when the scheduler runs it). */
  readonly user_id: number | null;
  readonly pipeline_schedule_id: number | null;
  readonly variables: readonly PipelineVariable[];
  readonly created_at: string;
  readonly updated_at: string;
  readonly finished_at: string | null;
}

export interface ProjectPipelines {
  /** Pipeline ids of the project (ascending as the table iterates). */
  readonly ids: Table<1>;
  /** The last iid drawn. */
  readonly iid: number;
}

export interface PipelinesSlice {
  readonly byId: Table<Pipeline>;
  readonly byProject: Table<ProjectPipelines>;
  /** Schedule id → its newest pipeline (`last_pipeline`). */
  readonly lastOfSchedule: Table<number>;
  /** `"<project id>/<tag name>"` → the commit an annotated or lightweight tag peels to. */
  readonly tagCommits: Table<string>;
  readonly sequence: number;
}

export type PipelinesView = MembershipView & { readonly repositories: RepositoriesSlice; readonly pipelines: PipelinesSlice };

export const initialPipelines = (): PipelinesSlice => ({ byId: emptyTable(), byProject: emptyTable(), lastOfSchedule: emptyTable(), tagCommits: emptyTable(), sequence: 0 });

/** `Gitlab::Git::BLANK_SHA`. */
export const BLANK_SHA = '0'.repeat(40);

export const tagCommitKey = (projectId: number, name: string): string => `${projectId}/${name}`;

/** Pipeline events other modules emit: a schedule's run (by the scheduler, or `play`) creates a pipeline. */
import { tableGet } from '../../kernel/table.js';
import type { PipelineEvent } from './events.js';
import { BLANK_SHA, type PipelineSource, type PipelineVariable, type PipelinesSlice } from './projection.js';

export interface NewPipeline {
  readonly project_id: number;
  readonly sha: string;
  readonly ref: string;
  readonly tag: boolean;
  readonly source: PipelineSource;
  readonly user_id: number | null;
  readonly pipeline_schedule_id: number | null;
  readonly variables: readonly PipelineVariable[];
}

/**
 * `PipelineCreated` events for pipelines created together in one decision: ids follow the sequence, iids each
 * project's counter, in the order given.
 */
export const createPipelines = (pipelines: PipelinesSlice, requests: readonly NewPipeline[], at: string): Extract<PipelineEvent, { type: 'PipelineCreated' }>[] => {
  const iids = new Map<number, number>();
  return requests.map((request, index) => {
    const iid = (iids.get(request.project_id) ?? tableGet(pipelines.byProject, request.project_id)?.iid ?? 0) + 1;
    iids.set(request.project_id, iid);
    return {
      type: 'PipelineCreated' as const,
      data: { ...request, variables: [...request.variables], id: pipelines.sequence + index + 1, iid, before_sha: BLANK_SHA, status: 'created' as const, created_at: at },
    };
  });
};

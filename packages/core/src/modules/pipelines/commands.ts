/**
 * Pipeline commands. The ref's commit is a fact from git the shell reads (as the repositories module's commands
 * carry object ids): the decider checks the rules against the projection, and replay never needs git.
 */
import type { PipelineVariable } from './projection.js';

/** What git said of the ref: whether it names a branch and/or a tag, and the commit it resolves to. */
export interface RefFact {
  readonly branch: boolean;
  readonly tag: boolean;
  /** The commit the ref resolves to (a branch before a tag), or null when neither exists. */
  readonly sha: string | null;
}

export type PipelineCommand =
  /** `POST /projects/:id/pipeline` (`Ci::CreatePipelineService#execute(:api)`). */
  | { readonly type: 'CreatePipeline'; readonly project_id: number; readonly ref: string; readonly variables: readonly PipelineVariable[]; readonly fact: RefFact }
  | { readonly type: 'CancelPipeline'; readonly project_id: number; readonly pipeline_id: number }
  | { readonly type: 'RetryPipeline'; readonly project_id: number; readonly pipeline_id: number }
  | { readonly type: 'DeletePipeline'; readonly project_id: number; readonly pipeline_id: number };

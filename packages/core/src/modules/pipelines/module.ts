/** The pipelines module: pipelines created through the API and by schedules (no job runner: they stay created or pending). */
import { defineModule } from '../../kernel/module.js';
import type { PipelineCommand } from './commands.js';
import { decide } from './decider.js';
import { evolve, follows, type PipelinesDraft, type PipelinesFollowed } from './evolve.js';
import { pipelineEvents } from './events.js';
import { initialPipelines, type PipelinesSlice, type PipelinesView } from './projection.js';

export const pipelinesModule = defineModule<'pipelines', { readonly pipelines: PipelinesSlice }, PipelinesView, PipelinesDraft, PipelineCommand, typeof pipelineEvents, PipelinesFollowed>({
  name: 'pipelines',
  version: 1,
  initial: () => ({ pipelines: initialPipelines() }),
  events: pipelineEvents,
  commands: ['CreatePipeline', 'CancelPipeline', 'RetryPipeline', 'DeletePipeline'],
  decide,
  evolve,
  follows,
});

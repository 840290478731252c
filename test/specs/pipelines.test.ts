import { describeSpecs } from './spec.js';
import { pipelineSpecs } from './pipelines.js';

describeSpecs('pipelines decider', pipelineSpecs);

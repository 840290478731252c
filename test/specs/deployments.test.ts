import { describeSpecs } from './spec.js';
import { deploymentSpecs } from './deployments.js';

describeSpecs('deployments decider', deploymentSpecs);

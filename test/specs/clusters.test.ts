import { describeSpecs } from './spec.js';
import { clusterSpecs } from './clusters.js';

describeSpecs('clusters decider', clusterSpecs);

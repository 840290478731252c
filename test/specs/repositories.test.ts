import { describeSpecs } from './spec.js';
import { repositorySpecs } from './repositories.js';

describeSpecs('repositories decider', repositorySpecs);

import { describeSpecs } from './spec.js';
import { issueSpecs } from './discussions.js';

describeSpecs('issues decider', issueSpecs);

import { describeSpecs } from './spec.js';
import { discussionSpecs } from './discussions.js';

describeSpecs('discussions decider', discussionSpecs);

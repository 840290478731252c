import { describeSpecs } from './spec.js';
import { memberSpecs } from './members.js';

describeSpecs('members decider', memberSpecs);

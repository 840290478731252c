import { describeSpecs } from './spec.js';
import { groupSpecs } from './groups.js';

describeSpecs('groups decider', groupSpecs);

import { describeSpecs } from './spec.js';
import { userSpecs } from './users.js';

describeSpecs('users decider', userSpecs);

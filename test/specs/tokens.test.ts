import { describeSpecs } from './spec.js';
import { tokenSpecs } from './tokens.js';

describeSpecs('tokens decider', tokenSpecs);

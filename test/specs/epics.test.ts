import { describeSpecs } from './spec.js';
import { epicSpecs } from './discussions.js';

describeSpecs('epics decider', epicSpecs);

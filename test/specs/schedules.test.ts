import { describeSpecs } from './spec.js';
import { scheduleSpecs } from './schedules.js';

describeSpecs('schedules decider', scheduleSpecs);

import { describeSpecs } from './spec.js';
import { releaseSpecs } from './releases.js';

describeSpecs('releases decider', releaseSpecs);

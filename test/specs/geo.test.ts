import { describeSpecs } from './spec.js';
import { geoSpecs } from './geo.js';

describeSpecs('geo decider', geoSpecs);

import { describeSpecs } from './spec.js';
import { scimSpecs } from './scim.js';

describeSpecs('scim decider', scimSpecs);

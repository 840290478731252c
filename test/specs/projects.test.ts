import { describeSpecs } from './spec.js';
import { projectSpecs } from './projects.js';

describeSpecs('projects decider', projectSpecs);

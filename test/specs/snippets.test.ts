import { describeSpecs } from './spec.js';
import { snippetSpecs } from './discussions.js';

describeSpecs('snippets decider', snippetSpecs);

export * from './commands.js';
export * from './events.js';
export * from './projection.js';
export * from './queries.js';
export * from './status.js';
export { environmentSlug } from './slug.js';
export type { DeploymentOutcome } from './decider.js';

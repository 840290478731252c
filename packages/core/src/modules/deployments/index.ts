export * from './commands.js';
export * from './events.js';
export * from './projection.js';
export * from './queries.js';
export * from './status.js';
export { environmentSlug } from './slug.js';
export type { DeploymentOutcome, ReviewAppsOutcome } from './decider.js';

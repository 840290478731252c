export * from './commands.js';
export * from './events.js';
export * from './projection.js';
export * from './queries.js';
export * from './status.js';
export { environmentSlug } from './slug.js';
export { DEPLOYMENT_MESSAGES, ENVIRONMENT_MESSAGES, type DeploymentOutcome } from './decider.js';

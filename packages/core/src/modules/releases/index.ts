export * from './commands.js';
export * from './events.js';
export * from './projection.js';
export * from './queries.js';
export * from './policy.js';
export { milestonesRefusal, releaseSaveRefusal, RELEASE_MESSAGES } from './decider.js';

export * from './commands.js';
export * from './events.js';
export * from './projection.js';
export * from './queries.js';
export * from './filter.js';
export * from './requests.js';
export { provisionFailure, usernameFor, SAVE_FAILED_PREFIX, UPDATE_FAILED_PREFIX } from './decider.js';

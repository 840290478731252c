export * from './commands.js';
export * from './events.js';
export * from './projection.js';
export * from './queries.js';
export * from './filter.js';
export * from './requests.js';
export { usernameFor, DEFAULT_MEMBERSHIP_ROLES } from './decider.js';
export { scimModule } from './module.js';

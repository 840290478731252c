export * from './commands.js';
export * from './events.js';
export * from './projection.js';
export * from './queries.js';
export { usersDecider, avatarErrors } from './decider.js';

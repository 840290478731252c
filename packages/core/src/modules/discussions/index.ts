export * from './commands.js';
export * from './events.js';
export * from './projection.js';
export * from './queries.js';
export * from './participants.js';
export * from './closing.js';

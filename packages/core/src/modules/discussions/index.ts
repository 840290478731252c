export * from './commands.js';
export * from './events.js';
export * from './projection.js';
export * from './queries.js';
export { titleChangeBody } from './system-notes.js';
export { DISCUSSION_MESSAGES, rubyErrors } from './decider.js';

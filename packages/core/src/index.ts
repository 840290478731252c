export * from './kernel/envelope.js';
export * from './kernel/domain-error.js';
export * from './kernel/ports.js';
export * from './kernel/events.js';
export * from './kernel/decider.js';
export * from './kernel/table.js';
export * from './kernel/memory-store.js';
export * from './kernel/application.js';

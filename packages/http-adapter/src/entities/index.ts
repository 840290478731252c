export * from './context.js';
export * from './users.js';
export * from './tokens.js';
export * from './groups.js';
export * from './projects.js';
export * from './members.js';
export * from './scim.js';

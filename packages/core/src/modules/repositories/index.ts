export * from './commands.js';
export * from './events.js';
export * from './projection.js';
export * from './queries.js';
export * from './policy.js';
export { canApproveMergeRequest, canMergeMergeRequest } from './decide-merge-requests.js';
export { PROTECTED_REF_ACCESS_LEVELS } from './decide-protected.js';

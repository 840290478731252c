export * from './commands.js';
export * from './events.js';
export * from './projection.js';
export * from './queries.js';
export * from './policy.js';
export { repositoriesDecider, REPOSITORY_COMMANDS } from './decider.js';
export { repositoryCreated } from './decide-refs.js';
export { MERGE_REQUEST_MESSAGES, canMergeMergeRequest } from './decide-merge-requests.js';
export { PROTECTED_REF_ACCESS_LEVELS } from './decide-protected.js';

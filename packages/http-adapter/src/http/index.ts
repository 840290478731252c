export * from './validation.js';
export * from './errors.js';
export * from './response.js';
export * from './params.js';
export * from './router.js';
export * from './auth.js';
export * from './pagination.js';
export * from './server.js';

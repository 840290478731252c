export * from './http/index.js';
export { scimUserEntity } from './resources/scim/entities.js';
export * from './app/deps.js';
export * from './app/secrets.js';
export * from './app/auth-backend.js';
export * from './app/api.js';
export { apiResources, type ApiResource } from './resources/index.js';
export * from './app/repositories.js';
export * from './app/uploads.js';

export * from './http/index.js';
export * from './entities/index.js';
export * from './app/deps.js';
export * from './app/secrets.js';
export * from './app/auth-backend.js';
export * from './app/api.js';
export * from './app/repositories.js';
export { apiMounts } from './routes/index.js';
export { PLATFORM_VERSION } from './routes/meta.js';

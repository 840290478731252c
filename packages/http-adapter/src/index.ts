export * from './http/index.js';

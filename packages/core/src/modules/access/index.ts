export * from './abilities.js';

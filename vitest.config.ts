import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: files run in parallel across two workers; SQLite-heavy and server tests stay stable.
    maxWorkers: 2,
  },
});

import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const source = (name: string) => fileURLToPath(new URL(`./packages/${name}/src/index.ts`, import.meta.url));

export default defineConfig({
  resolve: {
    // Tests import the TypeScript sources; the packages' exports point node at the compiled dist/.
    alias: {
      // The SQLite writer thread's light imports (write-transaction.ts), listed before the package they are part of.
      '@forgefold/core/ports': fileURLToPath(new URL('./packages/core/src/kernel/ports.ts', import.meta.url)),
      '@forgefold/core/memory-store': fileURLToPath(new URL('./packages/core/src/kernel/memory-store.ts', import.meta.url)),
      '@forgefold/core': source('core'),
      '@forgefold/cron': source('cron'),
      '@forgefold/git': source('git'),
      '@forgefold/sqlite-store': source('sqlite-store'),
      '@forgefold/postgres-store': source('postgres-store'),
      '@forgefold/http-adapter': source('http-adapter'),
      '@forgefold/cli': source('cli'),
    },
  },
  test: {
    include: ['test/**/*.test.ts'],
    // Safety bounds, not timings: on a loaded 2-core machine the widest matrices and fuzz properties take ~60 s.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    // Two cores: files run in parallel across two workers; SQLite-heavy and server tests stay stable.
    maxWorkers: 2,
  },
});

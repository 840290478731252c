/**
 * PostgreSQL in the tests: the suites that need it read FORGEFOLD_TEST_DATABASE_URL (scripts/with-postgres.sh
 * sets it, and `.ci/run` runs the tests through that script) and are skipped only when it is unset. Each fixture
 * works in a schema of its own, dropped afterwards, so that files running in parallel never meet.
 */
import { randomBytes } from 'node:crypto';
import { dropSchema } from '@forgefold/postgres-store';

export const TEST_DATABASE_URL = process.env['FORGEFOLD_TEST_DATABASE_URL'] ?? '';
export const hasPostgres = TEST_DATABASE_URL !== '';
/** Where Debian's PostgreSQL binaries are (for tests that start a cluster of their own). */
export const PG_BIN = process.env['FORGEFOLD_TEST_PG_BIN'] ?? '';

let counter = 0;
/** A schema name of its own for one fixture. */
export const freshSchema = (prefix = 't'): string => `${prefix}_${process.pid}_${++counter}_${randomBytes(3).toString('hex')}`;

/** The test database's URL selecting `schema`. */
export const urlWithSchema = (schema: string, base = TEST_DATABASE_URL): string => {
  const url = new URL(base);
  url.searchParams.set('schema', schema);
  return url.toString();
};

export const dropTestSchema = (schema: string, base = TEST_DATABASE_URL): Promise<void> => dropSchema(base, schema);

/** A store in a fresh schema; `dispose` closes it and drops the schema. */
export const openTestStore = async (options: { readonly schema?: string; readonly pollIntervalMs?: number } = {}) => {
  const { openPostgresStore } = await import('@forgefold/postgres-store');
  const schema = options.schema ?? freshSchema();
  const store = await openPostgresStore({ url: TEST_DATABASE_URL, schema, maxConnections: 4, ...(options.pollIntervalMs ? { pollIntervalMs: options.pollIntervalMs } : {}) });
  return { store, schema, dispose: async () => {
    await store.close();
    await dropTestSchema(schema);
  } };
};

/**
 * `forgefold migrate`: applies the schema migrations this version knows of, then lists what the database holds.
 * Nodes apply them at start-up too; running it first lets an operator upgrade the schema once, before the nodes.
 */
import { migratePostgres, redact } from '@forgefold/postgres-store';
import { openSqliteStore } from '@forgefold/sqlite-store';
import { CliError, commonOptions, EXIT_OK, parseFlags, type CommandSpec } from '../args.js';
import { printLine, type CliContext, type Command } from '../context.js';
import { dataPaths, resolveDataDir } from '../paths.js';
import { closeStore, databaseUrlFrom } from '../store.js';
import { mkdir } from 'node:fs/promises';

const spec = {
  name: 'migrate',
  usage: 'migrate [--database-url URL | --data DIR]',
  summary: 'Create or upgrade the event database schema (PostgreSQL, or the data directory’s SQLite file).',
  description: `
With --database-url (or $FORGEFOLD_DATABASE_URL) the tables are created in the URL's schema (?schema=NAME,
default forgefold) of that PostgreSQL database; otherwise in DIR/forgefold.db. Migrations are versioned and
each runs once, in one transaction; running the command again changes nothing.`,
  options: { ...commonOptions },
} as const satisfies CommandSpec;

export const migrate: Command = {
  spec,
  async run(argv, context: CliContext) {
    const flags = parseFlags(spec, argv);
    const url = databaseUrlFrom(flags['database-url'], context.env, spec.name);
    if (url) {
      let outcome: Awaited<ReturnType<typeof migratePostgres>>;
      try {
        outcome = await migratePostgres({ url });
      } catch (error) {
        throw new CliError(`cannot migrate ${redact(url)}: ${error instanceof Error ? error.message : String(error)}`);
      }
      await printLine(context.stdout, `${redact(url)} (schema ${outcome.schema}): ${outcome.applied.length > 0 ? `applied ${outcome.applied.join(', ')}` : 'up to date'}`);
      for (const migration of outcome.migrations) await printLine(context.stdout, `  ${migration.version}  ${migration.name}  (${migration.appliedAt})`);
      return EXIT_OK;
    }
    const paths = dataPaths(resolveDataDir(flags.data, context.env), context.cwd);
    await mkdir(paths.dir, { recursive: true });
    let store: ReturnType<typeof openSqliteStore>;
    try {
      store = openSqliteStore({ path: paths.database });
    } catch (error) {
      throw new CliError(`cannot migrate ${paths.database}: ${error instanceof Error ? error.message : String(error)}`);
    }
    const migrations = store.migrations();
    await closeStore(store);
    await printLine(context.stdout, `${paths.database}: schema version ${Math.max(0, ...migrations.map((m) => m.version))}`);
    for (const migration of migrations) await printLine(context.stdout, `  ${migration.version}  ${migration.name}  (${migration.appliedAt})`);
    return EXIT_OK;
  },
};

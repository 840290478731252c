/** Opening the event database of a data directory (through @forgefold/sqlite-store). */
import { existsSync } from 'node:fs';
import type { EventStore, SnapshotStore } from '@forgefold/core';
import { openSqliteStore } from '@forgefold/sqlite-store';
import { isPostgresUrl, openPostgresStore, redact } from '@forgefold/postgres-store';
import { CliError, UsageError } from './args.js';
import { DATA_ENV, dataPaths } from './paths.js';
import { databaseFiles, prepareDataDir, tightenSecretFile } from './secure.js';

/** What the commands need from a store; @forgefold/sqlite-store's SqliteStore has this shape. */
export interface StoreHandle {
  readonly events: EventStore;
  readonly snapshots: SnapshotStore;
  close(): Promise<void>;
}

export interface OpenStoreOptions {
  /** Read-only commands (replay, export, verify) never write to the database. */
  readonly readonly: boolean;
}

/** Opens the store at a database path. Injected so that tests and embedders can substitute a store. */
export type StoreOpener = (databasePath: string, options: OpenStoreOptions) => Promise<StoreHandle>;

export const openSqlite: StoreOpener = async (path, options) => openSqliteStore({ path, readonly: options.readonly });

/** Environment variable selecting PostgreSQL (`postgres://…`) instead of the data directory's SQLite file. */
export const DATABASE_URL_ENV = 'FORGEFOLD_DATABASE_URL';

/** The PostgreSQL URL a command uses: `--database-url`, else $FORGEFOLD_DATABASE_URL; undefined for SQLite. */
export const databaseUrlFrom = (flag: string | undefined, env: NodeJS.ProcessEnv, command?: string): string | undefined => {
  const url = flag !== undefined && flag !== '' ? flag : env[DATABASE_URL_ENV];
  if (url === undefined || url === '') return undefined;
  if (!isPostgresUrl(url)) throw new UsageError(`the database URL must start with postgres:// or postgresql://, got '${redact(url)}'`, command);
  try {
    new URL(url);
  } catch {
    throw new UsageError(`the database URL is not a valid URL: '${redact(url)}'`, command);
  }
  return url;
};

/** Opens the PostgreSQL store; read-only commands neither migrate nor write. */
export const openPostgres = async (url: string, options: OpenStoreOptions): Promise<StoreHandle> => {
  try {
    return await openPostgresStore({ url, readonly: options.readonly, maxConnections: 4 });
  } catch (error) {
    throw new CliError(`cannot open ${redact(url)}: ${error instanceof Error ? error.message : String(error)}`);
  }
};

/**
 * Opens the data directory's database, or the PostgreSQL database at `databaseUrl` when one is given.
 * `mode: 'existing'` fails clearly when there is no database (a read must not create an empty one); `mode:
 * 'create'` creates the directory (0700) and the database (0600) if needed (see prepareDataDir; its warnings
 * go to `warn`). A writer tightens database files older versions left readable by others.
 */
export const openDataStore = async (
  open: StoreOpener,
  dataDir: string,
  cwd: string,
  mode: 'existing' | 'create',
  options: OpenStoreOptions,
  databaseUrl?: string,
  warn: (line: string) => void = () => undefined,
): Promise<StoreHandle> => {
  if (databaseUrl) return openPostgres(databaseUrl, options);
  const paths = dataPaths(dataDir, cwd);
  if (mode === 'existing' && !existsSync(paths.database)) {
    throw new CliError(`no event database at ${paths.database} (choose the data directory with --data DIR or $${DATA_ENV})`);
  }
  if (mode === 'create') for (const line of await prepareDataDir(paths.dir)) warn(line);
  else if (!options.readonly) for (const file of databaseFiles(paths.dir)) await tightenSecretFile(file);
  try {
    return await open(paths.database, options);
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`cannot open ${paths.database}: ${error instanceof Error ? error.message : String(error)}`);
  }
};

/**
 * Closes a store while holding the event loop open. The SQLite store's close waits for its (unref'd)
 * checkpoint worker to exit; with nothing else pending, Node would otherwise end the process mid-close
 * (exit code 13, "unsettled top-level await") instead of returning the command's exit code.
 */
export const closeStore = async (store: Pick<StoreHandle, 'close'>): Promise<void> => {
  const keepAlive = setInterval(() => undefined, 1_000);
  try {
    await store.close();
  } finally {
    clearInterval(keepAlive);
  }
};

/** Runs `body` with an open store and always closes it. */
export const withStore = async <R>(store: StoreHandle, body: (store: StoreHandle) => Promise<R>): Promise<R> => {
  try {
    return await body(store);
  } finally {
    await closeStore(store);
  }
};

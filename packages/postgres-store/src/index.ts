/**
 * @forgefold/postgres-store: the EventStore and SnapshotStore on PostgreSQL (postgres.js), for several Forgefold
 * nodes sharing one database. Tables live in their own schema (default `forgefold`; `?schema=NAME` in the URL or
 * the `schema` option picks another), created and upgraded by versioned migrations at open (or by
 * `forgefold migrate`).
 */
import postgres, { type Sql } from 'postgres';
import { PostgresEventStore } from './event-store.js';
import { PostgresSnapshotStore } from './snapshot-store.js';
import { appliedMigrations, migrate, quoteSchema, type AppliedMigration } from './schema.js';
import { translate } from './errors.js';

export { PostgresEventStore } from './event-store.js';
export { PostgresSnapshotStore } from './snapshot-store.js';
export { migrations, type AppliedMigration, type Migration } from './schema.js';
export { isConnectionFailure } from './errors.js';

export const DEFAULT_SCHEMA = 'forgefold';

export interface PostgresStoreOptions {
  /** `postgres://user:password@host:port/database[?schema=NAME]`. */
  readonly url: string;
  /** The schema holding Forgefold's tables (default: the URL's `schema` parameter, else `forgefold`). */
  readonly schema?: string;
  /** Reads only: no migration, and the session refuses writes. */
  readonly readonly?: boolean;
  /** Apply pending migrations at open (default true unless read-only). */
  readonly migrate?: boolean;
  /** Connections in the pool (default 10). */
  readonly maxConnections?: number;
  /** Head poll while following, in case a notification was lost (ms). Default 500. */
  readonly pollIntervalMs?: number;
  /** Give up connecting after this long (s). Default 5. */
  readonly connectTimeoutSeconds?: number;
}

export interface PostgresStore {
  readonly events: PostgresEventStore;
  readonly snapshots: PostgresSnapshotStore;
  readonly schema: string;
  /** Migrations recorded in the schema, oldest first. */
  migrations(): Promise<AppliedMigration[]>;
  close(): Promise<void>;
}

export const isPostgresUrl = (url: string): boolean => /^postgres(ql)?:\/\//i.test(url);

/** Splits the `schema` parameter (ours, not the server's) off a connection URL. */
export const parseDatabaseUrl = (url: string): { readonly url: string; readonly schema: string | undefined } => {
  if (!isPostgresUrl(url)) throw new Error(`not a PostgreSQL URL (postgres://…): ${redact(url)}`);
  const parsed = new URL(url);
  const schema = parsed.searchParams.get('schema') ?? undefined;
  parsed.searchParams.delete('schema');
  return { url: parsed.toString(), schema };
};

/** The URL without its password, for messages. */
export const redact = (url: string): string => url.replace(/^([a-z]+:\/\/[^:/@]*):[^@]*@/i, '$1:***@');

/**
 * A connection pool on the schema (its search_path) with positions as numbers. Cast: postgres.js types a pool with
 * custom types as `Sql<{ bigint: number }>`, and its options' `types` entry does not accept a parser narrower than
 * `any`; the store only ever binds numbers and strings, which both types accept alike.
 */
const connect = (url: string, schema: string, options: PostgresStoreOptions): Sql =>
  postgres(url, {
    max: options.maxConnections ?? 10,
    connect_timeout: options.connectTimeoutSeconds ?? 5,
    idle_timeout: 60,
    onnotice: () => undefined,
    connection: {
      application_name: 'forgefold',
      search_path: quoteSchema(schema),
      ...(options.readonly ? { default_transaction_read_only: 'on' } : {}),
    },
    // bigint (positions) as a number: positions stay far below 2^53.
    types: { bigint: { to: 20, from: [20], serialize: (value: number) => String(value), parse: (value: string) => Number(value) } },
  } as never) as unknown as Sql;

export const openPostgresStore = async (options: PostgresStoreOptions): Promise<PostgresStore> => {
  const parsed = parseDatabaseUrl(options.url);
  const schema = options.schema ?? parsed.schema ?? DEFAULT_SCHEMA;
  quoteSchema(schema);
  const readonly = options.readonly ?? false;
  const sql = connect(parsed.url, schema, options);
  let head: number;
  try {
    if (options.migrate ?? !readonly) await migrate(sql, schema);
    else if ((await appliedMigrations(sql, schema)).length === 0) throw new Error(`schema ${schema} has no Forgefold tables (run \`forgefold migrate\`)`);
    const [row] = await sql`SELECT position FROM log_head`.values();
    head = Number(row![0]);
  } catch (error) {
    await sql.end({ timeout: 1 }).catch(() => undefined);
    return translate(error);
  }
  let closed = false;
  let closing: Promise<void> | null = null;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      closed = true;
      await events.detach();
      await sql.end({ timeout: 5 });
    })());
  const events = new PostgresEventStore(sql, { schema, readonly, pollIntervalMs: options.pollIntervalMs ?? 500, head }, close);
  const snapshots = new PostgresSnapshotStore(sql, readonly, () => closed);
  return { events, snapshots, schema, migrations: () => appliedMigrations(sql, schema), close };
};

/** Applies pending migrations and closes: what `forgefold migrate` runs. */
export const migratePostgres = async (options: Pick<PostgresStoreOptions, 'url' | 'schema'>): Promise<{ readonly schema: string; readonly applied: number[]; readonly migrations: AppliedMigration[] }> => {
  const parsed = parseDatabaseUrl(options.url);
  const schema = options.schema ?? parsed.schema ?? DEFAULT_SCHEMA;
  const sql = connect(parsed.url, schema, { url: options.url, maxConnections: 1 });
  try {
    const applied = await migrate(sql, schema);
    return { schema, applied, migrations: await appliedMigrations(sql, schema) };
  } catch (error) {
    return translate(error);
  } finally {
    await sql.end({ timeout: 5 }).catch(() => undefined);
  }
};

/** Drops a schema and everything in it (tests and benchmarks). */
export const dropSchema = async (url: string, schema: string): Promise<void> => {
  const sql = postgres(parseDatabaseUrl(url).url, { max: 1, onnotice: () => undefined });
  try {
    await sql.unsafe(`DROP SCHEMA IF EXISTS ${quoteSchema(schema)} CASCADE`);
  } finally {
    await sql.end({ timeout: 5 });
  }
};

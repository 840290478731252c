/**
 * `forgefold serve`: the API over HTTP on the embedded SQLite store, or on PostgreSQL (FORGEFOLD_DATABASE_URL),
 * where several nodes may serve one database: each follows the shared log, and the membership expiry process runs
 * on one node per tick (a lease).
 *
 * Start-up contract (operators' scripts depend on it): PORT (8080), HOST (127.0.0.1), FORGEFOLD_DATA
 * (./data), FORGEFOLD_ROOT_TOKEN, FORGEFOLD_EXTERNAL_URL; the line `Forgefold listening on http://HOST:PORT`
 * is printed once requests are accepted. SIGTERM/SIGINT: in-flight requests finish, a snapshot is written,
 * the store closes, and `Forgefold stopped` is printed.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import * as E from 'fp-ts/lib/Either.js';
import { Application, findAccessToken, findUser, findUserByUsername, forgefold, forgefoldProcesses, resolveToken, settingBoolean, systemActor, tokenUseDue, type Clock, type ForgefoldCommand, type Scheduler, type Snapshot, type SnapshotStore, type State } from '@forgefold/core';
import {
  checkTimeouts,
  createForgefoldApi,
  DEFAULT_TIMEOUTS,
  familyHeader,
  gaugeText,
  Histogram,
  metricsAllowList,
  newTokenValue,
  passwordDigest,
  primaryGeoRuntime,
  RepositoryHost,
  type ReconcileReport,
  tokenDigest,
  parseSecretKey,
  type Timeouts,
} from '@forgefold/http-adapter';
import { openSqliteStore, uuidv7Generator } from '@forgefold/sqlite-store';
import { GitRepositories } from '@forgefold/git';
import { openPostgresStore, redact } from '@forgefold/postgres-store';
import { CliError, commonOptions, parseFlags, parseNonNegativeInteger, UsageError, wantsHelp, type CommandSpec, type ParsedArgs } from './args.js';
import { databaseUrlFrom, type StoreHandle } from './store.js';
import { dataPaths, resolveDataDir } from './paths.js';
import { PRODUCT_VERSION } from './version.js';
import { loadSecretKey, prepareDataDir, ROOT_TOKEN_FILE, SECRET_FILE_MODE } from './secure.js';
import { fileUploadStore, UPLOADS_DIR } from './uploads.js';
import { GeoSecondary } from './geo.js';

/** The host's timers: `setInterval`, unreferenced (a pending tick keeps no process alive). */
const intervalScheduler: Scheduler = {
  every: (intervalMs, task) => {
    const timer = setInterval(() => void task(), intervalMs);
    timer.unref();
    return () => clearInterval(timer);
  },
};

/**
 * The wall clock, formatted once per millisecond: a request reads the time several times (authentication,
 * the response cache, activity), and formatting a Date was ~6% of a cached GET's cost. Within a second only the
 * milliseconds change: the rest of the text (`YYYY-MM-DDTHH:MM:SS.`) is formatted once a second, the milliseconds
 * appended (a Date's `toISOString` per millisecond was still a tenth of a cached read's own work under load).
 */
export const systemClock = (wallClock: () => number = Date.now): Clock => {
  let lastMs = Number.NaN;
  let lastIso = '';
  let second = Number.NaN;
  let secondText = '';
  return {
    now: () => {
      const ms = wallClock();
      if (ms !== lastMs) {
        lastMs = ms;
        const milliseconds = ((ms % 1000) + 1000) % 1000;
        if (ms - milliseconds !== second) {
          second = ms - milliseconds;
          secondText = new Date(second).toISOString().slice(0, -4);
        }
        lastIso = `${secondText}${milliseconds < 10 ? '00' : milliseconds < 100 ? '0' : ''}${milliseconds}Z`;
      }
      return lastIso;
    },
  };
};

export const serveSpec = {
  name: 'serve',
  summary: 'Run the HTTP API over the data directory.',
  usage: 'forgefold serve [--port N] [--host ADDR] [--data DIR] [--external-url URL]',
  description: [
    'Environment: PORT (default 8080), HOST (default 127.0.0.1), FORGEFOLD_DATA (default ./data),',
    'FORGEFOLD_ROOT_TOKEN (the root token on first start; otherwise one is generated into <data>/initial_root_token),',
    'FORGEFOLD_ROOT_PASSWORD (optional, for the OAuth password grant), FORGEFOLD_EXTERNAL_URL (links and web_url),',
    'FORGEFOLD_SYNCHRONOUS (FULL or NORMAL, default FULL), FORGEFOLD_IMPERSONATION (false disables impersonation tokens),',
    'FORGEFOLD_SNAPSHOT_EVERY (events between snapshots, default 10000), FORGEFOLD_ACCESS_LOG (false silences the access log),',
    'FORGEFOLD_MAX_URL_BYTES (default 8192; longer → 414), FORGEFOLD_MAX_BODY_BYTES (default 10485760; larger → 413),',
    'FORGEFOLD_HEADERS_TIMEOUT_MS (default 10000; a header block slower than this → 408), FORGEFOLD_REQUEST_TIMEOUT_MS',
    '(default 60000; a whole request slower than this is dropped), FORGEFOLD_KEEP_ALIVE_TIMEOUT_MS (default 5000),',
    'FORGEFOLD_IDLE_TIMEOUT_MS (default 60000; a connection silent this long is closed); 0 turns a time-out off.',
    'FORGEFOLD_METRICS_ALLOW (addresses or CIDR blocks that may read /-/metrics, comma-separated; default',
    '127.0.0.0/8,::1/128; empty: nobody). FORGEFOLD_DATABASE_URL (postgres://…: the log on PostgreSQL, which several',
    'nodes may share; default: SQLite in the data directory), FORGEFOLD_POSITION_WAIT_MS (default 5000; how long a',
    'request with X-Forgefold-Min-Position waits for this node to reach that log position before a 503).',
    'FORGEFOLD_GRAVATAR_URL (avatar URL template for users without an upload,',
    'e.g. https://www.gravatar.com/avatar/%{hash}?s=%{size}&d=identicon; default none: avatar_url is null).',
    'Geo: FORGEFOLD_GEO_NODE_NAME (this node\'s name in the Geo node list; default the external URL with a trailing slash),',
    'FORGEFOLD_GEO_SECRET (the secret shared by a primary and its secondaries; a primary without one serves no secondary),',
    'FORGEFOLD_GEO_PRIMARY_URL (makes this node a read-only secondary of that primary; needs the name and the secret),',
    'FORGEFOLD_GEO_STATUS_INTERVAL_MS (default 60000; how often a secondary reports its status to the primary).',
    'Flags override the environment.',
  ].join('\n'),
  options: {
    ...commonOptions,
    port: { type: 'string', value: 'N', description: 'TCP port (default $PORT, else 8080; 0 picks a free one)' },
    host: { type: 'string', value: 'ADDR', description: 'Address to bind (default $HOST, else 127.0.0.1)' },
    'external-url': { type: 'string', value: 'URL', description: 'External base URL (default $FORGEFOLD_EXTERNAL_URL)' },
  },
} as const satisfies CommandSpec;

export interface ServeConfig {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly externalUrl?: string;
  readonly rootToken?: string;
  readonly rootPassword?: string;
  readonly synchronous: 'FULL' | 'NORMAL';
  readonly impersonationEnabled: boolean;
  readonly snapshotEvery: number;
  readonly accessLog: boolean;
  /** Request limits: a longer URL answers 414, a larger body 413. */
  readonly maxUrlBytes?: number;
  readonly maxBodyBytes?: number;
  /** Bodies (JSON, forms, multipart) of at least this many bytes are parsed off the event loop (see the HTTP adapter's `Limits`); no setting of its own. */
  readonly parseInWorkerBytes?: number;
  /** Connection time-outs in milliseconds (see `Timeouts` in the HTTP adapter); unset ones keep its defaults. */
  readonly timeouts?: Partial<Timeouts>;
  /** Who may read `/-/metrics` (addresses or CIDR blocks); default loopback. */
  readonly metricsAllow?: readonly string[];
  /** The log on PostgreSQL (`postgres://…`) instead of SQLite in the data directory. */
  readonly databaseUrl?: string;
  /** Longest wait for `X-Forgefold-Min-Position` (ms). */
  readonly positionWaitMs?: number;
  /** Gravatar URL template (%{hash}, %{size}, %{email}, %{username}); unset: no Gravatar URLs. */
  readonly gravatarUrl?: string;
  /** FORGEFOLD_SECRET_KEY; unset: the key file in the data directory. */
  readonly secretKey?: string;
  /** Geo (see `GeoSecondaryConfig`): this node's name, the shared secret, and a secondary's primary. */
  readonly geo?: { readonly nodeName?: string; readonly secret?: string; readonly primaryUrl?: string; readonly statusIntervalMs?: number; readonly pollWaitMs?: number };
}

/** FORGEFOLD_GEO_*: a secondary needs its name and the secret beside the primary's URL. */
const geoFrom = (env: ParsedArgs['env']): ServeConfig['geo'] => {
  const nodeName = env['FORGEFOLD_GEO_NODE_NAME']?.trim() || undefined;
  const secret = env['FORGEFOLD_GEO_SECRET'] || undefined;
  const primaryUrl = env['FORGEFOLD_GEO_PRIMARY_URL']?.trim() || undefined;
  if (secret !== undefined && secret.length < 16) throw new UsageError('FORGEFOLD_GEO_SECRET must be at least 16 characters long', 'serve');
  if (primaryUrl !== undefined) {
    let url: URL;
    try {
      url = new URL(primaryUrl);
    } catch {
      throw new UsageError(`FORGEFOLD_GEO_PRIMARY_URL must be an http(s) URL, got '${primaryUrl}'`, 'serve');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`FORGEFOLD_GEO_PRIMARY_URL must be an http(s) URL, got '${primaryUrl}'`, 'serve');
    if (!nodeName || !secret) throw new UsageError('a Geo secondary (FORGEFOLD_GEO_PRIMARY_URL) needs FORGEFOLD_GEO_NODE_NAME and FORGEFOLD_GEO_SECRET', 'serve');
  }
  const interval = env['FORGEFOLD_GEO_STATUS_INTERVAL_MS'];
  const statusIntervalMs = interval ? parseNonNegativeInteger('FORGEFOLD_GEO_STATUS_INTERVAL_MS', interval, 'serve') : undefined;
  if (statusIntervalMs === 0) throw new UsageError('FORGEFOLD_GEO_STATUS_INTERVAL_MS must be positive', 'serve');
  if (!nodeName && !secret && !primaryUrl) return undefined;
  return {
    ...(nodeName ? { nodeName } : {}),
    ...(secret ? { secret } : {}),
    ...(primaryUrl ? { primaryUrl: primaryUrl.replace(/\/+$/, '') } : {}),
    ...(statusIntervalMs ? { statusIntervalMs } : {}),
  };
};

/** Environment variable → `Timeouts` field. */
const TIMEOUT_VARIABLES = {
  FORGEFOLD_HEADERS_TIMEOUT_MS: 'headersMs',
  FORGEFOLD_REQUEST_TIMEOUT_MS: 'requestMs',
  FORGEFOLD_KEEP_ALIVE_TIMEOUT_MS: 'keepAliveMs',
  FORGEFOLD_IDLE_TIMEOUT_MS: 'idleMs',
} as const satisfies Record<string, keyof Timeouts>;

const timeoutsFrom = (env: ParsedArgs['env']): Partial<Timeouts> | undefined => {
  const timeouts: { -readonly [K in keyof Timeouts]?: number } = {};
  for (const [variable, field] of Object.entries(TIMEOUT_VARIABLES)) {
    const text = env[variable];
    if (text) timeouts[field] = parseNonNegativeInteger(variable, text, 'serve');
  }
  if (Object.keys(timeouts).length === 0) return undefined;
  try {
    checkTimeouts({ ...DEFAULT_TIMEOUTS, ...timeouts });
  } catch (error) {
    throw new UsageError((error as Error).message, 'serve');
  }
  return timeouts;
};

/** FORGEFOLD_GRAVATAR_URL: an absolute http(s) URL template. */
const gravatarTemplate = (text: string): string => {
  try {
    const url = new URL(text.replaceAll('%{', '').replaceAll('}', ''));
    if (url.protocol === 'http:' || url.protocol === 'https:') return text;
  } catch {
    // reported below
  }
  throw new UsageError(`FORGEFOLD_GRAVATAR_URL must be an http(s) URL template such as https://www.gravatar.com/avatar/%{hash}?s=%{size}&d=identicon, got '${text}'`, 'serve');
};

export const serveConfig = (args: ParsedArgs): ServeConfig => {
  const flags = parseFlags(serveSpec, args.argv);
  const env = args.env;
  const port = parseNonNegativeInteger('port', flags.port ?? env['PORT'] ?? '8080', 'serve');
  if (port > 65535) throw new UsageError(`--port must be at most 65535, got ${port}`, 'serve');
  const synchronous = (env['FORGEFOLD_SYNCHRONOUS'] ?? 'FULL').toUpperCase();
  if (synchronous !== 'FULL' && synchronous !== 'NORMAL') throw new UsageError(`FORGEFOLD_SYNCHRONOUS must be FULL or NORMAL, got '${synchronous}'`, 'serve');
  const externalUrl = flags['external-url'] ?? env['FORGEFOLD_EXTERNAL_URL'];
  const timeouts = timeoutsFrom(env);
  const metricsAllow = metricsAllowFrom(env);
  const databaseUrl = databaseUrlFrom(flags['database-url'], env, 'serve');
  const geo = geoFrom(env);
  if (externalUrl) {
    try {
      new URL(externalUrl);
    } catch {
      throw new UsageError(`the external URL must be an absolute URL, got '${externalUrl}'`, 'serve');
    }
  }
  return {
    port,
    host: flags.host ?? env['HOST'] ?? '127.0.0.1',
    dataDir: dataPaths(resolveDataDir(flags.data, env)).dir,
    ...(externalUrl ? { externalUrl } : {}),
    ...(env['FORGEFOLD_ROOT_TOKEN'] ? { rootToken: env['FORGEFOLD_ROOT_TOKEN'] } : {}),
    ...(env['FORGEFOLD_ROOT_PASSWORD'] ? { rootPassword: env['FORGEFOLD_ROOT_PASSWORD'] } : {}),
    synchronous,
    impersonationEnabled: env['FORGEFOLD_IMPERSONATION'] !== 'false',
    snapshotEvery: parseNonNegativeInteger('FORGEFOLD_SNAPSHOT_EVERY', env['FORGEFOLD_SNAPSHOT_EVERY'] ?? '10000', 'serve'),
    accessLog: env['FORGEFOLD_ACCESS_LOG'] !== 'false',
    ...(env['FORGEFOLD_MAX_URL_BYTES'] ? { maxUrlBytes: parseNonNegativeInteger('FORGEFOLD_MAX_URL_BYTES', env['FORGEFOLD_MAX_URL_BYTES'], 'serve') } : {}),
    ...(env['FORGEFOLD_MAX_BODY_BYTES'] ? { maxBodyBytes: parseNonNegativeInteger('FORGEFOLD_MAX_BODY_BYTES', env['FORGEFOLD_MAX_BODY_BYTES'], 'serve') } : {}),
    ...(timeouts ? { timeouts } : {}),
    ...(metricsAllow ? { metricsAllow } : {}),
    ...(databaseUrl ? { databaseUrl } : {}),
    ...(env['FORGEFOLD_POSITION_WAIT_MS'] ? { positionWaitMs: parseNonNegativeInteger('FORGEFOLD_POSITION_WAIT_MS', env['FORGEFOLD_POSITION_WAIT_MS'], 'serve') } : {}),
    ...(env['FORGEFOLD_GRAVATAR_URL'] ? { gravatarUrl: gravatarTemplate(env['FORGEFOLD_GRAVATAR_URL']) } : {}),
    ...(env['FORGEFOLD_SECRET_KEY'] ? { secretKey: secretKeyText(env['FORGEFOLD_SECRET_KEY']) } : {}),
    ...(geo ? { geo } : {}),
  };
};

/** FORGEFOLD_SECRET_KEY is checked at start-up, not at the first cluster. */
const secretKeyText = (text: string): string => {
  try {
    parseSecretKey(text);
  } catch (error) {
    throw new UsageError((error as Error).message, 'serve');
  }
  return text;
};

const metricsAllowFrom = (env: ParsedArgs['env']): readonly string[] | undefined => {
  const text = env['FORGEFOLD_METRICS_ALLOW'];
  if (text === undefined) return undefined;
  const entries = text.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  try {
    metricsAllowList(entries);
  } catch (error) {
    throw new UsageError(`FORGEFOLD_METRICS_ALLOW: ${(error as Error).message}`, 'serve');
  }
  return entries;
};

/** Events per committed batch (group commit): 1 when idle, more under load. */
const COMMIT_BATCH_BUCKETS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000];
/** Seconds, for the waits and pauses that make a write's latency tail (a WAL flush, a collection). */
const PAUSE_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
/** Seconds, for the WAL drains' holds: most last well under a millisecond since the catch-up passes (see the checkpointer). */
const DRAIN_BUCKETS = [0.00025, 0.0005, ...PAUSE_BUCKETS];

/**
 * The host's part of `/-/metrics`: commit batch sizes (from `onCommitted`), the log position, and the last
 * snapshot's position and age (from the snapshot store, wrapped to see what it loads and saves).
 */
const hostMetrics = (app: Application<ForgefoldCommand, State>, clock: Clock, lastSnapshot: () => Pick<Snapshot, 'position' | 'takenAt'> | null, wal: { readonly flushes: Histogram; readonly drains: Histogram } | null) => {
  const batches = new Histogram(COMMIT_BATCH_BUCKETS);
  app.onCommitted((events) => batches.observe(events.length));
  // The event loop's pauses for garbage collection: with the WAL flushes, what a write's latency tail is made of.
  const collections = new Histogram(PAUSE_BUCKETS);
  const collector = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) collections.observe(entry.duration / 1000);
  });
  collector.observe({ entryTypes: ['gc'] });
  const collect = (): string => {
    const snapshot = lastSnapshot();
    return (
      familyHeader('forgefold_commit_batch_events', 'histogram', 'Events per committed batch.') +
      batches.samples('forgefold_commit_batch_events') +
      (wal
        ? familyHeader('forgefold_commit_flush_seconds', 'histogram', 'Time a commit waited for the WAL flush (fdatasync) that made it durable.') +
          wal.flushes.samples('forgefold_commit_flush_seconds') +
          familyHeader('forgefold_wal_drain_seconds', 'histogram', 'Time the writes were held while the WAL was checkpointed completely, so that it starts over.') +
          wal.drains.samples('forgefold_wal_drain_seconds')
        : '') +
      familyHeader('forgefold_gc_pause_seconds', 'histogram', 'Pauses of the event loop for garbage collection.') +
      collections.samples('forgefold_gc_pause_seconds') +
      gaugeText('forgefold_log_position', 'Position of the last committed event.', app.position) +
      (snapshot
        ? gaugeText('forgefold_snapshot_position', 'Log position of the newest snapshot.', snapshot.position) +
          gaugeText('forgefold_snapshot_age_seconds', 'Seconds since the newest snapshot was taken.', Math.max(0, (Date.parse(clock.now()) - Date.parse(snapshot.takenAt)) / 1000))
        : '')
    );
  };
  return { collect, stop: () => collector.disconnect() };
};

const must = async (app: Application<ForgefoldCommand, State>, command: ForgefoldCommand) => {
  const result = await app.execute(systemActor, command);
  if (E.isLeft(result)) throw new CliError(`bootstrap failed (${command.type}): ${JSON.stringify(result.left)}`);
  return result.right;
};

/**
 * First start: the administrator `root` and a personal access token (api, sudo) for it. The token is
 * FORGEFOLD_ROOT_TOKEN when set (also on later starts, if that value is not yet a token), otherwise it is
 * generated and written to <data>/initial_root_token (mode 0600); only the file's path is printed.
 */
export const bootstrapRoot = async (app: Application<ForgefoldCommand, State>, config: Pick<ServeConfig, 'dataDir' | 'rootToken' | 'rootPassword'>, clock: Clock, say: (line: string) => void): Promise<void> => {
  try {
    await bootstrapOnce(app, config, clock, say);
  } catch (error) {
    // Another node on the same database may have bootstrapped meanwhile (its root came first): look again.
    if (!(error instanceof CliError)) throw error;
    await app.catchUp();
    await bootstrapOnce(app, config, clock, say);
  }
};

const bootstrapOnce = async (app: Application<ForgefoldCommand, State>, config: Pick<ServeConfig, 'dataDir' | 'rootToken' | 'rootPassword'>, clock: Clock, say: (line: string) => void): Promise<void> => {
  let root = findUserByUsername(app.state.users, 'root');
  const firstStart = root === undefined;
  if (!root) {
    await must(app, {
      type: 'CreateUser',
      username: 'root',
      name: 'Administrator',
      email: 'admin@example.com',
      password_digest: config.rootPassword ? await passwordDigest(config.rootPassword) : null,
      is_admin: true,
    });
    root = findUserByUsername(app.state.users, 'root')!;
  }
  const wanted = config.rootToken;
  if (wanted && resolveToken(app.state.tokens, tokenDigest(wanted), clock.now(), { impersonationEnabled: true })._tag === 'Valid') return;
  if (!wanted && !firstStart) return;
  const value = wanted ?? newTokenValue();
  await must(app, { type: 'CreatePersonalAccessToken', user_id: root.id, name: 'initial root token', scopes: ['api', 'sudo'], expires_at: null, token_digest: tokenDigest(value), impersonation: false });
  if (!wanted) {
    const file = join(config.dataDir, ROOT_TOKEN_FILE);
    await writeFile(file, `${value}\n`, { mode: SECRET_FILE_MODE });
    say(`Forgefold root token written to ${file}`);
  }
};

export interface RunningForgefold {
  readonly app: Application<ForgefoldCommand, State>;
  /** The Geo secondary's follower, when this node is one. */
  readonly geo: GeoSecondary | null;
  readonly url: string;
  readonly port: number;
  /** Stops accepting, lets in-flight requests finish, writes a snapshot and closes the store. */
  close(): Promise<void>;
  /**
   * Settles once the repositories agree with the log (start-up reconciles them in the background; see
   * RepositoryHost.reconcileInBackground); null on a Geo secondary, which reconciles nothing.
   */
  readonly reconciled: Promise<ReconcileReport | null>;
}

/**
 * Opens the store, starts the application, bootstraps root and serves the API: what `serve` does, minus
 * flags and signals, so that tests and hosts get exactly the server operators run.
 */
export const startForgefold = async (
  config: ServeConfig,
  options: {
    readonly clock?: Clock;
    readonly say?: (line: string) => void;
    readonly log?: (entry: Readonly<Record<string, unknown>>) => void;
    /** Deep-freeze committed states (see ApplicationOptions.freeze); off by default, on in the tests. */
    readonly freezeState?: boolean;
    /** The timers the modules' processes run on (`setInterval` by default; tests drive one by hand). */
    readonly scheduler?: Scheduler;
  } = {},
): Promise<RunningForgefold> => {
  const say = options.say ?? ((line: string) => process.stdout.write(`${line}\n`));
  for (const warning of await prepareDataDir(config.dataDir, { sqlite: !config.databaseUrl })) say(`Forgefold warning: ${warning}`);
  const wal = { flushes: new Histogram(PAUSE_BUCKETS), drains: new Histogram(DRAIN_BUCKETS) };
  const sqlite = config.databaseUrl
    ? null
    : openSqliteStore({
        path: dataPaths(config.dataDir).database,
        synchronous: config.synchronous,
        flushOffLoop: true,
        onFlushed: (ms) => wal.flushes.observe(ms / 1000),
        onDrained: (ms) => wal.drains.observe(ms / 1000),
      });
  const store: StoreHandle =
    sqlite ??
    (await openPostgresStore({ url: config.databaseUrl! }).catch((error: unknown) => {
      throw new CliError(`cannot open ${redact(config.databaseUrl!)}: ${error instanceof Error ? error.message : String(error)}`);
    }));
  const clock: Clock = options.clock ?? systemClock();
  let lastSnapshot: Pick<Snapshot, 'position' | 'takenAt'> | null = null;
  const snapshots: SnapshotStore = {
    load: async (projectionVersion) => {
      const loaded = await store.snapshots.load(projectionVersion);
      if (loaded) lastSnapshot = { position: loaded.position, takenAt: loaded.takenAt };
      return loaded;
    },
    save: async (snapshot) => {
      await store.snapshots.save(snapshot);
      lastSnapshot = { position: snapshot.position, takenAt: snapshot.takenAt };
    },
  };
  const app = await Application.start<ForgefoldCommand, State>({
    ...forgefold,
    store: store.events,
    snapshots,
    clock,
    ids: { eventId: uuidv7Generator() },
    snapshotEvery: config.snapshotEvery,
    freeze: options.freezeState ?? false,
  });
  // Other nodes on the same database append too: fold what they write as it is committed.
  const unfollow = app.follow();
  // A Geo secondary's log is the primary's: it writes nothing of its own (no root, no activity, no processes).
  const secondary = config.geo?.primaryUrl !== undefined;
  if (!secondary) await bootstrapRoot(app, config, clock, say);

  // `last_activity_on` and a token's `last_used_at`: at most one event per user (token) and day, recorded off the
  // request path.
  // Neither is written while the instance is read-only (`Gitlab::Database.read_only?`, which EE answers true in
  // maintenance mode as on a Geo secondary: Users::ActivityService and PersonalAccessTokens::LastUsedService return).
  const recordActivity = (userId: number, tokenId: number | null) => {
    if (settingBoolean(app.state.settings, 'maintenance_mode')) return;
    const now = clock.now();
    const user = findUser(app.state.users, userId);
    if (user && user.last_activity_on !== now.slice(0, 10)) void app.execute(systemActor, { type: 'RecordUserActivity', id: userId }).catch(() => undefined);
    const token = tokenId === null ? undefined : findAccessToken(app.state.tokens, tokenId);
    if (token && tokenUseDue(token, now)) void app.execute(systemActor, { type: 'RecordAccessTokenUse', id: token.id }).catch(() => undefined);
  };
  // A token last used on an earlier day falls due again within 24 hours of that use, which may be later today: until
  // its use is recorded today, its reads skip the early response cache (whose replies last the day), so that the
  // request at which it falls due is authenticated and records it. Nothing is recorded in maintenance mode.
  const tokenUseSettled = (tokenId: number): boolean => {
    const token = findAccessToken(app.state.tokens, tokenId);
    return !token || settingBoolean(app.state.settings, 'maintenance_mode') || (token.last_used_at ?? '').slice(0, 10) === clock.now().slice(0, 10);
  };
  // FORGEFOLD_ACCESS_LOG=false silences the access lines only: errors and the repositories' messages still print.
  const log = options.log;
  // Repositories live beside the event database; the log is their truth, so a crash is repaired: in the background
  // while serving (start-up does not grow with the number of projects), and any repository used before the
  // background walk reached it is repaired at its first use (RepositoryHost.ready).
  const gitStorage = new GitRepositories({ root: dataPaths(config.dataDir).repositories });
  const repositories = new RepositoryHost(app, clock, gitStorage, log ?? ((entry) => process.stdout.write(`${JSON.stringify(entry)}\n`)));
  const reconciled = secondary ? Promise.resolve(null) : repositories.reconcileInBackground();
  reconciled.then(
    (report) => {
      if (report === null) return;
      if (report.created.length + report.aligned.length + report.removed.length > 0) {
        say(`Forgefold repositories reconciled with the log: ${report.created.length} created, ${report.aligned.length} realigned, ${report.removed.length} removed`);
      }
      for (const failure of report.failed) say(`Forgefold repository of project ${failure.project} could not be reconciled: ${failure.message}`);
    },
    (error: unknown) => say(`Forgefold repositories could not be reconciled with the log: ${error instanceof Error ? error.message : String(error)}`),
  );
  repositories.watch();
  const secretKey = await loadSecretKey(config.dataDir, config.secretKey);
  const geoSecondary = secondary
    ? new GeoSecondary(
        app,
        store.events,
        gitStorage,
        clock,
        {
          primaryUrl: config.geo!.primaryUrl!,
          nodeName: config.geo!.nodeName!,
          secret: config.geo!.secret!,
          statusIntervalMs: config.geo?.statusIntervalMs ?? 60_000,
          ...(config.geo?.pollWaitMs ? { pollWaitMs: config.geo.pollWaitMs } : {}),
        },
        // Replication's health changes are for operators: printed even with the access log off.
        options.log ?? ((entry) => say(`Forgefold ${String(entry['message'])}`)),
        PRODUCT_VERSION,
      )
    : null;
  const metrics = hostMetrics(app, clock, () => lastSnapshot, config.databaseUrl ? null : wal);
  const api = createForgefoldApi({
    secretKey,
    app,
    clock,
    repositories,
    impersonationEnabled: config.impersonationEnabled,
    ...(config.externalUrl ? { externalUrl: config.externalUrl } : {}),
    ...(secondary ? { readOnly: true } : { onAuthenticated: recordActivity, tokenUseSettled }),
    ...(geoSecondary ? { geo: geoSecondary } : config.geo?.nodeName ? { geo: primaryGeoRuntime(app, { nodeName: config.geo.nodeName, version: PRODUCT_VERSION }) } : {}),
    ...(config.geo?.secret && !secondary ? { geoSecret: config.geo.secret } : {}),
    ...(log ? { log } : {}),
    // The access log off and no sink of the host's: the lines would go nowhere, so none is built.
    ...(options.log === undefined && !config.accessLog ? { accessLog: false } : {}),
    limits: {
      ...(config.maxUrlBytes !== undefined ? { maxUrlBytes: config.maxUrlBytes } : {}),
      ...(config.maxBodyBytes !== undefined ? { maxBodyBytes: config.maxBodyBytes } : {}),
      ...(config.parseInWorkerBytes !== undefined ? { parseInWorkerBytes: config.parseInWorkerBytes } : {}),
    },
    ...(config.timeouts ? { timeouts: config.timeouts } : {}),
    version: PRODUCT_VERSION,
    ...(config.positionWaitMs !== undefined ? { positionWaitMs: config.positionWaitMs } : {}),
    // On a shared database a node that cannot reach it is not ready (a load balancer then sends traffic elsewhere); on
    // SQLite, one whose log stopped writing after a failed flush (until restarted).
    readiness: sqlite ? () => sqlite.events.stoppedBy === null : async () => (await store.events.headPosition(), true),
    uploads: fileUploadStore(join(config.dataDir, UPLOADS_DIR)),
    ...(config.gravatarUrl ? { gravatarUrl: config.gravatarUrl } : {}),
    metrics: { ...(config.metricsAllow ? { allow: config.metricsAllow } : {}), collect: metrics.collect },
  });
  // The modules' processes (membership expiry) run by the scheduler: at start-up and every minute. A tick runs a
  // process only when it is due by the injected clock, not while its previous run is in flight, and not twice a day
  // against the same state when its run changed nothing (a due process whose decision changes nothing runs once). With several nodes, the node
  // holding a process's lease runs it; the others skip the tick.
  const scheduler = options.scheduler ?? intervalScheduler;
  const inFlight = new Map<string, Promise<void>>();
  const ranOn = new Map(forgefoldProcesses.map((process) => [process.name, new WeakMap<object, string>()]));
  const runProcess = async (process: (typeof forgefoldProcesses)[number]): Promise<void> => {
    const state = app.state;
    const now = clock.now();
    const day = now.slice(0, 10);
    const ran = ranOn.get(process.name)!;
    if (ran.get(process.reads(state)) === day || !process.due(state, now)) return;
    const result = await app.execute(systemActor, process.command);
    // Only a run that changed nothing is remembered: a run that recorded events (schedules moved on) leaves a new
    // state, and the same state may fall due again later that day (the next scheduled run).
    if (result._tag === 'Right' && result.right.events.length === 0) ran.set(process.reads(result.right.state), day);
  };
  const runProcesses = async (): Promise<void> => {
    await Promise.all(
      forgefoldProcesses.map((process) => {
        const running = inFlight.get(process.name);
        if (running) return running;
        const run = () => runProcess(process);
        const started = (store.events.exclusive ? store.events.exclusive(process.name, run).then(() => undefined) : run())
          .catch(() => undefined)
          .finally(() => inFlight.delete(process.name));
        inFlight.set(process.name, started);
        return started;
      }),
    );
  };
  if (!secondary) void runProcesses();
  const stopProcesses = secondary ? () => undefined : scheduler.every(60_000, runProcesses);
  const address = await api.listen(config.port, config.host);
  await geoSecondary?.start();
  return {
    app,
    geo: geoSecondary,
    port: address.port,
    url: `http://${config.host}:${address.port}`,
    reconciled,
    close: async () => {
      stopProcesses();
      metrics.stop();
      await geoSecondary?.close();
      unfollow();
      await api.close();
      await app.whenIdle();
      repositories.close();
      await repositories.stopReconciling();
      await gitStorage.close();
      await app.snapshot();
      await store.close();
    },
  };
};

/**
 * The served process scavenges its young generation on the event loop's thread alone, unless node was given
 * `--parallel-scavenge` (or its negation) itself. On a machine whose cores are all busy (the server, its clients,
 * the snapshot and checkpoint workers) the parallel scavenger's helper threads wait for a core, and every scavenge
 * waits for them: at 1e6 commands, pauses over 20 ms under writes during marking (docs/decisions.md, "Scavenges on
 * one thread"). V8 reads the flag at each scavenge, so setting it here takes effect; NODE_OPTIONS does not accept it.
 */
export const scavengeOnOneThread = (): void => {
  if (process.execArgv.some((flag) => /^--(no-)?parallel[-_]scavenge$/.test(flag))) return;
  setFlagsFromString('--no-parallel-scavenge');
};

export async function serve(args: ParsedArgs): Promise<void> {
  if (wantsHelp(args.argv)) {
    const lines = [serveSpec.usage, '', serveSpec.summary, '', serveSpec.description, '', 'Options:'];
    for (const [name, option] of Object.entries(serveSpec.options)) lines.push(`  --${name}${'value' in option ? ` ${option.value}` : ''}  ${option.description}`);
    process.stdout.write(`${lines.join('\n')}\n`);
    return;
  }
  const config = serveConfig(args);
  scavengeOnOneThread();
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const server = await startForgefold(config, { say });
  say(`Forgefold listening on ${server.url}`);
  await new Promise<void>((resolve) => {
    let stopping = false;
    const stop = async (signal: string) => {
      if (stopping) return;
      stopping = true;
      say(`Forgefold stopping (${signal})`);
      await server.close();
      say('Forgefold stopped');
      resolve();
    };
    process.once('SIGTERM', () => void stop('SIGTERM'));
    process.once('SIGINT', () => void stop('SIGINT'));
  });
}

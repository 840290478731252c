/**
 * `forgefold import`: loads an NDJSON export into a store. Two passes: the first validates every line (JSON,
 * envelope shape, decoding with the registry, log order) and imports nothing if any line is bad; the second
 * writes in batches, preserving event ids, types, schema versions, raw data, recordedAt, metadata and streams.
 * Standard input is spooled to a temporary file during the first pass, so memory stays bounded.
 */
import { once } from 'node:events';
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { foldLog, type EventRegistry, type EventStore, type NewEvent, type RecordedEvent, type StreamWrite } from '@forgefold/core';
import { importBundles, repositoriesSlice } from '../repositories.js';
import type { Domain } from '../domain.js';
import { CliError, commonOptions, EXIT_FAILURE, EXIT_OK, parseFlags, type CommandSpec } from '../args.js';
import { printLine, writeChunk, type CliContext, type Command } from '../context.js';
import { createProgress } from '../progress.js';
import { dataPaths, resolveDataDir } from '../paths.js';
import { databaseUrlFrom, openDataStore, withStore } from '../store.js';

/** Events written per transaction. */
export const IMPORT_BATCH = 1_000;
/** Bad lines listed before "… and N more". */
const MAX_REPORTED = 20;

const spec = {
  name: 'import',
  usage: 'import [--in FILE] [--append] [--dry-run] [--data DIR]',
  summary: 'Load an NDJSON event log (as written by `forgefold export`) into the data directory.',
  description: `
Every line is validated first: valid JSON, a complete envelope (eventId, type, schemaVersion, recordedAt,
metadata, streamId, streamVersion, globalPosition, data), an event the registry decodes (upcasting older
schema versions), a stream id matching the event's data, and log order. If any line is bad, each bad line is
reported with its number and nothing is imported. Blank lines are ignored.

The target must be empty unless --append is given. Into an empty store, positions and stream versions must
run 1, 2, 3… as in the file, and the positions assigned are checked against the file's. With --append,
positions are re-assigned after the current head; events whose ids are already present are skipped.
Events are written in transactions of ${IMPORT_BATCH}: should the store fail midway, the earlier batches stay.

Repositories: every repository the imported log records is created from its bundle in the repositories
directory (written by \`forgefold export\`), or empty when it had no refs, and its refs are set to the log's.
Repositories that already exist (with --append) are left alone.`,
  options: {
    in: { type: 'string', value: 'FILE', description: "Read from FILE (default: standard input; '-' also means stdin)" },
    append: { type: 'boolean', description: 'Allow a non-empty target: append after its head' },
    'dry-run': { type: 'boolean', description: 'Validate only; write nothing' },
    repositories: { type: 'string', value: 'DIR', description: 'Git bundles of the repositories (default: <FILE>.repositories beside --in FILE)' },
    ...commonOptions,
  },
} as const satisfies CommandSpec;

const ORIGINS = new Set(['api', 'scim', 'system']);
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isPositiveInteger = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 1;
const isIntegerOrNull = (value: unknown): boolean => value === null || (typeof value === 'number' && Number.isSafeInteger(value));

/** Checks the envelope's shape; returns the problems (empty when valid). */
export const envelopeProblems = (value: unknown): string[] => {
  if (!isRecord(value)) return ['not a JSON object'];
  const problems: string[] = [];
  const requireString = (field: string) => {
    if (typeof value[field] !== 'string' || value[field] === '') problems.push(`${field} must be a non-empty string`);
  };
  requireString('eventId');
  requireString('type');
  requireString('streamId');
  if (!isPositiveInteger(value.schemaVersion)) problems.push('schemaVersion must be an integer >= 1');
  if (!isPositiveInteger(value.streamVersion)) problems.push('streamVersion must be an integer >= 1');
  if (!isPositiveInteger(value.globalPosition)) problems.push('globalPosition must be an integer >= 1');
  if (typeof value.recordedAt !== 'string' || !ISO_UTC.test(value.recordedAt) || Number.isNaN(Date.parse(value.recordedAt))) {
    problems.push('recordedAt must be an ISO-8601 UTC time (YYYY-MM-DDTHH:MM:SS.sssZ)');
  }
  if (!('data' in value)) problems.push('data is missing');
  const metadata = value.metadata;
  if (!isRecord(metadata)) problems.push('metadata must be an object');
  else {
    if (!('actorId' in metadata) || !isIntegerOrNull(metadata.actorId)) problems.push('metadata.actorId must be an integer or null');
    if (typeof metadata.origin !== 'string' || !ORIGINS.has(metadata.origin)) problems.push("metadata.origin must be 'api', 'scim' or 'system'");
    if ('sudoFromId' in metadata && metadata.sudoFromId !== undefined && !isIntegerOrNull(metadata.sudoFromId)) {
      problems.push('metadata.sudoFromId must be an integer or null');
    }
    if ('requestId' in metadata && metadata.requestId !== undefined && metadata.requestId !== null && typeof metadata.requestId !== 'string') {
      problems.push('metadata.requestId must be a string or null');
    }
  }
  return problems;
};

interface LineError {
  readonly line: number;
  readonly message: string;
}

/** Validates one parsed line as a recorded event of this registry. */
const validateEvent = (registry: EventRegistry, value: unknown): string | null => {
  const problems = envelopeProblems(value);
  if (problems.length > 0) return `invalid envelope: ${problems.join('; ')}`;
  // `envelopeProblems` found every envelope field in place.
  const event = value as unknown as RecordedEvent;
  const decoded = registry.decode(event);
  if (decoded._tag === 'Left') return decoded.left.message;
  let stream: string;
  try {
    stream = registry.streamOf(decoded.right);
  } catch (error) {
    return `cannot determine the stream of ${event.type}: ${error instanceof Error ? error.message : String(error)}`;
  }
  if (stream !== event.streamId) return `streamId ${event.streamId} does not match the stream of its data (${stream})`;
  return null;
};

async function* readLines(input: Readable): AsyncGenerator<string> {
  const lines = createInterface({ input, crlfDelay: Infinity });
  try {
    for await (const line of lines) yield line;
  } finally {
    lines.close();
  }
}

interface Validation {
  readonly events: number;
  readonly errors: readonly LineError[];
  readonly errorCount: number;
}

/** Pass 1. `strictOrder`: positions and stream versions must be exactly 1, 2, 3… (import into an empty store). */
const validate = async (registry: EventRegistry, lines: AsyncIterable<string>, strictOrder: boolean, spool?: Writable): Promise<Validation> => {
  const errors: LineError[] = [];
  let errorCount = 0;
  let events = 0;
  let lineNumber = 0;
  let lastPosition = 0;
  const streamVersions = new Map<string, number>();
  const report = (message: string) => {
    errorCount++;
    if (errors.length < MAX_REPORTED) errors.push({ line: lineNumber, message });
  };
  // After a line that is not JSON, its position is unknown: the next line's gap check is skipped.
  let previousUnknown = false;
  for await (const line of lines) {
    lineNumber++;
    if (spool) await writeChunk(spool, `${line}\n`);
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      report(`invalid JSON: ${error instanceof Error ? error.message : String(error)}`);
      previousUnknown = true;
      continue;
    }
    const problem = validateEvent(registry, value);
    if (problem !== null) report(problem);
    else events++;
    // Log order is checked on every line that has a position, valid or not, so one bad line is reported once.
    const { globalPosition, streamId, streamVersion } = (isRecord(value) ? value : {}) as Partial<Record<string, unknown>>;
    if (isPositiveInteger(globalPosition)) {
      if (globalPosition <= lastPosition) {
        if (problem === null) report(`globalPosition ${globalPosition} is not after the previous line's ${lastPosition}: lines must be in log order`);
      } else if (strictOrder && !previousUnknown && globalPosition !== lastPosition + 1 && problem === null) {
        report(`globalPosition ${globalPosition} leaves a gap after ${lastPosition}: an import into an empty store must start at 1 without gaps (or use --append)`);
      }
      lastPosition = Math.max(lastPosition, globalPosition);
    }
    previousUnknown = !isPositiveInteger(globalPosition);
    if (strictOrder && typeof streamId === 'string' && isPositiveInteger(streamVersion)) {
      const expected = (streamVersions.get(streamId) ?? 0) + 1;
      if (streamVersion !== expected && problem === null) report(`streamVersion ${streamVersion} of stream ${streamId} should be ${expected}`);
      streamVersions.set(streamId, Math.max(expected, streamVersion));
    }
  }
  return { events, errors, errorCount };
};

/** Consecutive events of one stream become one write (expected version 'any': the store assigns versions). */
const toWrites = (batch: readonly RecordedEvent[]): (StreamWrite & { readonly source: readonly RecordedEvent[] })[] => {
  const writes: { streamId: string; expected: 'any'; events: NewEvent[]; source: RecordedEvent[] }[] = [];
  for (const event of batch) {
    const newEvent: NewEvent = {
      eventId: event.eventId,
      type: event.type,
      schemaVersion: event.schemaVersion,
      data: event.data,
      recordedAt: event.recordedAt,
      metadata: event.metadata,
    };
    const last = writes[writes.length - 1];
    if (last && last.streamId === event.streamId) {
      last.events.push(newEvent);
      last.source.push(event);
    } else writes.push({ streamId: event.streamId, expected: 'any', events: [newEvent], source: [event] });
  }
  return writes;
};

interface WriteOutcome {
  readonly written: number;
  readonly duplicates: number;
  readonly firstPosition: number | null;
  readonly lastPosition: number | null;
}

/** Pass 2: writes the (already validated) lines in batches, each one transaction. */
const write = async (
  store: EventStore,
  lines: AsyncIterable<string>,
  checkPositions: boolean,
  onProgress: (events: number) => void,
): Promise<WriteOutcome> => {
  let head = await store.headPosition();
  let written = 0;
  let duplicates = 0;
  let firstPosition: number | null = null;
  let lastPosition: number | null = null;
  let batch: RecordedEvent[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    const writes = toWrites(batch);
    const results = await store.commit(writes, { expectedPosition: head });
    writes.forEach((entry, index) => {
      const result = results[index]!;
      if (result.duplicate) {
        duplicates += entry.events.length;
        return;
      }
      written += entry.events.length;
      const last = entry.source[entry.source.length - 1]!;
      firstPosition ??= result.lastPosition - entry.events.length + 1;
      lastPosition = result.lastPosition;
      if (checkPositions && (result.lastPosition !== last.globalPosition || result.nextExpectedVersion !== last.streamVersion)) {
        throw new CliError(
          `event ${last.eventId} was written at position ${result.lastPosition} (stream version ${result.nextExpectedVersion}) ` +
            `but the file says ${last.globalPosition} (stream version ${last.streamVersion}); the import is incomplete`,
        );
      }
    });
    head = await store.headPosition();
    onProgress(written + duplicates);
    batch = [];
  };
  for await (const line of lines) {
    if (line.trim() === '') continue;
    batch.push(JSON.parse(line) as RecordedEvent);
    if (batch.length >= IMPORT_BATCH) await flush();
  }
  await flush();
  return { written, duplicates, firstPosition, lastPosition };
};

/** The repositories of the imported log, from the bundles beside the file (see the spec's description). */
const importRepositories = async (domain: Domain, events: EventStore, dataDir: string, cwd: string, bundles: string | null): Promise<void> => {
  if (!repositoriesSlice(domain.decider.initialState())) return;
  const folded = await foldLog({ decider: domain.decider, registry: domain.registry, store: events }, domain.decider.initialState(), 0, true);
  const slice = repositoriesSlice(folded.state);
  if (!slice) return;
  await importBundles(slice, dataPaths(dataDir, cwd).repositories, bundles === null ? null : resolve(cwd, bundles));
};

export const importLog: Command = {
  spec,
  async run(argv, context: CliContext) {
    const flags = parseFlags(spec, argv);
    const fromStdin = flags.in === undefined || flags.in === '-';
    const source = fromStdin ? '<stdin>' : resolve(context.cwd, flags.in!);
    const domain = await context.loadDomain();
    const dryRun = flags['dry-run'] === true;
    const dataDir = resolveDataDir(flags.data, context.env);
    const databaseUrl = databaseUrlFrom(flags['database-url'], context.env, spec.name);
    // A missing database is an empty store: it is created only once the file has been validated. (A PostgreSQL
    // database is there already; opening it applies the migrations, except for a dry run.)
    const exists = databaseUrl !== undefined || existsSync(dataPaths(dataDir, context.cwd).database);
    const store = exists ? await openDataStore(context.openStore, dataDir, context.cwd, 'existing', { readonly: dryRun }, databaseUrl) : null;
    const run = async (existing: EventStore | null): Promise<number> => {
      const head = existing ? await existing.headPosition() : 0;
      if (head > 0 && !flags.append && !dryRun) {
        throw new CliError(`the target store is not empty (head at position ${head}); use --append to add the events after it`);
      }
      const strictOrder = !flags.append;
      const spoolDir = fromStdin ? await mkdtemp(join(tmpdir(), 'forgefold-import-')) : undefined;
      try {
        const spoolPath = spoolDir ? join(spoolDir, 'events.ndjson') : undefined;
        const spool = spoolPath ? createWriteStream(spoolPath) : undefined;
        let input: Readable;
        if (fromStdin) input = context.stdin;
        else {
          input = createReadStream(source);
          await once(input, 'open').catch((error: unknown) => {
            throw new CliError(`cannot read ${source}: ${error instanceof Error ? error.message : String(error)}`);
          });
        }
        const validation = await validate(domain.registry, readLines(input), strictOrder, spool);
        if (spool) {
          const closed = once(spool, 'close');
          spool.end();
          await closed;
        }
        if (validation.errorCount > 0) {
          for (const { line, message } of validation.errors) await printLine(context.stderr, `${source}:${line}: ${message}`);
          if (validation.errorCount > validation.errors.length) {
            await printLine(context.stderr, `… and ${validation.errorCount - validation.errors.length} more bad lines`);
          }
          await printLine(context.stderr, `import aborted: ${validation.errorCount} bad line(s) in ${source}; nothing was imported`);
          return EXIT_FAILURE;
        }
        if (dryRun) {
          const refused = head > 0 && !flags.append ? `; the target is not empty (head at position ${head}): a real import needs --append` : '';
          await printLine(context.stdout, `${source}: ${validation.events} valid events; nothing written (dry run)${refused}`);
          return EXIT_OK;
        }
        const writeAll = async (events: EventStore): Promise<WriteOutcome> => {
          const progress = createProgress('import', context.stderr);
          try {
            const again = createReadStream(spoolPath ?? source);
            const written = await write(events, readLines(again), head === 0 && strictOrder, (done) => progress.update(done, validation.events));
            await importRepositories(domain, events, resolveDataDir(flags.data, context.env), context.cwd, flags.repositories ?? (fromStdin ? null : `${source}.repositories`));
            return written;
          } finally {
            progress.finish();
          }
        };
        const warnings: string[] = [];
        const outcome = existing
          ? await writeAll(existing)
          : await withStore(await openDataStore(context.openStore, dataDir, context.cwd, 'create', { readonly: false }, undefined, (line) => warnings.push(line)), ({ events }) => writeAll(events));
        const range = outcome.firstPosition !== null ? ` (positions ${outcome.firstPosition}..${outcome.lastPosition})` : '';
        const skipped = outcome.duplicates > 0 ? `; ${outcome.duplicates} already present, skipped` : '';
        for (const line of warnings) await printLine(context.stderr, `warning: ${line}`);
        await printLine(context.stdout, `imported ${outcome.written} events${range} from ${source}${skipped}`);
        return EXIT_OK;
      } finally {
        if (spoolDir) await rm(spoolDir, { recursive: true, force: true });
      }
    };
    return store ? withStore(store, ({ events }) => run(events)) : run(null);
  },
};

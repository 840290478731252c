/** `forgefold export`: the whole log as NDJSON, streamed page by page. */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { foldLog, type RecordedEvent } from '@forgefold/core';
import { exportBundles, repositoriesSlice } from '../repositories.js';
import { commonOptions, EXIT_OK, parseFlags, type CommandSpec } from '../args.js';
import { printLine, writeChunk, type CliContext, type Command } from '../context.js';
import { createProgress } from '../progress.js';
import { dataPaths, resolveDataDir } from '../paths.js';
import { SECRET_FILE_MODE } from '../secure.js';
import { databaseUrlFrom, openDataStore, withStore } from '../store.js';

/** Events read per page: bounds memory whatever the size of the log. */
export const EXPORT_PAGE = 2_000;

const spec = {
  name: 'export',
  usage: 'export [--out FILE] [--repositories DIR] [--data DIR]',
  summary: 'Write the whole event log as NDJSON, one recorded envelope per line, in log order.',
  description: `
Each line is a JSON object with globalPosition, streamId, streamVersion, eventId, type, schemaVersion,
recordedAt, metadata and data (raw, as stored: not upcast). The log is read in pages up to the head at the
start, so a live writer cannot make the file inconsistent. With --out, the file appears (atomically renamed)
only when the export is complete, with mode 0600. The store is opened read-only.
The export holds secrets: password digests (scrypt), personal, impersonation, OAuth and SCIM token digests
(SHA-256), e-mail addresses and SCIM identities. Keep it as private as the data directory
(umask 077 before redirecting stdout to a file).

Repositories: one git bundle per repository that has refs (\`project-<id>.bundle\`, every ref), written to
--repositories DIR, by default <FILE>.repositories beside --out FILE (none when writing to stdout without it).
\`forgefold import\` reads them from the same place.`,
  options: {
    out: { type: 'string', value: 'FILE', description: 'Write to FILE instead of stdout' },
    repositories: { type: 'string', value: 'DIR', description: 'Write the repositories as git bundles to DIR (default: <FILE>.repositories)' },
    ...commonOptions,
  },
} as const satisfies CommandSpec;

/** One NDJSON line (without the newline), fields in a fixed order. */
export const envelopeLine = (event: RecordedEvent): string =>
  JSON.stringify({
    globalPosition: event.globalPosition,
    streamId: event.streamId,
    streamVersion: event.streamVersion,
    eventId: event.eventId,
    type: event.type,
    schemaVersion: event.schemaVersion,
    recordedAt: event.recordedAt,
    metadata: event.metadata,
    data: event.data,
  });

const closeStream = async (stream: Writable): Promise<void> => {
  const finished = once(stream, 'close');
  stream.end();
  await finished;
};

export const exportLog: Command = {
  spec,
  async run(argv, context: CliContext) {
    const flags = parseFlags(spec, argv);
    const dataDir = resolveDataDir(flags.data, context.env);
    const bundles = flags.repositories !== undefined ? resolve(context.cwd, flags.repositories) : flags.out !== undefined ? `${resolve(context.cwd, flags.out)}.repositories` : null;
    const domain = bundles === null ? null : await context.loadDomain();
    const store = await openDataStore(context.openStore, resolveDataDir(flags.data, context.env), context.cwd, 'existing', { readonly: true }, databaseUrlFrom(flags['database-url'], context.env, spec.name));
    const target = flags.out !== undefined ? resolve(context.cwd, flags.out) : undefined;
    const partial = target !== undefined ? `${target}.partial-${process.pid}` : undefined;
    const output: Writable = partial !== undefined ? createWriteStream(partial, { flags: 'wx', mode: SECRET_FILE_MODE }) : context.stdout;
    let failed: unknown;
    let bundled = 0;
    const onError = (error: unknown): void => {
      failed ??= error;
    };
    output.on('error', onError);
    try {
      const { count, head } = await withStore(store, async ({ events }) => {
        const head = await events.headPosition();
        const progress = createProgress('export', context.stderr);
        let after = 0;
        let count = 0;
        try {
          while (after < head) {
            const page = await events.readAll(after, Math.min(EXPORT_PAGE, head - after));
            if (page.length === 0) break;
            let chunk = '';
            for (const event of page) chunk += `${envelopeLine(event)}\n`;
            if (failed) throw failed;
            await writeChunk(output, chunk);
            after = page[page.length - 1]!.globalPosition;
            count += page.length;
            progress.update(after, head);
          }
        } finally {
          progress.finish();
        }
        // The repositories as the log left them at its head (a bundle holds every ref; import sets them to the log's).
        if (bundles !== null && domain !== null && repositoriesSlice(domain.decider.initialState())) {
          const folded = await foldLog({ decider: domain.decider, registry: domain.registry, store: events }, domain.decider.initialState(), 0, true, (event) => event.globalPosition <= head);
          const slice = repositoriesSlice(folded.state);
          if (slice) bundled = await exportBundles(slice, dataPaths(dataDir, context.cwd).repositories, bundles);
        }
        return { count, head };
      });
      if (failed) throw failed;
      if (partial !== undefined && target !== undefined) {
        await closeStream(output);
        if (failed) throw failed;
        await rename(partial, target);
        await printLine(context.stdout, `exported ${count} events (positions 1..${head}) to ${target}${bundled > 0 ? ` and ${bundled} repositories to ${bundles}` : ''}`);
      }
      return EXIT_OK;
    } catch (error) {
      if (partial !== undefined) {
        output.destroy();
        await rm(partial, { force: true });
      }
      throw error;
    } finally {
      output.off('error', onError);
    }
  },
};

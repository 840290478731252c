/** `forgefold snapshot`: starts the application over the data directory, takes a snapshot now, closes. */
import { randomUUID } from 'node:crypto';
import { Application, stateHash } from '@forgefold/core';
import { commonOptions, EXIT_OK, parseFlags, type CommandSpec } from '../args.js';
import { printLine, type CliContext, type Command } from '../context.js';
import { createProgress } from '../progress.js';
import { resolveDataDir } from '../paths.js';
import { databaseUrlFrom, openDataStore, withStore } from '../store.js';

const spec = {
  name: 'snapshot',
  usage: 'snapshot [--data DIR]',
  summary: 'Take a snapshot of the projections now (catching up from the newest snapshot and the log).',
  options: { ...commonOptions },
} as const satisfies CommandSpec;

export const snapshot: Command = {
  spec,
  async run(argv, context: CliContext) {
    const flags = parseFlags(spec, argv);
    const domain = await context.loadDomain();
    const store = await openDataStore(context.openStore, resolveDataDir(flags.data, context.env), context.cwd, 'existing', { readonly: false }, databaseUrlFrom(flags['database-url'], context.env, spec.name));
    const taken = await withStore(store, async ({ events, snapshots }) => {
      const progress = createProgress('snapshot', context.stderr);
      let app: Application<never, unknown>;
      try {
        app = await Application.start<never, unknown>({
          decider: domain.decider,
          registry: domain.registry,
          store: events,
          snapshots,
          projectionVersion: domain.projectionVersion,
          clock: { now: () => new Date().toISOString() },
          ids: { eventId: () => randomUUID() },
          onProgress: (done, head) => progress.update(done, head),
        });
      } finally {
        progress.finish();
      }
      await app.snapshot();
      return { position: app.position, hash: stateHash(app.state) };
    });
    await printLine(context.stdout, `snapshot taken at position ${taken.position} (projection version ${domain.projectionVersion}, state hash ${taken.hash})`);
    return EXIT_OK;
  },
};

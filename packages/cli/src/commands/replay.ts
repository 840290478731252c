/** `forgefold replay`: rebuilds the projections from the log up to a point and summarizes them. */
import { foldLog, stateHash } from '@forgefold/core';
import { commonOptions, EXIT_OK, parseFlags, parseIsoTime, parseNonNegativeInteger, UsageError, type CommandSpec } from '../args.js';
import { printLine, type CliContext, type Command } from '../context.js';
import { createProgress } from '../progress.js';
import { resolveDataDir } from '../paths.js';
import { databaseUrlFrom, openDataStore, withStore } from '../store.js';
import { genericSummary, type SummaryValue } from '../summary.js';

const spec = {
  name: 'replay',
  usage: 'replay [--until ISO-TIME | --position N] [--json] [--data DIR]',
  summary: 'Rebuild the projections from the event log into a fresh state and summarize what existed at that point.',
  description: `
Folds the log from position 1 into an empty state, without snapshots, and prints the position and time of
the last event folded, the state hash, and the number of entries per projection slice.
  --until folds the events recorded at or before the time; it stops at the first later event, so the result
          is always a prefix of the log (what the service knew at that moment).
  --position folds the events up to and including that global position (beyond the head: up to the head).
Without either, folds the whole log. The store is opened read-only.`,
  options: {
    until: { type: 'string', value: 'ISO-TIME', description: 'Fold events with recordedAt <= ISO-TIME (e.g. 2026-11-22T13:46:00Z)' },
    position: { type: 'string', value: 'N', description: 'Fold events with globalPosition <= N' },
    json: { type: 'boolean', description: 'Print the summary as JSON' },
    ...commonOptions,
  },
} as const satisfies CommandSpec;

export interface ReplaySummary {
  /** Global position of the last event folded (0: nothing). */
  readonly position: number;
  /** The log's head when the replay started. */
  readonly head: number;
  readonly lastEventAt: string | null;
  readonly lastEventType: string | null;
  readonly until: string | null;
  readonly requestedPosition: number | null;
  readonly projectionVersion: string;
  readonly stateHash: string;
  readonly slices: unknown;
}

const formatSlices = (slices: unknown): string[] => {
  if (typeof slices !== 'object' || slices === null || Array.isArray(slices)) return [`  ${JSON.stringify(slices)}`];
  const entries = Object.entries(slices as Record<string, unknown>);
  if (entries.length === 0) return ['  (none)'];
  const width = Math.max(...entries.map(([name]) => name.length));
  return entries.map(([name, value]) => {
    const text = typeof value === 'number' ? value.toLocaleString('en-US') : typeof value === 'string' ? value : JSON.stringify(value);
    return `  ${name.padEnd(width)}  ${text}`;
  });
};

export const formatReplaySummary = (summary: ReplaySummary): string[] => [
  `position      ${summary.position} of ${summary.head} (head)${summary.until ? `, until ${summary.until}` : ''}${summary.requestedPosition !== null ? `, requested ${summary.requestedPosition}` : ''}`,
  `last event    ${summary.lastEventAt ? `${summary.lastEventAt} (${summary.lastEventType})` : '(none)'}`,
  `projection    ${summary.projectionVersion}`,
  `state hash    ${summary.stateHash}`,
  'slices',
  ...formatSlices(summary.slices),
];

export const replay: Command = {
  spec,
  async run(argv, context: CliContext) {
    const flags = parseFlags(spec, argv);
    if (flags.until !== undefined && flags.position !== undefined) throw new UsageError('--until and --position cannot be combined', spec.name);
    const untilMs = flags.until !== undefined ? parseIsoTime('until', flags.until, spec.name) : undefined;
    const requested = flags.position !== undefined ? parseNonNegativeInteger('position', flags.position, spec.name) : undefined;
    const domain = await context.loadDomain();
    const store = await openDataStore(context.openStore, resolveDataDir(flags.data, context.env), context.cwd, 'existing', { readonly: true }, databaseUrlFrom(flags['database-url'], context.env, spec.name));
    const summary = await withStore(store, async ({ events }): Promise<ReplaySummary> => {
      const head = await events.headPosition();
      const bound = requested !== undefined ? Math.min(requested, head) : head;
      const progress = createProgress('replay', context.stderr);
      const { state, position } = await (async () => {
        try {
          return await foldLog(
            { decider: domain.decider, registry: domain.registry, store: events, onProgress: (done) => progress.update(done, bound) },
            domain.decider.initialState(),
            0,
            true,
            (event) => event.globalPosition <= bound && (untilMs === undefined || Date.parse(event.recordedAt) <= untilMs),
          );
        } finally {
          progress.finish();
        }
      })();
      const last = position > 0 ? (await events.readAll(position - 1, 1))[0] : undefined;
      const slices: unknown = domain.summarize ? domain.summarize(state) : (genericSummary(state) satisfies Record<string, SummaryValue>);
      return {
        position,
        head,
        lastEventAt: last?.recordedAt ?? null,
        lastEventType: last?.type ?? null,
        until: untilMs !== undefined ? new Date(untilMs).toISOString() : null,
        requestedPosition: requested ?? null,
        projectionVersion: domain.projectionVersion,
        stateHash: stateHash(state),
        slices,
      };
    });
    if (flags.json) await printLine(context.stdout, JSON.stringify(summary, null, 2));
    else for (const line of formatReplaySummary(summary)) await printLine(context.stdout, line);
    return EXIT_OK;
  },
};

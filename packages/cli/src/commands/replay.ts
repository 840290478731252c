/** `forgefold replay`: rebuilds the projections from the log up to a point and summarizes them. */
import { foldLog, stateHash } from '@forgefold/core';
import { commonOptions, EXIT_OK, parseFlags, parseIsoTime, parseNonNegativeInteger, UsageError, type CommandSpec } from '../args.js';
import { printLine, type CliContext, type Command } from '../context.js';
import { createProgress } from '../progress.js';
import { resolveDataDir } from '../paths.js';
import { databaseUrlFrom, openDataStore, withStore } from '../store.js';
import { genericSummary, type SummaryValue } from '../summary.js';
import { formatInventory, type Inventory } from '../inventory.js';

const spec = {
  name: 'replay',
  usage: 'replay [--until ISO-TIME | --position N] [--counts] [--json] [--data DIR]',
  summary: 'Rebuild the projections from the event log into a fresh state and summarize what existed at that point.',
  description: `
Folds the log from position 1 into an empty state, without snapshots, and prints the position and time of
the last event folded, the state hash, the number of entries per projection slice, and then what existed by
name: users, groups (full paths), projects (paths) and the direct memberships of each group and project
(members per access level, awaiting, invitations, shares, LDAP links).
  --until folds the events recorded at or before the time; it stops at the first later event, so the result
          is always a prefix of the log (what the service knew at that moment).
  --position folds the events up to and including that global position (beyond the head: up to the head).
Without either, folds the whole log. The store is opened read-only.
Effective members at that time (inherited and shared included, with who granted them):
  forgefold audit --group PATH --at ISO-TIME   (or --project PATH)`,
  options: {
    until: { type: 'string', value: 'ISO-TIME', description: 'Fold events with recordedAt <= ISO-TIME (e.g. 2026-11-22T13:46:00Z)' },
    position: { type: 'string', value: 'N', description: 'Fold events with globalPosition <= N' },
    counts: { type: 'boolean', description: 'Print counts and the state hash only, no names' },
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
  /** What existed by name (absent with --counts, or for a domain without an inventory). */
  readonly inventory?: Inventory;
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

/** The moment a replay stands for: --until, else the time of the last event folded. */
const momentOf = (summary: ReplaySummary): string | null => summary.until ?? summary.lastEventAt;

/** `dataFlag`: the --data the user gave, repeated in the audit hint so that it can be pasted. */
export const formatReplaySummary = (summary: ReplaySummary, dataFlag?: string): string[] => {
  const lines = [
    `position      ${summary.position} of ${summary.head} (head)${summary.until ? `, until ${summary.until}` : ''}${summary.requestedPosition !== null ? `, requested ${summary.requestedPosition}` : ''}`,
    `last event    ${summary.lastEventAt ? `${summary.lastEventAt} (${summary.lastEventType})` : '(none)'}`,
    `projection    ${summary.projectionVersion}`,
    `state hash    ${summary.stateHash}`,
    'slices',
    ...formatSlices(summary.slices),
  ];
  if (summary.inventory) lines.push(...formatInventory(summary.inventory));
  const moment = momentOf(summary);
  if (moment !== null) {
    const data = dataFlag !== undefined ? ` --data ${/^[\w./:@%+-]+$/.test(dataFlag) ? dataFlag : `'${dataFlag.replaceAll("'", "'\\''")}'`}` : '';
    lines.push(`effective members then (inherited and shared, who granted them): forgefold audit${data} --group PATH --at ${moment}  (or --project PATH)`);
  }
  return lines;
};

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
      const lastEventAt = last?.recordedAt ?? null;
      const day = (untilMs !== undefined ? new Date(untilMs).toISOString() : lastEventAt)?.slice(0, 10);
      const inventory = !flags.counts && domain.inventory ? domain.inventory(state, day) : undefined;
      return {
        position,
        head,
        lastEventAt,
        lastEventType: last?.type ?? null,
        until: untilMs !== undefined ? new Date(untilMs).toISOString() : null,
        requestedPosition: requested ?? null,
        projectionVersion: domain.projectionVersion,
        stateHash: stateHash(state),
        slices,
        ...(inventory ? { inventory } : {}),
      };
    });
    if (flags.json) await printLine(context.stdout, JSON.stringify(summary, null, 2));
    else for (const line of formatReplaySummary(summary, flags.data)) await printLine(context.stdout, line);
    return EXIT_OK;
  },
};

/**
 * `forgefold verify`: checks the newest snapshot against a full refold of the log. The refold's state hash
 * is compared with the snapshot's at the snapshot's position, and (when the log has grown since) with the
 * snapshot folded forward to the head.
 */
import { foldLog, stateHash, type EventStore, type RecordedEvent, type SnapshotStore } from '@forgefold/core';
import { CliError, commonOptions, EXIT_OK, EXIT_USAGE, parseFlags, type CommandSpec } from '../args.js';
import { printLine, type CliContext, type Command } from '../context.js';
import type { Domain } from '../domain.js';
import { createProgress, type Progress } from '../progress.js';
import { dataPaths, resolveDataDir } from '../paths.js';
import { checkRepositories, repositoriesSlice, type RepositoryCheck } from '../repositories.js';
import { databaseUrlFrom, openDataStore, withStore } from '../store.js';

export const EXIT_MISMATCH = 1;
export const EXIT_NO_SNAPSHOT = 2;

const spec = {
  name: 'verify',
  usage: 'verify [--json] [--data DIR]',
  summary: "Check that the newest snapshot equals a full refold of the event log (by state hash).",
  description: `
Refolds the log from position 0 into a fresh state and compares its stateHash with the newest snapshot of
the current projection version: at the snapshot's position, and, when the log has grown since the snapshot,
once more at the head after folding the snapshot's state forward. Prints every hash compared. The store is
opened read-only.`,
  options: {
    json: { type: 'boolean', description: 'Print the result as JSON' },
    ...commonOptions,
  },
  exitCodes: [
    [EXIT_OK, 'the snapshot matches the refolded log'],
    [EXIT_MISMATCH, 'mismatch (or the snapshot is ahead of the log, or an event or the snapshot cannot be folded)'],
    [EXIT_NO_SNAPSHOT, 'there is no snapshot of the current projection version to verify'],
    [EXIT_USAGE, 'bad flags or arguments'],
  ],
} as const satisfies CommandSpec;

export interface HashComparison {
  readonly position: number;
  /** The snapshot's state (folded forward to `position` when it is older). */
  readonly snapshot: string;
  readonly refold: string;
  readonly match: boolean;
}

export interface VerifyResult {
  readonly status: 'match' | 'mismatch' | 'no-snapshot';
  readonly projectionVersion: string;
  readonly head: number;
  readonly snapshotPosition: number | null;
  readonly snapshotTakenAt: string | null;
  readonly comparisons: readonly HashComparison[];
  readonly message: string;
  /** Every repository's refs against the refs the log recorded (when the domain has repositories). */
  readonly repositories?: RepositoryCheck;
}

const fold = <S>(
  domain: Domain<S>,
  events: EventStore,
  base: S,
  from: number,
  to: number,
  progress: Progress,
  progressOffset: number,
  progressTotal: number,
): Promise<{ state: S; position: number }> =>
  foldLog(
    { decider: domain.decider, registry: domain.registry, store: events, onProgress: (done) => progress.update(progressOffset + done - from, progressTotal) },
    base,
    from,
    // A snapshot's state may come back frozen from a store; fold it through immer then.
    !Object.isFrozen(base),
    (event: RecordedEvent) => event.globalPosition <= to,
  );

const check = async (domain: Domain, events: EventStore, snapshots: Pick<SnapshotStore, 'load'>, stderr: CliContext['stderr']): Promise<VerifyResult> => {
  const head = await events.headPosition();
  const snapshot = await snapshots.load(domain.projectionVersion);
  const base = { projectionVersion: domain.projectionVersion, head };
  if (!snapshot) {
    return {
      ...base,
      status: 'no-snapshot',
      snapshotPosition: null,
      snapshotTakenAt: null,
      comparisons: [],
      message: `no snapshot of projection version ${domain.projectionVersion} to verify (take one with \`forgefold snapshot\`)`,
    };
  }
  const found = { ...base, snapshotPosition: snapshot.position, snapshotTakenAt: snapshot.takenAt };
  if (snapshot.position > head) {
    return { ...found, status: 'mismatch', comparisons: [], message: `the snapshot is at position ${snapshot.position} but the log ends at ${head}` };
  }
  const forward = head - snapshot.position;
  const total = head + forward;
  const progress = createProgress('verify', stderr);
  try {
    const comparisons: HashComparison[] = [];
    // Refold to the snapshot's position and compare there.
    const atSnapshot = await fold(domain, events, domain.decider.initialState(), 0, snapshot.position, progress, 0, total);
    if (atSnapshot.position !== snapshot.position) {
      throw new CliError(`the log has no event at position ${snapshot.position} (refold stopped at ${atSnapshot.position})`, EXIT_MISMATCH);
    }
    const snapshotHash = stateHash(snapshot.state);
    const refoldHash = stateHash(atSnapshot.state);
    comparisons.push({ position: snapshot.position, snapshot: snapshotHash, refold: refoldHash, match: snapshotHash === refoldHash });
    if (forward > 0) {
      // Continue the refold to the head, then bring the snapshot's state to the head and compare again.
      const refolded = await fold(domain, events, atSnapshot.state, snapshot.position, head, progress, snapshot.position, total);
      const refoldHeadHash = stateHash(refolded.state);
      const forwarded = await fold(domain, events, snapshot.state, snapshot.position, head, progress, head, total);
      const forwardedHash = stateHash(forwarded.state);
      comparisons.push({ position: refolded.position, snapshot: forwardedHash, refold: refoldHeadHash, match: forwardedHash === refoldHeadHash });
    }
    const match = comparisons.every((comparison) => comparison.match);
    return {
      ...found,
      status: match ? 'match' : 'mismatch',
      comparisons,
      message: match
        ? 'OK: the snapshot matches a full refold of the log'
        : 'MISMATCH: the snapshot differs from a full refold of the log (tampered, corrupted, or written by other projection code under the same version)',
    };
  } finally {
    progress.finish();
  }
};

export const verify: Command = {
  spec,
  async run(argv, context: CliContext) {
    const flags = parseFlags(spec, argv);
    const domain = await context.loadDomain();
    const store = await openDataStore(context.openStore, resolveDataDir(flags.data, context.env), context.cwd, 'existing', { readonly: true }, databaseUrlFrom(flags['database-url'], context.env, spec.name));
    const dataDir = dataPaths(resolveDataDir(flags.data, context.env), context.cwd);
    const result = await withStore(store, async ({ events, snapshots }) => {
      const checked = await check(domain, events, snapshots, context.stderr);
      // Git holds the objects, the log holds the refs: the repositories must hold exactly the refs the log folds to.
      const head = await events.headPosition();
      const folded = repositoriesSlice(domain.decider.initialState()) ? await foldLog({ decider: domain.decider, registry: domain.registry, store: events }, domain.decider.initialState(), 0, true) : null;
      const slice = folded && folded.position === head ? repositoriesSlice(folded.state) : null;
      if (!slice) return checked;
      const repositories = await checkRepositories(slice, dataDir.repositories);
      const agree = repositories.missing.length === 0 && repositories.mismatches.length === 0;
      if (agree) return { ...checked, repositories };
      return {
        ...checked,
        repositories,
        status: 'mismatch' as const,
        message: `${checked.message}\nMISMATCH: ${repositories.mismatches.length} ref(s) differ from the log, ${repositories.missing.length} repositories missing`,
      };
    });
    if (flags.json) await printLine(context.stdout, JSON.stringify(result, null, 2));
    else {
      const out = (text: string) => printLine(context.stdout, text);
      await out(`projection version  ${result.projectionVersion}`);
      await out(`log head            position ${result.head}`);
      if (result.snapshotPosition !== null) await out(`snapshot            position ${result.snapshotPosition}, taken ${result.snapshotTakenAt}`);
      for (const { position, snapshot, refold, match } of result.comparisons) {
        const label = position === result.snapshotPosition ? 'snapshot' : 'snapshot + tail';
        await out(`at position ${position}:`);
        await out(`  ${label.padEnd(15)}  ${snapshot}`);
        await out(`  ${'full refold'.padEnd(15)}  ${refold}  ${match ? 'match' : 'MISMATCH'}`);
      }
      if (result.repositories) {
        const { checked, missing, mismatches } = result.repositories;
        await out(`repositories        ${checked} checked, ${mismatches.length} ref(s) differ, ${missing.length} missing`);
        for (const project of missing) await out(`  project ${project}: no repository on disk`);
        for (const m of mismatches) await out(`  project ${m.project} ${m.ref}: log ${m.log ?? '(none)'}, git ${m.git ?? '(none)'}`);
      }
      await out(result.message);
    }
    return result.status === 'match' ? EXIT_OK : result.status === 'no-snapshot' ? EXIT_NO_SNAPSHOT : EXIT_MISMATCH;
  },
};

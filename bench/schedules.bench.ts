/**
 * Scheduler benchmarks (`pnpm bench schedules`): one scheduler tick — the process's `due`, the `RunDueSchedules`
 * decision and its events folded into the state through immer, as the application commits them — with 100,000
 * schedules of which 100 are due, against the same tick with 1,000 schedules of which 100 are due. The due
 * schedules are found through the index by next-run minute, so the tick costs the due schedules', not all of them.
 * Target: the 100,000 case within 2x of the 1,000 case. (next_run_at through the cron layer vs croner: cron.bench.ts.)
 *
 * Knobs: BENCH_SCHEDULES (default 100,000), BENCH_MS (duration of each case, default 2000).
 */
import * as E from 'fp-ts/lib/Either.js';
import { eventsOf, foldImmutable, foldMutable, forgefold, forgefoldProcesses, type DomainEvent, type State } from '@forgefold/core';
import { Report, envInt, throughput } from './lib.js';

const LARGE = envInt('BENCH_SCHEDULES', 100_000);
const SMALL = 1_000;
const DUE = 100;
const MS = envInt('BENCH_MS', 2_000);
const NOW = '2026-06-01T12:03:00.000Z';
const T0 = Date.parse(NOW);
const AT = '2026-06-01T00:00:00.000Z';

/** An owner, 20 projects with a `main` branch, and `count` schedules: `DUE` due now, the others over the next ~35 days. */
const stateWith = (count: number): State => {
  const events: DomainEvent[] = [
    {
      type: 'UserCreated',
      data: { id: 1, username: 'owner', name: 'Owner', email: 'owner@example.com', public_email: null, is_admin: true, bot: null, password_digest: null, namespace_id: 1, created_at: AT, created_by_id: null },
    },
  ];
  for (let project = 1; project <= 20; project++) {
    events.push(
      { type: 'ProjectCreated', data: { id: project, name: `p${project}`, path: `p${project}`, description: '', namespace_id: 1, namespace_kind: 'user', visibility: 'private', creator_id: 1, created_at: AT } },
      { type: 'BranchCreated', data: { project_id: project, name: 'main', sha: 'a'.repeat(40), via: 'api' } },
    );
  }
  for (let id = 1; id <= count; id++) {
    const due = id % Math.floor(count / DUE) === 0;
    const next = due ? NOW : new Date(T0 + 600_000 * (1 + (id % 5_000))).toISOString();
    events.push({
      type: 'ScheduleCreated',
      data: { project_id: 1 + (id % 20), id, description: `s${id}`, ref: 'main', cron: '3 12 * * *', cron_timezone: 'UTC', active: true, owner_id: 1, next_run_at: next, created_at: AT },
    });
  }
  // Frozen, as committed states are: a tick pays for what it changes, not for freezing what it did not touch.
  return freeze(foldMutable(forgefold.decider, forgefold.decider.initialState(), events));
};

/** Deep-freezes a state (what the application's freeze option does to committed states). */
const freeze = <T>(value: T): T => {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) freeze(child);
  }
  return value;
};

const process = forgefoldProcesses.find((candidate) => candidate.name === 'run-pipeline-schedules')!;

/** One tick: `due`, the decision, and its events applied through immer. */
const tick = (state: State): number => {
  if (!process.due(state, NOW)) throw new Error('nothing due');
  const decision = forgefold.decider.decide({ command: process.command, actor: { userId: null, origin: 'system' }, at: NOW }, state);
  if (E.isLeft(decision)) throw new Error(JSON.stringify(decision.left));
  const events = eventsOf(decision.right);
  foldImmutable(forgefold.decider, state, events);
  return events.length;
};

export default async function (): Promise<void> {
  const small = stateWith(SMALL);
  const large = stateWith(LARGE);
  const created = [tick(small), tick(large)];
  if (created.some((count) => count !== 2 * DUE)) throw new Error(`expected ${DUE} runs per tick, got ${created.join(', ')} events`);
  const smallRun = await throughput(() => tick(small), { ms: MS, minIterations: 20, warmup: 20 });
  const largeRun = await throughput(() => tick(large), { ms: MS, minIterations: 20, warmup: 20 });
  const perTick = (run: { opsPerSec: number }) => 1_000 / run.opsPerSec;
  const report = new Report(`schedules: one scheduler tick (${DUE} due schedules run) with ${LARGE.toLocaleString('en')} schedules vs ${SMALL.toLocaleString('en')}`);
  report
    .add(`tick, ${SMALL.toLocaleString('en')} schedules`, perTick(smallRun), 'ms')
    .add(`tick, ${LARGE.toLocaleString('en')} schedules`, perTick(largeRun), 'ms', {
      baseline: `tick, ${SMALL.toLocaleString('en')} schedules`,
      target: { ratio: 0.5, text: '< 2x the time' },
      note: 'due + decide + fold through immer',
    });
  report.print();
}

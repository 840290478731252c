/**
 * Cron benchmarks (`pnpm bench cron`): next times for BENCH_CRON_EXPRESSIONS random five-field expressions
 * (default 3,000, in standard syntax so that croner takes them as they are) × 6 zones, each against croner
 * alone in the same run (`new Cron(expression, { timezone }).nextRun(from)`, what an app would call):
 *
 *  (a) `nextTimeFrom` through the layer (fugit's grammar, zone names, croner or fugit's steps near DST),
 *      with its caches warm, as the scheduler calls it, vs croner's `nextRun` on jobs built once.
 *  (b) `nextRunAt`: the ideal time plus the worker cron's rounding (three next times), vs the same. Target ≥ 0.5x.
 *  (c) `nextRunAt`'s first pass with empty caches (each expression parsed, each zone's offsets read once) vs
 *      croner building a job and asking it once.
 *
 * Knobs: BENCH_CRON_EXPRESSIONS, BENCH_MS (duration of each case, default 2000).
 */
import { Cron } from 'croner';
import { nextRunAt, nextTimeFrom } from '@forgefold/cron';
import { Report, envInt, log, throughput, timed } from './lib.js';

const EXPRESSIONS = envInt('BENCH_CRON_EXPRESSIONS', 3_000);
const MS = envInt('BENCH_MS', 2_000);
const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Australia/Sydney', 'Asia/Tokyo'];

/** A seeded generator (mulberry32), so that runs compare. */
const prng = (seed: number) => {
  let a = seed >>> 0;
  return (n: number) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4_294_967_296) * n);
  };
};

const workload = () => {
  const r = prng(3_000);
  const field = (lo: number, hi: number, star: number): string => {
    const roll = r(100);
    if (roll < star) return '*';
    if (roll < star + 35) return String(lo + r(hi - lo + 1));
    if (roll < star + 50) {
      const a = lo + r(hi - lo + 1);
      return `${a}-${a + r(hi - a + 1)}`;
    }
    if (roll < star + 65) return `*/${1 + r(Math.min(hi, 30))}`;
    return `${lo + r(hi - lo + 1)},${lo + r(hi - lo + 1)}`;
  };
  return Array.from({ length: EXPRESSIONS }, (_, i) => ({
    cron: `${field(0, 59, 10)} ${field(0, 23, 20)} ${field(1, 28, 60)} ${field(1, 12, 70)} ${field(0, 6, 60)}`,
    tz: ZONES[i % ZONES.length]!,
    from: Date.UTC(2022, 0, 1) + r(365 * 24) * 3_600_000 + r(3_600_000),
  }));
};

export default async function (): Promise<void> {
  const cases = workload();
  const report = new Report(`cron: next times for ${EXPRESSIONS} expressions × ${ZONES.length} zones vs croner alone`);
  const pass = (fn: (c: (typeof cases)[number]) => unknown) => () => {
    for (const c of cases) fn(c);
  };
  const croner = pass((c) => new Cron(c.cron, { timezone: c.tz, paused: true }).nextRun(new Date(c.from)));
  const jobs = cases.map((c) => new Cron(c.cron, { timezone: c.tz, paused: true }));
  const cronerBuilt = () => {
    for (let i = 0; i < cases.length; i++) jobs[i]!.nextRun(new Date(cases[i]!.from));
  };
  const layerNext = pass((c) => nextTimeFrom(c.cron, c.tz, c.from));
  const layerRun = pass((c) => nextRunAt(c.cron, c.tz, c.from));

  const cold = await timed(layerRun);
  const base = await throughput(croner, { ms: MS, minIterations: 3, warmup: 1 });
  const built = await throughput(cronerBuilt, { ms: MS, minIterations: 3, warmup: 1 });
  const next = await throughput(layerNext, { ms: MS, minIterations: 3, warmup: 1 });
  const run = await throughput(layerRun, { ms: MS, minIterations: 3, warmup: 1 });
  const perExpression = (opsPerSec: number) => opsPerSec * EXPRESSIONS;

  let same = 0;
  for (const c of cases) {
    const a = nextTimeFrom(c.cron, c.tz, c.from);
    const b = new Cron(c.cron, { timezone: c.tz, paused: true }).nextRun(new Date(c.from));
    if (a.ok && b !== null && a.at.getTime() === b.getTime()) same++;
  }
  log(`the layer and croner agree on ${same} of ${EXPRESSIONS} next times (the rest: DST edges, where the layer follows fugit 1.2)`);

  report
    .add('croner alone (new Cron + nextRun)', perExpression(base.opsPerSec), 'ops/s')
    .add('croner alone, jobs built once (nextRun)', perExpression(built.opsPerSec), 'ops/s')
    .add('layer nextTimeFrom (warm)', perExpression(next.opsPerSec), 'ops/s', { baseline: 'croner alone, jobs built once (nextRun)' })
    .add('layer nextRunAt (warm)', perExpression(run.opsPerSec), 'ops/s', {
      baseline: 'croner alone, jobs built once (nextRun)',
      target: { ratio: 0.5, text: '≥ 0.5x' },
      note: 'ideal + worker rounding: three next times',
    })
    .add('layer nextRunAt (first pass, cold caches)', (EXPRESSIONS / cold.ms) * 1_000, 'ops/s', { baseline: 'croner alone (new Cron + nextRun)', note: 'parses, zone offsets read once per zone-year' });
  report.print();
}

/**
 * The layer against fugit itself: when Ruby and fugit are installed (Debian's ruby and ruby-fugit; .ci/run
 * installs them), a few thousand random expressions × zones × start times go through
 * packages/cron/oracle/fugit.rb and through @forgefold/cron, and every difference must be explained by a
 * documented quirk (docs/decisions.md, "Cron"): the platform runs fugit 1.2, Debian ships a newer one, and
 * the two differ on reversed ranges, `a/n`, `%`, duplicate weekdays and DST steps (a DST difference counts as
 * explained only when the engine, stepping as fugit 1.5 does, gives the oracle's answer). Anything else fails
 * the test with the cases listed.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RAILS_ZONES, cronTimezoneValid, cronValid, fixedZone, fugitNextTime, getTzone, nextTimeFrom, parseFields, parseLine, timezoneName, type Zone } from '@forgefold/cron';
import { ORACLE_ZONES, prng, randomCron } from './expressions.js';

const SCRIPT = fileURLToPath(new URL('../../packages/cron/oracle/fugit.rb', import.meta.url));
const CASES = Number(process.env.CRON_ORACLE_CASES ?? 3_000);
const hasFugit = spawnSync('ruby', ['-e', 'require "fugit"'], { stdio: 'ignore' }).status === 0;
const DAY = 86_400_000;
const UTC = fixedZone('UTC', 0);

interface Answer {
  readonly id: number;
  readonly cron_valid: boolean | null;
  readonly tz_valid: boolean | null;
  readonly cron_error: string | null;
  readonly tz_error: string | null;
  readonly next?: number | null;
  readonly error?: string | null;
  readonly mapping?: Record<string, string> | null;
}

const ask = (requests: readonly object[]): { versions: Record<string, string | null>; answers: Map<number, Answer> } => {
  const run = spawnSync('ruby', [SCRIPT], { input: requests.map((r) => JSON.stringify(r)).join('\n') + '\n', encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`fugit.rb failed: ${run.stderr}`);
  const [first, ...rest] = run.stdout.trim().split('\n');
  const answers = new Map<number, Answer>();
  for (const line of rest) {
    const a = JSON.parse(line) as Answer;
    answers.set(a.id, a);
  }
  return { versions: (JSON.parse(first!) as { versions: Record<string, string | null> }).versions, answers };
};

const zoneOf = (tz: string): Zone | null => {
  const name = timezoneName(tz);
  const z = getTzone(name);
  return z.kind === 'zone' && parseFields(`* * * * * ${name}`)?.tz === name ? z.zone : null;
};

// The names fugit reads in each field, for the quirk predicates below.
const BOUNDS: Record<string, number> = Object.fromEntries([
  ...['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'].map((m, i) => [m, i + 1] as const),
  ...['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'].map((d, i) => [d, i] as const),
  ['l', -1],
  ['last', -1],
]);
const value = (s: string) => BOUNDS[s.toLowerCase()] ?? Number.parseInt(s, 10);
const items = (cron: string) => cron.split(/[ \t]+/).flatMap((f, i, all) => f.split(',').map((item) => ({ item, field: all.length - 1 - i }))); // field 0 = weekday, 2 = day of month

/** Each quirk: where fugit 1.2 (the platform, reproduced here) and the oracle's newer fugit part ways. */
const QUIRKS: Record<string, (c: { cron: string; tz: string; from: number; theirs: number | null; error: string | null }) => boolean> = {
  // 1.2 swaps "5-1" into "1-5"; 1.3+ wraps around (5,6,…,1).
  'reversed-range': ({ cron }) => items(cron).some(({ item }) => {
    const m = /^(-?\w+)-(-?\w+)/.exec(item);
    return m !== null && value(m[1]!) > value(m[2]!);
  }),
  // 1.2 reads "5/15" as 5; 1.5 as 5-59/15.
  'start-slash': ({ cron }) => items(cron).some(({ item }) => /^[^*/-][^/-]*\/\d/.test(item)),
  // 1.2 matches "%m+p" as rweek % m == p; 1.5 as (rweek + p) % m == 0.
  'weekday-modulo': ({ cron }) => cron.includes('%'),
  // 1.2 looks up the first entry written for a day ("1#2,1" is the second Monday only); 1.5 sorts them first.
  'weekday-order': ({ cron }) => {
    const dow = cron.split(/[ \t]+/).at(-1)!;
    return dow.includes('#') && dow.split(',').length > 1;
  },
  // 1.5 rejects or reorders ranges with a negative day ("L-5", "-3-2") that 1.2 expands as written.
  'negative-day-range': ({ cron }) => items(cron).some(({ item, field }) => field === 2 && /^(-\d+|l|last)-|-(-\d+|l|last)(\/|$)/i.test(item)),
  // 1.2's inc_day adds 24 - hour hours and its duplicate guard compares wall clocks only; 1.4+ go back to local
  // midnight (gh-53, gh-60) and also compare the offset. Explained only when those steps give fugit's answer.
  'dst-steps': ({ cron, tz, from, theirs, error }) => {
    const line = parseLine(`${cron} ${timezoneName(tz)}`);
    if (!line.ok) return false;
    const r = fugitNextTime(line.line.fields, line.line.zone ?? UTC, from, UTC, 'fugit-1.5');
    return r.ok ? r.t * 1000 === theirs : theirs === null && error !== null;
  },
};

describe.skipIf(!hasFugit)('cron against fugit (the oracle)', () => {
  it('keeps the Rails 6.1 zone table equal to ActiveSupport::TimeZone::MAPPING', () => {
    const { versions, answers } = ask([{ id: 0, mapping: true }]);
    const mapping = answers.get(0)!.mapping;
    if (!mapping) return; // no ActiveSupport: nothing to compare with
    expect(versions.activesupport).toMatch(/^6\.1\./);
    expect(Object.entries(RAILS_ZONES)).toEqual(Object.entries(mapping));
  });

  it(`agrees on ${CASES} random expressions × zones × start times, but for documented quirks`, { timeout: 600_000 }, () => {
    const r = prng(20_220_114);
    const requests = Array.from({ length: CASES }, (_, id) => {
      const tz = r.pick(ORACLE_ZONES);
      let from = Date.UTC(2020, 0, 1) + Math.floor(r.next() * 10 * 365 * DAY);
      const zone = zoneOf(tz);
      let cron = randomCron(r);
      if (zone !== null && r.chance(0.3)) {
        // Start near a transition a third of the time, where the two fugits part; half of those with a cron that
        // fires around the changed hours, on restricted days, so that inc_day and the guard are exercised.
        const near = zone.transitionsIn(Math.floor(from / 1000), Math.floor(from / 1000) + 366 * 86_400)[0];
        if (near !== undefined) from = near * 1000 - Math.floor(r.next() * 3 * DAY);
        if (r.chance(0.5)) {
          const hours = r.pick(['0', '1', '2', '3', '23', '0-3', '1,2', '*', '*/2']);
          const days = r.pick(['* * *', `* * ${r.int(0, 6)}`, `${r.int(1, 31)} * *`, '* * 1-5', `L * *`, `* * ${r.int(0, 6)}#${r.pick([1, 2, -1])}`]);
          cron = `${r.pick(['0', '30', String(r.int(0, 59)), '*/15'])} ${hours} ${days}`;
        }
      }
      return { id, cron, tz, from };
    });
    const asked = performance.now();
    const { versions, answers } = ask(requests);
    const answered = performance.now();
    const unexplained: object[] = [];
    const explained: Record<string, number> = {};
    let compared = 0;
    for (const q of requests) {
      const a = answers.get(q.id)!;
      const problems: string[] = [];
      // Where fugit raises, the platform answers 500; the layer calls such input invalid.
      if (cronValid(q.cron) !== (a.cron_valid ?? false)) problems.push(`cron_valid ${cronValid(q.cron)} vs ${a.cron_valid ?? a.cron_error}`);
      if (cronTimezoneValid(q.tz) !== (a.tz_valid ?? false)) problems.push(`tz_valid ${cronTimezoneValid(q.tz)} vs ${a.tz_valid ?? a.tz_error}`);
      const ours = nextTimeFrom(q.cron, q.tz, q.from);
      const oursMs = ours.ok ? ours.at.getTime() : null;
      const theirs = a.next ?? null;
      if (oursMs !== theirs) problems.push(`next ${ours.ok ? ours.at.toISOString() : JSON.stringify(ours.failure)} vs ${theirs === null ? a.error ?? 'nil' : new Date(theirs).toISOString()}`);
      else compared++;
      if (problems.length === 0) continue;
      const reasons = Object.entries(QUIRKS).filter(([, applies]) => applies({ cron: q.cron, tz: q.tz, from: q.from, theirs, error: a.error ?? null })).map(([name]) => name);
      if (reasons.length === 0) unexplained.push({ ...q, fromIso: new Date(q.from).toISOString(), problems });
      else for (const reason of reasons) explained[reason] = (explained[reason] ?? 0) + 1;
      if (process.env.CRON_ORACLE_VERBOSE) console.log(JSON.stringify({ ...q, fromIso: new Date(q.from).toISOString(), problems, reasons }));
    }
    console.log(`cron oracle (${JSON.stringify(versions)}, fugit ${Math.round(answered - asked)} ms, layer and checks ${Math.round(performance.now() - answered)} ms): ${CASES} cases, ${compared} identical next times, differences explained by quirks: ${JSON.stringify(explained)}, unexplained: ${unexplained.length}`);
    expect(unexplained).toEqual([]);
  });
});

/**
 * `Fugit::Cron#next_time` as fugit 1.2 computes it, step for step. A cursor moves in absolute seconds and
 * reads the wall clock of the cron's zone at each step, so its behaviour around DST transitions is the
 * platform's, quirks included:
 * - a day is skipped by `inc_day` (it adds `24 - hour` hours), so a spring-forward day lands the cursor at
 *   01:00 the next day, and a job due at 00:xx that day is missed;
 * - the repeated hour of a fall-back day is searched twice, so a job in it fires twice unless the second
 *   occurrence reads exactly like the start (`strftime('%F|%T')` compared with the start's own zone);
 * - `#n` and `L` count weeks and month ends by adding and removing 24 h and 7 × 24 h.
 * The fast path (croner) answers wherever no transition is near; this engine answers everywhere else.
 */
import type { CronFields, Weekday } from './parse.js';
import { localFields, localToUtc, wallString, type LocalFields, type Seconds, type Zone } from './zone.js';

/** Where the platform raises instead of answering (a 500 on save there). */
export type EngineError =
  | { readonly kind: 'too-many-loops' } // fugit's MAX_ITERATION_COUNT
  | { readonly kind: 'month-start-in-gap' | 'month-start-ambiguous'; readonly year: number; readonly month: number } // TZInfo PeriodNotFound / AmbiguousTime
  | { readonly kind: 'day-start-ambiguous'; readonly year: number; readonly month: number; readonly day: number } // fugit ≥ 1.4 only
  | { readonly kind: 'modulo-zero' }; // ZeroDivisionError for `%0`

const MAX_ITERATION_COUNT = 2048;
const DAY = 86_400;
const WEEK = 7 * DAY;

class Raise extends Error {
  constructor(readonly error: EngineError) {
    super(error.kind);
  }
}

/** `EtOrbi.make(y, m, zone)`: local midnight on the first of the month. */
const monthStart = (zone: Zone, year: number, month: number): Seconds => {
  if (month === 13) {
    month = 1;
    year++;
  }
  const r = localToUtc(zone, year, month, 1);
  if (r.kind === 'one') return r.t;
  throw new Raise({ kind: r.kind === 'gap' ? 'month-start-in-gap' : 'month-start-ambiguous', year, month });
};

const reference2019 = new Map<string, Seconds>();
/** `rweek`: weeks since 2019-01-01 00:00 local, in absolute seconds. */
const rweek = (zone: Zone, t: Seconds): number => {
  let ref = reference2019.get(zone.name);
  if (ref === undefined) {
    const r = localToUtc(zone, 2019, 1, 1);
    ref = r.kind === 'one' ? r.t : r.kind === 'overlap' ? r.first : 0;
    reference2019.set(zone.name, ref);
  }
  return Math.floor((t - ref) / WEEK) + 1;
};

const countWeeks = (zone: Zone, t: Seconds, month: number, dir: 1 | -1): number => {
  let c = 0;
  for (let u = t; localFields(zone, u).month === month; u += dir * WEEK) c++;
  return c;
};

const weekdayMatch = (weekdays: readonly Weekday[] | null, zone: Zone, t: Seconds, f: LocalFields): boolean => {
  if (weekdays === null) return true;
  const entry = weekdays.find((w) => w[0] === f.wday); // the first entry for the day, as Ruby's `find`
  if (!entry) return false;
  if (entry.length === 1) return true;
  const hom = entry[1];
  if (typeof hom === 'number') {
    return hom > 0 ? hom === countWeeks(zone, t, f.month, -1) : hom === -countWeeks(zone, t, f.month, 1);
  }
  const [mod, plus] = hom;
  if (mod === 0) throw new Raise({ kind: 'modulo-zero' });
  return (((rweek(zone, t) % mod) + mod) % mod) === plus;
};

const monthdayMatch = (monthdays: readonly number[] | null, zone: Zone, f: LocalFields): boolean => {
  if (monthdays === null) return true;
  const last = localFields(zone, monthStart(zone, f.year, f.month + 1) - DAY).day + 1;
  return monthdays.some((d) => (d < 1 ? last + d : d) === f.day);
};

const dayMatch = (c: CronFields, zone: Zone, t: Seconds, f: LocalFields): boolean => {
  if (c.weekdays !== null && c.monthdays !== null) return weekdayMatch(c.weekdays, zone, t, f) || monthdayMatch(c.monthdays, zone, f);
  return weekdayMatch(c.weekdays, zone, t, f) && monthdayMatch(c.monthdays, zone, f);
};

const has = (list: readonly number[] | null, v: number) => list === null || list.includes(v);

export type EngineResult = { readonly ok: true; readonly t: Seconds } | { readonly ok: false; readonly error: EngineError };

/**
 * Which fugit steps: the platform's (1.2), or those of fugit 1.4–1.5 around DST (Debian's ruby-fugit, the
 * oracle), so that the oracle test can tell a DST difference from a bug. Only `inc_day` and the duplicate
 * guard differ here; the grammar is always 1.2's.
 */
export type FugitSteps = 'fugit-1.2' | 'fugit-1.5';

/** fugit 1.5's `inc_day`: back to local midnight after the 24 - hour step when the step missed it. */
const incDay15 = (zone: Zone, t: Seconds): Seconds => {
  let f = localFields(zone, t);
  t += (24 - f.hour) * 3600 - f.min * 60 - f.sec;
  f = localFields(zone, t);
  if (f.hour === 0) return t;
  if (f.hour < 12) {
    const midnight = localToUtc(zone, f.year, f.month, f.day);
    if (midnight.kind === 'one') return midnight.t;
    if (midnight.kind === 'overlap') throw new Raise({ kind: 'day-start-ambiguous', year: f.year, month: f.month, day: f.day });
  }
  return t + (24 - f.hour) * 3600;
};

/**
 * The first time after `fromMs` at which `c` fires in `zone`. `fromZone` is the zone the start is expressed in
 * on the platform (`Time.zone`), which only matters for fugit's duplicate guard.
 */
export const fugitNextTime = (c: CronFields, zone: Zone, fromMs: number, fromZone: Zone, steps: FugitSteps = 'fugit-1.2'): EngineResult => {
  try {
    let ifrom = Math.trunc(fromMs / 1000);
    let sfrom = wallString(localFields(fromZone, Math.floor(fromMs / 1000)));
    let zfrom = zone.offsetAt(ifrom); // 1.5 also compares the offset ('%z|%Z')
    let t = ifrom;
    for (let i = 1; ; i++) {
      if (i > MAX_ITERATION_COUNT) throw new Raise({ kind: 'too-many-loops' });
      if (t === ifrom) {
        t += 1;
        continue;
      }
      const f = localFields(zone, t);
      if (!has(c.months, f.month)) {
        t = monthStart(zone, f.year, f.month + 1);
        continue;
      }
      if (!dayMatch(c, zone, t, f)) {
        t = steps === 'fugit-1.2' ? t + (24 - f.hour) * 3600 - f.min * 60 - f.sec : incDay15(zone, t);
        continue;
      }
      if (!has(c.hours, f.hour)) {
        t += (60 - f.min) * 60 - f.sec;
        continue;
      }
      if (!has(c.minutes, f.min)) {
        t += 60 - f.sec;
        continue;
      }
      if (!has(c.seconds, f.sec)) {
        const next = c.seconds!.find((s) => s > f.sec);
        t += next !== undefined ? next - f.sec : 60 - f.sec + c.seconds![0]!;
        continue;
      }
      const st = wallString(f);
      if (st === sfrom && (steps === 'fugit-1.2' || zone.offsetAt(t) !== zfrom)) {
        // fugit's guard against yielding the same wall time twice (gh-6): compared with the start's string.
        ifrom = t;
        sfrom = st;
        zfrom = zone.offsetAt(t);
        continue;
      }
      return { ok: true, t };
    }
  } catch (error) {
    if (error instanceof Raise) return { ok: false, error: error.error };
    throw error;
  }
};

/**
 * Properties of the cron layer over random expressions (fugit's syntax included), zones and start times:
 * next_run_at is after now, on the worker's grid and not before the ideal time, which is itself a tick of
 * the cron in the zone; croner's fast path answers exactly what fugit's own steps answer; the zone model
 * agrees with Intl.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CRON_INVALID_MESSAGE,
  CRON_TIMEZONE_INVALID_MESSAGE,
  IANA_ZONES,
  RAILS_ZONES,
  cronTimezoneValid,
  DEFAULT_CRON_SETTINGS,
  cronSettingsError,
  fugitNextTime,
  getTzone,
  localFields,
  localToUtc,
  nextRunAt,
  nextTimeFrom,
  parseLine,
  scheduleCronErrors,
  stripCron,
  timezoneName,
  type CronFields,
  type Zone,
} from '@forgefold/cron';
import { ORACLE_ZONES, prng, randomCron } from './expressions.js';

const VALID_ZONES = ORACLE_ZONES.filter((tz) => getTzone(timezoneName(tz)).kind === 'zone' && tz !== 'Sun');
const cronArb = fc.integer({ min: 0, max: 2 ** 31 - 1 }).map((seed) => randomCron(prng(seed), { invalid: 0 }));
const fromArb = fc.integer({ min: Date.UTC(2019, 0, 1), max: Date.UTC(2032, 0, 1) });
const zoneArb = fc.constantFrom(...VALID_ZONES);
const zoneOf = (tz: string): Zone => {
  const z = getTzone(timezoneName(tz));
  if (z.kind !== 'zone') throw new Error(tz);
  return z.zone;
};

/**
 * fugit's "last day + 1" for negative days: the day of (next month's local midnight − 24 h), plus one. In a month
 * that ends after a spring-forward (Paris, March) that is a day early, so `-3` is the 28th: fugit 1.5.2 answers so.
 */
const fugitLastDay = (zone: Zone, year: number, month: number): number => {
  const next = month === 12 ? localToUtc(zone, year + 1, 1, 1) : localToUtc(zone, year, month + 1, 1);
  if (next.kind === 'gap') return new Date(Date.UTC(year, month, 0)).getUTCDate() + 1;
  return localFields(zone, (next.kind === 'one' ? next.t : next.first) - 86_400).day + 1;
};

/** Whether the wall clock at `t` matches every field (the day by fugit's rule: either day field when both are set). */
const isTick = (c: CronFields, zone: Zone, t: number): boolean => {
  const f = localFields(zone, t);
  const inList = (list: readonly number[] | null, v: number) => list === null || list.includes(v);
  if (!inList(c.months, f.month) || !inList(c.hours, f.hour) || !inList(c.minutes, f.min) || !inList(c.seconds, f.sec)) return false;
  const dom = c.monthdays === null || c.monthdays.some((d) => (d < 1 ? fugitLastDay(zone, f.year, f.month) + d : d) === f.day);
  const dow = c.weekdays === null || c.weekdays.some((w) => w[0] === f.wday); // #n and % narrow further; the day is right
  return c.monthdays !== null && c.weekdays !== null ? dom || dow : dom && dow;
};

describe('cron properties', () => {
  it('next_run_at is after now, on the worker grid, and not before the ideal time, a tick of the cron in its zone', () => {
    fc.assert(
      fc.property(cronArb, zoneArb, fromArb, (cron, tz, now) => {
        const line = parseLine(`${cron} ${timezoneName(tz)}`);
        fc.pre(line.ok);
        const ideal = nextTimeFrom(cron, tz, now);
        const next = nextRunAt(cron, tz, now);
        fc.pre(ideal.ok);
        expect(next.ok).toBe(true);
        if (!next.ok || !ideal.ok || !line.ok) return;
        const at = next.at.getTime();
        expect(ideal.at.getTime()).toBeGreaterThan(now);
        expect(at).toBeGreaterThanOrEqual(ideal.at.getTime());
        expect(next.at.getUTCSeconds()).toBe(0);
        expect(next.at.getUTCMinutes() % 10).toBe(3);
        expect(isTick(line.line.fields, line.line.zone ?? zoneOf('UTC'), ideal.at.getTime() / 1000)).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it('answers through croner exactly what fugit’s own steps answer', () => {
    fc.assert(
      fc.property(cronArb, zoneArb, fromArb, (cron, tz, from) => {
        const line = parseLine(`${cron} ${timezoneName(tz)}`);
        fc.pre(line.ok);
        if (!line.ok) return;
        const layer = nextTimeFrom(cron, tz, from);
        const zone = line.line.zone ?? zoneOf('UTC');
        const steps = fugitNextTime(line.line.fields, zone, from, zoneOf('UTC'));
        expect(layer.ok ? layer.at.getTime() / 1000 : layer.failure.kind).toEqual(steps.ok ? steps.t : steps.error.kind);
      }),
      { numRuns: 1_000 },
    );
  });

  it('leaves croner when a transition up to five weeks back can change a `#n` count (fugit 1.5.2 answers so)', () => {
    // Lord Howe went +10:30 → +11 on 2019-10-06 02:00. Read at local midnight on 2019-10-15, two weeks of 7 × 24 h
    // back is 2019-09-30 23:30: fugit counts two Tuesdays, skips the third, and answers November's (seed -176364516).
    const from = Date.parse('2019-10-06T15:30:01Z');
    const layer = nextTimeFrom('25 5 * * tue#3', 'Australia/Lord_Howe', from);
    expect(layer.ok && layer.at.toISOString()).toBe(new Date(1574101500 * 1000).toISOString());
  });

  it('drops the fraction of a second of the start, as fugit does', () => {
    fc.assert(
      fc.property(cronArb, zoneArb, fromArb, fc.integer({ min: 0, max: 999 }), (cron, tz, from, ms) => {
        const whole = Math.floor(from / 1000) * 1000;
        const a = nextTimeFrom(cron, tz, whole);
        const b = nextTimeFrom(cron, tz, whole + ms);
        expect(b).toEqual(a);
      }),
      { numRuns: 200 },
    );
  });

  it('reads offsets as Intl does', () => {
    fc.assert(
      fc.property(fc.constantFrom('Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'America/Santiago', 'Asia/Tehran', 'Pacific/Chatham', 'Africa/Casablanca'), fromArb, (tz, ms) => {
        const t = Math.floor(ms / 1000);
        const f = localFields(zoneOf(tz), t);
        const parts = Object.fromEntries(
          new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' })
            .formatToParts(t * 1000)
            .map((p) => [p.type, p.value]),
        );
        expect([f.year, f.month, f.day, f.hour, f.min, f.sec]).toEqual(['year', 'month', 'day', 'hour', 'minute', 'second'].map((k) => Number(parts[k])));
      }),
      { numRuns: 500 },
    );
  });
});

describe('zone model', () => {
  it('evaluates every IANA name TZInfo knows and every Rails name (node’s ICU has them all)', () => {
    for (const name of [...IANA_ZONES, ...Object.keys(RAILS_ZONES)]) expect(cronTimezoneValid(name), name).toBe(true);
  });

  const dstZones = fc.constantFrom('Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'America/Santiago', 'America/Asuncion', 'Pacific/Chatham', 'Africa/Casablanca');

  it('finds every offset change, to the second', () => {
    fc.assert(
      fc.property(dstZones, fc.integer({ min: 2019, max: 2031 }), (tz, year) => {
        const zone = zoneOf(tz);
        const start = Date.UTC(year, 0, 1) / 1000;
        const end = Date.UTC(year + 1, 0, 1) / 1000;
        const transitions = zone.transitionsIn(start, end);
        for (const t of transitions) expect(zone.offsetAt(t)).not.toBe(zone.offsetAt(t - 1));
        // Between transitions the offset holds (checked every 6 hours).
        const edges = [start, ...transitions, end];
        for (let i = 0; i + 1 < edges.length; i++) {
          for (let t = edges[i]!; t < edges[i + 1]!; t += 6 * 3600) expect(zone.offsetAt(t)).toBe(zone.offsetAt(edges[i]!));
        }
      }),
      { numRuns: 30 },
    );
  });

  it('turns local times into the instants that read them: one, none in a gap, two in an overlap', () => {
    fc.assert(
      fc.property(dstZones, fromArb, (tz, ms) => {
        const zone = zoneOf(tz);
        const f = localFields(zone, Math.floor(ms / 1000));
        const r = localToUtc(zone, f.year, f.month, f.day, f.hour, f.min, f.sec);
        expect(r.kind).not.toBe('gap'); // the wall clock of an instant exists
        const hits = r.kind === 'one' ? [r.t] : r.kind === 'overlap' ? [r.first, r.second] : [];
        for (const t of hits) expect(localFields(zone, t)).toEqual(f);
        expect(hits).toContain(Math.floor(ms / 1000));
      }),
      { numRuns: 500 },
    );
    // 02:30 on the European spring-forward day does not exist; 02:30 on the fall-back day twice.
    expect(localToUtc(zoneOf('Europe/Berlin'), 2021, 3, 28, 2, 30).kind).toBe('gap');
    expect(localToUtc(zoneOf('Europe/Berlin'), 2021, 10, 31, 2, 30)).toEqual({ kind: 'overlap', first: Date.UTC(2021, 9, 31, 0, 30) / 1000, second: Date.UTC(2021, 9, 31, 1, 30) / 1000 });
  });
});

describe('cron validity messages', () => {
  it('says what the platform says, the format before presence', () => {
    expect(scheduleCronErrors('*/5 * * * *', 'UTC')).toEqual({ cron: [], cron_timezone: [] });
    expect(scheduleCronErrors('invalid-cron', 'UTC')).toEqual({ cron: [CRON_INVALID_MESSAGE], cron_timezone: [] });
    expect(scheduleCronErrors('', 'UTC')).toEqual({ cron: [' is invalid syntax', "can't be blank"], cron_timezone: [] });
    expect(scheduleCronErrors('* * * * *', 'Mars/Olympus')).toEqual({ cron: [], cron_timezone: [CRON_TIMEZONE_INVALID_MESSAGE] });
    expect(scheduleCronErrors('* * * * *', '')).toEqual({ cron: [], cron_timezone: ['syntax is invalid', "can't be blank"] });
    expect(scheduleCronErrors('@daily', 'Pacific Time (US & Canada)')).toEqual({ cron: [' is invalid syntax'], cron_timezone: [] });
  });

  it('strips the cron as Ruby’s strip does', () => {
    expect(stripCron(' \t*/5 * * * *\n\0')).toBe('*/5 * * * *');
    expect(stripCron('*/5\t* * * *')).toBe('*/5\t* * * *');
    expect(stripCron('\u00a0*/5 * * * *')).toBe('\u00a0*/5 * * * *');
  });
});

describe('cron settings', () => {
  it('are checked at start-up', () => {
    expect(cronSettingsError(DEFAULT_CRON_SETTINGS)).toBeNull();
    expect(cronSettingsError({ workerCron: '19 * * * *', instanceZone: 'Pacific Time (US & Canada)' })).toBeNull();
    expect(cronSettingsError({ workerCron: '3-59/10 * * * *', instanceZone: 'Mars/Olympus' })).toMatch(/instance zone/);
    expect(cronSettingsError({ workerCron: '@hourly', instanceZone: 'UTC' })).toMatch(/worker cron/);
  });

  it('rounds to another worker cron and reads it in the instance zone', () => {
    const at = (r: ReturnType<typeof nextRunAt>) => (r.ok ? r.at.toISOString() : r.failure.kind);
    // 13.x's worker ran at minute 19 of every hour.
    expect(at(nextRunAt('*/5 * * * *', 'UTC', Date.parse('2022-01-10T10:00:30Z'), { workerCron: '19 * * * *', instanceZone: 'UTC' }))).toBe('2022-01-10T10:19:00.000Z');
    // A worker at 03:00 in an instance zone of +05:30 (a Rails name), i.e. 21:30 UTC: the ideal 01:00 UTC on the
    // 11th is not its next tick (21:30 on the 10th), so the first tick after it, 21:30 on the 11th.
    expect(at(nextRunAt('0 1 * * *', 'UTC', Date.parse('2022-01-10T10:00:30Z'), { workerCron: '0 3 * * *', instanceZone: 'Chennai' }))).toBe('2022-01-11T21:30:00.000Z');
  });

  it('reads a line without zone in the instance zone (a cron_timezone such as "Sun" leaves none)', () => {
    const sun = (instanceZone: string) => nextTimeFrom('0 12 * * *', 'Sun', Date.parse('2022-07-09T00:00:00Z'), { workerCron: '3-59/10 * * * *', instanceZone });
    expect(sun('UTC')).toEqual({ ok: true, at: new Date('2022-07-10T00:12:00Z') });
    expect(sun('Asia/Tokyo')).toEqual({ ok: true, at: new Date('2022-07-09T15:12:00Z') });
  });
});

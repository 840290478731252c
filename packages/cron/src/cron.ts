/**
 * `Gitlab::Ci::CronParser` (14.7) and `Ci::PipelineSchedule#set_next_run_at`: validity, messages and the
 * next run, on an injected clock. Every question goes through the same path as on the platform: the cron
 * and the zone name are joined into one line (`"#{cron} #{timezone_name(tz)}"`) and parsed by fugit's grammar.
 */
import type { Cron } from 'croner';
import { fugitNextTime, type EngineError } from './engine.js';
import { cronerJob, cronerPattern } from './fast.js';
import { determineFields, parseFields, type CronFields } from './parse.js';
import type { Seconds, Zone } from './zone.js';
import { getTzone, knownZone, timezoneName } from './zones.js';

/** The messages the platform's validators add. */
export const CRON_INVALID_MESSAGE = ' is invalid syntax';
export const CRON_TIMEZONE_INVALID_MESSAGE = 'syntax is invalid';
export const BLANK_MESSAGE = "can't be blank";

/** The pipeline-schedule worker's cron in 14.7 (`Settings.cron_jobs['pipeline_schedule_worker']['cron']`). */
export const DEFAULT_WORKER_CRON = '3-59/10 * * * *';

export interface CronSettings {
  /** The worker's cron; next_run_at is rounded to its ticks. */
  readonly workerCron: string;
  /** The instance zone (`Time.zone`, a Rails or IANA name): the worker's zone, and a line without zone's. */
  readonly instanceZone: string;
}

export const DEFAULT_CRON_SETTINGS: CronSettings = Object.freeze({ workerCron: DEFAULT_WORKER_CRON, instanceZone: 'UTC' });

/** Why there is no next time. `unparsable`: fugit answers nil; the others raise on the platform (a 500). */
export type CronFailure =
  | { readonly kind: 'unparsable' }
  | { readonly kind: 'step-zero' }
  | { readonly kind: 'unknown-utc-offset-zone' }
  | EngineError;

export type NextTime = { readonly ok: true; readonly at: Date } | { readonly ok: false; readonly failure: CronFailure };

interface Line {
  readonly fields: CronFields;
  /** null: no zone in the line, so the instance zone (EtOrbi's local zone). */
  readonly zone: Zone | null;
  readonly pattern: string | null;
  /** croner jobs by UTC offset in seconds (the offset in force where croner is asked). */
  readonly jobs: Map<number, Cron>;
}

type Parsed = { readonly ok: true; readonly line: Line } | { readonly ok: false; readonly failure: CronFailure };

const UNPARSABLE: Parsed = { ok: false, failure: { kind: 'unparsable' } };
const lines = new Map<string, Parsed>();
const MAX_CACHED_LINES = 50_000;

/** `Fugit::Cron.parse(text)`, with what raises told apart from nil. */
export const parseLine = (text: string): Parsed => {
  const cached = lines.get(text);
  if (cached) return cached;
  const parsed = parseUncached(text);
  if (lines.size >= MAX_CACHED_LINES) lines.clear();
  lines.set(text, parsed);
  return parsed;
};

const parseUncached = (text: string): Parsed => {
  const syntax = parseFields(text);
  if (syntax === null) return UNPARSABLE;
  let zone: Zone | null = null;
  if (syntax.tz !== null) {
    const z = getTzone(syntax.tz);
    if (z.kind === 'unknown') return UNPARSABLE;
    if (z.kind === 'raises') return { ok: false, failure: { kind: 'unknown-utc-offset-zone' } };
    zone = z.zone;
  }
  const fields = determineFields(syntax);
  if (fields === null) return UNPARSABLE;
  if (fields === 'step-zero') return { ok: false, failure: { kind: 'step-zero' } };
  return { ok: true, line: { fields, zone, pattern: cronerPattern(fields), jobs: new Map() } };
};

/**
 * Ruby's `strip` as `strip_attributes :cron` applies it before validation and storage: ASCII whitespace and
 * NUL at both ends, nothing else (a no-break space stays).
 */
export const stripCron = (cron: string): string => cron.replace(/^[\0\t\n\v\f\r ]+/, '').replace(/[\0\t\n\v\f\r ]+$/, '');

/** `cron_valid?`: the cron parses with the sample zone UTC. A line the platform raises on is invalid here. */
export const cronValid = (cron: string): boolean => parseLine(`${cron} UTC`).ok;

/** `cron_timezone_valid?`: `* * * * *` parses with the zone. Rails names and IANA names; echoed as given. */
export const cronTimezoneValid = (tz: string): boolean => parseLine(`* * * * * ${timezoneName(tz)}`).ok;

/** Rails' `blank?` on a string: nil, or only (Unicode) whitespace. */
const isBlank = (value: string | null | undefined): boolean => value === null || value === undefined || /^\s*$/.test(value);

/**
 * The model's errors for `cron` and `cron_timezone`, in the order the validators add them (the format
 * validator before presence). `cron` is taken as stored, i.e. already stripped.
 */
export const scheduleCronErrors = (cron: string | null | undefined, cronTimezone: string | null | undefined): { readonly cron: readonly string[]; readonly cron_timezone: readonly string[] } => {
  const cronErrors: string[] = [];
  const zoneErrors: string[] = [];
  if (!cronValid(cron ?? '')) cronErrors.push(CRON_INVALID_MESSAGE);
  if (isBlank(cron)) cronErrors.push(BLANK_MESSAGE);
  if (!cronTimezoneValid(cronTimezone ?? '')) zoneErrors.push(CRON_TIMEZONE_INVALID_MESSAGE);
  if (isBlank(cronTimezone)) zoneErrors.push(BLANK_MESSAGE);
  return { cron: cronErrors, cron_timezone: zoneErrors };
};

/** What is wrong with the settings (a start-up check for whoever reads them from the environment), or null. */
export const cronSettingsError = (settings: CronSettings): string | null => {
  if (knownZone(settings.instanceZone) === null) return `the instance zone ${JSON.stringify(settings.instanceZone)} is not a Rails or IANA zone name`;
  if (!cronValid(settings.workerCron)) return `the worker cron ${JSON.stringify(settings.workerCron)} is not a valid cron`;
  return null;
};

const instanceZones = new Map<string, Zone>();
const instanceZone = (name: string): Zone => {
  let zone = instanceZones.get(name);
  if (!zone) {
    zone = knownZone(name) ?? (() => {
      throw new Error(`instance zone ${JSON.stringify(name)} is not a Rails or IANA zone name`);
    })();
    instanceZones.set(name, zone);
  }
  return zone;
};

const DAY = 86_400;
/** How far back of a candidate fugit's `#n` count reaches: five weeks of 7 × 24 h. */
const WEEKS_BACK = 35 * DAY;

/**
 * The next time of a parsed line after `fromMs`: croner at the zone's offset where the offset holds from five weeks
 * before the start to 40 days after the answer and the answer does not read like the start (fugit's guard), else
 * fugit's own steps. fugit counts `#n` weeks back from wherever its cursor is (local midnight when it tests the day)
 * in steps of 7 × 24 h, and month ends forward in steps of 24 h, so a transition up to five weeks before a candidate
 * day can change fugit's answer: a third Tuesday read at midnight the week after Lord Howe's half-hour change
 * counts only two Tuesdays (fugit 1.5.2 skips that day).
 */
const nextOfLine = (line: Line, fromMs: number, local: Zone): NextTime => {
  const zone = line.zone ?? local;
  const from = Math.floor(fromMs / 1000);
  const offset = zone.offsetAt(from);
  // A transition within 41 days of the start rules croner out whatever it answers: ask fugit's steps straight away.
  if (line.pattern !== null && offset % 60 === 0 && !zone.changesIn(from - WEEKS_BACK, from + 41 * DAY)) {
    let job = line.jobs.get(offset);
    if (!job) {
      job = cronerJob(line.pattern, offset / 60);
      line.jobs.set(offset, job);
    }
    const next = job.nextRun(new Date(fromMs));
    if (next !== null) {
      const t: Seconds = next.getTime() / 1000;
      if (!zone.changesIn(from + 41 * DAY, t + 40 * DAY) && t + offset !== from + local.offsetAt(from)) return { ok: true, at: next };
    }
  }
  const r = fugitNextTime(line.fields, zone, fromMs, local);
  return r.ok ? { ok: true, at: new Date(r.t * 1000) } : { ok: false, failure: r.error };
};

/**
 * `CronParser.new(cron, tz).next_time_from(from)`: the first time strictly after `from` at which the cron
 * fires in the zone.
 */
export const nextTimeFrom = (cron: string, tz: string, from: Date | number, settings: CronSettings = DEFAULT_CRON_SETTINGS): NextTime => {
  const parsed = parseLine(`${cron} ${timezoneName(tz)}`);
  if (!parsed.ok) return parsed;
  return nextOfLine(parsed.line, typeof from === 'number' ? from : from.getTime(), instanceZone(settings.instanceZone));
};

/**
 * `set_next_run_at`: the ideal next time of the schedule's cron after `now`, rounded to the worker's ticks:
 * kept when it is the worker's very next tick, else the first worker tick strictly after it.
 */
export const nextRunAt = (cron: string, tz: string, now: Date | number, settings: CronSettings = DEFAULT_CRON_SETTINGS): NextTime => {
  const ideal = nextTimeFrom(cron, tz, now, settings);
  const worker = nextTimeFrom(settings.workerCron, settings.instanceZone, now, settings);
  if (ideal.ok && worker.ok && ideal.at.getTime() === worker.at.getTime()) return ideal;
  if (!ideal.ok) return ideal; // the platform raises here (`next_time(nil)`)
  return nextTimeFrom(settings.workerCron, settings.instanceZone, ideal.at, settings);
};

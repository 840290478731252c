/**
 * Time zones as the evaluator needs them: the UTC offset in force at an instant, local wall-clock fields, and
 * local times back to instants (with the gap and the overlap told apart). Offsets come from the platform's
 * IANA database through node's Intl (ICU's copy of the same tzdata), cached as a list of transitions per
 * zone and year so that each step of a search is arithmetic.
 */

/** Seconds since the epoch (integers: fugit works on whole seconds). */
export type Seconds = number;

export interface Zone {
  /** The identifier (IANA name, or a fixed offset such as "+05:30"). */
  readonly name: string;
  /** Seconds east of UTC in force at `t`. */
  offsetAt(t: Seconds): number;
  /** The offset when the zone is a constant one ("+05:30", Factory), else null. */
  readonly fixedOffset: number | null;
  /** The transitions (instants where the offset changes) in [from, to). */
  transitionsIn(from: Seconds, to: Seconds): readonly Seconds[];
  /** Whether the offset changes in [from, to) (no list built: the fast path asks this on every call). */
  changesIn(from: Seconds, to: Seconds): boolean;
}

export interface LocalFields {
  readonly year: number;
  readonly month: number; // 1..12
  readonly day: number; // 1..31
  readonly hour: number;
  readonly min: number;
  readonly sec: number;
  readonly wday: number; // 0 = Sunday
}

const DAY = 86_400;

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
export const daysFromCivil = (y: number, m: number, d: number): number => {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
};

/** Wall-clock fields of a local epoch (seconds with the offset added). */
export const civilFields = (local: number): LocalFields => {
  const days = Math.floor(local / DAY);
  const rest = local - days * DAY;
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp + (mp < 10 ? 3 : -9);
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  return {
    year,
    month,
    day,
    hour: Math.floor(rest / 3600),
    min: Math.floor((rest % 3600) / 60),
    sec: rest % 60,
    wday: (((days + 4) % 7) + 7) % 7,
  };
};

export const localFields = (zone: Zone, t: Seconds): LocalFields => civilFields(t + zone.offsetAt(t));

/** `strftime('%F|%T')`: fugit compares candidates with the start as these strings. */
export const wallString = (f: LocalFields): string => {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${p(f.year, 4)}-${p(f.month)}-${p(f.day)}|${p(f.hour)}:${p(f.min)}:${p(f.sec)}`;
};

export type LocalToUtc = { readonly kind: 'one'; readonly t: Seconds } | { readonly kind: 'gap' } | { readonly kind: 'overlap'; readonly first: Seconds; readonly second: Seconds };

/** The instants whose wall clock in `zone` reads the given local time (TZInfo's `local_to_utc`). */
export const localToUtc = (zone: Zone, y: number, m: number, d: number, h = 0, mi = 0, s = 0): LocalToUtc => {
  const local = daysFromCivil(y, m, d) * DAY + h * 3600 + mi * 60 + s;
  const offsets = new Set<number>([zone.offsetAt(local - DAY), zone.offsetAt(local + DAY)]);
  for (const t of zone.transitionsIn(local - 2 * DAY, local + 2 * DAY)) offsets.add(zone.offsetAt(t));
  const hits = [...new Set([...offsets].map((o) => local - o))].filter((t) => zone.offsetAt(t) === local - t).sort((a, b) => a - b);
  if (hits.length === 0) return { kind: 'gap' };
  if (hits.length === 1) return { kind: 'one', t: hits[0]! };
  return { kind: 'overlap', first: hits[0]!, second: hits[hits.length - 1]! };
};

export const fixedZone = (name: string, offset: number): Zone => ({
  name,
  fixedOffset: offset,
  offsetAt: () => offset,
  transitionsIn: () => [],
  changesIn: () => false,
});

/** The offset Intl reports for `t` in `zone` (whole seconds). `format` and a regex: 3x cheaper than formatToParts. */
const WALL = /^(\d+)\/(\d+)\/(\d+), (\d+):(\d+):(\d+)$/;
const intlOffset = (format: Intl.DateTimeFormat, t: Seconds): number => {
  const m = WALL.exec(format.format(t * 1000));
  if (!m) throw new Error(`unexpected Intl output for ${t}: ${format.format(t * 1000)}`);
  const local = daysFromCivil(Number(m[3]), Number(m[1]), Number(m[2])) * DAY + Number(m[4]) * 3600 + Number(m[5]) * 60 + Number(m[6]);
  return local - t;
};

const HALF_DAY = DAY / 2;

/** An IANA zone evaluated through Intl; transitions found per UTC year by sampling every 12 h, then bisection. */
class IntlZone implements Zone {
  readonly fixedOffset = null;
  private readonly format: Intl.DateTimeFormat;
  private readonly years = new Map<number, { readonly start: Seconds; readonly offsets: number[]; readonly at: Seconds[] }>();

  constructor(readonly name: string) {
    this.format = new Intl.DateTimeFormat('en-US', {
      timeZone: name,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
  }

  private year(y: number) {
    let cached = this.years.get(y);
    if (cached) return cached;
    const start = daysFromCivil(y, 1, 1) * DAY;
    const end = daysFromCivil(y + 1, 1, 1) * DAY;
    const first = intlOffset(this.format, start);
    const before = intlOffset(this.format, start - 1);
    // A change exactly at the year's first second belongs to this year (the previous year stops short of it).
    const at: Seconds[] = before === first ? [] : [start];
    const offsets = before === first ? [first] : [before, first];
    let previous = first;
    for (let t = start + HALF_DAY; t <= end; t += HALF_DAY) {
      const o = intlOffset(this.format, t);
      if (o === previous) continue;
      // The change happened in (t - 12 h, t]: bisect to the first second with the new offset.
      let lo = t - HALF_DAY;
      let hi = t;
      while (hi - lo > 1) {
        const mid = Math.floor((lo + hi) / 2);
        if (intlOffset(this.format, mid) === previous) lo = mid;
        else hi = mid;
      }
      if (hi < end) {
        at.push(hi);
        offsets.push(intlOffset(this.format, hi));
      }
      previous = o;
    }
    cached = { start, offsets, at };
    this.years.set(y, cached);
    return cached;
  }

  // The segment of the last answer: a search asks about nearby instants over and over.
  private segment = { from: 0, to: -1, offset: 0 };

  offsetAt(t: Seconds): number {
    const s = this.segment;
    if (t >= s.from && t < s.to) return s.offset;
    const year = civilFields(t).year;
    const y = this.year(year);
    let i = 0;
    while (i < y.at.length && y.at[i]! <= t) i++;
    const from = i === 0 ? daysFromCivil(year, 1, 1) * DAY : y.at[i - 1]!;
    const to = i < y.at.length ? y.at[i]! : daysFromCivil(year + 1, 1, 1) * DAY;
    this.segment = { from, to, offset: y.offsets[i]! };
    return y.offsets[i]!;
  }

  changesIn(from: Seconds, to: Seconds): boolean {
    if (to <= from) return false;
    const last = civilFields(to).year;
    for (let year = civilFields(from).year; year <= last; year++) {
      for (const t of this.year(year).at) if (t >= from && t < to) return true;
    }
    return false;
  }

  transitionsIn(from: Seconds, to: Seconds): readonly Seconds[] {
    const out: Seconds[] = [];
    if (to <= from) return out;
    const last = civilFields(to).year;
    for (let year = civilFields(from).year; year <= last; year++) {
      for (const t of this.year(year).at) if (t >= from && t < to) out.push(t);
    }
    return out;
  }
}

const intlZones = new Map<string, Zone>();

/** The zone for an IANA identifier that Intl evaluates (the caller checks the name against the platform's list). */
export const intlZone = (name: string): Zone => {
  let zone = intlZones.get(name);
  if (!zone) {
    zone = new IntlZone(name);
    intlZones.set(name, zone);
  }
  return zone;
};

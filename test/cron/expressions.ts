/**
 * Random cron expressions in the platform's grammar (fugit's), with its extensions (`/15`, `a/n`, `L`, `-3`,
 * `#-1`, `%2+1`, hour 24, six fields) and some invalid ones, from a seeded generator so that runs repeat.
 */

/** mulberry32: small, seedable, good enough for test inputs. */
export const prng = (seed: number) => {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  return { next, int, pick, chance: (p: number) => next() < p };
};
export type Prng = ReturnType<typeof prng>;

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

const numeric = (r: Prng, lo: number, hi: number, names?: readonly string[]) => {
  const v = r.int(lo, hi);
  if (names && r.chance(0.3)) {
    const name = names[(v - lo) % names.length]!;
    return r.chance(0.2) ? name.toUpperCase() : name;
  }
  return String(v);
};

const element = (r: Prng, lo: number, hi: number, names?: readonly string[], extended = true): string => {
  const roll = r.next();
  if (roll < 0.2) return '*';
  if (roll < 0.45) return numeric(r, lo, hi, names);
  if (roll < 0.6) {
    const a = r.int(lo, hi);
    const b = extended && r.chance(0.1) ? r.int(lo, hi) : r.int(a, hi); // some reversed ranges
    return `${a}-${b}`;
  }
  if (roll < 0.72) return `*/${r.int(1, Math.min(hi, 30))}`;
  if (roll < 0.8) {
    const a = r.int(lo, hi);
    return `${a}-${r.int(a, hi)}/${r.int(1, 10)}`;
  }
  if (!extended) return numeric(r, lo, hi);
  if (roll < 0.85) return `/${r.int(1, 30)}`;
  if (roll < 0.88) return `${r.int(lo, hi)}/${r.int(2, 20)}`;
  return numeric(r, lo, hi, names);
};

const field = (r: Prng, lo: number, hi: number, names?: readonly string[], extended = true): string => {
  const n = r.chance(0.75) ? 1 : r.int(2, 3);
  return Array.from({ length: n }, () => element(r, lo, hi, names, extended)).join(',');
};

const dom = (r: Prng, extended: boolean): string => {
  if (extended && r.chance(0.08)) return r.pick(['L', 'l', 'last', '-1', '-3', `${r.int(1, 28)},L`]);
  return field(r, 1, 31, undefined, extended);
};

const dow = (r: Prng, extended: boolean): string => {
  if (extended) {
    const roll = r.next();
    if (roll < 0.06) return `${numeric(r, 0, 6, DAYS)}#${r.pick(['1', '2', '3', '4', '5', 'L', 'last', '-1', '-2'])}`;
    if (roll < 0.1) return `${numeric(r, 0, 6, DAYS)}%${r.int(1, 4)}${r.chance(0.5) ? `+${r.int(0, 3)}` : ''}`;
  }
  return field(r, 0, 7, DAYS, extended);
};

/** A cron as a user might type it on the platform: mostly valid, sometimes with fugit's extensions. */
export const randomCron = (r: Prng, options: { extended?: boolean; invalid?: number } = {}): string => {
  const extended = options.extended ?? true;
  if (extended && r.chance(options.invalid ?? 0.05)) {
    return r.pick(['@daily', '@hourly', '60 * * * *', '* 25 * * *', '0 0 0 * *', '* * * 13 *', '* * * * 8', '* * * *', '1 2 3 4 5 6 7', 'invalid-cron', '*/0 * * * *', '0 0 30 2 *', '0 0 31 4,6 *', '* * * * * UTC', '1,,2 * * * *', '1, * * * *']);
  }
  const seconds = extended && r.chance(0.08) ? `${field(r, 0, 59)} ` : '';
  // Minutes and hours lean to single values, as real schedules do, so that a run is days apart at times.
  const minutes = r.chance(0.5) ? String(r.int(0, 59)) : field(r, 0, 59, undefined, extended);
  const hours = r.chance(0.5) ? String(r.int(0, extended && r.chance(0.05) ? 24 : 23)) : field(r, 0, 23, undefined, extended);
  const days = r.chance(0.6) ? '*' : dom(r, extended);
  const months = r.chance(0.7) ? '*' : field(r, 1, 12, MONTHS, extended);
  const weekdays = r.chance(0.6) ? '*' : dow(r, extended);
  return `${seconds}${minutes} ${hours} ${days} ${months} ${weekdays}`;
};

/** Zones the oracle tries: IANA with and without DST (both hemispheres, half hours), Rails names, offsets, oddities. */
export const ORACLE_ZONES = [
  'UTC',
  'Etc/UTC',
  'Europe/Berlin',
  'Europe/London',
  'America/New_York',
  'America/Los_Angeles',
  'America/Santiago',
  'America/Sao_Paulo',
  'Australia/Sydney',
  'Australia/Lord_Howe',
  'Pacific/Chatham',
  'Asia/Kolkata',
  'Asia/Tokyo',
  'Asia/Tehran',
  'Africa/Cairo',
  'Pacific Time (US & Canada)',
  'Eastern Time (US & Canada)',
  'London',
  'Astana',
  'Canberra',
  'Kyiv',
  'International Date Line West',
  '+05:30',
  '-03:00',
  '+12:00',
  'Europe/Parisx',
  'Mars/Olympus',
  'america/new_york',
  'Sun',
  'UTC+5',
  'CST5CDT',
] as const;

/**
 * The platform's cron grammar: `Fugit::Cron.parse` as of fugit 1.2.x (GitLab 14.7 pins `fugit ~> 1.2.1`), read
 * from its source and reproduced rule by rule, because the platform's validity is "whatever this parser
 * accepts" (`Gitlab::Ci::CronParser#cron_valid?` parses `"#{cron} UTC"`).
 *
 * The parser is a PEG without backtracking into a finished alternative (raabro): each field is a list of
 * elements joined by commas, fields are separated by spaces or tabs, an optional time zone follows after
 * spaces, and the whole string must be consumed. Six fields (with seconds) are tried before five.
 */

/** One list element of a field: `a`, `a-z`, `a/sl`, `a-z/sl`, `*`, `*\/sl`, `/sl`; in the weekday field also `a#ha`, `a%m+p`. */
export interface Element {
  readonly a: number | null;
  readonly z: number | null;
  readonly sl: number | null;
  /** `#n` (n in 1..5, or negative from the month's end; `#L` is -1). */
  readonly ha: number | null;
  /** `%mod+plus`. */
  readonly mo: readonly [number, number] | null;
}

export interface ParsedFields {
  readonly sec: readonly Element[] | null;
  readonly min: readonly Element[];
  readonly hou: readonly Element[];
  readonly dom: readonly Element[];
  readonly mon: readonly Element[];
  readonly dow: readonly Element[];
  /** The time-zone text after the fields (trimmed), when there is one. */
  readonly tz: string | null;
}

type FieldKind = 'sec' | 'min' | 'hou' | 'dom' | 'mon' | 'dow';

const MONTHS = ['-', 'jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const WEEKDS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

// The bound regexes as fugit writes them; sticky so that they match at the cursor only. Alternation order
// matters (the first alternative that matches wins, as in Ruby): "25" as an hour matches "2" and fails later.
const BOUND: Record<FieldKind, RegExp> = {
  sec: /[0-5]?\d/y,
  min: /[0-5]?\d/y,
  hou: /(2[0-4]|[01]?[0-9])/y,
  dom: /(-?(3[01]|[12][0-9]|0?[1-9])|last|l)/iy,
  mon: new RegExp(`(1[0-2]|0?[1-9]|${MONTHS.slice(1).join('|')})`, 'iy'),
  dow: new RegExp(`([0-7]|${WEEKDS.join('|')})`, 'iy'),
};
const SLASH = /\/\d\d?/y;
const DOW_HASH = /#(-?[1-5]|last|l)/iy;
const MOD = /%\d+(\+\d+)?/y;
const SPACE = /[ \t]+/y;
const TZ_DELTA = / +[-+]([01][0-9]|2[0-4]):?(00|15|30|45)/y;
const TZ_NAME = / +[A-Z][a-zA-Z0-9+-]+(\/[A-Z][a-zA-Z0-9+\-_]+){0,2}/y;

class Cursor {
  constructor(
    readonly text: string,
    public at = 0,
  ) {}
  /** Matches a sticky regex at the cursor; moves past it and returns the text, or returns null and stays. */
  rex(re: RegExp): string | null {
    re.lastIndex = this.at;
    const m = re.exec(this.text);
    if (!m) return null;
    this.at += m[0].length;
    return m[0];
  }
  str(s: string): boolean {
    if (!this.text.startsWith(s, this.at)) return false;
    this.at += s.length;
    return true;
  }
}

const bound = (kind: FieldKind, s: string): number => {
  const lower = s.toLowerCase();
  if (kind === 'mon') {
    const i = MONTHS.indexOf(lower);
    if (i > 0) return i;
  }
  if (kind === 'dow') {
    const i = WEEKDS.indexOf(lower);
    if (i >= 0) return i;
  }
  if (kind === 'dom' && lower[0] === 'l') return -1; // L, l, last
  return Number.parseInt(s, 10); // Ruby's to_i: "-05" is -5, "07" is 7
};

/** `sor` and its optional slash: `*`, `a`, `a-z`, each optionally followed by `/n`. */
const sorws = (c: Cursor, kind: FieldKind): Element | null => {
  let a: number | null = null;
  let z: number | null = null;
  if (!c.str('*')) {
    const first = c.rex(BOUND[kind]);
    if (first === null) return null;
    a = bound(kind, first);
    const mark = c.at;
    if (c.str('-')) {
      const second = c.rex(BOUND[kind]);
      if (second === null) c.at = mark;
      else z = bound(kind, second);
    }
  }
  const slash = c.rex(SLASH);
  const sl = slash === null ? null : Number.parseInt(slash.slice(1), 10);
  // fugit 1.2 swaps a reversed range ("5-1" is "1-5"); 1.3+ reads it as wrapping around.
  if (a !== null && z !== null && a > z) [a, z] = [z, a];
  return { a, z, sl, ha: null, mo: null };
};

const element = (c: Cursor, kind: FieldKind): Element | null => {
  const start = c.at;
  if (kind === 'dow') {
    // h_dow, then mod_dow, then the plain element: the first that matches wins.
    const day = c.rex(BOUND.dow);
    if (day !== null) {
      const hash = c.rex(DOW_HASH);
      if (hash !== null) {
        const h = hash.slice(1);
        return { a: bound('dow', day), z: null, sl: null, ha: h[0]!.toUpperCase() === 'L' ? -1 : Number.parseInt(h, 10), mo: null };
      }
      const mod = c.rex(MOD);
      if (mod !== null) {
        const [m, p] = mod.slice(1).split('+');
        return { a: bound('dow', day), z: null, sl: null, ha: null, mo: [Number.parseInt(m!, 10), p === undefined ? 0 : Number.parseInt(p, 10)] };
      }
      c.at = start;
    }
  }
  const bare = c.rex(SLASH);
  if (bare !== null) return { a: null, z: null, sl: Number.parseInt(bare.slice(1), 10), ha: null, mo: null };
  return sorws(c, kind);
};

const list = (c: Cursor, kind: FieldKind): Element[] | null => {
  const first = element(c, kind);
  if (first === null) return null;
  const out = [first];
  for (;;) {
    const mark = c.at;
    if (!c.str(',')) break;
    const next = element(c, kind);
    if (next === null) {
      c.at = mark; // a trailing comma is not consumed; what follows then fails
      break;
    }
    out.push(next);
  }
  return out;
};

const fields = (c: Cursor, kinds: readonly FieldKind[]): Partial<Record<FieldKind, Element[]>> & { tz: string | null } | null => {
  const out: Partial<Record<FieldKind, Element[]>> & { tz: string | null } = { tz: null };
  for (let i = 0; i < kinds.length; i++) {
    const kind = kinds[i]!;
    const parsed = list(c, kind);
    if (parsed === null) return null;
    out[kind] = parsed;
    if (i < kinds.length - 1 && c.rex(SPACE) === null) return null;
  }
  const tz = c.rex(TZ_DELTA) ?? c.rex(TZ_NAME);
  if (tz !== null) out.tz = tz.trim();
  return out;
};

const SECOND_CRON: readonly FieldKind[] = ['sec', 'min', 'hou', 'dom', 'mon', 'dow'];
const CLASSIC_CRON: readonly FieldKind[] = ['min', 'hou', 'dom', 'mon', 'dow'];

/**
 * The syntax step of `Fugit::Cron.parse`: the fields and the zone text, or null. The six-field form is tried
 * first and, if it matches a prefix, wins even when the rest of the string then fails (no backtracking).
 */
export const parseFields = (text: string): ParsedFields | null => {
  let c = new Cursor(text);
  let parsed = fields(c, SECOND_CRON);
  if (parsed === null) {
    c = new Cursor(text);
    parsed = fields(c, CLASSIC_CRON);
  }
  if (parsed === null || c.at !== text.length) return null;
  return {
    sec: parsed.sec ?? null,
    min: parsed.min!,
    hou: parsed.hou!,
    dom: parsed.dom!,
    mon: parsed.mon!,
    dow: parsed.dow!,
    tz: parsed.tz,
  };
};

/** A weekday entry: the day (0 = Sunday) and, optionally, its `#n` or `%mod+plus`. */
export type Weekday = readonly [number] | readonly [number, number] | readonly [number, readonly [number, number]];

/** A cron line as fugit 1.2 evaluates it: null means "any". */
export interface CronFields {
  readonly seconds: readonly number[] | null;
  readonly minutes: readonly number[] | null;
  readonly hours: readonly number[] | null;
  /** Negative days count from the month's end (-1 is the last day). */
  readonly monthdays: readonly number[] | null;
  readonly months: readonly number[] | null;
  /** In the order written (fugit looks up the first entry for a day). */
  readonly weekdays: readonly Weekday[] | null;
}

/** Why a parsed line cannot be used, where the platform raises instead of answering nil. */
export type FieldsError = 'step-zero';

/** Ruby's `(sta..edn).step(sla).to_a`. */
const range = (sta: number, edn: number, sla: number): number[] => {
  const out: number[] = [];
  for (let v = sta; v <= edn; v += sla) out.push(v);
  return out;
};

/** fugit 1.2's `expand`: `a/n` without an end is just `a`; a step of 1 is no step; `*` and `*\/1` are "any" (null). */
const expand = (min: number, max: number, e: Element): (number | null)[] | FieldsError => {
  let { a: sta, z: edn, sl: sla } = e;
  if (sla === 1) sla = null;
  if (sta === null && edn === null && sla === null) return [null];
  if (sta !== null && edn === null) return [sta];
  if (sla === null) sla = 1;
  if (sla === 0) return 'step-zero'; // Ruby: ArgumentError, step can't be 0
  if (sta === null) sta = min;
  if (edn === null) edn = max;
  if (sta > edn) [sta, edn] = [edn, sta];
  return range(sta, edn, sla);
};

const compact = (values: (number | null)[]): number[] | null => {
  if (values.includes(null)) return null;
  return [...new Set(values as number[])].sort((x, y) => x - y);
};

const determine = (elements: readonly Element[], min: number, max: number, map?: (v: number) => number): number[] | null | FieldsError => {
  const all: (number | null)[] = [];
  for (const e of elements) {
    const values = expand(min, max, e);
    if (values === 'step-zero') return values;
    for (const v of values) all.push(v === null || !map ? v : map(v));
  }
  return compact(all);
};

const determineWeekdays = (elements: readonly Element[]): Weekday[] | null => {
  const out: Weekday[] = [];
  for (const { a, z, sl, ha, mo } of elements) {
    if (ha !== null) out.push([a!, ha]);
    else if (mo !== null) out.push([a!, mo]);
    else if (sl !== null) {
      const to = z ?? (a !== null ? a : 6);
      for (let i = a ?? 0; i <= to; i += sl < 1 ? 1 : sl) out.push([i]);
    } else if (z !== null) for (let i = a!; i <= z; i++) out.push([i]);
    else if (a !== null) out.push([a]);
    // `*` adds nothing: "*" alone is "any", but "*,1" is Mondays only.
  }
  const seen = new Set<string>();
  const unique: Weekday[] = [];
  for (const w of out) {
    const day = w[0] === 7 ? 0 : w[0]; // Sunday may be written 7
    const hom = w[1];
    const entry: Weekday = hom === undefined ? [day] : typeof hom === 'number' ? [day, hom] : [day, hom];
    const key = JSON.stringify(entry);
    if (!seen.has(key)) {
      seen.add(key);
      unique.push(entry);
    }
  }
  return unique.length === 0 ? null : unique;
};

const MAXDAYS = [0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * fugit 1.2's `init`: expands the lists; null when no month has any of the listed days ("30 2", "31 4,6"),
 * and months without any of the listed days are dropped (so "0 0 30 1,2 mon" never fires in February).
 */
export const determineFields = (p: ParsedFields): CronFields | null | FieldsError => {
  const seconds = p.sec === null ? [0] : determine(p.sec, 0, 59);
  const minutes = determine(p.min, 0, 59);
  const hours = determine(p.hou, 0, 23, (h) => (h === 24 ? 0 : h));
  const monthdays = determine(p.dom, 1, 31);
  let months = determine(p.mon, 1, 12);
  for (const v of [seconds, minutes, hours, monthdays, months]) if (v === 'step-zero') return v;
  let days = monthdays as number[] | null;
  if (months !== null && days !== null) {
    const ms: number[] = [];
    const ds: number[] = [];
    for (const m of months as number[]) {
      for (const d of days) {
        if (d > MAXDAYS[m]!) continue;
        ms.push(m);
        ds.push(d);
      }
    }
    months = [...new Set(ms)];
    days = [...new Set(ds)];
    if (months.length === 0 || days.length === 0) return null;
  }
  return {
    seconds: seconds as number[] | null,
    minutes: minutes as number[] | null,
    hours: hours as number[] | null,
    monthdays: days,
    months: months as number[] | null,
    weekdays: determineWeekdays(p.dow),
  };
};

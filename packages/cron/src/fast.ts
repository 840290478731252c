/**
 * The fast path: croner evaluates the expanded lists (never the user's text, so croner's own grammar and
 * extensions play no part), at the zone's offset. Where that offset is constant from the start to well past the answer,
 * fugit's stepping and a wall-clock search agree, so croner's answer is the platform's; anywhere else, and
 * for what croner cannot express (`%`, `#-2`, day -2 from the month's end), the engine answers.
 */
import { Cron } from 'croner';
import type { CronFields } from './parse.js';

const list = (values: readonly number[] | null): string => (values === null ? '*' : values.join(','));

/** The croner pattern (six fields, seconds first) for `c`, or null when croner cannot express it. */
export const cronerPattern = (c: CronFields): string | null => {
  let dom = '*';
  if (c.monthdays !== null) {
    if (c.monthdays.length === 1 && c.monthdays[0] === -1) dom = 'L';
    else if (c.monthdays.every((d) => d >= 1)) dom = c.monthdays.join(',');
    else return null;
  }
  let dow = '*';
  if (c.weekdays !== null) {
    const parts: string[] = [];
    const seen = new Set<number>();
    for (const w of c.weekdays) {
      if (seen.has(w[0])) continue; // fugit reads only the first entry for a day
      seen.add(w[0]);
      if (w.length === 1) parts.push(String(w[0]));
      else if (typeof w[1] === 'number' && (w[1] >= 1 || w[1] === -1)) parts.push(`${w[0]}#${w[1] === -1 ? 'L' : w[1]}`);
      else return null;
    }
    dow = parts.join(',');
  }
  return `${list(c.seconds)} ${list(c.minutes)} ${list(c.hours)} ${dom} ${list(c.months)} ${dow}`;
};

/**
 * A croner job for the pattern at a fixed UTC offset (minutes). The layer asks croner only where the zone's
 * offset holds over the whole search, so the offset in force at the start is the zone there; croner with an
 * offset is arithmetic, about 3x faster than croner with a `timezone` (which formats through Intl each call).
 */
export const cronerJob = (pattern: string, utcOffsetMinutes: number): Cron =>
  new Cron(pattern, { utcOffset: utcOffsetMinutes, paused: true, mode: '6-part', domAndDow: false });

/**
 * Golden vectors: expressions × zones × start times → validity, next_time_from and next_run_at, with DST
 * edges, Rails zones and fugit's syntax (test/cron/golden-inputs.ts says why each is there). The answers in
 * golden.json were checked against fugit when they were written (its answer is kept beside ours where the
 * platform's fugit 1.2 and the oracle's differ, see docs/decisions.md "Cron").
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cronTimezoneValid, cronValid, nextRunAt, nextTimeFrom, type NextTime } from '@forgefold/cron';
import { GOLDEN_INPUTS } from './golden-inputs.js';

interface Vector {
  readonly cron: string;
  readonly tz: string;
  readonly from: string;
  readonly why: string;
  readonly cron_valid: boolean;
  readonly cron_timezone_valid: boolean;
  readonly next_time: string;
  readonly next_run_at: string;
  readonly oracle: string;
}

const golden = JSON.parse(readFileSync(new URL('./golden.json', import.meta.url), 'utf8')) as { vectors: Vector[] };
const show = (r: NextTime) => (r.ok ? r.at.toISOString() : r.failure.kind);

describe('cron golden vectors', () => {
  it('covers every input', () => {
    expect(golden.vectors.map(({ cron, tz, from, why }) => ({ cron, tz, from, why }))).toEqual(GOLDEN_INPUTS);
  });

  it.each(golden.vectors.map((v) => [`${v.cron} | ${v.tz} | ${v.from}: ${v.why}`, v] as const))('%s', (_, v) => {
    expect(cronValid(v.cron)).toBe(v.cron_valid);
    expect(cronTimezoneValid(v.tz)).toBe(v.cron_timezone_valid);
    expect(show(nextTimeFrom(v.cron, v.tz, new Date(v.from)))).toBe(v.next_time);
    expect(show(nextRunAt(v.cron, v.tz, new Date(v.from)))).toBe(v.next_run_at);
  });

  it('differs from the oracle only where a quirk is named', () => {
    for (const v of golden.vectors) if (v.oracle !== 'same' && v.oracle !== 'nil' && !/quirk|raises|invalid/.test(v.why)) throw new Error(`unexplained: ${JSON.stringify(v)}`);
  });
});

/**
 * Writes test/cron/golden.json: the golden vectors of @forgefold/cron (next_time_from and next_run_at for
 * expressions × zones × start times, DST edges and Rails zones among them), each with fugit's answer from the
 * oracle script beside it, and the quirk that explains any difference (the platform runs fugit 1.2).
 * Run by hand after a deliberate change: `npx tsx test/cron/golden.generate.ts` (needs ruby and ruby-fugit).
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { nextRunAt, nextTimeFrom, cronValid, cronTimezoneValid } from '../../packages/cron/src/index.js';
import { GOLDEN_INPUTS } from './golden-inputs.js';

const script = fileURLToPath(new URL('../../packages/cron/oracle/fugit.rb', import.meta.url));
const requests = GOLDEN_INPUTS.map((v, id) => ({ id, cron: v.cron, tz: v.tz, from: Date.parse(v.from) }));
const run = spawnSync('ruby', [script], { input: requests.map((r) => JSON.stringify(r)).join('\n') + '\n', encoding: 'utf8' });
if (run.status !== 0) throw new Error(run.stderr);
const [head, ...lines] = run.stdout.trim().split('\n');
const answers = lines.map((l) => JSON.parse(l) as { next: number | null; error: string | null });
const iso = (r: ReturnType<typeof nextTimeFrom>) => (r.ok ? r.at.toISOString() : r.failure.kind);
const vectors = GOLDEN_INPUTS.map((v, i) => {
  const a = answers[i]!;
  const next = nextTimeFrom(v.cron, v.tz, new Date(v.from));
  const fugit = a.next !== null ? new Date(a.next).toISOString() : a.error ?? 'nil';
  return {
    ...v,
    cron_valid: cronValid(v.cron),
    cron_timezone_valid: cronTimezoneValid(v.tz),
    next_time: iso(next),
    next_run_at: iso(nextRunAt(v.cron, v.tz, new Date(v.from))),
    oracle: fugit === iso(next) ? 'same' : fugit,
  };
});
writeFileSync(fileURLToPath(new URL('./golden.json', import.meta.url)), JSON.stringify({ oracle: JSON.parse(head!).versions, vectors }, null, 1) + '\n');
console.log(`${vectors.length} vectors, ${vectors.filter((v) => v.oracle !== 'same').length} differ from the oracle`);

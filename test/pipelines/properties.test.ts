/**
 * Properties of schedules through the module: whatever cron, zone and moment, the next_run_at a decision records
 * is after now, on the worker's grid (minute 3, 13, … in UTC), not before the cron's own next tick in the zone
 * (and that tick is one: the layer finds it again from just before it); and a random history of schedule commands
 * and scheduler ticks, replayed from the log, gives exactly the live state.
 */
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { nextTimeFrom } from '@forgefold/cron';
import { Application, eventsOf, forgefold, type ForgefoldCommand, type State } from '@forgefold/core';
import { makeApp, system, as, userCommand } from '../core/fixtures.js';
import { ORACLE_ZONES, prng, randomCron } from '../cron/expressions.js';
import { projectCreated, stateOf, userCreated, memberAdded } from '../specs/spec.js';

const onWorkerGrid = (at: string): boolean => {
  const date = new Date(at);
  return date.getUTCSeconds() === 0 && date.getUTCMilliseconds() === 0 && date.getUTCMinutes() % 10 === 3;
};

const base = stateOf([
  userCreated(1, 'owner'),
  projectCreated(1, 'app', 101, { kind: 'user' }),
  memberAdded(1, { project: 1 }, 1, 40),
  { type: 'BranchCreated', data: { project_id: 1, name: 'main', sha: 'a'.repeat(40), via: 'api' } },
]);

const ZONES = ORACLE_ZONES.filter((zone) => !/^[+-]/.test(zone));

describe('schedules: next_run_at properties', () => {
  it('is after now, on the worker grid, at or after a tick of the cron in the zone', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 }), fc.integer({ min: 0, max: ZONES.length - 1 }), fc.integer({ min: Date.UTC(2024, 0, 1), max: Date.UTC(2030, 0, 1) }), (seed, zone, nowMs) => {
        const cron = randomCron(prng(seed), { invalid: 0 });
        const tz = ZONES[zone]!;
        const at = new Date(nowMs).toISOString();
        const decision = forgefold.decider.decide(
          { command: { type: 'CreatePipelineSchedule', project_id: 1, description: 'p', ref: 'main', cron, cron_timezone: tz, active: true }, actor: { userId: 1, origin: 'api' }, at },
          base,
        );
        if (E.isLeft(decision)) return; // a cron or zone the platform refuses (validity is the cron layer's tests')
        const next = (eventsOf(decision.right)[0]!.data as { next_run_at: string | null }).next_run_at;
        if (next === null) return;
        expect(next > at).toBe(true);
        expect(onWorkerGrid(next)).toBe(true);
        const ideal = nextTimeFrom(cron, tz, nowMs);
        expect(ideal.ok).toBe(true);
        if (!ideal.ok) return;
        expect(Date.parse(next)).toBeGreaterThanOrEqual(ideal.at.getTime());
        // No worker tick lies between the ideal time and next_run_at, except the one the platform steps over.
        expect(Date.parse(next) - ideal.at.getTime()).toBeLessThanOrEqual(10 * 60_000);
        const again = nextTimeFrom(cron, tz, ideal.at.getTime() - 1);
        expect(again.ok && again.at.getTime()).toBe(ideal.at.getTime());
      }),
      { numRuns: 300 },
    );
  });
});

describe('schedules: replay equals live', () => {
  it('a random history of schedule commands and scheduler ticks folds back to the live state', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.integer({ min: 0, max: 7 }), fc.integer({ min: 1, max: 2 ** 30 }), fc.integer({ min: 0, max: 3 * 3_600_000 })), { minLength: 5, maxLength: 30 }), async (steps) => {
        const { app, store, run, ok, advance } = await makeApp('2026-05-01T09:57:00.000Z');
        await ok(system, userCommand('owner'));
        const created = await ok(as(1), { type: 'CreateProject', name: 'app', path: 'app' });
        const projectId = (created.events.find((event) => event.type === 'ProjectCreated')!.data as { id: number }).id;
        const state = () => app.state as State;
        // A branch for the schedules' ref (recorded as git would report it).
        await run(as(1), { type: 'UpdateRefs', project_id: projectId, via: 'api', changes: [{ ref: 'refs/heads/main', old_sha: null, new_sha: 'a'.repeat(40) }] });
        for (const [kind, seed, wait] of steps) {
          const r = prng(seed);
          const ids = [...Array(state().schedules.sequence).keys()].map((i) => i + 1);
          const id = ids.length > 0 ? ids[seed % ids.length]! : 1;
          const target = { project_id: projectId, schedule_id: id };
          const commands: ForgefoldCommand[] = [
            { type: 'CreatePipelineSchedule', project_id: projectId, description: `s${seed}`, ref: r.chance(0.8) ? 'main' : 'gone', cron: randomCron(r, { invalid: 0.1 }), cron_timezone: r.pick(ZONES), active: r.chance(0.8) },
            { type: 'UpdatePipelineSchedule', ...target, changes: { active: r.chance(0.5), cron: randomCron(r, { invalid: 0 }) } },
            { type: 'DeletePipelineSchedule', ...target },
            { type: 'PlayPipelineSchedule', ...target },
            { type: 'CreatePipelineScheduleVariable', ...target, key: r.pick(['A', 'B', 'bad key']), value: String(seed), variable_type: 'env_var' },
            { type: 'DeletePipelineScheduleVariable', ...target, key: 'A' },
            { type: 'TakePipelineScheduleOwnership', ...target },
            { type: 'RunDueSchedules' },
          ];
          advance(wait);
          const command = commands[kind]!;
          await run(command.type === 'RunDueSchedules' ? system : as(1), command);
        }
        await run(system, { type: 'RunDueSchedules' });
        const replayed = (await Application.start<ForgefoldCommand, State>({ ...forgefold, store, clock: { now: () => '' }, ids: { eventId: () => '' } })).state;
        expect(JSON.stringify(replayed.schedules)).toBe(JSON.stringify(state().schedules));
        expect(JSON.stringify(replayed.pipelines)).toBe(JSON.stringify(state().pipelines));
      }),
      { numRuns: 25 },
    );
  });
});

/** The modules' processes: when each is due, and that running its command leaves nothing due (membership expiry). */
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { eventsOf, findEnvironment, forgefold, forgefoldProcesses, tableKeys } from '@forgefold/core';
import { manualScheduler } from '../support/scheduler.js';
import { groupCreated, memberAdded, projectCreated, stateOf, userCreated } from './spec.js';

describe('module processes', () => {
  it('expiry is due from the expiry day, and its command leaves nothing due', () => {
    const [expiry] = forgefoldProcesses;
    expect(expiry?.name).toBe('expire-memberships');
    const given = [userCreated(1, 'alice'), userCreated(2, 'bob'), groupCreated(3, 'team'), memberAdded(1, { group: 3 }, 1, 50), memberAdded(2, { group: 3 }, 2, 30, { expires: '2026-01-02' })];
    const state = stateOf(given);
    expect(expiry!.due(state, '2026-01-01T23:59:59.999Z')).toBe(false);
    expect(expiry!.due(state, '2026-01-02T00:00:00.000Z')).toBe(true);
    const decision = forgefold.decider.decide({ command: expiry!.command, actor: { userId: null, origin: 'system' }, at: '2026-01-02T00:00:00.000Z' }, state);
    if (E.isLeft(decision)) throw new Error('expiry refused');
    expect(eventsOf(decision.right).map((event) => event.type)).toEqual(['MemberExpired']);
    // A new state (states are immutable between commands; `due` may memoize on them).
    expect(expiry!.due(stateOf([...given, ...eventsOf(decision.right)]), '2026-01-02T00:00:00.000Z')).toBe(false);
  });

  it('the scheduler is due from the earliest next_run_at, and its run leaves nothing due', () => {
    const process = forgefoldProcesses.find((candidate) => candidate.name === 'run-pipeline-schedules')!;
    const given = [
      userCreated(1, 'alice'),
      projectCreated(1, 'app', 101, { kind: 'user' }),
      { type: 'BranchCreated', data: { project_id: 1, name: 'main', sha: 'a'.repeat(40), via: 'api' } },
      {
        type: 'ScheduleCreated',
        data: { project_id: 1, id: 1, description: 'x', ref: 'main', cron: '0 1 * * *', cron_timezone: 'UTC', active: true, owner_id: 1, next_run_at: '2026-01-01T01:03:00.000Z', created_at: '2026-01-01T00:00:00.000Z' },
      },
    ];
    const state = stateOf(given);
    expect(process.due(state, '2026-01-01T01:02:59.999Z')).toBe(false);
    expect(process.due(state, '2026-01-01T01:03:00.000Z')).toBe(true);
    const decision = forgefold.decider.decide({ command: process.command, actor: { userId: null, origin: 'system' }, at: '2026-01-01T01:03:00.000Z' }, state);
    if (E.isLeft(decision)) throw new Error('run refused');
    expect(eventsOf(decision.right).map((event) => event.type)).toEqual(['ScheduleRan', 'PipelineCreated']);
    expect(process.due(stateOf([...given, ...eventsOf(decision.right)]), '2026-01-01T01:03:00.000Z')).toBe(false);
  });

  it('environment clean-up is due once a stopped environment is past its auto_delete_at, and its run leaves nothing due', () => {
    const process = forgefoldProcesses.find((candidate) => candidate.name === 'auto-delete-environments')!;
    const created = (id: number, name: string) => ({ type: 'EnvironmentCreated', data: { project_id: 1, id, name, slug: name.replace('/', '-'), external_url: null, created_at: '2026-01-01T00:00:00.000Z' } });
    const stopped = (id: number) => ({ type: 'EnvironmentStopped', data: { project_id: 1, id, at: '2026-01-01T00:00:00.000Z' } });
    const scheduled = (id: number) => ({ type: 'EnvironmentDeletionScheduled', data: { project_id: 1, id, auto_delete_at: '2026-01-08T00:00:00.000Z' } });
    const given = [userCreated(1, 'alice'), projectCreated(1, 'app', 101, { kind: 'user' }), created(1, 'review/a'), created(2, 'review/b'), stopped(1), scheduled(1), scheduled(2)];
    const state = stateOf(given);
    // `auto_delete_at < now`, of stopped environments only (review/b is available).
    expect(process.due(state, '2026-01-08T00:00:00.000Z')).toBe(false);
    expect(process.due(state, '2026-01-08T00:00:00.001Z')).toBe(true);
    const decision = forgefold.decider.decide({ command: process.command, actor: { userId: null, origin: 'system' }, at: '2026-01-08T00:00:00.001Z' }, state);
    if (E.isLeft(decision)) throw new Error('clean-up refused');
    expect(eventsOf(decision.right)).toEqual([{ type: 'EnvironmentDeleted', data: { project_id: 1, id: 1 } }]);
    const after = stateOf([...given, ...eventsOf(decision.right)]);
    expect(process.due(after, '2026-01-08T00:00:00.001Z')).toBe(false);
    // The available one, stopped later, falls due then.
    expect(process.due(stateOf([...given, ...eventsOf(decision.right), stopped(2)]), '2026-01-09T00:00:00.000Z')).toBe(true);
  });

  it('an environment started again leaves the clean-up index (its auto_delete_at stays) and is back in it once stopped again', () => {
    const process = forgefoldProcesses.find((candidate) => candidate.name === 'auto-delete-environments')!;
    const event = (type: string, data: object) => ({ type, data: { project_id: 1, ...data } });
    const given = [
      userCreated(1, 'alice'),
      projectCreated(1, 'app', 101, { kind: 'user' }),
      event('EnvironmentCreated', { id: 1, name: 'review/a', slug: 'review-a', external_url: null, created_at: '2026-01-01T00:00:00.000Z' }),
      event('EnvironmentStopped', { id: 1, at: '2026-01-01T00:00:00.000Z' }),
      event('EnvironmentDeletionScheduled', { id: 1, auto_delete_at: '2026-01-08T00:00:00.000Z' }),
      event('EnvironmentStarted', { id: 1, at: '2026-01-02T00:00:00.000Z' }),
    ];
    const started = stateOf(given);
    expect([...tableKeys(started.deployments.scheduledDeletions)]).toEqual([]);
    expect(findEnvironment(started.deployments, 1, 1)?.auto_delete_at).toBe('2026-01-08T00:00:00.000Z');
    expect(process.due(started, '2026-01-09T00:00:00.000Z')).toBe(false);
    // `auto_deletable` is `stopped.where('auto_delete_at < ?', now)`: the column kept, a second stop makes it due again.
    const stoppedAgain = stateOf([...given, event('EnvironmentStopped', { id: 1, at: '2026-01-03T00:00:00.000Z' })]);
    expect([...tableKeys(stoppedAgain.deployments.scheduledDeletions)]).toEqual(['1']);
    expect(process.due(stoppedAgain, '2026-01-09T00:00:00.000Z')).toBe(true);
  });

  it('a host runs them from a scheduler the test drives', () => {
    const { scheduler, tick } = manualScheduler();
    const ran: string[] = [];
    const stop = scheduler.every(60_000, () => forgefoldProcesses.forEach((process) => ran.push(process.name)));
    tick(59_999);
    expect(ran).toEqual([]);
    tick(120_001);
    const names = forgefoldProcesses.map((process) => process.name);
    expect(names).toEqual(['expire-memberships', 'auto-delete-environments', 'run-pipeline-schedules']);
    expect(ran).toEqual([...names, ...names, ...names]);
    stop();
    tick(60_000);
    expect(ran).toHaveLength(3 * names.length);
  });
});

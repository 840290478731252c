/** The modules' processes: when each is due, and that running its command leaves nothing due (membership expiry). */
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { eventsOf, forgefold, forgefoldProcesses, type Scheduler } from '@forgefold/core';
import { groupCreated, memberAdded, stateOf, userCreated } from './spec.js';

/** A scheduler a test drives: `tick` runs every task whose interval has elapsed. */
const manualScheduler = () => {
  let now = 0;
  const tasks: { every: number; next: number; task: () => void }[] = [];
  const scheduler: Scheduler = {
    every: (every, task) => {
      const entry = { every, next: now + every, task };
      tasks.push(entry);
      return () => tasks.splice(tasks.indexOf(entry), 1);
    },
  };
  const tick = (ms: number) => {
    now += ms;
    for (const entry of tasks) {
      while (entry.next <= now) {
        entry.next += entry.every;
        entry.task();
      }
    }
  };
  return { scheduler, tick };
};

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

  it('a host runs them from a scheduler the test drives', () => {
    const { scheduler, tick } = manualScheduler();
    const ran: string[] = [];
    const stop = scheduler.every(60_000, () => forgefoldProcesses.forEach((process) => ran.push(process.name)));
    tick(59_999);
    expect(ran).toEqual([]);
    tick(120_001);
    expect(ran).toEqual(['expire-memberships', 'expire-memberships', 'expire-memberships']);
    stop();
    tick(60_000);
    expect(ran).toHaveLength(3);
  });
});

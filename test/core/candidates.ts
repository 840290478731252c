/**
 * What the property tests of the candidate lists share (`group-projects.test.ts`, `shared-projects.test.ts`): a world
 * of callers, and the check that a list's candidates, filtered by `canReadProject`, equal every project it may hold
 * filtered the same way (the route's scan before), for every caller.
 */
import { expect } from 'vitest';
import { canReadProject, type Project, type State } from '@forgefold/core';
import { letterUser, makeApp, system, userCommand } from './fixtures.js';
import { USERS } from './random-access.js';

/** The administrator (never a member; the steps touch only USERS), and two accounts no step ever gives anything. */
export const ADMIN = 6;
const OUTSIDER = 7;
const EXTERNAL_OUTSIDER = 8;
/** Anonymous, the users of the steps (user 5 is external), the administrator, the outsiders, an unknown id. */
const CALLERS = [null, ...USERS, ADMIN, OUTSIDER, EXTERNAL_OUTSIDER, 99];

export const ids = (items: Iterable<{ id: number }>): number[] => [...items].map((item) => item.id);

/** An application with the steps' users 1–5 (5 external), then the administrator and the two outsiders. */
export const callersWorld = async () => {
  const made = await makeApp();
  const { ok } = made;
  for (const name of ['a', 'b', 'c', 'd']) await ok(system, letterUser(name));
  await ok(system, letterUser('e', { external: true }));
  await ok(system, userCommand('root', { is_admin: true }));
  await ok(system, userCommand('stranger'));
  await ok(system, userCommand('visitor', { external: true }));
  return made;
};

/**
 * For every caller: the candidates are in id order without repeats and among `every`; filtered by `canReadProject`
 * they equal `every` filtered the same way; without a membership anywhere they are exactly what the caller reads.
 * The administrator's are all of `every`.
 */
export const expectCandidates = (state: State, every: readonly Project[], candidatesOf: (userId: number | null) => readonly Project[]): void => {
  for (const userId of CALLERS) {
    const candidates = candidatesOf(userId);
    expect(ids(candidates)).toEqual([...new Set(ids(candidates))].sort((a, b) => a - b));
    expect(ids(candidates).every((id) => every.some((p) => p.id === id))).toBe(true);
    const readable = ids(every.filter((p) => canReadProject(state, userId, p)));
    expect(ids(candidates.filter((p) => canReadProject(state, userId, p)))).toEqual(readable);
    if (userId === null || userId === OUTSIDER || userId === EXTERNAL_OUTSIDER) expect(ids(candidates)).toEqual(readable);
  }
  expect(ids(candidatesOf(ADMIN))).toEqual(ids(every));
};

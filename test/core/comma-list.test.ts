/**
 * Properties of a comma list's decision (`AddMembers`), as 14.7's `parse_users_list` reads it: an item that is neither
 * a user id nor an e-mail address changes nothing, and whatever the list, the source ends with at most one row per user
 * and per invited address.
 */
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { eventsOf, forgefold, membersOfSource, outcomeOf, type Actor, type ForgefoldEvent } from '@forgefold/core';
import { describe, expect, it } from 'vitest';
import { AT, groupCreated, memberAdded, stateOf, userCreated } from '../specs/spec.js';

const given: ForgefoldEvent[] = [
  userCreated(1, 'alice'),
  userCreated(2, 'bob'),
  userCreated(3, 'carol'),
  userCreated(4, 'dave'),
  groupCreated(10, 'team', { by: 1 }),
  memberAdded(1, { group: 10 }, 1, 50, { by: 1 }),
  memberAdded(2, { group: 10 }, 3, 20, { by: 1 }),
  memberAdded(3, { group: 10 }, null, 30, { email: 'old@example.org', by: 1 }),
  { type: 'AccessRequested', data: { source_type: 'Namespace', source_id: 10, user_id: 4, at: AT } },
];
const state = stateOf(given);
const owner: Actor = { userId: 1, origin: 'api' };

const caseOf = (text: string, upper: boolean[]): string => [...text].map((c, i) => (upper[i % upper.length] ? c.toUpperCase() : c)).join('');
/** Items `parse_users_list` keeps: ids (known or not) and addresses (of users, invited, new), in any case. */
const meaningful = fc.oneof(
  fc.constantFrom('1', '2', '3', '4', '5', '99', '02'),
  fc.tuple(fc.constantFrom('alice@example.com', 'bob@example.com', 'carol@example.com', 'dave@example.com', 'old@example.org', 'new@example.org'), fc.array(fc.boolean(), { minLength: 1, maxLength: 4 })).map(([email, upper]) => caseOf(email, upper)),
);
/** Items it drops: usernames, blanks around an id or an address, malformed addresses, blanks. */
const junk = fc.constantFrom('bob', 'carol', ' 2', '2 ', ' bob@example.com', 'new@example.org ', 'a@', '@b', 'a@b@c', 'x y@z', '', ' ', '+2', '-1', '2.0');

const decide = (items: string[]) => {
  const decision = forgefold.decider.decide({ command: { type: 'AddMembers', source_type: 'Namespace', source_id: 10, user_ids: items, access_level: 30 }, actor: owner, at: AT }, state);
  if (E.isLeft(decision)) throw new Error(JSON.stringify(decision.left));
  return { events: eventsOf(decision.right), outcome: outcomeOf(decision.right) };
};

describe('a comma list of user_id (`parse_users_list`)', () => {
  it('an item that is no id nor address changes nothing: the list decides as it does without it', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(meaningful, junk, fc.boolean()), { minLength: 1, maxLength: 12 }), (pairs) => {
        const clean = pairs.map(([item]) => item);
        const mixed = pairs.flatMap(([item, dropped, before]) => (before ? [dropped, item] : [item, dropped]));
        fc.pre(new Set(mixed).size <= 100);
        expect(decide(mixed)).toEqual(decide(clean));
      }),
      { numRuns: 200 },
    );
  });

  it('the source ends with at most one row per user and per invited address', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(meaningful, junk), { minLength: 1, maxLength: 15 }), (items) => {
        const { events } = decide(items);
        const after = stateOf([...given, ...events]);
        const rows = [...membersOfSource(after.members, 'Namespace', 10)];
        const users = rows.filter((m) => m.user_id !== null).map((m) => m.user_id);
        const invited = rows.filter((m) => m.user_id === null).map((m) => m.invite_email!.toLowerCase());
        expect(new Set(users).size).toBe(users.length);
        expect(new Set(invited).size).toBe(invited.length);
        // An access requester reached by address is refused, never added beside the request.
        expect(users.includes(4)).toBe(items.includes('4'));
      }),
      { numRuns: 200 },
    );
  });
});

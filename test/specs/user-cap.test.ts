/**
 * One user-cap rule: a membership SCIM provisions waits for approval exactly when the same membership added
 * through the members API would (the members module's `mustAwait`, used by both).
 */
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { eventsOf, forgefold, type DomainEvent, type ForgefoldCommand } from '@forgefold/core';
import { AT, groupCreated, memberAdded, projectCreated, stateOf, userCreated } from './spec.js';

const membershipState = (given: readonly DomainEvent[], command: ForgefoldCommand): string | null => {
  const decision = forgefold.decider.decide({ command, actor: { userId: null, origin: 'system' }, at: AT }, stateOf(given));
  if (E.isLeft(decision)) return `error ${decision.left._tag}`;
  const added = eventsOf(decision.right).find((event) => event.type === 'MemberAdded');
  return added ? (added.data as { state: string }).state : null;
};

describe('user cap', () => {
  it('SCIM provisioning and the members API decide the same awaiting state', () => {
    const member = fc.record({ user: fc.integer({ min: 1, max: 5 }), level: fc.constantFrom(5, 10, 30, 50), awaiting: fc.boolean(), inProject: fc.boolean() });
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 4 }),
        fc.array(fc.record({ bot: fc.boolean(), blocked: fc.boolean() }), { minLength: 5, maxLength: 5 }),
        fc.array(member, { maxLength: 6 }),
        fc.integer({ min: 1, max: 5 }),
        (cap, users, members, target) => {
          const given: DomainEvent[] = users.flatMap((flags, index) => [
            userCreated(index + 1, `user${index + 1}`, flags.bot ? { bot: 'group_bot' } : {}),
            ...(flags.blocked ? [{ type: 'UserBlocked', data: { id: index + 1, at: AT } }] : []),
          ]);
          given.push(groupCreated(10, 'team'), projectCreated(1, 'app', 10), { type: 'GroupUpdated', data: { id: 10, new_user_signups_cap: cap, updated_at: AT } });
          const seen = new Set<string>();
          members.forEach((m, index) => {
            const key = `${m.inProject}:${m.user}`;
            if (seen.has(key) || (m.inProject && m.level > 40)) return;
            seen.add(key);
            given.push(memberAdded(index + 1, m.inProject ? { project: 1 } : { group: 10 }, m.user, m.level, { state: m.awaiting ? 'awaiting' : 'active' }));
          });
          if (seen.has(`false:${target}`)) return;
          // A bot holding a membership elsewhere is the model's validation (`project bots cannot be added …`), not the cap.
          if (users[target - 1]!.bot && seen.has(`true:${target}`)) return;
          given.push({
            type: 'SamlProviderConfigured',
            data: { id: 1, group_id: 10, enabled: true, sso_url: 'https://idp', certificate_fingerprint: 'ab'.repeat(20), enforced_sso: false, default_membership_role: 30, at: AT },
          });
          const viaApi = membershipState(given, { type: 'AddMember', source_type: 'Namespace', source_id: 10, user_id: target, access_level: 30 });
          const viaScim = membershipState(given, {
            type: 'ProvisionScimIdentity',
            group_id: 10,
            extern_uid: 'x',
            user_name: 'x',
            email: `user${target}@example.com`,
            name: 'X',
            given_name: null,
            family_name: null,
            active: true,
          });
          expect(viaScim).toBe(viaApi);
        },
      ),
      { numRuns: 300 },
    );
  });
});

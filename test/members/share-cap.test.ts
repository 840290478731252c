/**
 * Access through shares is capped at the share's `group_access` (issue 16): over random hierarchies, memberships
 * and shares, the access a user gets through any chain (a membership, at most one share, then the hierarchy
 * below the shared group) never exceeds the smallest cap on it; `/members/all` shows that capped level; and the
 * permission decisions of the deciders follow the capped level.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import {
  directMembership,
  effectiveGroupMember,
  effectiveProjectMembers,
  forgefold,
  groupAccessLevel,
  linksOfSource,
  listGroups,
  listProjects,
  projectAccessLevel,
  selfAndAncestors,
  findGroup,
  type ForgefoldCommand,
  type Group,
  type Project,
  type State,
} from '@forgefold/core';
import { as, letterUser, makeApp, system } from '../core/fixtures.js';

const USERS = [1, 2, 3, 4, 5];
const LEVELS = [10, 20, 30, 40, 50];

/** One chain's worth: the user's own level in a group, 0 when none (only active rows; the test makes no other). */
const own = (state: State, groupId: number, userId: number): number => directMembership(state.members, 'Namespace', groupId, userId)?.access_level ?? 0;

/**
 * Every chain from a user to a group, with its value: a membership of the group or of an ancestor (uncapped), or a
 * membership of a group shared into the group or into an ancestor, capped at that share's level.
 */
interface Chain {
  readonly value: number;
  readonly cap: number | null;
  /** Through a share into an ancestor: access, but not a row of the group's `/members/all` (the platform lists the group's own shares only). */
  readonly aboveOnly?: boolean;
}

const groupChains = (state: State, group: Group, userId: number): Chain[] => {
  const chains: Chain[] = [];
  for (const g of selfAndAncestors(state.groups, group)) {
    const level = own(state, g.id, userId);
    if (level > 0) chains.push({ value: level, cap: null });
    for (const link of linksOfSource(state.members, 'Namespace', g.id)) {
      const invited = own(state, link.group_id, userId);
      if (invited > 0) chains.push({ value: Math.min(invited, link.group_access), cap: link.group_access, aboveOnly: g.id !== group.id });
    }
  }
  return chains;
};

const projectChains = (state: State, project: Project, userId: number): Chain[] => {
  const chains: Chain[] = [];
  const direct = directMembership(state.members, 'Project', project.id, userId)?.access_level ?? 0;
  if (direct > 0) chains.push({ value: direct, cap: null });
  // Through a project share: every chain into the invited group (its ancestors, the groups shared into it or into
  // them: `Gitlab::ProjectAuthorizations`), then capped at the share's level.
  for (const link of linksOfSource(state.members, 'Project', project.id)) {
    const invited = findGroup(state.groups, link.group_id);
    for (const chain of invited ? groupChains(state, invited, userId) : []) chains.push({ value: Math.min(chain.value, link.group_access), cap: link.group_access });
  }
  const group = project.namespace_kind === 'group' ? findGroup(state.groups, project.namespace_id) : undefined;
  if (group) chains.push(...groupChains(state, group, userId));
  return chains;
};

const best = (chains: readonly { value: number }[]): number => chains.reduce((max, chain) => Math.max(max, chain.value), 0);

/** Whether the pure decision accepts a command by this user against the state (nothing is executed). */
const accepts = (state: State, userId: number, command: ForgefoldCommand): boolean =>
  E.isRight(forgefold.decider.decide({ command, actor: as(userId), at: '2026-01-01T00:00:00.000Z' }, state));

const step = fc.oneof(
  fc.record({ kind: fc.constant('group' as const), parent: fc.nat(7) }),
  fc.record({ kind: fc.constant('project' as const), group: fc.nat(7) }),
  fc.record({ kind: fc.constant('member' as const), user: fc.constantFrom(...USERS), target: fc.nat(7), level: fc.constantFrom(...LEVELS), project: fc.boolean() }),
  fc.record({ kind: fc.constant('shareGroup' as const), shared: fc.nat(7), invited: fc.nat(7), level: fc.constantFrom(...LEVELS) }),
  fc.record({ kind: fc.constant('shareProject' as const), project: fc.nat(7), invited: fc.nat(7), level: fc.constantFrom(10, 20, 30, 40) }),
);

describe('access through shares', () => {
  it('never exceeds the smallest group_access on its chain; /members/all and the deciders use the capped level', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 10, maxLength: 40 }), async (steps) => {
        const { app, ok } = await makeApp();
        for (const name of ['a', 'b', 'c', 'd', 'e', 'f']) await ok(system, letterUser(name));
        const groups = (): Group[] => [...listGroups(app.state.groups)];
        const projects = (): Project[] => [...listProjects(app.state.projects)];
        const pick = <T>(items: readonly T[], n: number): T | undefined => (items.length === 0 ? undefined : items[n % items.length]);
        let made = 0;
        for (const s of steps) {
          const gs = groups();
          if (s.kind === 'group') {
            made += 1;
            const parent = s.parent % 3 === 0 ? undefined : pick(gs, s.parent);
            await app.execute(system, { type: 'CreateGroup', name: `G${made}`, path: `g${made}`, ...(parent ? { parent_id: parent.id } : {}) });
          } else if (s.kind === 'project') {
            const group = pick(gs, s.group);
            made += 1;
            if (group) await app.execute(system, { type: 'CreateProject', path: `p${made}`, namespace_id: group.id });
          } else if (s.kind === 'member') {
            const project = s.project ? pick(projects(), s.target) : undefined;
            const group = pick(gs, s.target);
            if (project) await app.execute(system, { type: 'AddMember', source_type: 'Project', source_id: project.id, user_id: s.user, access_level: Math.min(s.level, 40) });
            else if (group) await app.execute(system, { type: 'AddMember', source_type: 'Namespace', source_id: group.id, user_id: s.user, access_level: s.level });
          } else if (s.kind === 'shareGroup') {
            const shared = pick(gs, s.shared);
            const invited = pick(gs, s.invited);
            if (shared && invited) await app.execute(system, { type: 'ShareGroup', group_id: shared.id, shared_with_group_id: invited.id, group_access: s.level });
          } else {
            const project = pick(projects(), s.project);
            const invited = pick(gs, s.invited);
            if (project && invited) await app.execute(system, { type: 'ShareProject', project_id: project.id, group_id: invited.id, group_access: s.level });
          }
        }
        const state = app.state;
        for (const userId of USERS) {
          for (const group of groups()) {
            const chains = groupChains(state, group, userId);
            const level = groupAccessLevel(state, group, userId);
            expect(level).toBe(best(chains));
            // Through a share, never above its cap.
            for (const chain of chains) if (chain.cap !== null) expect(chain.value).toBeLessThanOrEqual(chain.cap);
            // /members/all shows the capped level of the winning row (the viewer sees every group here).
            expect(effectiveGroupMember(state, group, userId)?.access_level ?? 0).toBe(best(chains.filter((c) => !c.aboveOnly)));
            // Deciders: only an owner (capped) updates the group; a developer creates projects in it.
            expect(accepts(state, userId, { type: 'UpdateGroup', id: group.id, description: 'x' })).toBe(level >= 50);
            expect(accepts(state, userId, { type: 'CreateProject', path: 'new-one', namespace_id: group.id })).toBe(level >= 30);
          }
          for (const project of projects()) {
            const chains = projectChains(state, project, userId);
            const level = projectAccessLevel(state, project, userId);
            expect(level).toBe(best(chains));
            for (const chain of chains) if (chain.cap !== null) expect(chain.value).toBeLessThanOrEqual(chain.cap);
            // /members/all lists the project, its group chain's members and the members of the groups the project is
            // shared with and of their ancestors (capped), not those of groups shared into them.
            const row = effectiveProjectMembers(state, project, () => true).find((m) => m.user_id === userId);
            const listed = [
              directMembership(state.members, 'Project', project.id, userId)?.access_level ?? 0,
              ...[...linksOfSource(state.members, 'Project', project.id)].flatMap((link) =>
                selfAndAncestors(state.groups, findGroup(state.groups, link.group_id)!).map((g) => Math.min(own(state, g.id, userId), link.group_access)),
              ),
              ...(project.namespace_kind === 'group' ? selfAndAncestors(state.groups, findGroup(state.groups, project.namespace_id)!).map((g) => own(state, g.id, userId)) : []),
            ];
            expect(row?.access_level ?? 0).toBe(Math.max(...listed));
            expect(row?.access_level ?? 0).toBeLessThanOrEqual(level);
            // Adding members to a project takes a (capped) maintainer; user 6 belongs nowhere, so validation passes.
            expect(accepts(state, userId, { type: 'AddMember', source_type: 'Project', source_id: project.id, user_id: 6, access_level: 10 })).toBe(level >= 40);
            expect(accepts(state, userId, { type: 'UpdateProject', id: project.id, description: 'x' })).toBe(level >= 40);
          }
        }
      }),
      { numRuns: 60 },
    );
  });
});

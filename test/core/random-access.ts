/**
 * Random command sequences over who may see what (hierarchies, memberships, shares, visibility changes, transfers,
 * deletions, blocked users, share locks), shared by the property tests of the lists that start from indexes
 * (`visible-lists.test.ts`, `group-projects.test.ts`). The users 1–5 must exist before the steps run.
 */
import fc from 'fast-check';
import { findUser, listGroups, listProjects, type Application, type ForgefoldCommand, type Group, type Project, type State } from '@forgefold/core';
import { system } from './fixtures.js';

export const USERS = [1, 2, 3, 4, 5];
const LEVELS = [10, 20, 30, 40, 50];
const VISIBILITIES = ['private', 'internal', 'public'] as const;

/** A group, top-level or under another. */
export const groupStep = fc.record({ kind: fc.constant('group' as const), parent: fc.nat(9), visibility: fc.constantFrom(...VISIBILITIES) });
/** A project in a group (`personal` 0), with the visibility drawn. */
export const groupProjectStep = fc.record({ kind: fc.constant('project' as const), group: fc.nat(9), visibility: fc.constantFrom(...VISIBILITIES), personal: fc.constant(0) });
/** A membership of a user in a group or a project. */
export const memberStep = fc.record({ kind: fc.constant('member' as const), user: fc.constantFrom(...USERS), target: fc.nat(9), level: fc.constantFrom(...LEVELS), project: fc.boolean() });
/** A project shared with a group. */
export const shareProjectStep = fc.record({ kind: fc.constant('shareProject' as const), project: fc.nat(9), invited: fc.nat(9), level: fc.constantFrom(10, 20, 30, 40) });
/** A group shared with another group. */
export const shareGroupStep = fc.record({ kind: fc.constant('shareGroup' as const), shared: fc.nat(9), invited: fc.nat(9), level: fc.constantFrom(...LEVELS) });

export const step = fc.oneof(
  groupStep,
  fc.record({ kind: fc.constant('project' as const), group: fc.nat(9), visibility: fc.constantFrom(...VISIBILITIES), personal: fc.constantFrom(...USERS, 0) }),
  memberStep,
  fc.record({ kind: fc.constant('unmember' as const), user: fc.constantFrom(...USERS), target: fc.nat(9), project: fc.boolean() }),
  shareGroupStep,
  shareProjectStep,
  fc.record({ kind: fc.constant('visibility' as const), target: fc.nat(9), project: fc.boolean(), visibility: fc.constantFrom(...VISIBILITIES) }),
  fc.record({ kind: fc.constant('transferGroup' as const), group: fc.nat(9), parent: fc.nat(9) }),
  fc.record({ kind: fc.constant('transferProject' as const), project: fc.nat(9), group: fc.nat(9), personal: fc.constantFrom(...USERS, 0, 0) }),
  fc.record({ kind: fc.constant('delete' as const), target: fc.nat(9), project: fc.boolean() }),
  fc.record({ kind: fc.constant('block' as const), user: fc.constantFrom(...USERS), unblock: fc.boolean() }),
  // `share_with_group_lock` (cascading to the subgroups): a locked group's project shares grant nothing.
  fc.record({ kind: fc.constant('lock' as const), group: fc.nat(9), lock: fc.boolean() }),
);

export type Step = typeof step extends fc.Arbitrary<infer S> ? S : never;

/**
 * The sequences the property tests draw: 2–6 groups and 2–8 group projects first (`step` alone makes about one group
 * per sequence and puts five in six projects into personal namespaces, so shares and group memberships would rarely
 * matter), then the steps with more group projects, memberships and project and group shares than `step` draws alone.
 */
export const accessSequences = (maxSteps = 40): fc.Arbitrary<Step[]> =>
  fc
    .tuple(
      fc.array(groupStep, { minLength: 2, maxLength: 6 }),
      fc.array(groupProjectStep, { minLength: 2, maxLength: 8 }),
      fc.array(
        fc.oneof(
          { arbitrary: step, weight: 3 },
          { arbitrary: groupProjectStep, weight: 1 },
          { arbitrary: memberStep, weight: 2 },
          { arbitrary: shareProjectStep, weight: 2 },
          { arbitrary: shareGroupStep, weight: 1 },
        ),
        { minLength: 10, maxLength: maxSteps },
      ),
    )
    .map(([groups, projects, rest]): Step[] => [...groups, ...projects, ...rest]);

/** Runs the steps as the system (a refused command is passed over: the sequences are random). */
export const applySteps = async (app: Application<ForgefoldCommand, State>, steps: readonly Step[]): Promise<void> => {
  const groups = (): Group[] => [...listGroups(app.state.groups)];
  const projects = (): Project[] => [...listProjects(app.state.projects)];
  const pick = <T>(items: readonly T[], n: number): T | undefined => (items.length === 0 ? undefined : items[n % items.length]);
  let made = 0;
  const run = async (command: ForgefoldCommand) => {
    await app.execute(system, command);
  };
  for (const s of steps) {
    const gs = groups();
    made += 1;
    if (s.kind === 'group') {
      const parent = s.parent % 3 === 0 ? undefined : pick(gs, s.parent);
      await run({ type: 'CreateGroup', name: `G${made}`, path: `g${made}`, visibility: s.visibility, ...(parent ? { parent_id: parent.id } : {}) });
    } else if (s.kind === 'project') {
      const group = pick(gs, s.group);
      if (s.personal !== 0) await run({ type: 'CreateProject', path: `p${made}`, owner_id: s.personal, visibility: s.visibility });
      else if (group) await run({ type: 'CreateProject', path: `p${made}`, namespace_id: group.id, visibility: s.visibility });
    } else if (s.kind === 'member' || s.kind === 'unmember') {
      const project = s.project ? pick(projects(), s.target) : undefined;
      const group = s.project ? undefined : pick(gs, s.target);
      const source = project ? { source_type: 'Project' as const, source_id: project.id } : group ? { source_type: 'Namespace' as const, source_id: group.id } : undefined;
      if (source && s.kind === 'member') await run({ type: 'AddMember', ...source, user_id: s.user, access_level: project ? Math.min(s.level, 40) : s.level });
      if (source && s.kind === 'unmember') await run({ type: 'RemoveMember', ...source, user_id: s.user });
    } else if (s.kind === 'shareGroup') {
      const shared = pick(gs, s.shared);
      const invited = pick(gs, s.invited);
      if (shared && invited) await run({ type: 'ShareGroup', group_id: shared.id, shared_with_group_id: invited.id, group_access: s.level });
    } else if (s.kind === 'shareProject') {
      const project = pick(projects(), s.project);
      const invited = pick(gs, s.invited);
      if (project && invited) await run({ type: 'ShareProject', project_id: project.id, group_id: invited.id, group_access: s.level });
    } else if (s.kind === 'visibility') {
      const project = s.project ? pick(projects(), s.target) : undefined;
      const group = s.project ? undefined : pick(gs, s.target);
      if (project) await run({ type: 'UpdateProject', id: project.id, visibility: s.visibility });
      if (group) await run({ type: 'UpdateGroup', id: group.id, visibility: s.visibility });
    } else if (s.kind === 'transferGroup') {
      const group = pick(gs, s.group);
      const parent = s.parent % 3 === 0 ? undefined : pick(gs, s.parent);
      if (group) await run({ type: 'TransferGroup', id: group.id, parent_id: parent?.id ?? null });
    } else if (s.kind === 'transferProject') {
      const project = pick(projects(), s.project);
      const group = pick(gs, s.group);
      // Into a personal namespace too: its owner holds the project without a membership.
      const user = s.personal === 0 ? undefined : findUser(app.state.users, s.personal);
      if (project && user) await run({ type: 'TransferProject', id: project.id, namespace_id: user.namespace_id });
      else if (project && group) await run({ type: 'TransferProject', id: project.id, namespace_id: group.id });
    } else if (s.kind === 'delete') {
      const project = s.project ? pick(projects(), s.target) : undefined;
      const group = s.project ? undefined : pick(gs, s.target);
      if (project) await run({ type: 'DeleteProject', id: project.id });
      if (group) await run({ type: 'DeleteGroup', id: group.id });
    } else if (s.kind === 'lock') {
      const group = pick(gs, s.group);
      if (group) await run({ type: 'UpdateGroup', id: group.id, share_with_group_lock: s.lock });
    } else {
      await run({ type: s.unblock ? 'UnblockUser' : 'BlockUser', id: s.user });
    }
  }
};

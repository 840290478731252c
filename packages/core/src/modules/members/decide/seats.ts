/** Seats: approval of memberships awaiting a seat (the user cap), and removal of a billable member from a hierarchy. */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import { badRequest, notFound } from '../../../kernel/domain-error.js';
import type { Group } from '../../groups/projection.js';
import { dayOf } from '../../shared/validation.js';
import { removed } from '../builders.js';
import type { MemberEvent } from '../events.js';
import type { Member } from '../projection.js';
import { findMember, hierarchySources, isLastOwner, membersOfSource, membershipsInHierarchy } from '../queries.js';
import { canAdminGroup, requireGroup, requireRoot, type Command, type Either, type MembersView } from './source.js';

/** Activation of awaiting memberships. */
const approvals = (members: readonly Member[], at: string): MemberEvent[] =>
  members.filter((m) => m.state === 'awaiting').map((m) => ({ type: 'MemberApproved', data: { id: m.id, source_type: m.source_type, source_id: m.source_id, user_id: m.user_id, at } }));

const hierarchyMembers = (state: MembersView, root: Group): Member[] => hierarchySources(state, root).flatMap((s) => [...membersOfSource(state.members, s.type, s.id)]);

export const decideApproveMember = (issued: Command<'ApproveMember'>, state: MembersView): Either<MemberEvent[]> => {
  const { command, at, actor } = issued;
  const today = dayOf(at);
  const actorId = actor.userId;
  return pipe(
    requireGroup(state, command.group_id),
    E.chain((group) => {
      const member = findMember(state.members, command.member_id);
      if (!member) return E.left(notFound());
      if (group.parent_id !== null || !canAdminGroup(state, actorId, group, today)) return E.left(badRequest());
      const same = hierarchyMembers(state, group).filter((m) =>
        member.user_id !== null ? m.user_id === member.user_id : m.invite_email !== null && m.invite_email.toLowerCase() === (member.invite_email ?? '').toLowerCase(),
      );
      return E.right(approvals(same, at));
    }),
  );
};

export const decideApproveAllMembers = (issued: Command<'ApproveAllMembers'>, state: MembersView): Either<MemberEvent[]> => {
  const { command, at, actor } = issued;
  const today = dayOf(at);
  const actorId = actor.userId;
  return pipe(
    requireGroup(state, command.group_id),
    E.chain((group) => (group.parent_id !== null || !canAdminGroup(state, actorId, group, today) ? E.left(badRequest()) : E.right(approvals(hierarchyMembers(state, group), at)))),
  );
};

export const decideRemoveBillableMember = (issued: Command<'RemoveBillableMember'>, state: MembersView): Either<MemberEvent[]> => {
  const { command, at, actor } = issued;
  const today = dayOf(at);
  const actorId = actor.userId;
  return pipe(
    requireGroup(state, command.group_id),
    E.chain((group) => requireRoot(group, 'Invalid group provided, must be top-level')),
    E.chain((group) => (canAdminGroup(state, actorId, group, today) ? E.right(group) : E.left(badRequest('User unauthorized to remove member')))),
    E.chain((group) => {
      const memberships = membershipsInHierarchy(state, group, command.user_id);
      if (memberships.length === 0) return E.left(badRequest('No member found for the given user_id'));
      if (memberships.some((m) => isLastOwner(state, m) && m.source_id === group.id && m.source_type === 'Namespace')) return E.left(badRequest('Gitlab::Access::AccessDeniedError'));
      return E.right(memberships.map((m) => removed(m, at, 'billable_member_removed')));
    }),
  );
};


/** Shares of a group or a project with a group (group links). */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import type { Issued } from '../../../kernel/decider.js';
import { conflict, notFound } from '../../../kernel/domain-error.js';
import { findGroup, selfAndAncestors } from '../../groups/queries.js';
import { dayOf, toSentence } from '../../shared/validation.js';
import type { MemberEvent } from '../events.js';
import type { GroupLink, SourceType } from '../projection.js';
import { linkBetween, projectSharesGrant } from '../queries.js';
import { administeredGroup, canAdminGroup, canReadGroupFor, requireAdmin, requireGroup, resolveSource, type Command, type Either, type MembersView, type ResolvedSource } from './source.js';

export const decideShareGroup = (issued: Command<'ShareGroup'>, state: MembersView): Either<MemberEvent[]> => {
  const { command, at, actor } = issued;
  const today = dayOf(at);
  const actorId = actor.userId;
  return pipe(
    requireGroup(state, command.group_id),
    E.chain((shared) =>
      pipe(
        requireGroup(state, command.shared_with_group_id),
        E.chain((invited): Either<MemberEvent[]> => {
          if (!canAdminGroup(state, actorId, shared, today) || !canReadGroupFor(state, actorId, invited)) return E.left(notFound(undefined, 'Not Found'));
          const errors: string[] = [];
          if (linkBetween(state.members, 'Namespace', shared.id, invited.id)) errors.push('The group has already been shared with this group');
          if (shared.id === invited.id) errors.push('Shared with group cannot be the same as the shared group');
          if (![10, 20, 30, 40, 50].includes(command.group_access)) errors.push('Group access is not included in the list');
          if (command.expires_at && command.expires_at < today) errors.push('Expires at cannot be a date in the past');
          if (errors.length > 0) return E.left(conflict(errors[0]!.startsWith('The group') ? `Shared group ${errors[0]}` : toSentence(errors)));
          return E.right([linkCreated(state, 'Namespace', shared.id, invited.id, command.group_access, command.expires_at ?? null, at, actorId)]);
        }),
      ),
    ),
  );
};

export const decideUnshareGroup = (issued: Command<'UnshareGroup'>, state: MembersView): Either<MemberEvent[]> => {
  const { command, at } = issued;
  return pipe(
    administeredGroup(state, issued),
    E.chain((shared) => {
      const link = linkBetween(state.members, 'Namespace', shared.id, command.shared_with_group_id);
      return link ? E.right([linkRemoved(link, at)]) : E.left(notFound('Group Link'));
    }),
  );
};

/** The project a share names, once the actor may administer its members. */
const administeredProject = (state: MembersView, issued: Issued<{ readonly project_id: number }>): Either<ResolvedSource> =>
  pipe(
    resolveSource(state, 'Project', issued.command.project_id),
    E.chain((source) => requireAdmin(state, issued.actor.userId, source, dayOf(issued.at))),
  );

export const decideShareProject = (issued: Command<'ShareProject'>, state: MembersView): Either<MemberEvent[]> => {
  const { command, at, actor } = issued;
  const today = dayOf(at);
  const actorId = actor.userId;
  return pipe(
    administeredProject(state, issued),
    E.chain((source): Either<MemberEvent[]> => {
      // lib/api/projects.rb: `allowed_to_share_with_group?` (the namespace's `share_with_group_lock`), before the service.
      if (source.project !== undefined && !projectSharesGrant(state, source.project)) return E.left({ _tag: 'BadRequest', message: 'The project sharing with group is disabled' });
      const invited = findGroup(state.groups, command.group_id);
      if (!invited || !canReadGroupFor(state, actorId, invited)) return E.left(notFound(undefined, 'Not Found'));
      // ProjectGroupLink's validations, in their order, as `full_messages.to_sentence` (409).
      const errors: string[] = [];
      if (linkBetween(state.members, 'Project', source.id, invited.id)) errors.push('Group already shared with this group');
      if (isGroupOrAncestorOfProject(state, source, invited.id)) errors.push('Project cannot be shared with the group it is in or one of its ancestors.');
      if (errors.length > 0) return E.left(conflict(toSentence(errors)));
      if (command.expires_at && command.expires_at < today) return E.left(conflict('Expires at cannot be a date in the past'));
      return E.right([linkCreated(state, 'Project', source.id, invited.id, command.group_access, command.expires_at ?? null, at, actorId)]);
    }),
  );
};

/** `ProjectGroupLink#different_group`: the project's own group and its ancestors are refused. */
const isGroupOrAncestorOfProject = (state: MembersView, source: ResolvedSource, groupId: number): boolean => {
  const project = source.project;
  if (!project || project.namespace_kind !== 'group') return false;
  const own = findGroup(state.groups, project.namespace_id);
  return own !== undefined && selfAndAncestors(state.groups, own).some((group) => group.id === groupId);
};

export const decideUnshareProject = (issued: Command<'UnshareProject'>, state: MembersView): Either<MemberEvent[]> => {
  const { command, at } = issued;
  return pipe(
    administeredProject(state, issued),
    E.chain((source) => {
      const link = linkBetween(state.members, 'Project', source.id, command.group_id);
      return link ? E.right([linkRemoved(link, at)]) : E.left(notFound('Group Link'));
    }),
  );
};

const linkCreated = (state: MembersView, type: SourceType, sourceId: number, groupId: number, access: number, expiresAt: string | null, at: string, by: number | null): MemberEvent => ({
  type: 'GroupLinkCreated',
  data: { id: state.members.linkSequence + 1, source_type: type, source_id: sourceId, group_id: groupId, group_access: access, expires_at: expiresAt, created_at: at, created_by_id: by },
});

const linkRemoved = (link: GroupLink, at: string, reason?: string): MemberEvent => ({
  type: 'GroupLinkRemoved',
  data: { id: link.id, source_type: link.source_type, source_id: link.source_id, group_id: link.group_id, at, ...(reason ? { reason } : {}) },
});

/** What every member decision starts from: the membership source, who may administer it, and its locks. */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import { badRequest, forbidden, methodNotAllowed, notFound, type DomainError } from '../../../kernel/domain-error.js';
import type { Sequences } from '../../../kernel/sequences.js';
import { canAdminMembers, canReadGroup } from '../../access/abilities.js';
import type { Group } from '../../groups/projection.js';
import { findGroup } from '../../groups/queries.js';
import type { Project } from '../../projects/projection.js';
import type { SettingsSlice } from '../../settings/projection.js';
import { findProject } from '../../projects/queries.js';
import { findUser } from '../../users/queries.js';
import { RECORD_NOT_FOUND } from '../../shared/errors.js';
import { dayOf } from '../../shared/validation.js';
import type { MemberBuilderView } from '../builders.js';
import type { Issued, IssuedAs } from '../../../kernel/decider.js';
import type { MemberCommand } from '../commands.js';
import type { Member, SourceType } from '../projection.js';
import { directMembership, isLdapSynced } from '../queries.js';

export type Either<A> = E.Either<DomainError, A>;

/** What members' decisions read. */
export type MembersView = MemberBuilderView & { readonly sequences: Sequences; readonly settings: SettingsSlice };

interface SourceName {
  readonly id: number;
  readonly name: string;
}

/** A membership source found: a group or a project. */
export type ResolvedSource = (SourceName & { readonly type: 'Namespace'; readonly group: Group; readonly project?: undefined }) | (SourceName & { readonly type: 'Project'; readonly project: Project; readonly group?: undefined });

export const resolveSource = (state: MembersView, type: SourceType, id: number): Either<ResolvedSource> => {
  if (type === 'Namespace') {
    const group = findGroup(state.groups, id);
    return group ? E.right({ type, id, name: group.name, group }) : E.left(notFound('Group'));
  }
  const project = findProject(state.projects, id);
  return project ? E.right({ type, id, name: project.name, project }) : E.left(notFound('Project'));
};

/** `admin_group_member` / `admin_project_member`; the system actor always. */
export const mayAdmin = (state: MembersView, actorId: number | null, source: ResolvedSource, today: string): boolean => actorId === null || canAdminMembers(state, actorId, source, today);

export const requireAdmin = (state: MembersView, actorId: number | null, source: ResolvedSource, today: string): Either<ResolvedSource> =>
  mayAdmin(state, actorId, source, today) ? E.right(source) : E.left(forbidden());

/**
 * EE membership lock: a project whose group is locked takes no new members (ProjectTeam#add_user(s) refuses, and
 * the members API answers `not_allowed!`). The project's own group decides, as `Project#membership_locked?`.
 */
export const isMembershipLocked = (state: MembersView, source: ResolvedSource): boolean => {
  const project = source.project;
  if (!project || project.namespace_kind !== 'group') return false;
  return findGroup(state.groups, project.namespace_id)?.membership_lock === true;
};
export const MEMBERSHIP_LOCKED = methodNotAllowed('405 Method Not Allowed');

export const requireDirectMember = (state: MembersView, source: ResolvedSource, userId: number): Either<Member> => {
  const member = directMembership(state.members, source.type, source.id, userId);
  return member ? E.right(member) : E.left(RECORD_NOT_FOUND);
};

/** The owner of a personal project is its maintainer for good (ProjectMemberPolicy `target_is_owner`). */
export const isPersonalProjectOwner = (state: MembersView, member: Member): boolean => {
  if (member.source_type !== 'Project' || member.user_id === null) return false;
  const project = findProject(state.projects, member.source_id);
  return project !== undefined && project.namespace_kind === 'user' && findUser(state.users, member.user_id)?.namespace_id === project.namespace_id;
};

export const requireGroup = (state: MembersView, id: number): Either<Group> => {
  const group = findGroup(state.groups, id);
  return group ? E.right(group) : E.left(notFound('Group'));
};

export const requireRoot = (group: Group, reason?: string): Either<Group> => (group.parent_id === null ? E.right(group) : E.left(badRequest(reason)));

export const canAdminGroup = (state: MembersView, actorId: number | null, group: Group, today: string): boolean =>
  mayAdmin(state, actorId, { type: 'Namespace', id: group.id, name: group.name, group }, today);

export const canReadGroupFor = (state: MembersView, actorId: number | null, group: Group): boolean => actorId === null || canReadGroup(state, actorId, group);

/** An LDAP-synced group takes members from its directory only (`admin_group_member` is not enough). */
export const refuseLdapSynced = (state: MembersView, source: ResolvedSource): Either<void> =>
  source.type === 'Namespace' && isLdapSynced(state.members, source.id) ? E.left(forbidden()) : E.right(undefined);

/** A source whose membership is locked takes no new members. */
export const refuseLocked = (state: MembersView, source: ResolvedSource): Either<void> => (isMembershipLocked(state, source) ? E.left(MEMBERSHIP_LOCKED) : E.right(undefined));

/** One of the module's commands as issued. */
export type Command<T extends MemberCommand['type']> = IssuedAs<MemberCommand, T>;

/** The source a command names, once the actor may administer its members (`admin_group_member` / `admin_project_member`). */
export const administeredSource = (state: MembersView, issued: Issued<{ readonly source_type: SourceType; readonly source_id: number }>): Either<ResolvedSource> =>
  pipe(
    resolveSource(state, issued.command.source_type, issued.command.source_id),
    E.chain((source) => requireAdmin(state, issued.actor.userId, source, dayOf(issued.at))),
  );

/** An administered source that takes new members: its membership is not locked, nor synced from LDAP. */
export const sourceTakingMembers = (state: MembersView, issued: Issued<{ readonly source_type: SourceType; readonly source_id: number }>): Either<ResolvedSource> =>
  pipe(
    administeredSource(state, issued),
    E.chainFirst((source) => refuseLocked(state, source)),
    E.chainFirst((source) => refuseLdapSynced(state, source)),
  );

/** The group a command names, once the actor may administer its members; else 403. */
export const administeredGroup = (state: MembersView, issued: Issued<{ readonly group_id: number }>): Either<Group> =>
  pipe(
    requireGroup(state, issued.command.group_id),
    E.chain((group) => (canAdminGroup(state, issued.actor.userId, group, dayOf(issued.at)) ? E.right(group) : E.left(forbidden()))),
  );

/**
 * The members module's decisions: memberships, invitations, shares, approval, override, LDAP links and sync,
 * billable removal and expiry. Authorisation comes from the access table; the events other modules emit in their
 * cascades are built in `builders.ts`.
 */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import { tableGet, tableKeys, tableValues } from '../../kernel/table.js';
import { withOutcome, type Decision, type Issued } from '../../kernel/decider.js';
import { badRequest, conflict, forbidden, notFound, validation, type DomainError } from '../../kernel/domain-error.js';
import type { Sequences } from '../../kernel/sequences.js';
import { canAdminMembers, canReadGroup } from '../access/abilities.js';
import type { Group } from '../groups/projection.js';
import { findGroup, selfAndDescendants } from '../groups/queries.js';
import type { Project } from '../projects/projection.js';
import { findProject, projectsInNamespace } from '../projects/queries.js';
import { findUser, findUserByEmail, findUserByIdOrUsername } from '../users/queries.js';
import { AccessLevel, GROUP_ACCESS_LEVELS, PROJECT_ACCESS_LEVELS, humanAccess } from '../shared/access.js';
import { dayOf, Errors, isEmail, toSentence } from '../shared/validation.js';
import { RECORD_NOT_FOUND } from '../shared/errors.js';
import { memberAdded, memberAddedWithCap, removed, type MemberBuilderView } from './builders.js';
import type { MemberCommand } from './commands.js';
import type { MemberEvent } from './events.js';
import { ldapLinkKey, type GroupLink, type Member, type SourceType } from './projection.js';
import {
  directMembership,
  findMember,
  hierarchySources,
  inheritedMembership,
  invitationOf,
  isExpired,
  isLastOwner,
  isLdapSynced,
  ldapLinksOf,
  linkBetween,
  membersOfSource,
  membershipsInHierarchy,
} from './queries.js';

type Either<A> = E.Either<DomainError, A>;

/** What members' decisions read. */
export type MembersView = MemberBuilderView & { readonly sequences: Sequences };

// ---------------------------------------------------------------------------------------------------------------
// Lookups and permissions

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
const mayAdmin = (state: MembersView, actorId: number | null, source: ResolvedSource, today: string): boolean => actorId === null || canAdminMembers(state, actorId, source, today);

const requireAdmin = (state: MembersView, actorId: number | null, source: ResolvedSource, today: string): Either<ResolvedSource> =>
  mayAdmin(state, actorId, source, today) ? E.right(source) : E.left(forbidden());

const requireDirectMember = (state: MembersView, source: ResolvedSource, userId: number): Either<Member> => {
  const member = directMembership(state.members, source.type, source.id, userId);
  return member ? E.right(member) : E.left(RECORD_NOT_FOUND);
};

/** The owner of a personal project is its maintainer for good (ProjectMemberPolicy `target_is_owner`). */
const isPersonalProjectOwner = (state: MembersView, member: Member): boolean => {
  if (member.source_type !== 'Project' || member.user_id === null) return false;
  const project = findProject(state.projects, member.source_id);
  return project !== undefined && project.namespace_kind === 'user' && findUser(state.users, member.user_id)?.namespace_id === project.namespace_id;
};

// ---------------------------------------------------------------------------------------------------------------
// Validation (the Member model's messages, reference §2.5)

const ACCESS_FIELD = 'access_level';

export const validateMembership = (
  state: MembersView,
  source: ResolvedSource,
  userId: number | null,
  level: number,
  expiresAt: string | null | undefined,
  today: string,
): Errors => {
  const errors = new Errors();
  if (source.type === 'Project') {
    if (!PROJECT_ACCESS_LEVELS.includes(level)) errors.add(ACCESS_FIELD, 'is not included in the list');
  } else if (level === AccessLevel.MINIMAL_ACCESS) {
    if (source.group.parent_id !== null) errors.add(ACCESS_FIELD, 'is not included in the list').add(ACCESS_FIELD, 'supported on top level groups only');
  } else if (!GROUP_ACCESS_LEVELS.includes(level)) errors.add(ACCESS_FIELD, 'is not included in the list');
  if (errors.empty && userId !== null) {
    const inherited = inheritedMembership(state, source.type, source.id, userId);
    if (inherited && level < inherited.level) {
      errors.add(ACCESS_FIELD, `should be greater than or equal to ${humanAccess(inherited.level)} inherited membership from group ${inherited.group.name}`);
    }
  }
  if (expiresAt !== null && expiresAt !== undefined && expiresAt < today) errors.add('expires_at', 'cannot be a date in the past');
  return errors;
};

const toEither = (errors: Errors): Either<void> => errors.toEither(undefined);

const humanField = (field: string): string => {
  const text = field.replace(/_/g, ' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
};

/** ActiveModel `full_messages`: "Access level is not included in the list". */
export const fullMessages = (error: DomainError): string[] =>
  error._tag === 'Validation' ? Object.entries(error.errors).flatMap(([field, messages]) => messages.map((m) => `${humanField(field)} ${m}`)) : [];

// ---------------------------------------------------------------------------------------------------------------
// Plans of the comma-list add and of invitations: their failures are the decision's outcome, reported by the adapter

/** The outcome of `AddMembers`: what the events do not say. */
export interface AddMembersOutcome {
  /** "<username>: <full messages>" per failed user. */
  readonly failures: readonly string[];
  /** A failure of the whole request ("No users specified."). */
  readonly error?: string;
}

interface AddMembersPlan extends AddMembersOutcome {
  readonly events: readonly MemberEvent[];
}

const memberChangeEvents = (member: Member, level: number, expiresAt: string | null | undefined, at: string, reason?: string): MemberEvent[] => {
  const ref = { id: member.id, source_type: member.source_type, source_id: member.source_id, user_id: member.user_id };
  const events: MemberEvent[] = [];
  if (level !== member.access_level) events.push({ type: 'MemberAccessLevelChanged', data: { ...ref, from: member.access_level, to: level, at, ...(reason ? { reason } : {}) } });
  if (expiresAt !== undefined && expiresAt !== member.expires_at) events.push({ type: 'MemberExpirySet', data: { ...ref, expires_at: expiresAt, at } });
  return events;
};

const planAddMembers = (issued: Issued<Extract<MemberCommand, { type: 'AddMembers' }>>, state: MembersView, source: ResolvedSource): AddMembersPlan => {
  const { command, at, actor } = issued;
  const today = dayOf(at);
  const tokens = command.user_ids.map((s) => s.trim()).filter((s) => s !== '');
  if (tokens.length === 0) return { events: [], failures: [], error: 'No users specified.' };
  if (tokens.length > 100) return { events: [], failures: [], error: 'Too many users specified (limit is 100)' };
  const events: MemberEvent[] = [];
  const failures: string[] = [];
  const seen = new Set<number>();
  let offset = 0;
  for (const token of tokens) {
    const user = findUserByIdOrUsername(state.users, token);
    if (!user || seen.has(user.id)) continue;
    seen.add(user.id);
    const existing = directMembership(state.members, source.type, source.id, user.id);
    const errors = validateMembership(state, source, user.id, command.access_level, command.expires_at, today);
    if (user.bot === 'project_bot') errors.add('user_id', 'project bots cannot be added to other groups / projects');
    if (!errors.empty) {
      const messages = fullMessages(validation(Object.fromEntries([...errorEntries(errors)])));
      failures.push(`${user.username}: ${messages.join(', ')}`);
      continue;
    }
    if (existing) {
      if (isLastOwner(state, existing) && command.access_level !== existing.access_level) {
        failures.push(`${user.username}: Access level cannot be changed for the last owner`);
        continue;
      }
      events.push(...memberChangeEvents(existing, command.access_level, command.expires_at ?? undefined, at));
      continue;
    }
    events.push(memberAddedWithCap(state, { source_type: source.type, source_id: source.id, user_id: user.id, access_level: command.access_level, expires_at: command.expires_at ?? null, at, created_by_id: actor.userId }, offset++));
  }
  return { events, failures };
};

const errorEntries = (errors: Errors): [string, string[]][] => {
  const either = errors.toEither(undefined);
  return E.isLeft(either) && either.left._tag === 'Validation' ? Object.entries(either.left.errors).map(([k, v]) => [k, [...v]]) : [];
};

/** The outcome of `InviteMembers`. */
export interface InviteOutcome {
  /** E-mail → error text, for `{"status":"error","message":{…}}`. */
  readonly failures: Readonly<Record<string, string>>;
}

interface InvitePlan extends InviteOutcome {
  readonly events: readonly MemberEvent[];
}

const planInvitations = (issued: Issued<Extract<MemberCommand, { type: 'InviteMembers' }>>, state: MembersView, source: ResolvedSource): InvitePlan => {
  const { command, at, actor } = issued;
  const today = dayOf(at);
  const events: MemberEvent[] = [];
  const failures: Record<string, string> = {};
  const seen = new Set<string>();
  let offset = 0;
  for (const raw of command.emails) {
    const email = raw.trim();
    if (email === '' || seen.has(email.toLowerCase())) continue;
    seen.add(email.toLowerCase());
    if (!isEmail(email)) {
      failures[email] = 'Invite email is invalid';
      continue;
    }
    const user = findUserByEmail(state.users, email);
    const errors = validateMembership(state, source, user?.id ?? null, command.access_level, command.expires_at, today);
    if (!errors.empty) {
      failures[email] = fullMessages(validation(Object.fromEntries(errorEntries(errors)))).join(', ');
      continue;
    }
    if (user) {
      if (directMembership(state.members, source.type, source.id, user.id)) {
        failures[email] = `Already a member of ${source.name}`;
        continue;
      }
      events.push(memberAddedWithCap(state, { source_type: source.type, source_id: source.id, user_id: user.id, access_level: command.access_level, expires_at: command.expires_at ?? null, at, created_by_id: actor.userId }, offset++));
      continue;
    }
    if (invitationOf(state.members, source.type, source.id, email)) {
      failures[email] = `Member already invited to ${source.name}`;
      continue;
    }
    events.push(memberAdded(state, { source_type: source.type, source_id: source.id, user_id: null, invite_email: email, access_level: command.access_level, expires_at: command.expires_at ?? null, at, created_by_id: actor.userId }, offset++));
  }
  return { events, failures };
};

/** `skip_subresources: false`: the user's memberships below a group, and the unaccepted invitations they created there. */
const subresourceRemovals = (state: MembersView, group: Group, member: Member, at: string): MemberEvent[] => {
  const events: MemberEvent[] = [];
  for (const g of selfAndDescendants(state.groups, group)) {
    const sources: { type: SourceType; id: number }[] = [{ type: 'Namespace', id: g.id }, ...[...projectsInNamespace(state.projects, g.id)].map((p) => ({ type: 'Project' as const, id: p.id }))];
    for (const source of sources) {
      for (const m of membersOfSource(state.members, source.type, source.id)) {
        if (m.id === member.id) continue;
        const own = m.user_id !== null && m.user_id === member.user_id && !(source.type === 'Namespace' && source.id === group.id);
        const invitedByThem = m.user_id === null && m.created_by_id !== null && m.created_by_id === member.user_id;
        if (own || invitedByThem) {
          events.push({ type: 'MemberRemoved', data: { id: m.id, source_type: m.source_type, source_id: m.source_id, user_id: m.user_id, at, reason: own ? 'parent_membership_removed' : 'inviter_removed' } });
        }
      }
    }
  }
  return events;
};

const requireGroup = (state: MembersView, id: number): Either<Group> => {
  const group = findGroup(state.groups, id);
  return group ? E.right(group) : E.left(notFound('Group'));
};

const requireRoot = (group: Group, reason?: string): Either<Group> => (group.parent_id === null ? E.right(group) : E.left(badRequest(reason)));

const canAdminGroup = (state: MembersView, actorId: number | null, group: Group, today: string): boolean =>
  mayAdmin(state, actorId, { type: 'Namespace', id: group.id, name: group.name, group }, today);

/** Activation of awaiting memberships. */
const approvals = (members: readonly Member[], at: string): MemberEvent[] =>
  members.filter((m) => m.state === 'awaiting').map((m) => ({ type: 'MemberApproved', data: { id: m.id, source_type: m.source_type, source_id: m.source_id, user_id: m.user_id, at } }));

const hierarchyMembers = (state: MembersView, root: Group): Member[] => hierarchySources(state, root).flatMap((s) => [...membersOfSource(state.members, s.type, s.id)]);

// ---------------------------------------------------------------------------------------------------------------
// Decide

export const decide = (issued: Issued<MemberCommand>, state: MembersView): Either<Decision<MemberEvent>> => {
  const { command, at, actor } = issued;
  const today = dayOf(at);
  const actorId = actor.userId;
  switch (command.type) {
    case 'AddMember':
      return pipe(
        resolveSource(state, command.source_type, command.source_id),
        E.chain((source) => requireAdmin(state, actorId, source, today)),
        E.chainFirst((source) => (source.type === 'Namespace' && isLdapSynced(state.members, source.id) ? E.left(forbidden()) : E.right(undefined))),
        E.chain((source) => {
          const user = findUser(state.users, command.user_id);
          if (!user) return E.left(notFound('User'));
          if (directMembership(state.members, source.type, source.id, user.id)) return E.left(conflict('Member already exists'));
          const errors = validateMembership(state, source, user.id, command.access_level, command.expires_at, today);
          if (user.bot === 'project_bot') errors.add('user_id', 'project bots cannot be added to other groups / projects');
          return pipe(
            toEither(errors),
            E.map((): MemberEvent[] => [
              memberAddedWithCap(state, { source_type: source.type, source_id: source.id, user_id: user.id, access_level: command.access_level, expires_at: command.expires_at ?? null, at, created_by_id: actorId }),
            ]),
          );
        }),
      );
    case 'AddMembers':
      return pipe(
        resolveSource(state, command.source_type, command.source_id),
        E.chain((source) => requireAdmin(state, actorId, source, today)),
        E.chainFirst((source) => (source.type === 'Namespace' && isLdapSynced(state.members, source.id) ? E.left(forbidden()) : E.right(undefined))),
        E.map((source): Decision<MemberEvent> => {
          const { events, ...outcome } = planAddMembers({ ...issued, command }, state, source);
          return withOutcome<MemberEvent, AddMembersOutcome>(events, outcome);
        }),
      );
    case 'UpdateMember':
      return pipe(
        resolveSource(state, command.source_type, command.source_id),
        E.chain((source) => requireAdmin(state, actorId, source, today)),
        E.chain((source) =>
          pipe(
            requireDirectMember(state, source, command.user_id),
            E.chainFirst((member) => (isLastOwner(state, member) || isPersonalProjectOwner(state, member) || (member.ldap && !member.override) ? E.left(forbidden()) : E.right(undefined))),
            E.chainFirst(() => toEither(validateMembership(state, source, command.user_id, command.access_level, command.expires_at, today))),
            E.map((member) => memberChangeEvents(member, command.access_level, command.expires_at, at)),
          ),
        ),
      );
    case 'RemoveMember':
      return pipe(
        resolveSource(state, command.source_type, command.source_id),
        E.chain((source) =>
          pipe(
            requireDirectMember(state, source, command.user_id),
            E.chainFirst((member) => {
              const self = actorId !== null && member.user_id === actorId;
              if (!self && !mayAdmin(state, actorId, source, today)) return E.left(forbidden());
              if (isLastOwner(state, member) || isPersonalProjectOwner(state, member)) return E.left(forbidden());
              const user = member.user_id === null ? undefined : findUser(state.users, member.user_id);
              if (user?.bot === 'project_bot') return E.left(forbidden());
              return E.right(undefined);
            }),
            E.map((member): MemberEvent[] => [removed(member, at), ...(source.group && !command.skip_subresources ? subresourceRemovals(state, source.group, member, at) : [])]),
          ),
        ),
      );
    case 'InviteMembers':
      return pipe(
        resolveSource(state, command.source_type, command.source_id),
        E.chain((source) => requireAdmin(state, actorId, source, today)),
        E.chainFirst((source) => (source.type === 'Namespace' && isLdapSynced(state.members, source.id) ? E.left(forbidden()) : E.right(undefined))),
        E.map((source): Decision<MemberEvent> => {
          const { events, ...outcome } = planInvitations({ ...issued, command }, state, source);
          return withOutcome<MemberEvent, InviteOutcome>(events, outcome);
        }),
      );
    case 'UpdateInvitation':
      return pipe(
        resolveSource(state, command.source_type, command.source_id),
        E.chain((source) => requireAdmin(state, actorId, source, today)),
        E.chain((source) => {
          const invitation = invitationOf(state.members, source.type, source.id, command.email);
          if (!invitation) return E.left(notFound());
          const level = command.access_level ?? invitation.access_level;
          return pipe(
            toEither(validateMembership(state, source, null, level, command.expires_at, today)),
            E.map(() => memberChangeEvents(invitation, level, command.expires_at, at)),
          );
        }),
      );
    case 'RemoveInvitation':
      return pipe(
        resolveSource(state, command.source_type, command.source_id),
        E.chain((source) => requireAdmin(state, actorId, source, today)),
        E.chain((source) => {
          const invitation = invitationOf(state.members, source.type, source.id, command.email);
          return invitation ? E.right([removed(invitation, at, 'invitation_removed')]) : E.left(notFound());
        }),
      );
    case 'ShareGroup':
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
    case 'UnshareGroup':
      return pipe(
        requireGroup(state, command.group_id),
        E.chain((shared) => (canAdminGroup(state, actorId, shared, today) ? E.right(shared) : E.left(forbidden()))),
        E.chain((shared) => {
          const link = linkBetween(state.members, 'Namespace', shared.id, command.shared_with_group_id);
          return link ? E.right([linkRemoved(link, at)]) : E.left(notFound('Group Link'));
        }),
      );
    case 'ShareProject':
      return pipe(
        resolveSource(state, 'Project', command.project_id),
        E.chain((source) => requireAdmin(state, actorId, source, today)),
        E.chain((source): Either<MemberEvent[]> => {
          const invited = findGroup(state.groups, command.group_id);
          if (!invited || !canReadGroupFor(state, actorId, invited)) return E.left(notFound(undefined, 'Not Found'));
          if (linkBetween(state.members, 'Project', source.id, invited.id)) return E.left(conflict('Group already shared with this group'));
          if (command.expires_at && command.expires_at < today) return E.left(conflict('Expires at cannot be a date in the past'));
          return E.right([linkCreated(state, 'Project', source.id, invited.id, command.group_access, command.expires_at ?? null, at, actorId)]);
        }),
      );
    case 'UnshareProject':
      return pipe(
        resolveSource(state, 'Project', command.project_id),
        E.chain((source) => requireAdmin(state, actorId, source, today)),
        E.chain((source) => {
          const link = linkBetween(state.members, 'Project', source.id, command.group_id);
          return link ? E.right([linkRemoved(link, at)]) : E.left(notFound('Group Link'));
        }),
      );
    case 'ApproveMember':
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
    case 'ApproveAllMembers':
      return pipe(
        requireGroup(state, command.group_id),
        E.chain((group) => (group.parent_id !== null || !canAdminGroup(state, actorId, group, today) ? E.left(badRequest()) : E.right(approvals(hierarchyMembers(state, group), at)))),
      );
    case 'SetMemberOverride':
      return pipe(
        requireGroup(state, command.group_id),
        E.chain((group) => (isLdapSynced(state.members, group.id) && canAdminGroup(state, actorId, group, today) ? E.right(group) : E.left(forbidden()))),
        E.chain((group) => {
          const member = directMembership(state.members, 'Namespace', group.id, command.user_id);
          if (!member) return E.left(RECORD_NOT_FOUND);
          if (!member.ldap) return E.left(forbidden());
          if (member.override === command.override) return E.right([]);
          return E.right([{ type: 'MemberOverrideSet', data: { id: member.id, source_type: member.source_type, source_id: member.source_id, user_id: member.user_id, override: command.override, at } } as MemberEvent]);
        }),
      );
    case 'AddLdapGroupLink':
      return pipe(
        requireGroup(state, command.group_id),
        E.chain((group) => (canAdminGroup(state, actorId, group, today) ? E.right(group) : E.left(forbidden()))),
        E.chain((group): Either<MemberEvent[]> => {
          const link = { cn: command.cn ?? null, filter: command.cn ? null : (command.filter ?? null), provider: command.provider };
          if (tableGet(tableGet(state.members.ldapLinks, group.id) ?? {}, ldapLinkKey(link))) return E.left(conflict(link.cn !== null ? 'Cn has already been taken' : 'Filter has already been taken'));
          if (![10, 20, 30, 40, 50].includes(command.group_access)) return E.left(validation({ group_access: ['is not included in the list'] }));
          return E.right([{ type: 'LdapGroupLinkAdded', data: { group_id: group.id, ...link, group_access: command.group_access, at } }]);
        }),
      );
    case 'RemoveLdapGroupLink':
      return pipe(
        requireGroup(state, command.group_id),
        E.chain((group) => (canAdminGroup(state, actorId, group, today) ? E.right(group) : E.left(forbidden()))),
        E.chain((group): Either<MemberEvent[]> => {
          const matches = [...ldapLinksOf(state.members, group.id)].filter(
            (l) => (command.cn ? l.cn === command.cn : l.filter === (command.filter ?? null)) && (command.provider ? l.provider === command.provider : true),
          );
          if (matches.length === 0) return E.left(notFound(undefined, 'Linked LDAP group not found'));
          return E.right(matches.map((l) => ({ type: 'LdapGroupLinkRemoved', data: { group_id: group.id, cn: l.cn, filter: l.filter, provider: l.provider, at } }) as MemberEvent));
        }),
      );
    case 'SyncLdapGroup':
      return pipe(
        requireGroup(state, command.group_id),
        E.chain((group) => (canAdminGroup(state, actorId, group, today) ? E.right(group) : E.left(forbidden()))),
        E.map((group) => ldapSyncEvents(state, group, command.directory, at, actorId)),
      );
    case 'RemoveBillableMember':
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
    case 'ExpireMemberships':
      return E.right(expiryEvents(state, today, at));
  }
};

const canReadGroupFor = (state: MembersView, actorId: number | null, group: Group): boolean => actorId === null || canReadGroup(state, actorId, group);

const linkCreated = (state: MembersView, type: SourceType, sourceId: number, groupId: number, access: number, expiresAt: string | null, at: string, by: number | null): MemberEvent => ({
  type: 'GroupLinkCreated',
  data: { id: state.members.linkSequence + 1, source_type: type, source_id: sourceId, group_id: groupId, group_access: access, expires_at: expiresAt, created_at: at, created_by_id: by },
});

const linkRemoved = (link: GroupLink, at: string, reason?: string): MemberEvent => ({
  type: 'GroupLinkRemoved',
  data: { id: link.id, source_type: link.source_type, source_id: link.source_id, group_id: link.group_id, at, ...(reason ? { reason } : {}) },
});

/** Memberships and shares past their expiry date. The last owner of a top-level group never expires (the group keeps an owner). */
export const expiryEvents = (state: MembersView, today: string, at: string): MemberEvent[] => {
  const events: MemberEvent[] = [];
  const expiredOwners = new Map<number, number>();
  for (const id of tableKeys(state.members.expiring)) {
      const member = findMember(state.members, Number(id));
      if (!member || !isExpired(member.expires_at, today)) continue;
      if (member.source_type === 'Namespace' && member.access_level === AccessLevel.OWNER && member.state === 'active' && member.user_id !== null) {
        const group = findGroup(state.groups, member.source_id);
        if (group && group.parent_id === null) {
          const owners = [...membersOfSource(state.members, 'Namespace', group.id)].filter((m) => m.user_id !== null && m.access_level === 50 && m.state === 'active').length;
          const already = expiredOwners.get(group.id) ?? 0;
          if (owners - already <= 1) continue;
          expiredOwners.set(group.id, already + 1);
        }
      }
      events.push({ type: 'MemberExpired', data: { id: member.id, source_type: member.source_type, source_id: member.source_id, user_id: member.user_id, expires_at: member.expires_at!, at } });
    }
  for (const link of tableValues(state.members.links)) {
      if (link.expires_at !== null && isExpired(link.expires_at, today)) {
        events.push({ type: 'GroupLinkExpired', data: { id: link.id, source_type: link.source_type, source_id: link.source_id, group_id: link.group_id, expires_at: link.expires_at, at } });
      }
    }
  return events;
};

/** Directory sync (see README "LDAP directory sync"): link levels for listed users, removal of unlisted LDAP members. */
export const ldapSyncEvents = (state: MembersView, group: Group, directory: readonly { provider: string; cn?: string | null; filter?: string | null; user_ids: readonly number[] }[], at: string, actorId: number | null): MemberEvent[] => {
  const desired = new Map<number, number>();
  for (const link of ldapLinksOf(state.members, group.id)) {
    for (const entry of directory) {
      const matches = entry.provider === link.provider && (link.cn !== null ? entry.cn === link.cn : (entry.filter ?? null) === link.filter);
      if (!matches) continue;
      for (const userId of entry.user_ids) if (findUser(state.users, userId)) desired.set(userId, Math.max(desired.get(userId) ?? 0, link.group_access));
    }
  }
  const events: MemberEvent[] = [];
  let offset = 0;
  for (const [userId, level] of [...desired].sort((a, b) => a[0] - b[0])) {
    const member = directMembership(state.members, 'Namespace', group.id, userId);
    if (!member) {
      events.push(memberAddedWithCap(state, { source_type: 'Namespace', source_id: group.id, user_id: userId, access_level: level, at, created_by_id: actorId, ldap: true }, offset++));
    } else if (!member.override && member.access_level !== level && !isLastOwner(state, member)) {
      events.push(...memberChangeEvents(member, level, undefined, at, 'ldap_sync'));
    }
  }
  for (const member of membersOfSource(state.members, 'Namespace', group.id)) {
    if (member.ldap && !member.override && member.user_id !== null && !desired.has(member.user_id) && !isLastOwner(state, member)) events.push(removed(member, at, 'ldap_sync'));
  }
  return events;
};


/** The outcome of an `AddMembers` command's result (the adapter reports it). */
export const addMembersOutcome = (result: { readonly outcome?: unknown }): AddMembersOutcome => (isOutcome(result.outcome) ? (result.outcome as AddMembersOutcome) : { failures: [] });

/** The outcome of an `InviteMembers` command's result. */
export const inviteOutcome = (result: { readonly outcome?: unknown }): InviteOutcome => (isOutcome(result.outcome) ? (result.outcome as InviteOutcome) : { failures: {} });

const isOutcome = (value: unknown): boolean => typeof value === 'object' && value !== null && 'failures' in value;

/** LDAP group links, their sync from the directory, and a member's override of the synced level. */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import { tableGet } from '../../../kernel/table.js';
import { conflict, forbidden, notFound, validation } from '../../../kernel/domain-error.js';
import type { Group } from '../../groups/projection.js';
import { findUser } from '../../users/queries.js';
import { AccessLevel } from '../../shared/access.js';
import { RECORD_NOT_FOUND } from '../../shared/errors.js';
import { dayOf, exceedsLength, MAX_NAME, tooLong } from '../../shared/validation.js';
import { memberAddedWithCap, removed } from '../builders.js';
import type { MemberEvent } from '../events.js';
import { ldapLinkKey } from '../projection.js';
import { directMembership, isLastOwner, isLdapSynced, ldapLinksOf, membersOfSource } from '../queries.js';
import { memberChangeEvents } from './memberships.js';
import { administeredGroup, canAdminGroup, requireGroup, type Command, type Either, type MembersView } from './source.js';

export const decideSetMemberOverride = (issued: Command<'SetMemberOverride'>, state: MembersView): Either<MemberEvent[]> => {
  const { command, at, actor } = issued;
  const today = dayOf(at);
  const actorId = actor.userId;
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
};

export const decideAddLdapGroupLink = (issued: Command<'AddLdapGroupLink'>, state: MembersView): Either<MemberEvent[]> => {
  const { command, at } = issued;
  return pipe(
    administeredGroup(state, issued),
    E.chain((group): Either<MemberEvent[]> => {
      const link = { cn: command.cn ?? null, filter: command.cn ? null : (command.filter ?? null), provider: command.provider };
      if (tableGet(tableGet(state.members.ldapLinks, group.id) ?? {}, ldapLinkKey(link))) return E.left(conflict(link.cn !== null ? 'Cn has already been taken' : 'Filter has already been taken'));
      if (![10, 20, 30, 40, 50].includes(command.group_access)) return E.left(validation({ group_access: ['is not included in the list'] }));
      // A failed save answers 409 with its first full message, as a duplicate does.
      for (const [field, value] of [['Cn', link.cn], ['Filter', link.filter], ['Provider', link.provider]] as const) {
        if (value !== null && exceedsLength(value, MAX_NAME)) return E.left(conflict(`${field} ${tooLong(MAX_NAME)}`));
      }
      return E.right([{ type: 'LdapGroupLinkAdded', data: { group_id: group.id, ...link, group_access: command.group_access, at } }]);
    }),
  );
};

export const decideRemoveLdapGroupLink = (issued: Command<'RemoveLdapGroupLink'>, state: MembersView): Either<MemberEvent[]> => {
  const { command, at } = issued;
  return pipe(
    administeredGroup(state, issued),
    E.chain((group): Either<MemberEvent[]> => {
      const matches = [...ldapLinksOf(state.members, group.id)].filter(
        (l) => (command.cn ? l.cn === command.cn : l.filter === (command.filter ?? null)) && (command.provider ? l.provider === command.provider : true),
      );
      if (matches.length === 0) return E.left(notFound(undefined, 'Linked LDAP group not found'));
      return E.right(matches.map((l) => ({ type: 'LdapGroupLinkRemoved', data: { group_id: group.id, cn: l.cn, filter: l.filter, provider: l.provider, at } }) as MemberEvent));
    }),
  );
};

export const decideSyncLdapGroup = (issued: Command<'SyncLdapGroup'>, state: MembersView): Either<MemberEvent[]> => {
  const { command, at, actor } = issued;
  return pipe(
    administeredGroup(state, issued),
    E.map((group) => ldapSyncEvents(state, group, command.directory, at, actor.userId)),
  );
};

/** Directory sync (see README "LDAP directory sync"): link levels for listed users, removal of unlisted LDAP members. */
const ldapSyncEvents = (state: MembersView, group: Group, directory: readonly { provider: string; cn?: string | null; filter?: string | null; user_ids: readonly number[] }[], at: string, actorId: number | null): MemberEvent[] => {
  const desired = new Map<number, number>();
  for (const link of ldapLinksOf(state.members, group.id)) {
    for (const entry of directory) {
      const matches = entry.provider === link.provider && (link.cn !== null ? entry.cn === link.cn : (entry.filter ?? null) === link.filter);
      if (!matches) continue;
      for (const userId of entry.user_ids) if (findUser(state.users, userId)) desired.set(userId, Math.max(desired.get(userId) ?? 0, link.group_access));
    }
  }
  const events: MemberEvent[] = [];
  // The owners as the rows changed so far leave them: one sync never takes the group's last owner away.
  const owners = { demoted: new Set<number>(), added: new Set<number>() };
  let offset = 0;
  for (const [userId, level] of [...desired].sort((a, b) => a[0] - b[0])) {
    const member = directMembership(state.members, 'Namespace', group.id, userId);
    if (!member) {
      const event = memberAddedWithCap(state, { source_type: 'Namespace', source_id: group.id, user_id: userId, access_level: level, at, created_by_id: actorId, ldap: true }, offset++);
      if (level === AccessLevel.OWNER && event.type === 'MemberAdded' && event.data.state === 'active') owners.added.add(userId);
      events.push(event);
    } else if (!member.override && member.access_level !== level && !isLastOwner(state, member, owners)) {
      events.push(...memberChangeEvents(member, level, undefined, at, 'ldap_sync'));
      if (member.access_level === AccessLevel.OWNER) owners.demoted.add(member.id);
    }
  }
  for (const member of membersOfSource(state.members, 'Namespace', group.id)) {
    if (member.ldap && !member.override && member.user_id !== null && !desired.has(member.user_id) && !isLastOwner(state, member, owners)) {
      events.push(removed(member, at, 'ldap_sync'));
      owners.demoted.add(member.id);
    }
  }
  return events;
};

/** Expiry: memberships and shares past their date (the clock-driven `ExpireMemberships`). */
import * as E from 'fp-ts/lib/Either.js';
import { tableKeys, tableValues } from '../../../kernel/table.js';
import { findGroup } from '../../groups/queries.js';
import { AccessLevel } from '../../shared/access.js';
import { dayOf } from '../../shared/validation.js';
import type { MemberEvent } from '../events.js';
import { findMember, isExpired, membersOfSource } from '../queries.js';
import type { Command, Either, MembersView } from './source.js';

/** Memberships and shares past their expiry date. The last owner of a top-level group never expires (the group keeps an owner). */
const expiryEvents = (state: MembersView, today: string, at: string): MemberEvent[] => {
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

export const decideExpireMemberships = (issued: Command<'ExpireMemberships'>, state: MembersView): Either<MemberEvent[]> => E.right(expiryEvents(state, dayOf(issued.at), issued.at));

/**
 * Membership events other modules emit in their cascades (a deleted group ends its memberships and shares, a new
 * group gets its owner, a new account accepts its invitations): built here, by the module that owns them.
 */
import { rootAncestor } from '../groups/queries.js';
import type { Sequences } from '../../kernel/sequences.js';
import type { MemberEvent } from './events.js';
import type { GroupLink, Member, MembershipView, SourceType } from './projection.js';
import { groupOfSource, invitationsForEmail, linksOfInvitedGroup, linksOfSource, membersOfSource, membershipsOfUser, mustAwait } from './queries.js';

/** What the builders read: the memberships, and the member sequence new ids are drawn from. */
export type MemberBuilderView = MembershipView & { readonly sequences: Sequences };

type MemberRemoved = Extract<MemberEvent, { type: 'MemberRemoved' }>;

/** The events that end every membership of the given sources (used when a source is deleted). */
export const removeMembershipsOfSources = (state: MembershipView, sources: readonly { type: SourceType; id: number }[], at: string): MemberRemoved[] =>
  sources.flatMap(({ type, id }) =>
    [...membersOfSource(state.members, type, id)].map((member): MemberRemoved => ({
      type: 'MemberRemoved',
      data: { id: member.id, source_type: member.source_type, source_id: member.source_id, user_id: member.user_id, at },
    })),
  );

/** The events that end every membership of a user (used when the account is deleted). */
export const removeMembershipsOfUser = (state: MembershipView, userId: number, at: string): MemberRemoved[] =>
  [...membershipsOfUser(state.members, userId)].map((member) => ({
    type: 'MemberRemoved',
    data: { id: member.id, source_type: member.source_type, source_id: member.source_id, user_id: member.user_id, at },
  }));

/** The events that end every share into or of the given groups and projects (used before they are deleted). */
export const removeLinksOfSources = (state: MembershipView, sources: readonly { type: SourceType; id: number }[], at: string, seen = new Set<number>()): MemberEvent[] => {
  const events: MemberEvent[] = [];
  const end = (link: GroupLink) => {
    if (seen.has(link.id)) return;
    seen.add(link.id);
    events.push({ type: 'GroupLinkRemoved', data: { id: link.id, source_type: link.source_type, source_id: link.source_id, group_id: link.group_id, at, reason: 'source_deleted' } });
  };
  for (const { type, id } of sources) {
    for (const link of linksOfSource(state.members, type, id)) end(link);
    if (type === 'Namespace') for (const link of linksOfInvitedGroup(state.members, id)) end(link);
  }
  return events;
};

/** A new membership's event, drawing its id from the member sequence (offset for several in one decision). */
export const memberAdded = (
  state: MemberBuilderView,
  fields: { source_type: SourceType; source_id: number; user_id: number | null; access_level: number; at: string; created_by_id: number | null; invite_email?: string | null; expires_at?: string | null; state?: 'active' | 'awaiting'; ldap?: boolean },
  offset = 0,
): MemberEvent => ({
  type: 'MemberAdded',
  data: {
    id: state.sequences.member + 1 + offset,
    source_type: fields.source_type,
    source_id: fields.source_id,
    user_id: fields.user_id,
    invite_email: fields.invite_email ?? null,
    access_level: fields.access_level,
    expires_at: fields.expires_at ?? null,
    state: fields.state ?? 'active',
    ldap: fields.ldap ?? false,
    created_at: fields.at,
    created_by_id: fields.created_by_id,
  },
});

/**
 * Like `memberAdded`, but applies the top-level group's user cap: when the hierarchy's billable count has reached
 * `new_user_signups_cap`, a user without an active membership there is added in the `awaiting` state.
 * SCIM provisioning and any other path that creates memberships should use this one.
 */
export const memberAddedWithCap = (state: MemberBuilderView, fields: Parameters<typeof memberAdded>[1], offset = 0): MemberEvent => {
  const group = groupOfSource(state, fields.source_type, fields.source_id);
  const root = group ? rootAncestor(state.groups, group) : null;
  return memberAdded(state, { ...fields, state: fields.state ?? (mustAwait(state, root, fields.user_id) ? 'awaiting' : 'active') }, offset);
};

/** Pending invitations for a new account's e-mail become its memberships (called by the users decider on CreateUser). */
export const acceptInvitations = (state: MembershipView, email: string, userId: number, at: string): MemberEvent[] =>
  [...invitationsForEmail(state.members, email)].map((member) => ({
    type: 'MemberInvitationAccepted',
    data: { id: member.id, source_type: member.source_type, source_id: member.source_id, user_id: userId, invite_email: member.invite_email ?? email, at },
  }));

export const removed = (member: Member, at: string, reason?: string): MemberEvent => ({
  type: 'MemberRemoved',
  data: { id: member.id, source_type: member.source_type, source_id: member.source_id, user_id: member.user_id, at, ...(reason ? { reason } : {}) },
});


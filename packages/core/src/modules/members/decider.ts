import * as E from 'fp-ts/lib/Either.js';
import { tableDelete, tableGet, tableSet, emptyTable } from '../../kernel/table.js';
import type { Issued } from '../../kernel/decider.js';
import { advance, type ModuleDecider, type MutableState, type State } from '../../state.js';
import type { MemberEvent } from './events.js';
import { sourceKey, sourceUserKey, type SourceType } from './projection.js';
import { membersOfSource, membershipsOfUser } from './queries.js';
import type { DomainError } from '../../kernel/domain-error.js';
import type { ForgefoldEvent } from '../../events.js';

/** Membership commands arrive with the membership issue; today memberships come from other modules' decisions. */
export type MemberCommand = never;

/** The events that end every membership of the given sources (used when a source is deleted). */
export const removeMembershipsOfSources = (state: State, sources: readonly { type: SourceType; id: number }[], at: string): MemberEvent[] =>
  sources.flatMap(({ type, id }) =>
    [...membersOfSource(state.members, type, id)].map((member): MemberEvent => ({
      type: 'MemberRemoved',
      data: { id: member.id, source_type: member.source_type, source_id: member.source_id, user_id: member.user_id, at },
    })),
  );

/** The events that end every membership of a user (used when the account is deleted). */
export const removeMembershipsOfUser = (state: State, userId: number, at: string): MemberEvent[] =>
  [...membershipsOfUser(state.members, userId)].map((member) => ({
    type: 'MemberRemoved',
    data: { id: member.id, source_type: member.source_type, source_id: member.source_id, user_id: member.user_id, at },
  }));

/** A new membership's event, drawing its id from the member sequence (offset for several in one decision). */
export const memberAdded = (
  state: State,
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

const decide = (_issued: Issued<MemberCommand>, _state: State): E.Either<DomainError, readonly ForgefoldEvent[]> => E.right([]);

const evolve = (state: MutableState, event: MemberEvent): void => {
  const members = state.members;
  switch (event.type) {
    case 'MemberAdded': {
      const data = event.data;
      tableSet(members.byId, data.id, { ...data, override: false, updated_at: data.created_at });
      const key = sourceKey(data.source_type, data.source_id);
      let ofSource = tableGet(members.bySource, key);
      if (!ofSource) {
        tableSet(members.bySource, key, emptyTable<number>());
        ofSource = tableGet(members.bySource, key)!;
      }
      tableSet(ofSource, data.id, data.user_id ?? 0);
      if (data.user_id !== null) {
        tableSet(members.bySourceUser, sourceUserKey(data.source_type, data.source_id, data.user_id), data.id);
        let ofUser = tableGet(members.byUser, data.user_id);
        if (!ofUser) {
          tableSet(members.byUser, data.user_id, emptyTable<string>());
          ofUser = tableGet(members.byUser, data.user_id)!;
        }
        tableSet(ofUser, data.id, key);
      }
      advance(state, 'member', data.id);
      return;
    }
    case 'MemberAccessLevelChanged': {
      const member = tableGet(members.byId, event.data.id);
      if (!member) return;
      member.access_level = event.data.to;
      member.updated_at = event.data.at;
      return;
    }
    case 'MemberExpirySet': {
      const member = tableGet(members.byId, event.data.id);
      if (!member) return;
      member.expires_at = event.data.expires_at;
      member.updated_at = event.data.at;
      return;
    }
    case 'MemberRemoved': {
      const member = tableGet(members.byId, event.data.id);
      if (!member) return;
      tableDelete(members.byId, member.id);
      const ofSource = tableGet(members.bySource, sourceKey(member.source_type, member.source_id));
      if (ofSource) tableDelete(ofSource, member.id);
      if (member.user_id !== null) {
        tableDelete(members.bySourceUser, sourceUserKey(member.source_type, member.source_id, member.user_id));
        const ofUser = tableGet(members.byUser, member.user_id);
        if (ofUser) tableDelete(ofUser, member.id);
      }
      return;
    }
  }
};

export const membersDecider: ModuleDecider<MemberCommand, MemberEvent> = { decide, evolve };

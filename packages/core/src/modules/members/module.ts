/** The members module: memberships of groups and projects, invitations, shares, LDAP links, billable members. */
import { defineModule } from '../../kernel/module.js';
import type { MemberCommand } from './commands.js';
import { decide, type MembersView } from './decider.js';
import { evolve, follows, type MembersDraft, type MembersFollowed } from './evolve.js';
import { memberEvents } from './events.js';
import { initialMembers, type MembersSlice } from './projection.js';
import { nextExpiry } from './queries.js';
import { accessRequested } from './access-requests.js';

export const membersModule = defineModule<'members', { readonly members: MembersSlice }, MembersView, MembersDraft, MemberCommand, typeof memberEvents, MembersFollowed>({
  name: 'members',
  // 2: billability of blocked users is kept in the members slice (`blockedUsers`).
  // 3: access requests, LDAP links' creation order, transfers followed.
  // 4: `bySource` keyed by integers (`sourceIndex`) instead of "Namespace:5"; a snapshot of 3 is replayed instead.
  // 5: `byUser`'s values are sources as integers (`sourceIndex`) instead of "Namespace:5"; a snapshot of 4 is replayed.
  // 6: inner tables made with their first entry are small tables (`tableOf`); a snapshot of 5 is replayed.
  // 7: the public and internal projects shared with each group (`sharedPublicByGroup`, `sharedInternalByGroup`).
  // 8: the private ones too (`sharedPrivateByGroup`).
  version: 8,
  initial: () => ({ members: initialMembers() }),
  events: memberEvents,
  commands: [
    'AddMember',
    'AddMembers',
    'UpdateMember',
    'RemoveMember',
    'InviteMembers',
    'UpdateInvitation',
    'RemoveInvitation',
    'ShareGroup',
    'UnshareGroup',
    'ShareProject',
    'UnshareProject',
    'ApproveMember',
    'ApproveAllMembers',
    'SetMemberOverride',
    'AddLdapGroupLink',
    'RemoveLdapGroupLink',
    'SyncLdapGroup',
    'RemoveBillableMember',
    'ExpireMemberships',
    'RequestAccess',
    'ApproveAccessRequest',
    'DenyAccessRequest',
  ],
  decide,
  evolve,
  follows,
  // A membership and its indexes are written through the table helpers alone, unless it ends an access request (the
  // request's table, read back from its index, is written in place).
  copyOnWrite: {
    MemberAdded: (state, event) => event.data.user_id === null || !accessRequested(state.members, event.data.source_type, event.data.source_id),
    GroupCreated: () => true,
  },
  processes: [
    {
      // Memberships and shares end on their expiry day: due once the earliest `expires_at` is today or earlier.
      name: 'expire-memberships',
      due: (state, now) => {
        const next = nextExpiry(state.members);
        return next !== null && next <= now.slice(0, 10);
      },
      command: { type: 'ExpireMemberships' },
      reads: (state) => state.members,
    },
  ],
});

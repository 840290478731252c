/**
 * The members module's decisions, one concern per file in `decide/`: memberships, invitations, shares, seats
 * (approval, billable removal), LDAP links and sync, expiry, access requests. Authorisation comes from the access
 * table; the events other modules emit in their cascades are built in `builders.ts`.
 */
import { decideByType, type Decision } from '../../kernel/decider.js';
import type { MemberCommand } from './commands.js';
import type { MemberEvent } from './events.js';
import { decideAccessRequest } from './decide/access-requests.js';
import { decideExpireMemberships } from './decide/expiry.js';
import { decideInviteMembers, decideRemoveInvitation, decideUpdateInvitation, type InviteOutcome } from './decide/invitations.js';
import { decideAddLdapGroupLink, decideRemoveLdapGroupLink, decideSetMemberOverride, decideSyncLdapGroup } from './decide/ldap.js';
import { decideAddMember, decideAddMembers, decideRemoveMember, decideUpdateMember, type AddMembersOutcome } from './decide/memberships.js';
import { decideApproveAllMembers, decideApproveMember, decideRemoveBillableMember } from './decide/seats.js';
import { decideShareGroup, decideShareProject, decideUnshareGroup, decideUnshareProject } from './decide/shares.js';
import type { Either, MembersView } from './decide/source.js';

export type { MembersView } from './decide/source.js';

export const decide = decideByType<MemberCommand, MembersView, Either<Decision<MemberEvent>>>({
  AddMember: decideAddMember,
  AddMembers: decideAddMembers,
  UpdateMember: decideUpdateMember,
  RemoveMember: decideRemoveMember,
  InviteMembers: decideInviteMembers,
  UpdateInvitation: decideUpdateInvitation,
  RemoveInvitation: decideRemoveInvitation,
  ShareGroup: decideShareGroup,
  UnshareGroup: decideUnshareGroup,
  ShareProject: decideShareProject,
  UnshareProject: decideUnshareProject,
  ApproveMember: decideApproveMember,
  ApproveAllMembers: decideApproveAllMembers,
  SetMemberOverride: decideSetMemberOverride,
  AddLdapGroupLink: decideAddLdapGroupLink,
  RemoveLdapGroupLink: decideRemoveLdapGroupLink,
  SyncLdapGroup: decideSyncLdapGroup,
  RemoveBillableMember: decideRemoveBillableMember,
  ExpireMemberships: decideExpireMemberships,
  RequestAccess: decideAccessRequest,
  ApproveAccessRequest: decideAccessRequest,
  DenyAccessRequest: decideAccessRequest,
});

/** The outcome of an `AddMembers` command's result (the adapter reports it). */
export const addMembersOutcome = (result: { readonly outcome?: unknown }): AddMembersOutcome => (isOutcome(result.outcome) ? (result.outcome as AddMembersOutcome) : { failures: [] });

/** The outcome of an `InviteMembers` command's result. */
export const inviteOutcome = (result: { readonly outcome?: unknown }): InviteOutcome => (isOutcome(result.outcome) ? (result.outcome as InviteOutcome) : { failures: {} });

const isOutcome = (value: unknown): boolean => typeof value === 'object' && value !== null && 'failures' in value;

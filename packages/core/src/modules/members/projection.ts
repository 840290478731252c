/**
 * The memberships projection: one row per membership (like the platform's `members` table), indexed
 * by source, by (source, user) and by user, so that every lookup is a key access; plus the shares
 * (group and project group links), LDAP group links, and incrementally maintained read models:
 * the effective members of every group (`/members/all`) and the billable users of every top-level group.
 */
import { emptyTable, type Table } from '../../kernel/table.js';
import type { GroupsSlice } from '../groups/projection.js';
import type { ProjectsSlice } from '../projects/projection.js';
import type { UsersSlice } from '../users/projection.js';

/** The platform's polymorphic source: a group (namespace) or a project. */
export type SourceType = 'Namespace' | 'Project';
export type MembershipState = 'active' | 'awaiting';

export interface Member {
  /** Member row id: the order memberships were created in. */
  readonly id: number;
  readonly source_type: SourceType;
  readonly source_id: number;
  /** Null for an e-mail invitation that no account has accepted yet. */
  readonly user_id: number | null;
  readonly invite_email: string | null;
  readonly access_level: number;
  /** "YYYY-MM-DD" or null. */
  readonly expires_at: string | null;
  readonly state: MembershipState;
  readonly override: boolean;
  readonly ldap: boolean;
  readonly created_at: string;
  readonly updated_at: string;
  readonly created_by_id: number | null;
  /** When an e-mail invitation was accepted (the account with that address was created); null otherwise. */
  readonly invite_accepted_at?: string | null;
}

/** A share: a group invited into a group (`POST /groups/:id/share`) or into a project (`POST /projects/:id/share`). */
export interface GroupLink {
  readonly id: number;
  /** The shared resource. */
  readonly source_type: SourceType;
  readonly source_id: number;
  /** The invited group, whose members gain access. */
  readonly group_id: number;
  readonly group_access: number;
  readonly expires_at: string | null;
  readonly created_at: string;
  readonly created_by_id: number | null;
}

/** A pending access request (`requested_at` set on the platform's member row). */
export interface AccessRequest {
  readonly source_type: SourceType;
  readonly source_id: number;
  readonly user_id: number;
  readonly requested_at: string;
  /** Creation order (the platform lists requesters by row id). */
  readonly seq: number;
}

export interface LdapLink {
  /** Creation order (the platform lists a group's links by row id). */
  readonly seq: number;
  readonly group_id: number;
  readonly cn: string | null;
  readonly filter: string | null;
  readonly group_access: number;
  readonly provider: string;
}

export interface MembersSlice {
  readonly byId: Table<Member>;
  /**
   * Source (`sourceIndex`: a group's id doubled, a project's doubled plus one) → member id → user id (or 0 for
   * invitations). Iterates in member-id order.
   */
  readonly bySource: Table<Table<number>>;
  /** "Project:5:12" (project and user) → member id (groups use `byGroupUser`). */
  readonly bySourceUser: Table<number>;
  /** Group id → user id → member id: the integer-keyed twin of `bySourceUser` for groups (hot path of `/members/all`). */
  readonly byGroupUser: Table<Table<number>>;
  /**
   * User id → member id → source (`sourceIndex`): an integer, which a leaf holds in its slot, where the source key
   * ("Namespace:5") was a string of ~88 bytes per membership (issue 16, branch heapcensus2).
   */
  readonly byUser: Table<Table<number>>;
  /** Source key → number of pending e-mail invitations (so a direct-members page can count without a scan). */
  readonly invitesBySource: Table<number>;
  /** Lower-cased invite e-mail → member id → source key (pending invitations only). */
  readonly byInviteEmail: Table<Table<string>>;
  /** Members with an expiry date: member id → expires_at (what `ExpireMemberships` scans). */
  readonly expiring: Table<string>;
  /** Group id → user id → number of memberships that make the user an effective member (self, ancestors, direct shares). */
  readonly effective: Table<Table<number>>;
  readonly effectiveCount: Table<number>;
  /** Top-level group id → user id → number of memberships that make the user billable there. */
  readonly billable: Table<Table<number>>;
  readonly billableCount: Table<number>;
  /** Link id → link. */
  readonly links: Table<GroupLink>;
  /** Shared source key → invited group id → link id. */
  readonly linksBySource: Table<Table<number>>;
  /** Invited group id → link id → link id. */
  readonly linksByGroup: Table<Table<number>>;
  /**
   * Invited group id → project id → 1: the public and the internal projects shared with each group (project shares;
   * a private one is in neither), kept by evolve (share created, removed or expired; the project's visibility
   * changed; the project deleted), so that a group's shared projects start from what the caller may see by
   * visibility instead of every share into the group (issue 16).
   */
  readonly sharedPublicByGroup: Table<Table<1>>;
  readonly sharedInternalByGroup: Table<Table<1>>;
  /**
   * The same for the private projects shared with each group: whether a group has any (a caller without access to it
   * reads them only through their own reach, which is skipped when there is none) and, when fewer than what the
   * caller reaches, the ones to check (`sharedProjectCandidates`).
   */
  readonly sharedPrivateByGroup: Table<Table<1>>;
  readonly linkSequence: number;
  /** Group id → link key → LDAP link. */
  readonly ldapLinks: Table<Table<LdapLink>>;
  /** Counts LDAP links ever added, for their creation order. */
  readonly ldapLinkSequence: number;
  /** Source key → user id → pending access request. */
  readonly accessRequests: Table<Table<AccessRequest>>;
  readonly accessRequestSequence: number;
  /**
   * User id → 1 while the user is blocked: billability follows `UserBlocked`/`UserUnblocked` from this slice
   * (kept here so that the members read models change only by following those events).
   */
  readonly blockedUsers: Table<1>;
}

/** What membership queries read: accounts, namespaces and memberships. */
export interface MembershipView {
  readonly users: UsersSlice;
  readonly groups: GroupsSlice;
  readonly projects: ProjectsSlice;
  readonly members: MembersSlice;
}

export const initialMembers = (): MembersSlice => ({
  byId: emptyTable(),
  bySource: emptyTable(),
  bySourceUser: emptyTable(),
  byGroupUser: emptyTable(),
  byUser: emptyTable(),
  invitesBySource: emptyTable(),
  byInviteEmail: emptyTable(),
  expiring: emptyTable(),
  effective: emptyTable(),
  effectiveCount: emptyTable(),
  billable: emptyTable(),
  billableCount: emptyTable(),
  links: emptyTable(),
  linksBySource: emptyTable(),
  linksByGroup: emptyTable(),
  sharedPublicByGroup: emptyTable(),
  sharedInternalByGroup: emptyTable(),
  sharedPrivateByGroup: emptyTable(),
  linkSequence: 0,
  ldapLinks: emptyTable(),
  ldapLinkSequence: 0,
  accessRequests: emptyTable(),
  accessRequestSequence: 0,
  blockedUsers: emptyTable(),
});

export const sourceKey = (type: SourceType, id: number): string => `${type}:${id}`;
/**
 * A source's key in `bySource`: an integer, so that the groups a batch creates one after the other share the nodes
 * on their path (a string key, hashed, put each on a path of its own: three trie nodes drafted and copied per
 * creation). Groups and projects have ids of their own, so they take the even and the odd numbers.
 */
export const sourceIndex = (type: SourceType, id: number): number => id * 2 + (type === 'Project' ? 1 : 0);
export const sourceUserKey = (type: SourceType, id: number, userId: number): string => `${type}:${id}:${userId}`;
export const ldapLinkKey = (link: { cn: string | null; filter: string | null; provider: string }): string =>
  `${link.provider}|${link.cn !== null ? `cn:${link.cn}` : `filter:${link.filter ?? ''}`}`;

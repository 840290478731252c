import type { SourceType } from './projection.js';

interface Source {
  readonly source_type: SourceType;
  readonly source_id: number;
}

/** One directory group as the sync reads it: the LDAP link it answers (provider + cn or filter) and its users. */
export interface DirectoryEntry {
  readonly provider: string;
  readonly cn?: string | null;
  readonly filter?: string | null;
  readonly user_ids: readonly number[];
}

export type MemberCommand =
  /** `POST /:source/:id/members` with one user id. */
  | (Source & { readonly type: 'AddMember'; readonly user_id: number; readonly access_level: number; readonly expires_at?: string | null })
  /** `POST /:source/:id/members` with a comma list: existing members are updated, failures reported per user. */
  | (Source & { readonly type: 'AddMembers'; readonly user_ids: readonly string[]; readonly access_level: number; readonly expires_at?: string | null })
  | (Source & { readonly type: 'UpdateMember'; readonly user_id: number; readonly access_level: number; readonly expires_at?: string | null })
  | (Source & { readonly type: 'RemoveMember'; readonly user_id: number; readonly skip_subresources?: boolean })
  /** `POST /:source/:id/invitations`: an existing user's address adds the user, any other address invites it. */
  | (Source & { readonly type: 'InviteMembers'; readonly emails: readonly string[]; readonly access_level: number; readonly expires_at?: string | null })
  | (Source & { readonly type: 'UpdateInvitation'; readonly email: string; readonly access_level?: number | null; readonly expires_at?: string | null })
  | (Source & { readonly type: 'RemoveInvitation'; readonly email: string })
  | { readonly type: 'ShareGroup'; readonly group_id: number; readonly shared_with_group_id: number; readonly group_access: number; readonly expires_at?: string | null }
  | { readonly type: 'UnshareGroup'; readonly group_id: number; readonly shared_with_group_id: number }
  | { readonly type: 'ShareProject'; readonly project_id: number; readonly group_id: number; readonly group_access: number; readonly expires_at?: string | null }
  | { readonly type: 'UnshareProject'; readonly project_id: number; readonly group_id: number }
  /** Activates every awaiting membership of the member's user (or invite address) in the top-level group's hierarchy. */
  | { readonly type: 'ApproveMember'; readonly group_id: number; readonly member_id: number }
  | { readonly type: 'ApproveAllMembers'; readonly group_id: number }
  | { readonly type: 'SetMemberOverride'; readonly group_id: number; readonly user_id: number; readonly override: boolean }
  | { readonly type: 'AddLdapGroupLink'; readonly group_id: number; readonly cn?: string | null; readonly filter?: string | null; readonly group_access: number; readonly provider: string }
  | { readonly type: 'RemoveLdapGroupLink'; readonly group_id: number; readonly cn?: string | null; readonly filter?: string | null; readonly provider?: string | null }
  /** Directory sync: every linked directory group's users get the link's level unless their membership is overridden. */
  | { readonly type: 'SyncLdapGroup'; readonly group_id: number; readonly directory: readonly DirectoryEntry[] }
  /** `DELETE /groups/:id/billable_members/:user_id`: removes the user from the whole hierarchy. */
  | { readonly type: 'RemoveBillableMember'; readonly group_id: number; readonly user_id: number }
  /** `POST /:source/:id/access_requests`: the actor asks to become a member. */
  | (Source & { readonly type: 'RequestAccess' })
  /** `PUT …/access_requests/:user_id/approve`: the request becomes a membership (Developer unless `access_level`). */
  | (Source & { readonly type: 'ApproveAccessRequest'; readonly user_id: number; readonly access_level?: number | null })
  /** `DELETE …/access_requests/:user_id`: denied by an administrator of the source, or withdrawn by the requester. */
  | (Source & { readonly type: 'DenyAccessRequest'; readonly user_id: number })
  /**
   * System command, run periodically by the server (and safe to run at any time): ends every membership and share
   * whose `expires_at` is today or earlier, with `MemberExpired` / `GroupLinkExpired` events.
   */
  | { readonly type: 'ExpireMemberships' };

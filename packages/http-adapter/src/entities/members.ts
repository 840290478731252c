/** The platform's membership entities (reference §2.8, §2.10, §2.11, §2.13, §4). */
import { findGroup, findProject, findUser, humanAccess, linksOfSource, type GroupLink, type LdapLink, type Member, type MembershipType, type User } from '@forgefold/core';
import { gravatarFor, userAvatarUrl, type PresentContext } from './context.js';
const userBasic = (user: User, ctx: PresentContext) => ({
  id: user.id,
  username: user.username,
  name: user.name,
  state: user.state,
  avatar_url: userAvatarUrl(user, ctx),
  web_url: `${ctx.baseUrl}/${user.username}`,
});

/**
 * Hook for SCIM/SAML: returns the `group_saml_identity` object (or null) of a member when the viewer may read it,
 * or `undefined` to leave the key out. Registered by the SCIM module with `setGroupSamlIdentityPresenter`.
 */
export type GroupSamlIdentityPresenter = (member: Member, ctx: PresentContext) => { provider: string; extern_uid: string; saml_provider_id: number } | null | undefined;
let samlIdentity: GroupSamlIdentityPresenter = () => undefined;
export const setGroupSamlIdentityPresenter = (presenter: GroupSamlIdentityPresenter): void => {
  samlIdentity = presenter;
};

export interface MemberEntityOptions {
  /** `show_seat_info=true`: adds `is_using_seat`. */
  readonly isUsingSeat?: boolean;
}

export const memberEntity = (member: Member, ctx: PresentContext, accessLevel = member.access_level, options: MemberEntityOptions = {}) => {
  const user = member.user_id === null ? undefined : findUser(ctx.state.users, member.user_id);
  const creator = member.created_by_id === null ? undefined : findUser(ctx.state.users, member.created_by_id);
  const saml = samlIdentity(member, ctx);
  // Built key by key (no spreads): a page of members is serialized on every request.
  const entity: Record<string, unknown> = user
    ? { id: user.id, username: user.username, name: user.name, state: user.state, avatar_url: userAvatarUrl(user, ctx), web_url: `${ctx.baseUrl}/${user.username}` }
    : { id: null, username: null, name: null, state: null, avatar_url: null, web_url: null };
  entity['access_level'] = accessLevel;
  entity['created_at'] = member.created_at;
  if (creator) entity['created_by'] = userBasic(creator, ctx);
  entity['expires_at'] = member.expires_at;
  if (saml !== undefined) entity['group_saml_identity'] = saml;
  if (options.isUsingSeat !== undefined) entity['is_using_seat'] = options.isUsingSeat;
  if (member.ldap && member.source_type === 'Namespace') entity['override'] = member.override;
  entity['membership_state'] = member.state;
  return entity;
};

/** `BillableMember`: the object is the user (reference item 100). */
export const billableMemberEntity = (user: User, ctx: PresentContext, membershipType: MembershipType) => ({
  id: user.id,
  username: user.username,
  name: user.name,
  state: user.state,
  avatar_url: userAvatarUrl(user, ctx),
  web_url: `${ctx.baseUrl}/${user.username}`,
  email: user.public_email ?? null,
  last_activity_on: user.last_activity_on,
  membership_type: membershipType,
  removable: membershipType === 'group_member' || membershipType === 'project_member',
  created_at: user.created_at,
});

/** A billable member's membership (reference item 104). */
export const billableMembershipEntity = (member: Member, ctx: PresentContext) => {
  const group = member.source_type === 'Namespace' ? findGroup(ctx.state.groups, member.source_id) : undefined;
  const project = member.source_type === 'Project' ? findProject(ctx.state.projects, member.source_id) : undefined;
  return {
    id: member.id,
    source_id: member.source_id,
    source_full_name: group ? group.full_name : (project?.name_with_namespace ?? ''),
    source_members_url: group ? `${ctx.baseUrl}/groups/${group.full_path}/-/group_members` : `${ctx.baseUrl}/${project?.path_with_namespace ?? ''}/-/project_members`,
    created_at: member.created_at,
    expires_at: member.expires_at,
    access_level: { string_value: humanAccess(member.access_level), integer_value: member.access_level },
  };
};

/** PendingMember (reference item 110). */
export const pendingMemberEntity = (member: Member, ctx: PresentContext) => {
  const user = member.user_id === null ? undefined : findUser(ctx.state.users, member.user_id);
  const email = member.invite_email ?? user?.email ?? null;
  return {
    id: member.id,
    ...(user ? { name: user.name, username: user.username, web_url: `${ctx.baseUrl}/${user.username}` } : {}),
    email,
    invited: member.invite_email !== null,
    avatar_url: user ? userAvatarUrl(user, ctx) : gravatarFor(email ?? '', ctx),
    approved: member.state === 'active',
  };
};

/** Invitation (`GET /:source/:id/invitations`). The invite token is a credential and is never shown. */
export const invitationEntity = (member: Member, ctx: PresentContext) => {
  const creator = member.created_by_id === null ? undefined : findUser(ctx.state.users, member.created_by_id);
  return {
    access_level: member.access_level,
    created_at: member.created_at,
    expires_at: member.expires_at,
    invite_email: member.invite_email,
    user_name: null,
    created_by_name: creator?.name ?? null,
  };
};

/** `shared_with_groups` of GroupDetail. */
export const sharedWithGroupsEntity = (groupId: number, ctx: PresentContext) =>
  [...linksOfSource(ctx.state.members, 'Namespace', groupId)].map((link) => {
    const group = findGroup(ctx.state.groups, link.group_id);
    return { group_id: link.group_id, group_name: group?.name ?? null, group_full_path: group?.full_path ?? null, group_access_level: link.group_access, expires_at: link.expires_at };
  });

/** `POST /projects/:id/share` answer (ProjectGroupLink). */
export const projectGroupLinkEntity = (link: GroupLink) => ({ id: link.id, project_id: link.source_id, group_id: link.group_id, group_access: link.group_access, expires_at: link.expires_at });

export const ldapGroupLinkEntity = (link: LdapLink) => ({ cn: link.cn, group_access: link.group_access, provider: link.provider, filter: link.filter });

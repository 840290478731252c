/** BillableMember and its memberships (reference §2.10). */
import { findGroup, findProject, humanAccess, type Member, type MembershipType, type User } from '@forgefold/core';
import { userAvatarUrl, type PresentContext } from '../context.js';

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


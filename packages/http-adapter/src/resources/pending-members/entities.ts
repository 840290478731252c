/** PendingMember (reference §2.11). */
import { findUser, type Member } from '@forgefold/core';
import { gravatarFor, userAvatarUrl, type PresentContext } from '../context.js';

/** PendingMember (reference item 110). */
export const pendingMemberEntity = (member: Member, ctx: PresentContext) => {
  const user = member.user_id === null ? undefined : findUser(ctx.state.users, member.user_id);
  // Once accepted, the member is the user: their address, and no longer an invitation.
  const email = user?.email ?? member.invite_email ?? null;
  // The entity's order: id, name, username, email, web_url, invited, avatar_url, approved (user keys only with a user).
  return {
    id: member.id,
    ...(user ? { name: user.name, username: user.username } : {}),
    email,
    ...(user ? { web_url: `${ctx.baseUrl}/${user.username}` } : {}),
    invited: member.user_id === null,
    avatar_url: user ? userAvatarUrl(user, ctx) : gravatarFor(email ?? '', ctx),
    approved: member.state === 'active',
  };
};


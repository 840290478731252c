/** PendingMember (reference §2.11). */
import { findUser, type Member } from '@forgefold/core';
import { gravatarFor, userAvatarUrl, type PresentContext } from '../context.js';

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


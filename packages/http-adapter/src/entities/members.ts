/** The platform's Member entity (reference §2.8: key order as the platform renders it). */
import { findUser, type Member } from '@forgefold/core';
import type { PresentContext } from './context.js';
import { userBasic } from './users.js';

export const memberEntity = (member: Member, ctx: PresentContext, accessLevel = member.access_level) => {
  const user = member.user_id === null ? undefined : findUser(ctx.state.users, member.user_id);
  const creator = member.created_by_id === null ? undefined : findUser(ctx.state.users, member.created_by_id);
  return {
    ...(user ? userBasic(user, ctx) : { id: null, username: null, name: null, state: null, avatar_url: null, web_url: null }),
    access_level: accessLevel,
    created_at: member.created_at,
    ...(creator ? { created_by: userBasic(creator, ctx) } : {}),
    expires_at: member.expires_at,
    ...(member.ldap ? { override: member.override } : {}),
    membership_state: member.state,
  };
};

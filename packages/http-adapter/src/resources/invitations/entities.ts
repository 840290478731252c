/** Invitation (`lib/api/entities/invitation.rb`). */
import { findUser, type Member } from '@forgefold/core';
import type { PresentContext } from '../context.js';

/**
 * Invitation (`GET /:source/:id/invitations`): `access_level`, `created_at`, `expires_at`, `invite_email`,
 * `user_name` only when a user is attached (`if: member.user.present?`, never for a pending invitation), and
 * `created_by_name`. The invite token is a credential and is never shown.
 */
export const invitationEntity = (member: Member, ctx: PresentContext) => {
  const creator = member.created_by_id === null ? undefined : findUser(ctx.state.users, member.created_by_id);
  const user = member.user_id === null ? undefined : findUser(ctx.state.users, member.user_id);
  return {
    access_level: member.access_level,
    created_at: member.created_at,
    expires_at: member.expires_at,
    invite_email: member.invite_email,
    ...(user ? { user_name: user.name } : {}),
    created_by_name: creator?.name ?? null,
  };
};

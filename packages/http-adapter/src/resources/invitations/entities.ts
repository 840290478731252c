/** Invitation (`lib/api/entities/invitation.rb`). */
import { findUser, type Member } from '@forgefold/core';
import type { PresentContext } from '../context.js';

/**
 * Invitation (`GET /:source/:id/invitations`): `access_level`, `created_at`, `expires_at`, `invite_email` and
 * `created_by_name`. The entity's `user_name` (`if: member.user.present?`) never shows: the list holds pending
 * invitations only, which have no user. The invite token is a credential and is never shown.
 */
export const invitationEntity = (member: Member, ctx: PresentContext) => {
  const creator = member.created_by_id === null ? undefined : findUser(ctx.state.users, member.created_by_id);
  return {
    access_level: member.access_level,
    created_at: member.created_at,
    expires_at: member.expires_at,
    invite_email: member.invite_email,
    created_by_name: creator?.name ?? null,
  };
};

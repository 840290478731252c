/** The platform's Member entity (reference §2.8). */
import { findUser, type Member } from '@forgefold/core';
import { userAvatarUrl, type PresentContext } from '../context.js';
import { groupSamlIdentity } from '../scim/entities.js';
import { userBasic } from '../users/entities.js';

export interface MemberEntityOptions {
  /** `show_seat_info=true`: adds `is_using_seat`. */
  readonly isUsingSeat?: boolean;
}

export const memberEntity = (member: Member, ctx: PresentContext, accessLevel = member.access_level, options: MemberEntityOptions = {}) => {
  const user = member.user_id === null ? undefined : findUser(ctx.state.users, member.user_id);
  const creator = member.created_by_id === null ? undefined : findUser(ctx.state.users, member.created_by_id);
  const saml = groupSamlIdentity(member, ctx);
  // Built key by key (no spreads): a page of members is serialized on every request. `expose :user, merge: true`
  // merges nothing for an invitation without a user (`PUT …/invitations/:email` presents one): no user keys at all.
  const entity: Record<string, unknown> = user
    ? { id: user.id, username: user.username, name: user.name, state: user.state, avatar_url: userAvatarUrl(user, ctx), web_url: `${ctx.baseUrl}/${user.username}` }
    : {};
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


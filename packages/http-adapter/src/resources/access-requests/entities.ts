/** The platform's AccessRequester entity. */
import { findUser, type AccessRequest } from '@forgefold/core';
import type { PresentContext } from '../context.js';
import { userBasic } from '../users/entities.js';

/** `AccessRequester`: the requesting user (UserBasic) and `requested_at`. */
export const accessRequesterEntity = (request: AccessRequest, ctx: PresentContext) => {
  const user = findUser(ctx.state.users, request.user_id);
  return { ...(user ? userBasic(user, ctx) : { id: request.user_id, username: null, name: null, state: null, avatar_url: null, web_url: null }), requested_at: request.requested_at };
};

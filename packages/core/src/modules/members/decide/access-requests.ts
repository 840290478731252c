/**
 * Access requests (lib/api/access_requests.rb, Members::RequestAccessService, ApproveAccessRequestService): a user
 * who may read a group or project, and has no access to it, asks to join; an administrator of the source approves
 * (the request becomes a membership, Developer unless another level is given) or denies it; the requester may
 * withdraw it. Requests are kept apart from memberships, so they never grant access or show in member lists
 * (their folding: `../access-requests.ts`).
 */
import * as E from 'fp-ts/lib/Either.js';
import type { Issued } from '../../../kernel/decider.js';
import { forbidden, notFound } from '../../../kernel/domain-error.js';
import { canReadGroup, canReadProject, isAdmin, visibleByVisibility } from '../../access/abilities.js';
import { AccessLevel } from '../../shared/access.js';
import { RECORD_NOT_FOUND } from '../../shared/errors.js';
import { dayOf, Errors } from '../../shared/validation.js';
import { accessRequestRef, memberAddedWithCap } from '../builders.js';
import type { MemberCommand } from '../commands.js';
import type { MemberEvent } from '../events.js';
import { BOT_HELD_ELSEWHERE, botHeldElsewhere, findAccessRequest, groupAccessLevel, projectAccessLevel } from '../queries.js';
import { mayAdmin, resolveSource, type Either, type MembersView } from './source.js';
import { toEither, validateMembership } from './validation.js';

type AccessRequestCommand = Extract<MemberCommand, { type: 'RequestAccess' | 'ApproveAccessRequest' | 'DenyAccessRequest' }>;

export const decideAccessRequest = (issued: Issued<AccessRequestCommand>, state: MembersView): Either<readonly MemberEvent[]> => {
  const { command, at, actor } = issued;
  const today = dayOf(at);
  const actorId = actor.userId;
  const found = resolveSource(state, command.source_type, command.source_id);
  if (E.isLeft(found)) return found;
  const source = found.right;
  switch (command.type) {
    case 'RequestAccess': {
      if (actorId === null) return E.left(forbidden());
      // The `request_access` ability: the source is readable, requests are enabled, it is visible by its visibility
      // (GroupPolicy `view_globally`, ProjectPolicy `public_user_access`), and the user has no access yet, which an
      // administrator always has (a group's Owner level; ProjectPolicy prevents `admin`).
      const readable = source.group ? canReadGroup(state, actorId, source.group) : canReadProject(state, actorId, source.project);
      if (!readable) return E.left(notFound(source.group ? 'Group' : 'Project'));
      const enabled = source.group ? source.group.request_access_enabled : source.project.request_access_enabled;
      const access = source.group ? groupAccessLevel(state, source.group, actorId, today) : projectAccessLevel(state, source.project, actorId, today);
      if (!enabled || access > 0 || isAdmin(state, actorId) || !visibleByVisibility(state, actorId, source.group ?? source.project)) return E.left(forbidden());
      // The request is a Member row (`source.members.create(requested_at:)`): a second one fails the uniqueness in the
      // source, a token's bot that holds a membership elsewhere the bot uniqueness, in the model's order; the API
      // answers `render_validation_error!` (400).
      const errors = new Errors()
        .check(!findAccessRequest(state, source.type, source.id, actorId), 'user_id', 'already exists in source')
        .check(!botHeldElsewhere(state, actorId, source.type, source.id), 'user_id', BOT_HELD_ELSEWHERE);
      if (!errors.empty) return errors.toEither([]);
      return E.right([{ type: 'AccessRequested', data: { source_type: source.type, source_id: source.id, user_id: actorId, at } }]);
    }
    case 'ApproveAccessRequest': {
      const request = findAccessRequest(state, source.type, source.id, command.user_id);
      if (!request) return E.left(RECORD_NOT_FOUND);
      if (!mayAdmin(state, actorId, source, today)) return E.left(forbidden());
      const level = command.access_level ?? AccessLevel.DEVELOPER;
      const valid = toEither(validateMembership(state, source, command.user_id, level, null, today));
      if (E.isLeft(valid)) return valid;
      return E.right([
        { type: 'AccessRequestApproved', data: { ...accessRequestRef(request), access_level: level, at } },
        memberAddedWithCap(state, { source_type: source.type, source_id: source.id, user_id: command.user_id, access_level: level, at, created_by_id: actorId }),
      ]);
    }
    case 'DenyAccessRequest': {
      const request = findAccessRequest(state, source.type, source.id, command.user_id);
      if (!request) return E.left(RECORD_NOT_FOUND);
      const withdrawn = actorId !== null && actorId === command.user_id;
      if (!withdrawn && !mayAdmin(state, actorId, source, today)) return E.left(forbidden());
      return E.right([{ type: 'AccessRequestDenied', data: { ...accessRequestRef(request), at, ...(withdrawn ? { reason: 'withdrawn' } : {}) } }]);
    }
  }
};

/**
 * Access requests (lib/api/access_requests.rb, Members::RequestAccessService, ApproveAccessRequestService): a user
 * who may read a group or project, and has no access to it, asks to join; an administrator of the source approves
 * (the request becomes a membership, Developer unless another level is given) or denies it; the requester may
 * withdraw it. Requests are kept apart from memberships, so they never grant access or show in member lists.
 */
import * as E from 'fp-ts/lib/Either.js';
import { emptyTable, tableDelete, tableGet, tableKeys, tableSet } from '../../kernel/table.js';
import type { Issued } from '../../kernel/decider.js';
import { forbidden, notFound, validation, type DomainError } from '../../kernel/domain-error.js';
import { canReadGroup, canReadProject } from '../access/abilities.js';
import { AccessLevel } from '../shared/access.js';
import { RECORD_NOT_FOUND } from '../shared/errors.js';
import { dayOf } from '../shared/validation.js';
import { accessRequestRef, type MemberBuilderView } from './builders.js';
import type { MemberCommand } from './commands.js';
import type { MemberEvent } from './events.js';
import { sourceKey, type AccessRequest, type SourceType } from './projection.js';
import { findAccessRequest, groupAccessLevel, projectAccessLevel } from './queries.js';
import type { MembersDraft } from './evolve.js';

type AccessRequestCommand = Extract<MemberCommand, { type: 'RequestAccess' | 'ApproveAccessRequest' | 'DenyAccessRequest' }>;

/** What the decider shares with this file (passed in, so that the module graph stays acyclic). */
export interface AccessRequestDeps<S, V extends MemberBuilderView> {
  readonly resolveSource: (state: V, type: SourceType, id: number) => E.Either<DomainError, S & ({ readonly type: 'Namespace'; readonly id: number; readonly group: import('../groups/projection.js').Group; readonly project?: undefined } | { readonly type: 'Project'; readonly id: number; readonly project: import('../projects/projection.js').Project; readonly group?: undefined })>;
  readonly mayAdmin: (state: V, actorId: number | null, source: S, today: string) => boolean;
  readonly validateLevel: (state: V, source: S, userId: number, level: number, today: string) => E.Either<DomainError, void>;
  readonly memberAdded: (state: V, fields: { source_type: SourceType; source_id: number; user_id: number; access_level: number; at: string; created_by_id: number | null }) => MemberEvent;
}

export const decideAccessRequest = <S, V extends MemberBuilderView>(issued: Issued<AccessRequestCommand>, state: V, deps: AccessRequestDeps<S, V>): E.Either<DomainError, readonly MemberEvent[]> => {
  const { command, at, actor } = issued;
  const today = dayOf(at);
  const actorId = actor.userId;
  const found = deps.resolveSource(state, command.source_type, command.source_id);
  if (E.isLeft(found)) return found;
  const source = found.right;
  switch (command.type) {
    case 'RequestAccess': {
      if (actorId === null) return E.left(forbidden());
      // The `request_access` ability: the source is readable, requests are enabled, and the user has no access yet.
      const readable = source.group ? canReadGroup(state, actorId, source.group) : canReadProject(state, actorId, source.project);
      if (!readable) return E.left(notFound(source.group ? 'Group' : 'Project'));
      const enabled = source.group ? source.group.request_access_enabled : true;
      const access = source.group ? groupAccessLevel(state, source.group, actorId, today) : projectAccessLevel(state, source.project, actorId, today);
      if (!enabled || access > 0) return E.left(forbidden());
      // A second request fails the Member model's uniqueness (a 400, as the platform's `render_validation_error!`).
      if (findAccessRequest(state, source.type, source.id, actorId)) return E.left(validation({ user_id: ['already exists in source'] }));
      return E.right([{ type: 'AccessRequested', data: { source_type: source.type, source_id: source.id, user_id: actorId, at } }]);
    }
    case 'ApproveAccessRequest': {
      const request = findAccessRequest(state, source.type, source.id, command.user_id);
      if (!request) return E.left(RECORD_NOT_FOUND);
      if (!deps.mayAdmin(state, actorId, source, today)) return E.left(forbidden());
      const level = command.access_level ?? AccessLevel.DEVELOPER;
      const valid = deps.validateLevel(state, source, command.user_id, level, today);
      if (E.isLeft(valid)) return valid;
      return E.right([
        { type: 'AccessRequestApproved', data: { ...accessRequestRef(request), access_level: level, at } },
        deps.memberAdded(state, { source_type: source.type, source_id: source.id, user_id: command.user_id, access_level: level, at, created_by_id: actorId }),
      ]);
    }
    case 'DenyAccessRequest': {
      const request = findAccessRequest(state, source.type, source.id, command.user_id);
      if (!request) return E.left(RECORD_NOT_FOUND);
      const withdrawn = actorId !== null && actorId === command.user_id;
      if (!withdrawn && !deps.mayAdmin(state, actorId, source, today)) return E.left(forbidden());
      return E.right([{ type: 'AccessRequestDenied', data: { ...accessRequestRef(request), at, ...(withdrawn ? { reason: 'withdrawn' } : {}) } }]);
    }
  }
};

const drop = (state: MembersDraft, type: SourceType, sourceId: number, userId: number): void => {
  const table = tableGet(state.members.accessRequests, sourceKey(type, sourceId));
  if (!table) return;
  tableDelete(table, userId);
  if ([...tableKeys(table)].length === 0) tableDelete(state.members.accessRequests, sourceKey(type, sourceId));
};

/** Folds the access-request events; a membership added by any path also ends a pending request (it is granted). */
export const evolveAccessRequest = (state: MembersDraft, event: MemberEvent): void => {
  switch (event.type) {
    case 'AccessRequested': {
      const { source_type, source_id, user_id, at } = event.data;
      const key = sourceKey(source_type, source_id);
      if (!tableGet(state.members.accessRequests, key)) tableSet(state.members.accessRequests, key, emptyTable<AccessRequest>());
      state.members.accessRequestSequence += 1;
      tableSet(tableGet(state.members.accessRequests, key)!, user_id, { source_type, source_id, user_id, requested_at: at, seq: state.members.accessRequestSequence });
      return;
    }
    case 'AccessRequestApproved':
    case 'AccessRequestDenied':
      drop(state, event.data.source_type, event.data.source_id, event.data.user_id);
      return;
    case 'MemberAdded':
      if (event.data.user_id !== null) drop(state, event.data.source_type, event.data.source_id, event.data.user_id);
      return;
    default:
      return;
  }
};

/**
 * Access requests (lib/api/access_requests.rb, Members::RequestAccessService, ApproveAccessRequestService): a user
 * who may read a group or project, and has no access to it, asks to join; an administrator of the source approves
 * (the request becomes a membership, Developer unless another level is given) or denies it; the requester may
 * withdraw it. Requests are kept apart from memberships, so they never grant access or show in member lists.
 */
import * as E from 'fp-ts/lib/Either.js';
import { emptyTable, tableDelete, tableGet, tableKeys, tableSet, tableValues } from '../../kernel/table.js';
import type { Issued } from '../../kernel/decider.js';
import { forbidden, notFound, validation, type DomainError } from '../../kernel/domain-error.js';
import type { MutableState, State } from '../../state.js';
import type { ForgefoldEvent } from '../../events.js';
import { AccessLevel } from '../shared/access.js';
import { canReadGroup, canReadProject } from '../shared/policy.js';
import { dayOf } from '../shared/validation.js';
import type { MemberCommand } from './commands.js';
import type { MemberEvent } from './events.js';
import { sourceKey, type AccessRequest, type SourceType } from './projection.js';
import { groupAccessLevel, projectAccessLevel } from './queries.js';
import type { ResolvedSource } from './decider.js';

type AccessRequestCommand = Extract<MemberCommand, { type: 'RequestAccess' | 'ApproveAccessRequest' | 'DenyAccessRequest' }>;

/** What the decider shares with this file (passed in, so that the module graph stays acyclic). */
export interface AccessRequestDeps {
  readonly resolveSource: (state: State, type: SourceType, id: number) => E.Either<DomainError, ResolvedSource>;
  readonly canAdminSource: (state: State, actorId: number | null, source: ResolvedSource, today?: string) => boolean;
  readonly validateLevel: (state: State, source: ResolvedSource, userId: number, level: number, today: string) => E.Either<DomainError, void>;
  readonly memberAdded: (state: State, fields: { source_type: SourceType; source_id: number; user_id: number; access_level: number; at: string; created_by_id: number | null }) => MemberEvent;
}

export const findAccessRequest = (state: State, type: SourceType, sourceId: number, userId: number): AccessRequest | undefined =>
  tableGet(tableGet(state.members.accessRequests, sourceKey(type, sourceId)) ?? emptyTable<AccessRequest>(), userId);

/** Pending requests of a source, oldest first. */
export const accessRequestsOf = (state: State, type: SourceType, sourceId: number): AccessRequest[] => {
  const table = tableGet(state.members.accessRequests, sourceKey(type, sourceId));
  return table ? [...tableValues(table)].sort((a, b) => a.seq - b.seq) : [];
};

const RECORD_NOT_FOUND = notFound(undefined, '404 Not found');

const ref = (request: { source_type: SourceType; source_id: number; user_id: number }) => ({ source_type: request.source_type, source_id: request.source_id, user_id: request.user_id });

/** The events that end pending requests when their source or user goes (reason as given). */
export const endAccessRequests = (requests: readonly AccessRequest[], at: string, reason: string): MemberEvent[] =>
  requests.map((request) => ({ type: 'AccessRequestDenied', data: { ...ref(request), at, reason } }));

/** Every pending request of a user (scans the sources that have requests: user deletion is rare). */
export const accessRequestsOfUser = (state: State, userId: number): AccessRequest[] => {
  const out: AccessRequest[] = [];
  for (const table of tableValues(state.members.accessRequests)) {
    const request = tableGet(table, userId);
    if (request) out.push(request);
  }
  return out;
};

export const decideAccessRequest = (issued: Issued<AccessRequestCommand>, state: State, deps: AccessRequestDeps): E.Either<DomainError, readonly ForgefoldEvent[]> => {
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
      const readable = source.group ? canReadGroup(state, actorId, source.group) : canReadProject(state, actorId, source.project!);
      if (!readable) return E.left(notFound(source.group ? 'Group' : 'Project'));
      const enabled = source.group ? source.group.request_access_enabled : true;
      const access = source.group ? groupAccessLevel(state, source.group, actorId, today) : projectAccessLevel(state, source.project!, actorId, today);
      if (!enabled || access > 0) return E.left(forbidden());
      // A second request fails the Member model's uniqueness (a 400, as the platform's `render_validation_error!`).
      if (findAccessRequest(state, source.type, source.id, actorId)) return E.left(validation({ user_id: ['already exists in source'] }));
      return E.right([{ type: 'AccessRequested', data: { source_type: source.type, source_id: source.id, user_id: actorId, at } }]);
    }
    case 'ApproveAccessRequest': {
      const request = findAccessRequest(state, source.type, source.id, command.user_id);
      if (!request) return E.left(RECORD_NOT_FOUND);
      if (!deps.canAdminSource(state, actorId, source, today)) return E.left(forbidden());
      const level = command.access_level ?? AccessLevel.DEVELOPER;
      const valid = deps.validateLevel(state, source, command.user_id, level, today);
      if (E.isLeft(valid)) return valid;
      return E.right([
        { type: 'AccessRequestApproved', data: { ...ref(request), access_level: level, at } },
        deps.memberAdded(state, { source_type: source.type, source_id: source.id, user_id: command.user_id, access_level: level, at, created_by_id: actorId }),
      ]);
    }
    case 'DenyAccessRequest': {
      const request = findAccessRequest(state, source.type, source.id, command.user_id);
      if (!request) return E.left(RECORD_NOT_FOUND);
      const withdrawn = actorId !== null && actorId === command.user_id;
      if (!withdrawn && !deps.canAdminSource(state, actorId, source, today)) return E.left(forbidden());
      return E.right([{ type: 'AccessRequestDenied', data: { ...ref(request), at, ...(withdrawn ? { reason: 'withdrawn' } : {}) } }]);
    }
  }
};

const drop = (state: MutableState, type: SourceType, sourceId: number, userId: number): void => {
  const table = tableGet(state.members.accessRequests, sourceKey(type, sourceId));
  if (!table) return;
  tableDelete(table, userId);
  if ([...tableKeys(table)].length === 0) tableDelete(state.members.accessRequests, sourceKey(type, sourceId));
};

/** Folds the access-request events; a membership added by any path also ends a pending request (it is granted). */
export const evolveAccessRequest = (state: MutableState, event: MemberEvent): void => {
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

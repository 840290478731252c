/**
 * Access requests of groups and projects (lib/api/access_requests.rb): list (administrators of the source), request,
 * approve (the request becomes a membership) and deny or withdraw. Requests are kept apart from memberships.
 */
import { RECORD_NOT_FOUND, accessRequestsOf, directMembership, findAccessRequest, forbidden } from '@forgefold/core';
import { checkUnmodifiedSince, created, noContent, type AnyRouteDef } from '../../http/index.js';
import { presentContext, today, viewerId, type ApiDeps } from '../../app/deps.js';
import { commandRoute, listRoute } from '../../app/routes.js';
import { memberEntity } from '../members/entities.js';
import { findSource, mayAdminSource, sourceTypeOf, type SourceKind } from '../members/source.js';
import { accessRequesterEntity } from './entities.js';
import { approveParams, listParams, userIdParams } from './params.js';

const sourceRoutes = (deps: ApiDeps, kind: SourceKind): AnyRouteDef[] => {
  const base = `/${kind}/:id/access_requests`;
  const type = sourceTypeOf(kind);
  const find = findSource(kind);
  return [
    listRoute(deps, {
      path: base,
      params: listParams,
      find,
      // AccessRequestsFinder#execute!: administrators of the source only.
      authorize: (ctx, state, source) => (mayAdminSource(ctx, state, source, today(deps)) ? null : forbidden()),
      rows: (_ctx, state, source) => accessRequestsOf(state, source.type, source.id),
      present: accessRequesterEntity,
    }),
    commandRoute(deps, {
      method: 'POST',
      path: base,
      find,
      command: (_ctx, source) => ({ type: 'RequestAccess', source_type: type, source_id: source.id }),
      present: (done, ctx, source) => created(accessRequesterEntity(findAccessRequest(done.state, type, source.id, viewerId(ctx)!)!, presentContext(deps, ctx, done.state))),
    }),
    commandRoute(deps, {
      method: 'PUT',
      path: `${base}/:user_id/approve`,
      params: approveParams,
      find,
      command: ({ params }, source) => ({ type: 'ApproveAccessRequest', source_type: type, source_id: source.id, user_id: params.user_id, access_level: params.access_level ?? null }),
      present: (done, ctx, source) => created(memberEntity(directMembership(done.state.members, type, source.id, ctx.params.user_id)!, presentContext(deps, ctx, done.state))),
    }),
    commandRoute(deps, {
      method: 'DELETE',
      path: `${base}/:user_id`,
      params: userIdParams,
      find,
      // `source.requesters.find_by!` (404), then `destroy_conditionally!` (If-Unmodified-Since, 412) around the
      // destroy service, whose permission check (403) comes last.
      command: (ctx, source) => {
        const request = findAccessRequest(deps.app.state, type, source.id, ctx.params.user_id);
        if (!request) return RECORD_NOT_FOUND;
        checkUnmodifiedSince(ctx.request.headers, request.requested_at);
        return { type: 'DenyAccessRequest', source_type: type, source_id: source.id, user_id: ctx.params.user_id };
      },
      present: () => noContent(),
    }),
  ];
};

export const accessRequestRoutes = (deps: ApiDeps): AnyRouteDef[] => [...sourceRoutes(deps, 'groups'), ...sourceRoutes(deps, 'projects')];

/** Shares: a group or a project shared with a group (`POST /groups/:id/share`, `POST /projects/:id/share`) and their end. */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import { findGroup, forbidden, linkBetween, notFound } from '@forgefold/core';
import { checkUnmodifiedSince, created, noContent, type AnyRouteDef } from '../../http/index.js';
import { findReadableGroup, presentContext, today, type ApiDeps } from '../../app/deps.js';
import { mayAdminSource } from '../members/source.js';
import { commandRoute, groupOfRoute, projectOfRoute } from '../../app/routes.js';
import { groupDetailEntity } from '../groups/entities.js';
import { projectGroupLinkEntity, sharedWithGroupsEntity } from './entities.js';
import { shareGroupParams, shareProjectParams, unshareParams } from './params.js';

export const shareRoutes = (deps: ApiDeps): AnyRouteDef[] => [
  commandRoute(deps, {
    method: 'POST',
    path: '/groups/:id/share',
    params: shareGroupParams,
    // Both groups must be visible to the caller ("404 Group Not Found" otherwise).
    find: (ctx, state) =>
      pipe(
        groupOfRoute(ctx, state),
        E.chain((shared) =>
          pipe(
            findReadableGroup(state, ctx, String(ctx.params.group_id)),
            E.map((invited) => ({ shared, invited })),
          ),
        ),
      ),
    command: ({ params }, { shared, invited }) => ({ type: 'ShareGroup', group_id: shared.id, shared_with_group_id: invited.id, group_access: params.group_access, expires_at: params.expires_at ?? null }),
    present: (done, ctx, { shared }) => {
      const view = presentContext(deps, ctx, done.state);
      const detail = groupDetailEntity(findGroup(done.state.groups, shared.id)!, view);
      return created({ ...detail, shared_with_groups: sharedWithGroupsEntity(shared.id, view) });
    },
  }),
  commandRoute(deps, {
    method: 'DELETE',
    path: '/groups/:id/share/:group_id',
    params: unshareParams,
    find: groupOfRoute,
    command: (ctx, shared) => ({ type: 'UnshareGroup', group_id: shared.id, shared_with_group_id: ctx.params.group_id }),
    present: () => noContent(),
  }),
  commandRoute(deps, {
    method: 'POST',
    path: '/projects/:id/share',
    params: shareProjectParams,
    find: projectOfRoute,
    command: ({ params }, project) => ({ type: 'ShareProject', project_id: project.id, group_id: params.group_id ?? 0, group_access: params.group_access, expires_at: params.expires_at ?? null }),
    present: (done, ctx, project) => created(projectGroupLinkEntity(linkBetween(done.state.members, 'Project', project.id, ctx.params.group_id ?? 0)!)),
  }),
  commandRoute(deps, {
    method: 'DELETE',
    path: '/projects/:id/share/:group_id',
    params: unshareParams,
    find: projectOfRoute,
    // lib/api/projects.rb: `authorize! :admin_project`, the link ("404 Group Link Not Found"), then
    // `destroy_conditionally!(link)` (If-Unmodified-Since; a share is never updated, so its creation time).
    authorize: (ctx, state, project) => (mayAdminSource(ctx, state, { type: 'Project', id: project.id, project }, today(deps)) ? null : forbidden()),
    command: (ctx, project) => {
      const link = linkBetween(deps.app.state.members, 'Project', project.id, ctx.params.group_id);
      if (!link) return notFound('Group Link');
      checkUnmodifiedSince(ctx.request.headers, link.created_at);
      return { type: 'UnshareProject', project_id: project.id, group_id: ctx.params.group_id };
    },
    present: () => noContent(),
  }),
];

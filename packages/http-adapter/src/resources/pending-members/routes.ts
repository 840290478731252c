/** Awaiting members and invitations of a top-level group's hierarchy (ee/lib/ee/api/members.rb `pending_members`). */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import { badRequest, pendingMembers } from '@forgefold/core';
import { schema, withPagination, type AnyRouteDef } from '../../http/index.js';
import { today, type ApiDeps } from '../../app/deps.js';
import { groupOfRoute, listRoute } from '../../app/routes.js';
import { mayAdminSource } from '../members/source.js';
import { pendingMemberEntity } from './entities.js';

export const pendingMemberRoutes = (deps: ApiDeps): AnyRouteDef[] => [
  listRoute(deps, {
    path: '/groups/:id/pending_members',
    params: withPagination(schema()),
    find: (ctx, state) =>
      pipe(
        groupOfRoute(ctx, state),
        E.chain((root) => (root.parent_id !== null || !mayAdminSource(ctx, state, { type: 'Namespace', id: root.id, group: root }, today(deps)) ? E.left(badRequest()) : E.right(root))),
      ),
    rows: (_ctx, state, root) => pendingMembers(state, root),
    present: pendingMemberEntity,
  }),
];

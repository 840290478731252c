/** Billable members of a top-level group, their memberships, and their removal (ee/lib/ee/api/members.rb). */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import {
  RECORD_NOT_FOUND,
  badRequest,
  billableCount,
  billableTable,
  findUser,
  highestLevelInHierarchy,
  isBillable,
  joinedHierarchyAt,
  matchesUserSearch,
  membershipsInHierarchy,
  membershipType,
  notFound,
  userIdsFrom,
  type DomainError,
  type Group,
  type State,
  type User,
} from '@forgefold/core';
import { noContent, type HandlerContext, type OffsetSource, type AnyRouteDef } from '../../http/index.js';
import { today, type ApiDeps } from '../../app/deps.js';
import { commandRoute, groupOfRoute, listRoute } from '../../app/routes.js';
import { mayAdminSource } from '../members/source.js';
import { billableMemberEntity, billableMembershipEntity } from './entities.js';
import { BILLABLE_SORTS, listParams, membershipsParams, userIdParams } from './params.js';

const compareNullable = (a: string | null, b: string | null, dir: 1 | -1): number => {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return a < b ? -dir : dir;
};

const sortBillable = (state: State, root: Group, users: User[], sort: (typeof BILLABLE_SORTS)[number] | 'id_asc'): User[] => {
  const byId = (a: User, b: User) => a.id - b.id;
  const signIn = (u: User) => u.current_sign_in_at ?? (u.last_activity_on ? `${u.last_activity_on}T00:00:00.000Z` : null);
  switch (sort) {
    case 'name_asc':
      return users.sort((a, b) => a.name.localeCompare(b.name) || byId(a, b));
    case 'name_desc':
      return users.sort((a, b) => b.name.localeCompare(a.name) || byId(a, b));
    case 'last_activity_on_asc':
      return users.sort((a, b) => compareNullable(a.last_activity_on, b.last_activity_on, 1) || byId(a, b));
    case 'last_activity_on_desc':
      return users.sort((a, b) => compareNullable(a.last_activity_on, b.last_activity_on, -1) || byId(a, b));
    case 'recent_sign_in':
      return users.sort((a, b) => compareNullable(signIn(a), signIn(b), -1) || byId(a, b));
    case 'oldest_sign_in':
      return users.sort((a, b) => compareNullable(signIn(a), signIn(b), 1) || byId(a, b));
    case 'access_level_asc':
    case 'access_level_desc': {
      const level = new Map(users.map((u) => [u.id, highestLevelInHierarchy(state, root, u.id)]));
      const dir = sort === 'access_level_asc' ? 1 : -1;
      return users.sort((a, b) => dir * (level.get(a.id)! - level.get(b.id)!) || byId(a, b));
    }
    case 'last_joined':
    case 'oldest_joined': {
      const joined = new Map(users.map((u) => [u.id, joinedHierarchyAt(state, root, u.id)]));
      const dir = sort === 'oldest_joined' ? 1 : -1;
      return users.sort((a, b) => dir * joined.get(a.id)!.localeCompare(joined.get(b.id)!) || byId(a, b));
    }
    default:
      return users.sort(byId);
  }
};

export const billableMemberRoutes = (deps: ApiDeps): AnyRouteDef[] => {
  /** A top-level group whose members the caller administers; anything else is the platform's "400 Bad request". */
  const administeredRoot = (ctx: HandlerContext<unknown>, state: State): E.Either<DomainError, Group> =>
    pipe(
      groupOfRoute(ctx, state),
      E.chain((root) => (root.parent_id !== null || !mayAdminSource(ctx, state, { type: 'Namespace', id: root.id, group: root }, today(deps)) ? E.left(badRequest()) : E.right(root))),
    );
  return [
    listRoute(deps, {
      path: '/groups/:id/billable_members',
      params: listParams,
      find: administeredRoot,
      rows: (ctx, state, root) => {
        const search = ctx.params.search ?? '';
        const sort = ctx.params.sort ?? 'id_asc';
        const table = billableTable(state.members, root.id);
        if (search === '' && sort === 'id_asc') {
          // Billable users are kept per top-level group in user-id order: a page costs the page.
          const page: OffsetSource<User> = {
            count: () => billableCount(state.members, root.id),
            slice: (offset, limit) => {
              const out: User[] = [];
              for (const userId of userIdsFrom(table, offset)) {
                const user = findUser(state.users, userId);
                if (user) out.push(user);
                if (out.length >= limit) break;
              }
              return out;
            },
          };
          return page;
        }
        const users: User[] = [];
        for (const userId of userIdsFrom(table, 0)) {
          const user = findUser(state.users, userId);
          if (user && (search === '' || matchesUserSearch(user, search))) users.push(user);
        }
        return sortBillable(state, root, users, sort);
      },
      present: (user, view, root) => billableMemberEntity(user, view, membershipType(view.state, root, user.id)),
    }),
    listRoute(deps, {
      path: '/groups/:id/billable_members/:user_id/memberships',
      params: membershipsParams,
      find: (ctx, state) =>
        pipe(
          administeredRoot(ctx, state),
          E.chain((root) => {
            const user = findUser(state.users, ctx.params.user_id);
            if (!user) return E.left(RECORD_NOT_FOUND);
            return isBillable(state.members, root.id, user.id) ? E.right({ root, user }) : E.left(notFound('User'));
          }),
        ),
      rows: (_ctx, state, { root, user }) => membershipsInHierarchy(state, root, user.id),
      present: billableMembershipEntity,
    }),
    commandRoute(deps, {
      method: 'DELETE',
      path: '/groups/:id/billable_members/:user_id',
      params: userIdParams,
      find: groupOfRoute,
      command: (ctx, group) => ({ type: 'RemoveBillableMember', group_id: group.id, user_id: ctx.params.user_id }),
      present: () => noContent(),
    }),
  ];
};

/** Groups: list, create (subgroups with parent_id), show, update, delete, subgroups (lib/api/groups.rb). */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import {
  VISIBILITIES,
  canReadGroup,
  canReadProject,
  effectiveGroupAccess,
  findGroup,
  forbidden,
  findProject,
  groupAccessLevel,
  hasMembershipBelow,
  listGroups,
  selfAndDescendants,
  type Group,
  type State,
  type Visibility,
} from '@forgefold/core';
import { arraySource, checkUnmodifiedSince, created, ok, optional, paginate, requires, route, schema, T, withStatus, type KeysetSource, type RouteDef } from '../http/index.js';
import { groupDetailEntity, groupEntity } from '../entities/groups.js';
import { createdId, execute, findReadableGroup, presentContext, type ApiDeps, type Ctx } from '../app/deps.js';

const listParams = schema(
  optional('search', T.String),
  optional('owned', T.Boolean, { default: false }),
  optional('all_available', T.Boolean),
  optional('top_level_only', T.Boolean, { default: false }),
  optional('min_access_level', T.Integer, { values: [10, 20, 30, 40, 50] }),
  optional('skip_groups', T.Array(T.Integer)),
  optional('order_by', T.String, { values: ['name', 'path', 'id', 'similarity'], default: 'name' }),
  optional('sort', T.String, { values: ['asc', 'desc'], default: 'asc' }),
  optional('page', T.Integer, { default: 1 }),
  optional('per_page', T.Integer, { default: 20 }),
);

const visibility = { values: VISIBILITIES as readonly string[] };

const createParams = schema(
  requires('name', T.String),
  requires('path', T.String),
  optional('parent_id', T.Integer),
  optional('visibility', T.String, visibility),
  optional('description', T.String),
  optional('request_access_enabled', T.Boolean),
  optional('membership_lock', T.Boolean),
);

const updateParams = schema(
  requires('id', T.String),
  optional('name', T.String),
  optional('path', T.String),
  optional('visibility', T.String, visibility),
  optional('description', T.String),
  optional('request_access_enabled', T.Boolean),
  optional('new_user_signups_cap', T.Integer),
  optional('membership_lock', T.Boolean),
);

type ListParams = typeof listParams extends { _A: infer P } ? P : never;

/**
 * The groups a caller sees in a list: anonymous callers the public ones; administrators all (or, with
 * all_available=false, their own); others the groups they belong to (or everything visible with all_available).
 */
const visibleGroups = (state: State, ctx: Ctx, params: ListParams, candidates: Iterable<Group>): Group[] => {
  const principal = ctx.principal;
  const userId = principal?.userId ?? null;
  const allAvailable = params.all_available ?? (principal === null || principal.isAdmin);
  const result: Group[] = [];
  for (const group of candidates) {
    if (!canReadGroup(state, userId, group)) continue;
    if (userId !== null && !allAvailable && groupAccessLevel(state, group, userId) === 0 && !hasMembershipBelow(state, group, userId)) continue;
    if (params.owned && (userId === null || groupAccessLevel(state, group, userId) < 50)) continue;
    if (params.min_access_level && (userId === null || groupAccessLevel(state, group, userId) < params.min_access_level)) continue;
    if (params.top_level_only && group.parent_id !== null) continue;
    if (params.skip_groups?.includes(group.id)) continue;
    if (params.search && !`${group.name} ${group.path}`.toLowerCase().includes(params.search.toLowerCase())) continue;
    result.push(group);
  }
  const key = params.order_by === 'similarity' ? 'name' : (params.order_by as 'name' | 'path' | 'id');
  result.sort((a, b) => (a[key] < b[key] ? -1 : a[key] > b[key] ? 1 : a.id - b.id));
  if (params.sort === 'desc') result.reverse();
  return result;
};

/**
 * Keyset pages over groups ordered by name: the cursor is the last group's id (clients follow the `Link`),
 * found by position in the name order, so pages stay stable while groups are added elsewhere in the order.
 */
const afterIdInOrder = (groups: readonly Group[]): KeysetSource<Group> => ({
  keyOf: (group) => group.id,
  page: (cursor, _direction, limit) => {
    const start = cursor.after === undefined ? 0 : groups.findIndex((group) => group.id === cursor.after) + 1;
    return start === 0 && cursor.after !== undefined ? [] : groups.slice(start, start + limit);
  },
});

export const groupRoutes = (deps: ApiDeps): RouteDef[] => {
  const detail = (ctx: Ctx, state: State, group: Group) => {
    const viewer = ctx.principal?.userId ?? null;
    return groupDetailEntity(group, presentContext(deps, ctx, state), (projectId) => {
      const project = findProject(state.projects, projectId);
      return project !== undefined && canReadProject(state, viewer, project);
    });
  };
  return [
    route({
      method: 'GET',
      path: '/groups',
      auth: 'optional',
      params: listParams,
      handler: (ctx) => {
        const state = deps.app.state;
        const groups = visibleGroups(state, ctx, ctx.params, listGroups(state.groups));
        const present = presentContext(deps, ctx);
        return paginate(ctx, arraySource(groups), {
          map: (group) => groupEntity(group, present),
          // Keyset pagination is offered to anonymous callers ordering by name ascending only (reference §1.8).
          keyset: {
            source: afterIdInOrder(groups),
            supports: (orderBy, sort) => ctx.principal === null && (orderBy ?? 'name') === 'name' && sort === 'asc',
          },
        });
      },
    }),
    route({
      method: 'POST',
      path: '/groups',
      params: createParams,
      handler: async (ctx) => {
        const { params } = ctx;
        if (params.parent_id !== undefined && params.parent_id !== null) {
          const parent = findReadableGroup(deps.app.state, ctx, String(params.parent_id));
          if (E.isLeft(parent)) return parent;
        }
        const result = await execute(deps, ctx, {
          type: 'CreateGroup',
          name: params.name ?? '',
          path: params.path ?? '',
          parent_id: params.parent_id ?? null,
          ...(params.visibility ? { visibility: params.visibility as Visibility } : {}),
          ...(params.description !== undefined && params.description !== null ? { description: params.description } : {}),
          ...(params.request_access_enabled !== undefined && params.request_access_enabled !== null ? { request_access_enabled: params.request_access_enabled } : {}),
          ...(typeof params.membership_lock === 'boolean' ? { membership_lock: params.membership_lock } : {}),
        });
        return pipe(
          result,
          E.map((done) => created(detail(ctx, done.state, findGroup(done.state.groups, createdId(done, 'GroupCreated'))!))),
        );
      },
    }),
    route({
      method: 'GET',
      path: '/groups/:id',
      auth: 'optional',
      handler: (ctx) => {
        const state = deps.app.state;
        return pipe(
          findReadableGroup(state, ctx, String(ctx.routeParams['id'])),
          E.map((group) => ok(detail(ctx, state, group))),
        );
      },
    }),
    route({
      method: 'PUT',
      path: '/groups/:id',
      params: updateParams,
      handler: async (ctx) => {
        const { params } = ctx;
        const found = findReadableGroup(deps.app.state, ctx, String(ctx.routeParams['id']));
        if (E.isLeft(found)) return found;
        const result = await execute(deps, ctx, {
          type: 'UpdateGroup',
          id: found.right.id,
          ...(params.name ? { name: params.name } : {}),
          ...(params.path ? { path: params.path } : {}),
          ...(params.visibility ? { visibility: params.visibility as Visibility } : {}),
          ...(params.description !== undefined && params.description !== null ? { description: params.description } : {}),
          ...(params.request_access_enabled !== undefined && params.request_access_enabled !== null ? { request_access_enabled: params.request_access_enabled } : {}),
          ...(params.new_user_signups_cap !== undefined ? { new_user_signups_cap: params.new_user_signups_cap } : {}),
          ...(typeof params.membership_lock === 'boolean' ? { membership_lock: params.membership_lock } : {}),
        });
        return pipe(
          result,
          E.map((done) => ok(detail(ctx, done.state, findGroup(done.state.groups, found.right.id)!))),
        );
      },
    }),
    route({
      method: 'POST',
      path: '/groups/:id/transfer',
      params: schema(optional('group_id', T.Integer)),
      handler: async (ctx) => {
        const state = deps.app.state;
        // lib/api/groups.rb: find_group!, authorize! :admin_group (a plain 403), find_group!(group_id), then the service.
        const found = findReadableGroup(state, ctx, String(ctx.routeParams['id']));
        if (E.isLeft(found)) return found;
        if (effectiveGroupAccess(state, ctx.principal?.userId ?? null, found.right) < 50) return forbidden();
        const parentId = ctx.params.group_id ?? null;
        if (parentId !== null) {
          const parent = findReadableGroup(state, ctx, String(parentId));
          if (E.isLeft(parent)) return parent;
        }
        const result = await execute(deps, ctx, { type: 'TransferGroup', id: found.right.id, parent_id: parentId });
        return pipe(
          result,
          E.map((done) => created(detail(ctx, done.state, findGroup(done.state.groups, found.right.id)!))),
        );
      },
    }),
    route({
      method: 'DELETE',
      path: '/groups/:id',
      handler: async (ctx) => {
        const found = findReadableGroup(deps.app.state, ctx, String(ctx.routeParams['id']));
        if (E.isLeft(found)) return found;
        checkUnmodifiedSince(ctx.request.headers, found.right.updated_at);
        const result = await execute(deps, ctx, { type: 'DeleteGroup', id: found.right.id });
        // The platform deletes groups in the background and answers 202 Accepted.
        return pipe(
          result,
          E.map(() => withStatus(202, { message: '202 Accepted' })),
        );
      },
    }),
    route({
      method: 'GET',
      path: '/groups/:id/descendant_groups',
      auth: 'optional',
      params: listParams,
      handler: (ctx) => {
        const state = deps.app.state;
        return pipe(
          findReadableGroup(state, ctx, String(ctx.routeParams['id'])),
          E.map((parent) => {
            // `include_parent_descendants`: every group below, at any depth, that the caller can see.
            const descendants = selfAndDescendants(state.groups, parent).slice(1);
            const groups = visibleGroups(state, ctx, { ...ctx.params, all_available: true }, descendants);
            const present = presentContext(deps, ctx);
            return paginate(ctx, arraySource(groups), { map: (group) => groupEntity(group, present) });
          }),
        );
      },
    }),
    route({
      method: 'GET',
      path: '/groups/:id/subgroups',
      auth: 'optional',
      params: listParams,
      handler: (ctx) => {
        const state = deps.app.state;
        return pipe(
          findReadableGroup(state, ctx, String(ctx.routeParams['id'])),
          E.map((parent) => {
            const children = parent.children.map((id) => findGroup(state.groups, id)).filter((group): group is Group => group !== undefined);
            // Subgroups of a visible group are listed whether or not the caller belongs to them.
            const groups = visibleGroups(state, ctx, { ...ctx.params, all_available: true }, children);
            const present = presentContext(deps, ctx);
            return paginate(ctx, arraySource(groups), { map: (group) => groupEntity(group, present) });
          }),
        );
      },
    }),
  ];
};

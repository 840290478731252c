/** Groups: list, create (subgroups with parent_id), show, update, delete, subgroups (lib/api/groups.rb). */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import { AccessLevel, canOnGroup, canReadGroup, directMembership, findGroup, forbidden, groupCandidates, hasAccessInOrBelow, ownGroupAccessLevel, isAdmin, listGroups, selfAndDescendants, type ForgefoldCommand, type Group, type State } from '@forgefold/core';
import { arraySource, checkUnmodifiedSince, created, ok, paginate, route, withStatus, type KeysetSource, type ParamsOfSchema, type AnyRouteDef } from '../../http/index.js';
import { createdId, findReadableGroup, presentContext, type ApiDeps, type Ctx } from '../../app/deps.js';
import { commandRoute, groupOfRoute } from '../../app/routes.js';
import { groupDetailEntity, groupEntity } from './entities.js';
import { createParams, listParams, PROJECT_CREATION_LEVELS, showParams, SUBGROUP_CREATION_LEVELS, transferParams, updateParams } from './params.js';

type CreateGroup = Extract<ForgefoldCommand, { type: 'CreateGroup' }>;

type ListParams = ParamsOfSchema<typeof listParams>;

/** `project_creation_level_str=` / `subgroup_creation_level_str=`: the strings as the levels the group stores. */
const creationLevels = (params: { readonly project_creation_level?: string | null; readonly subgroup_creation_level?: string | null }): { project_creation_level?: number; subgroup_creation_level?: number } => {
  const levels: { project_creation_level?: number; subgroup_creation_level?: number } = {};
  const project = PROJECT_CREATION_LEVELS.findIndex((name) => name === params.project_creation_level);
  if (project >= 0) levels.project_creation_level = project;
  const subgroup = SUBGROUP_CREATION_LEVELS.findIndex((name) => name === params.subgroup_creation_level);
  if (subgroup >= 0) levels.subgroup_creation_level = subgroup;
  return levels;
};

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
    if (userId !== null && !allAvailable && !hasAccessInOrBelow(state, group, userId)) continue;
    // GroupsFinder: `owned_groups` (direct Owner memberships), `groups_with_min_access_level` (direct memberships at
    // the level, with the groups below them); shares count for neither.
    if (params.owned && (userId === null || directLevel(state, group, userId) < AccessLevel.OWNER)) continue;
    if (params.min_access_level && (userId === null || ownGroupAccessLevel(state, group, userId) < params.min_access_level)) continue;
    if (params.top_level_only && group.parent_id !== null) continue;
    if (params.skip_groups?.includes(group.id)) continue;
    // `groups.search(search, include_parents: true)`: the routes' full path and full name.
    if (params.search && !`${group.full_name}\n${group.full_path}`.toLowerCase().includes(params.search.toLowerCase())) continue;
    result.push(group);
  }
  // `reorder(order_by => sort, 'id' => 'asc')`: ties by ascending id whatever the direction.
  const key = params.order_by === 'similarity' ? 'name' : params.order_by;
  const direction = params.sort === 'desc' ? -1 : 1;
  result.sort((a, b) => (a[key] < b[key] ? -direction : a[key] > b[key] ? direction : a.id - b.id));
  return result;
};

/** The user's own membership level in the group (0 without an active one). */
const directLevel = (state: State, group: Group, userId: number): number => {
  const member = directMembership(state.members, 'Namespace', group.id, userId);
  return member && member.state === 'active' ? member.access_level : 0;
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

export const groupRoutes = (deps: ApiDeps): AnyRouteDef[] => {
  const detail = (ctx: Ctx, state: State, group: Group) => groupDetailEntity(group, presentContext(deps, ctx, state));
  /** A list of the groups below a visible group: those the caller sees, whether or not they belong to them (`all_available`). */
  const groupsBelowRoute = (path: string, below: (state: State, parent: Group) => Group[]) =>
    route({
      method: 'GET',
      path,
      auth: 'optional',
      params: listParams,
      handler: (ctx) => {
        const state = deps.app.state;
        return pipe(
          groupOfRoute(ctx, state),
          E.map((parent) => {
            const groups = visibleGroups(state, ctx, { ...ctx.params, all_available: true }, below(state, parent));
            const present = presentContext(deps, ctx);
            return paginate(ctx, arraySource(groups), { map: (group) => groupEntity(group, present) });
          }),
        );
      },
    });
  return [
    route({
      method: 'GET',
      path: '/groups',
      auth: 'optional',
      params: listParams,
      handler: (ctx) => {
        const state = deps.app.state;
        const principal = ctx.principal;
        // Administrators see every group; anyone else only what is public (internal) or opened by their memberships.
        const candidates = principal !== null && (principal.isAdmin || isAdmin(state, principal.userId))
          ? listGroups(state.groups)
          : groupCandidates(state, principal?.userId ?? null, principal === null || (ctx.params.all_available ?? false));
        const groups = visibleGroups(state, ctx, ctx.params, candidates);
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
    commandRoute(deps, {
      method: 'POST',
      path: '/groups',
      params: createParams,
      // A parent the caller cannot read is "404 Group Not Found" before anything is decided.
      find: (ctx, state) => (ctx.params.parent_id !== undefined && ctx.params.parent_id !== null ? findReadableGroup(state, ctx, String(ctx.params.parent_id)) : E.right(null)),
      command: ({ params }) => {
        // Options set one by one: the four conditional spreads were ~1 KB of allocation per request (measured).
        const command: { -readonly [K in keyof CreateGroup]: CreateGroup[K] } = { type: 'CreateGroup', name: params.name ?? '', path: params.path ?? '', parent_id: params.parent_id ?? null };
        if (params.visibility) command.visibility = params.visibility;
        if (params.description !== undefined && params.description !== null) command.description = params.description;
        if (params.request_access_enabled !== undefined && params.request_access_enabled !== null) command.request_access_enabled = params.request_access_enabled;
        if (typeof params.membership_lock === 'boolean') command.membership_lock = params.membership_lock;
        if (typeof params.default_branch_protection === 'number') command.default_branch_protection = params.default_branch_protection;
        if (typeof params.share_with_group_lock === 'boolean') command.share_with_group_lock = params.share_with_group_lock;
        return Object.assign(command, creationLevels(params));
      },
      present: (done, ctx) => created(detail(ctx, done.state, findGroup(done.state.groups, createdId(done, 'GroupCreated'))!)),
    }),
    route({
      method: 'GET',
      path: '/groups/:id',
      auth: 'optional',
      params: showParams,
      handler: (ctx) => {
        const state = deps.app.state;
        return pipe(
          groupOfRoute(ctx, state),
          E.map((group) => ok(ctx.params.with_projects === false ? groupEntity(group, presentContext(deps, ctx)) : detail(ctx, state, group))),
        );
      },
    }),
    commandRoute(deps, {
      method: 'PUT',
      path: '/groups/:id',
      params: updateParams,
      find: groupOfRoute,
      command: ({ params }, group) => ({
        type: 'UpdateGroup',
        id: group.id,
        // A given name or path, empty or blank, reaches the model (`declared_params(include_missing: false)`).
        ...(params.name !== undefined && params.name !== null ? { name: params.name } : {}),
        ...(params.path !== undefined && params.path !== null ? { path: params.path } : {}),
        ...(params.visibility ? { visibility: params.visibility } : {}),
        ...(params.description !== undefined && params.description !== null ? { description: params.description } : {}),
        ...(params.request_access_enabled !== undefined && params.request_access_enabled !== null ? { request_access_enabled: params.request_access_enabled } : {}),
        ...(typeof params.membership_lock === 'boolean' ? { membership_lock: params.membership_lock } : {}),
        ...(params.new_user_signups_cap !== undefined ? { new_user_signups_cap: params.new_user_signups_cap } : {}),
        // null sets the group back to the instance's level (`Namespace#default_branch_protection`'s fallback).
        ...(params.default_branch_protection !== undefined ? { default_branch_protection: params.default_branch_protection } : {}),
        ...(typeof params.share_with_group_lock === 'boolean' ? { share_with_group_lock: params.share_with_group_lock } : {}),
        ...creationLevels(params),
      }),
      present: (done, ctx, group) => ok(detail(ctx, done.state, findGroup(done.state.groups, group.id)!)),
    }),
    commandRoute(deps, {
      method: 'POST',
      path: '/groups/:id/transfer',
      params: transferParams,
      // lib/api/groups.rb: find_group!, authorize! :admin_group (a plain 403), find_group!(group_id), then the service.
      find: (ctx, state) =>
        pipe(
          groupOfRoute(ctx, state),
          E.chain((group) => (canOnGroup(state, ctx.principal?.userId ?? null, 'admin_group', group) ? E.right(group) : E.left(forbidden()))),
          E.chainFirst(() => (ctx.params.group_id === undefined || ctx.params.group_id === null ? E.right(null) : findReadableGroup(state, ctx, String(ctx.params.group_id)))),
        ),
      command: ({ params }, group) => ({ type: 'TransferGroup', id: group.id, parent_id: params.group_id ?? null }),
      present: (done, ctx, group) => created(detail(ctx, done.state, findGroup(done.state.groups, group.id)!)),
    }),
    commandRoute(deps, {
      method: 'DELETE',
      path: '/groups/:id',
      find: groupOfRoute,
      command: (ctx, group) => {
        checkUnmodifiedSince(ctx.request.headers, group.updated_at);
        return { type: 'DeleteGroup', id: group.id };
      },
      // The platform deletes groups in the background and answers 202 Accepted.
      present: () => withStatus(202, { message: '202 Accepted' }),
    }),
    // `include_parent_descendants`: every group below, at any depth, that the caller can see.
    groupsBelowRoute('/groups/:id/descendant_groups', (state, parent) => selfAndDescendants(state.groups, parent).slice(1)),
    groupsBelowRoute('/groups/:id/subgroups', (state, parent) => parent.children.map((id) => findGroup(state.groups, id)).filter((group): group is Group => group !== undefined)),
  ];
};

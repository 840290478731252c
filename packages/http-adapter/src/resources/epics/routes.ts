/** Group epics (ee/lib/api/epics.rb, 14.7), lean: create, list, get, update (with `state_event`), delete, by iid. */
import * as E from 'fp-ts/lib/Either.js';
import { canCreateEpic, canDestroyEpic, canReadEpic, canUpdateEpic, epicsOf, findEpic, findGroup, forbidden, selfAndAncestors, selfAndDescendants, type DomainError, type Epic, type EpicDates, type Group, type State } from '@forgefold/core';
import { created, noContent, ok, route, T, type AnyRouteDef, type HandlerContext } from '../../http/index.js';
import { commandRoute, groupOfRoute, listRoute } from '../../app/routes.js';
import { presentContext, viewerId, type ApiDeps } from '../../app/deps.js';
import { createParams, epicIidParams, listParams, updateParams } from './params.js';
import { epicEntity } from './entities.js';
import { labelsOf } from '../issues/params.js';
import { fullSearchMatches, inTimestampWindow, labelsMatch, reactionMatches, sortByTimestamp } from '../issues/filter.js';

/**
 * `user_group.epics.find_by(iid:)` then `authorize!(:read_epic, epic)`: a missing epic (nil, which `NilPolicy`
 * refuses) or one the caller may not read is a 403, not a 404.
 */
const epicOfRoute = (ctx: HandlerContext<unknown>, state: State): E.Either<DomainError, { group: Group; epic: Epic }> => {
  const group = groupOfRoute(ctx, state);
  if (E.isLeft(group)) return group;
  const iid = Number(ctx.routeParams['epic_iid']);
  const epic = Number.isSafeInteger(iid) ? findEpic(state.epics, group.right.id, iid) : undefined;
  if (!epic || !canReadEpic(state, viewerId(ctx), group.right, epic)) return E.left(forbidden());
  return E.right({ group: group.right, epic });
};

/** A date parameter (a String cast to a date column: a value that does not parse is no date). */
const dateOf = (value: string | null): string | null => {
  const date = value === null ? undefined : T.Date.decode(value);
  return date && E.isRight(date) ? date.right : null;
};

/** `start_date` and `end_date` as `start_date_fixed` and `due_date_fixed`, with their `…_is_fixed`, as given. */
const datesOf = (params: { start_date?: string | null; start_date_is_fixed?: boolean | null; end_date?: string | null; due_date_is_fixed?: boolean | null }): EpicDates => ({
  ...(params.start_date !== undefined ? { start_date_fixed: dateOf(params.start_date) } : {}),
  ...(params.start_date_is_fixed !== undefined && params.start_date_is_fixed !== null ? { start_date_is_fixed: params.start_date_is_fixed } : {}),
  ...(params.end_date !== undefined ? { due_date_fixed: dateOf(params.end_date) } : {}),
  ...(params.due_date_is_fixed !== undefined && params.due_date_is_fixed !== null ? { due_date_is_fixed: params.due_date_is_fixed } : {}),
});

/** `before { authorize_epics_feature! }`: `user_group` ("404 Group Not Found") before the parameters are checked. */
const groupFirst =
  (deps: ApiDeps) =>
  (ctx: HandlerContext<unknown>): DomainError | undefined => {
    const group = groupOfRoute(ctx, deps.app.state);
    return E.isLeft(group) ? group.left : undefined;
  };

export const epicRoutes = (deps: ApiDeps): AnyRouteDef[] => [
  listRoute(deps, {
    path: '/groups/:id/epics',
    auth: 'optional',
    params: listParams,
    find: groupOfRoute,
    rows: (ctx, state, group) => {
      const { params } = ctx;
      // The same answer for every epic (see `reactionMatches`).
      if (!reactionMatches(params.my_reaction_emoji, viewerId(ctx))) return [];
      const search = params.search;
      const labels = params.labels?.filter((label) => label !== '') ?? [];
      // `EpicsFinder#related_groups`: the group with its descendants (the default) and, if asked, its ancestors;
      // of those, the groups whose epics the caller may read.
      const related = [
        ...(params.include_ancestor_groups ? selfAndAncestors(state.groups, group).slice(1).reverse() : []),
        ...(params.include_descendant_groups === false ? [group] : selfAndDescendants(state.groups, group)),
      ];
      const list = related.flatMap((each) =>
        epicsOf(state.epics, each.id).filter(
          (epic) =>
            canReadEpic(state, viewerId(ctx), each, epic) &&
            (params.state === 'all' || epic.state === params.state) &&
            labelsMatch(epic, labels) &&
            (!search || fullSearchMatches(epic, search)) &&
            (params.author_id === undefined || params.author_id === null || epic.author_id === params.author_id) &&
            (params.confidential === undefined || params.confidential === null || epic.confidential === params.confidential) &&
            inTimestampWindow(epic, params),
        ),
      );
      return sortByTimestamp(list, params.order_by === 'updated_at' ? 'updated_at' : 'created_at', params.sort);
    },
    // Each epic with its own group; `references.relative` from the group asked (`epic_options`' `group: user_group`).
    present: (epic, view, group) => epicEntity(epic, epic.group_id === group.id ? group : findGroup(view.state.groups, epic.group_id)!, view, group),
  }),
  route({
    method: 'GET',
    path: '/groups/:id/epics/:epic_iid',
    auth: 'optional',
    before: groupFirst(deps),
    params: epicIidParams,
    handler: (ctx) => {
      const found = epicOfRoute(ctx, deps.app.state);
      if (E.isLeft(found)) return found.left;
      // `epic_options.merge(include_subscribed: true)`.
      return ok(epicEntity(found.right.epic, found.right.group, presentContext(deps, ctx), found.right.group, { subscribed: true }));
    },
  }),
  commandRoute(deps, {
    method: 'POST',
    path: '/groups/:id/epics',
    params: createParams,
    find: groupOfRoute,
    authorize: (ctx, state, group) => (canCreateEpic(state, viewerId(ctx), group) ? null : forbidden()),
    command: (ctx, group) => ({
      type: 'CreateEpic',
      group_id: group.id,
      title: ctx.params.title ?? '',
      ...(ctx.params.description ? { description: ctx.params.description } : {}),
      ...(ctx.params.labels ? { labels: ctx.params.labels } : {}),
      ...(ctx.params.confidential !== undefined && ctx.params.confidential !== null ? { confidential: ctx.params.confidential } : {}),
      ...datesOf(ctx.params),
      ...(ctx.params.created_at ? { created_at: new Date(ctx.params.created_at).toISOString() } : {}),
    }),
    present: (done, ctx, group) => {
      const iid = (done.events.find((event) => event.type === 'EpicCreated')!.data as { iid: number }).iid;
      return created(epicEntity(findEpic(done.state.epics, group.id, iid)!, group, presentContext(deps, ctx, done.state)));
    },
  }),
  commandRoute(deps, {
    method: 'PUT',
    path: '/groups/:id/epics/:epic_iid',
    before: groupFirst(deps),
    params: updateParams,
    find: epicOfRoute,
    authorize: (ctx, state, { group, epic }) => (canUpdateEpic(state, viewerId(ctx), group, epic) ? null : forbidden()),
    command: (ctx, { group, epic }) => {
      const { params } = ctx;
      const labels = labelsOf(epic.labels, params);
      return {
        type: 'UpdateEpic',
        group_id: group.id,
        iid: epic.iid,
        ...(params.title !== undefined && params.title !== null ? { title: params.title } : {}),
        ...(params.description !== undefined && params.description !== null ? { description: params.description } : {}),
        ...(labels ? { labels } : {}),
        ...(params.confidential !== undefined && params.confidential !== null ? { confidential: params.confidential } : {}),
        ...(params.state_event ? { state_event: params.state_event as 'close' | 'reopen' } : {}),
        ...datesOf(params),
        ...(params.updated_at ? { updated_at: new Date(params.updated_at).toISOString() } : {}),
      };
    },
    present: (done, ctx, { group, epic }) => ok(epicEntity(findEpic(done.state.epics, group.id, epic.iid)!, group, presentContext(deps, ctx, done.state))),
  }),
  commandRoute(deps, {
    method: 'DELETE',
    path: '/groups/:id/epics/:epic_iid',
    before: groupFirst(deps),
    params: epicIidParams,
    find: epicOfRoute,
    authorize: (ctx, state, { group, epic }) => (canDestroyEpic(state, viewerId(ctx), group, epic) ? null : forbidden()),
    command: (_ctx, { group, epic }) => ({ type: 'DeleteEpic', group_id: group.id, iid: epic.iid }),
    present: () => noContent(),
  }),
];

/** The membership audit API (administrators; see README "Membership audit"): history, and members as of a past time. */
import * as E from 'fp-ts/lib/Either.js';
import { findGroupByIdOrPath, findProjectByIdOrPath, membersAsOf, membershipHistory, notFound, settingsHistory } from '@forgefold/core';
import { arraySource, paginate, route, type AnyRouteDef } from '../../http/index.js';
import { findReadableGroup, findReadableProject, type ApiDeps } from '../../app/deps.js';
import { asOfParams, historyParams, settingsHistoryParams } from './params.js';

export const auditRoutes = (deps: ApiDeps): AnyRouteDef[] => [
  /** Who changed which application setting, when, from what to what (write-only secrets filtered). */
  route({
    method: 'GET',
    path: '/audit/settings_events',
    admin: true,
    params: settingsHistoryParams,
    handler: async (ctx) => {
      const { params } = ctx;
      const rows = await settingsHistory(deps.app.events, {
        ...(params.field ? { field: params.field } : {}),
        ...(params.since ? { since: params.since } : {}),
        ...(params.until ? { until: params.until } : {}),
      });
      return paginate(ctx, arraySource(rows));
    },
  }),
  route({
    method: 'GET',
    path: '/audit/membership_events',
    admin: true,
    params: historyParams,
    handler: async (ctx) => {
      const state = deps.app.state;
      const { params } = ctx;
      const group = params.group_id ? findReadableGroup(state, ctx, params.group_id) : undefined;
      if (group && E.isLeft(group)) return group.left;
      const project = params.project_id ? findReadableProject(state, ctx, params.project_id) : undefined;
      if (project && E.isLeft(project)) return project.left;
      const rows = await membershipHistory(deps.app.events, {
        ...(params.user_id !== undefined && params.user_id !== null ? { userId: params.user_id } : {}),
        ...(group ? { groupId: group.right.id } : {}),
        ...(project ? { projectId: project.right.id } : {}),
        ...(params.include_descendants ? { includeDescendants: { state } } : {}),
        ...(params.since ? { since: params.since } : {}),
        ...(params.until ? { until: params.until } : {}),
      });
      return paginate(ctx, arraySource(rows));
    },
  }),
  ...(['groups', 'projects'] as const).map((kind) =>
    route({
      method: 'GET',
      path: `/audit/${kind}/:id/members`,
      admin: true,
      params: asOfParams,
      handler: async (ctx) => {
        const state = deps.app.state;
        const id = String(ctx.routeParams['id']);
        // A source deleted since is still answerable by id.
        const byId = /^\d+$/.test(id) ? Number(id) : -1;
        const sourceId = kind === 'groups' ? (findGroupByIdOrPath(state.groups, id)?.id ?? byId) : (findProjectByIdOrPath(state.projects, id)?.id ?? byId);
        const rows = await membersAsOf(deps.app.events, { type: kind === 'groups' ? 'Namespace' : 'Project', id: sourceId }, ctx.params.at ?? '');
        return rows === null ? notFound(kind === 'groups' ? 'Group' : 'Project') : paginate(ctx, arraySource(rows));
      },
    }),
  ),
];

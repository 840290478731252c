/**
 * Project issues (lib/api/issues.rb, 14.7), lean: create, list (the finder's filters, see `filter.ts`; paginated),
 * get, update (with `state_event`), delete, participants, the merge requests that close it or relate to it, its links to
 * other issues (lib/api/issue_links.rb); subscribe and unsubscribe (lib/api/subscriptions.rb). Confidential issues are visible to their author, assignees, Reporters
 * and above.
 */
import * as E from 'fp-ts/lib/Either.js';
import {
  canCreateIssue,
  canOnProject,
  canReadIssue,
  canReadProject,
  findIssue,
  findProject,
  findUser,
  forbidden,
  findIssueById,
  findIssueLink,
  issueParticipants,
  linksOf,
  mergeRequestsClosing,
  relatedMergeRequests,
  issuesOf,
  issuesOfUser,
  notFound,
  unauthorized,
  type DomainError,
  type Issue,
  type Project,
  type State,
} from '@forgefold/core';
import { arraySource, created, noContent, ok, checkUnmodifiedSince, paginate, paginateLoaded, route, T, withStatus, type AnyRouteDef, type HandlerContext, type HandlerResult } from '../../http/index.js';
import { commandRoute, groupOfRoute, listRoute, nothing, projectOfRoute } from '../../app/routes.js';
import { execute, findReadableProject, groupTreeProjects, listableProjects, presentContext, today, viewerId, type ApiDeps, type Ctx } from '../../app/deps.js';
import { createParams, groupListParams, iidParams, labelsOf, linkParams, listParams, statsParams, unlinkParams, updateParams, userListParams, userStatsParams } from './params.js';
import type { PresentContext } from '../context.js';
import { issueBasicEntity, issueEntity, isSubscribed, NO_TIME_STATS, relatedIssueEntity } from './entities.js';
import { participantsPage } from '../users/entities.js';
import { mergeRequestBasicEntity } from '../merge-requests/entities.js';
import { presentMergeRequest } from '../merge-requests/present.js';
import { filterIssues, ownScope } from './filter.js';

/** `RecordNotFound`, as lib/api/api.rb answers it. */
const RECORD_NOT_FOUND = notFound(undefined, '404 Not found');

/**
 * `find_project_issue`: a readable issue of a readable project. Its `find_by!` raises RecordNotFound, which the API
 * answers `{"message":"404 Not found"}`. `param`: the path parameter holding the iid (the subscription routes name it
 * `subscribable_id`, a String there, so that any text is a 404 rather than a 400).
 */
const issueOfRoute = (ctx: HandlerContext<unknown>, state: State, param = 'issue_iid'): E.Either<DomainError, { project: Project; issue: Issue }> => {
  const project = projectOfRoute(ctx, state);
  if (E.isLeft(project)) return project;
  const iid = Number(ctx.routeParams[param]);
  const issue = Number.isSafeInteger(iid) ? findIssue(state.issues, project.right.id, iid) : undefined;
  if (!issue || !canReadIssue(state, viewerId(ctx), project.right, issue)) return E.left(RECORD_NOT_FOUND);
  return E.right({ project: project.right, issue });
};

/**
 * `user_project.issues.find_by(iid:)` with no read check (update and delete authorize afterwards, so an issue the
 * caller may not read is a 403); a missing one is `notFound` (`find_by!` on update: "404 Not found").
 */
const projectIssueOfRoute =
  (missing: DomainError) =>
  (ctx: HandlerContext<unknown>, state: State): E.Either<DomainError, { project: Project; issue: Issue }> => {
    const project = projectOfRoute(ctx, state);
    if (E.isLeft(project)) return project;
    const issue = findIssue(state.issues, project.right.id, Number(ctx.routeParams['issue_iid']));
    return issue ? E.right({ project: project.right, issue }) : E.left(missing);
  };

/** `due_date` is a String parameter cast to a date column: a date that does not parse is none. */
const dueDateOf = (value: string | null | undefined): string | null | undefined => {
  if (value === undefined) return undefined;
  const date = value === null ? undefined : T.Date.decode(value);
  return date && E.isRight(date) ? date.right : null;
};

const assigneesOf = (state: State, params: { assignee_id?: number | null; assignee_ids?: readonly (number | null)[] | null }): number[] | undefined => {
  const ids = params.assignee_ids ?? (params.assignee_id !== undefined ? (params.assignee_id === null || params.assignee_id === 0 ? [] : [params.assignee_id]) : undefined);
  return ids?.filter((id): id is number => id !== null && findUser(state.users, id) !== undefined);
};

/** The issues of these projects the viewer may read (`IssuesFinder` without a project). */
const readableIssues = (state: State, viewer: number | null, projects: Iterable<Project>): Issue[] => {
  const out: Issue[] = [];
  for (const project of projects) {
    if (!canReadProject(state, viewer, project)) continue;
    for (const issue of issuesOf(state.issues, project.id)) if (canReadIssue(state, viewer, project, issue)) out.push(issue);
  }
  return out;
};

/** The caller's issues by `scope` from the author or assignee index (`ownScope`), those they can still read. */
const ownIssues = (state: State, viewer: number | null, scope: string | null | undefined): Issue[] | null => {
  const by = ownScope(scope, viewer);
  if (by === null || viewer === null) return null;
  return issuesOfUser(state.issues, viewer, by).filter((issue) => {
    const project = findProject(state.projects, issue.project_id);
    // `canReadIssue` starts with `canReadProject`.
    return project !== undefined && canReadIssue(state, viewer, project, issue);
  });
};

/** What `GET /issues` and `/issues_statistics` count from: the caller's own by scope (`ownIssues`), else every readable one. */
const userIssues = (ctx: Ctx & { params: { scope?: string | null | undefined } }, state: State): Issue[] =>
  ownIssues(state, viewerId(ctx), ctx.params.scope) ?? readableIssues(state, viewerId(ctx), listableProjects(ctx, state, true));

const presentAnywhere = (issue: Issue, view: PresentContext) => issueEntity(issue, findProject(view.state.projects, issue.project_id)!, view);

const createdIid = (events: readonly { type: string; data: unknown }[]): number => (events.find((event) => event.type === 'IssueCreated')!.data as { iid: number }).iid;

/** A read of one readable issue, or of what hangs on it: `GET /projects/:id/issues/:issue_iid<suffix>`. */
const issueRead = (
  deps: ApiDeps,
  suffix: string,
  answer: (ctx: HandlerContext<unknown>, found: { project: Project; issue: Issue }) => HandlerResult | Promise<HandlerResult>,
  auth: 'optional' | 'required' = 'optional',
) =>
  route({
    method: 'GET',
    path: `/projects/:id/issues/:issue_iid${suffix}`,
    auth,
    params: iidParams,
    handler: (ctx) => {
      const found = issueOfRoute(ctx, deps.app.state);
      return E.isLeft(found) ? found.left : answer(ctx, found.right);
    },
  });

/** `issues_statistics`: `Gitlab::IssuablesCountForState` over the finder's issues. */
const statistics = (issues: readonly Issue[]) => {
  const opened = issues.filter((issue) => issue.state === 'opened').length;
  return { statistics: { counts: { all: issues.length, closed: issues.length - opened, opened } } };
};

export const issueRoutes = (deps: ApiDeps): AnyRouteDef[] => [
  // `GET /issues`: `authenticate! unless params[:scope] == 'all'`; the caller's own issues by default.
  listRoute(deps, {
    path: '/issues',
    auth: 'optional',
    params: userListParams,
    find: nothing,
    authorize: (ctx) => (ctx.params.scope !== 'all' && viewerId(ctx) === null ? unauthorized : null),
    rows: (ctx, state) =>
      filterIssues(userIssues(ctx, state), ctx.params, state.users, viewerId(ctx), today(deps)),
    present: (issue, view) => presentAnywhere(issue, view),
  }),
  // `GET /groups/:id/issues`: the group's and its subgroups' projects (`include_subgroups: true`), from what the caller
  // may see (`groupTreeProjects`); the rows are sorted by values that end on the issue id, so the projects' order is not
  // seen.
  listRoute(deps, {
    path: '/groups/:id/issues',
    auth: 'optional',
    params: groupListParams,
    find: groupOfRoute,
    rows: (ctx, state, group) =>
      filterIssues(
        readableIssues(state, viewerId(ctx), groupTreeProjects(ctx, state, group)),
        ctx.params,
        state.users,
        viewerId(ctx),
        today(deps),
      ),
    present: (issue, view) => presentAnywhere(issue, view),
  }),
  // `GET /issues/:id` (admin only): `Issue.find`, any issue by its global id, as its project shows it.
  route({
    method: 'GET',
    path: '/issues/:id',
    admin: true,
    handler: (ctx) => {
      const state = deps.app.state;
      const id = String(ctx.routeParams['id']);
      const issue = /^\d+$/.test(id) ? findIssueById(state.issues, Number(id)) : undefined;
      const project = issue && findProject(state.projects, issue.project_id);
      if (!issue || !project) return RECORD_NOT_FOUND;
      return ok(issueEntity(issue, project, presentContext(deps, ctx), { subscribed: true }));
    },
  }),
  // `issues_statistics` (lib/api/issues.rb): the counts of what the list would find, by state.
  route({
    method: 'GET',
    path: '/issues_statistics',
    auth: 'optional',
    params: userStatsParams,
    handler: (ctx) => {
      if (ctx.params.scope !== 'all' && viewerId(ctx) === null) return unauthorized;
      const state = deps.app.state;
      return ok(statistics(filterIssues(userIssues(ctx, state), { ...ctx.params, state: 'all' }, state.users, viewerId(ctx), today(deps))));
    },
  }),
  route({
    method: 'GET',
    path: '/groups/:id/issues_statistics',
    auth: 'optional',
    params: statsParams,
    handler: (ctx) => {
      const state = deps.app.state;
      const group = groupOfRoute(ctx, state);
      if (E.isLeft(group)) return group.left;
      return ok(statistics(filterIssues(readableIssues(state, viewerId(ctx), groupTreeProjects(ctx, state, group.right)), { ...ctx.params, state: 'all' }, state.users, viewerId(ctx), today(deps))));
    },
  }),
  route({
    method: 'GET',
    path: '/projects/:id/issues_statistics',
    auth: 'optional',
    params: statsParams,
    handler: (ctx) => {
      const state = deps.app.state;
      const project = projectOfRoute(ctx, state);
      if (E.isLeft(project)) return project.left;
      return ok(statistics(filterIssues(readableIssues(state, viewerId(ctx), [project.right]), { ...ctx.params, state: 'all' }, state.users, viewerId(ctx), today(deps))));
    },
  }),
  listRoute(deps, {
    path: '/projects/:id/issues',
    auth: 'optional',
    params: listParams,
    find: projectOfRoute,
    rows: (ctx, state, project) =>
      filterIssues(
        issuesOf(state.issues, project.id).filter((issue) => canReadIssue(state, viewerId(ctx), project, issue)),
        ctx.params,
        state.users,
        viewerId(ctx),
        today(deps),
      ),
    present: (issue, view, project) => issueEntity(issue, project, view),
  }),
  issueRead(deps, '', (ctx, { project, issue }) => ok(issueEntity(issue, project, presentContext(deps, ctx), { subscribed: true }))),
  commandRoute(deps, {
    method: 'POST',
    path: '/projects/:id/issues',
    params: createParams,
    find: projectOfRoute,
    authorize: (ctx, state, project) => (canCreateIssue(state, viewerId(ctx), project) ? null : forbidden()),
    command: (ctx, project) => {
      const { params } = ctx;
      const assignees = assigneesOf(deps.app.state, params);
      const labels = labelsOf([], params);
      const dueDate = dueDateOf(params.due_date);
      return {
        type: 'CreateIssue',
        project_id: project.id,
        title: params.title ?? '',
        ...(params.description !== undefined && params.description !== null ? { description: params.description } : {}),
        ...(params.confidential !== undefined && params.confidential !== null ? { confidential: params.confidential } : {}),
        ...(labels ? { labels } : {}),
        ...(assignees ? { assignee_ids: assignees } : {}),
        ...(dueDate ? { due_date: dueDate } : {}),
        ...(params.discussion_locked !== undefined && params.discussion_locked !== null ? { discussion_locked: params.discussion_locked } : {}),
        ...(params.created_at ? { created_at: new Date(params.created_at).toISOString() } : {}),
        ...(params.iid !== undefined && params.iid !== null ? { iid: params.iid } : {}),
      };
    },
    present: (done, ctx, project) =>
      created(issueEntity(findIssue(done.state.issues, project.id, createdIid(done.events))!, project, presentContext(deps, ctx, done.state), { subscribed: true })),
  }),
  commandRoute(deps, {
    method: 'PUT',
    path: '/projects/:id/issues/:issue_iid',
    params: updateParams,
    find: projectIssueOfRoute(RECORD_NOT_FOUND),
    command: (ctx, { project, issue }) => {
      const { params } = ctx;
      const assignees = assigneesOf(deps.app.state, params);
      const labels = labelsOf(issue.labels, params);
      const dueDate = dueDateOf(params.due_date);
      return {
        type: 'UpdateIssue',
        project_id: project.id,
        iid: issue.iid,
        ...(params.title !== undefined && params.title !== null ? { title: params.title } : {}),
        ...(params.description !== undefined && params.description !== null ? { description: params.description } : {}),
        ...(params.confidential !== undefined && params.confidential !== null ? { confidential: params.confidential } : {}),
        ...(labels ? { labels } : {}),
        ...(assignees ? { assignee_ids: assignees } : {}),
        ...(dueDate !== undefined ? { due_date: dueDate } : {}),
        ...(params.discussion_locked !== undefined && params.discussion_locked !== null ? { discussion_locked: params.discussion_locked } : {}),
        ...(params.state_event ? { state_event: params.state_event as 'close' | 'reopen' } : {}),
        ...(params.updated_at ? { updated_at: new Date(params.updated_at).toISOString() } : {}),
      };
    },
    present: (done, ctx, { project, issue }) =>
      ok(issueEntity(findIssue(done.state.issues, project.id, issue.iid)!, project, presentContext(deps, ctx, done.state), { subscribed: true })),
  }),
  commandRoute(deps, {
    method: 'DELETE',
    path: '/projects/:id/issues/:issue_iid',
    params: iidParams,
    find: projectIssueOfRoute(notFound('Issue')),
    authorize: (ctx, state, { project }) => (canDestroy(state, viewerId(ctx), project) ? null : forbidden()),
    command: (ctx, { project, issue }) => {
      checkUnmodifiedSince(ctx.request.headers, issue.updated_at);
      return { type: 'DeleteIssue', project_id: project.id, iid: issue.iid };
    },
    present: () => noContent(),
  }),
  // `TimeTrackingEndpoints#time_stats` (`Entities::IssuableTimeStats`): no time is tracked here, so the entity's zeros.
  issueRead(deps, '/time_stats', () => ok(NO_TIME_STATS)),
  issueRead(deps, '/participants', (ctx, { project, issue }) => {
    const view = presentContext(deps, ctx);
    // `paginate(::Kaminari.paginate_array(issue.participants))`: no user given, so the references are read as the author.
    return participantsPage(ctx, view, issueParticipants(view.state, project, issue, null));
  }),
  issueRead(deps, '/closed_by', (ctx, { project, issue }) => {
    const view = presentContext(deps, ctx);
    return paginate(ctx, arraySource(mergeRequestsClosing(view.state, viewerId(ctx), project, issue)), { map: (mr) => mergeRequestBasicEntity(mr, project, view) });
  }),
  issueRead(deps, '/related_merge_requests', (ctx, { project, issue }) => {
    const state = deps.app.state;
    return paginateLoaded(
      ctx,
      async (offset, limit) => {
        const all = relatedMergeRequests(state, viewerId(ctx), project, issue);
        return { items: all.slice(offset, offset + limit), total: all.length };
      },
      (page) =>
        Promise.all(
          page.map(async (mr) => {
            // `include_subscribed: false`.
            const { subscribed: _subscribed, ...entity } = await presentMergeRequest(deps, ctx, findProject(state.projects, mr.project_id)!, mr, project);
            return entity;
          }),
        ),
    );
  }),
  // lib/api/issue_links.rb: `authenticate!` first; the source issue found as the single issue is.
  issueRead(
    deps,
    '/links',
    (ctx, { project: from, issue }) => {
      const view = presentContext(deps, ctx);
      const related = linksOf(view.state.issues, issue).flatMap(({ link, other, link_type }) => {
        const project = findProject(view.state.projects, other.project_id);
        return project && canReadIssue(view.state, viewerId(ctx), project, other) ? [relatedIssueEntity(other, project, view, link, link_type, from)] : [];
      });
      // Not paginated (`present related_issues`).
      return ok(related);
    },
    'required',
  ),
  route({
    method: 'POST',
    path: '/projects/:id/issues/:issue_iid/links',
    params: linkParams,
    handler: async (ctx) => {
      const state = deps.app.state;
      const source = issueOfRoute(ctx, state);
      if (E.isLeft(source)) return source.left;
      // `find_project_issue(target_issue_iid, target_project_id)`.
      const targetProject = findReadableProject(state, ctx, ctx.params.target_project_id ?? '');
      if (E.isLeft(targetProject)) return targetProject.left;
      const target = findIssue(state.issues, targetProject.right.id, ctx.params.target_issue_iid ?? 0);
      if (!target || !canReadIssue(state, viewerId(ctx), targetProject.right, target)) return RECORD_NOT_FOUND;
      const done = await execute(deps, ctx, {
        type: 'CreateIssueLink',
        project_id: source.right.project.id,
        iid: source.right.issue.iid,
        target_project_id: targetProject.right.id,
        target_iid: target.iid,
        ...(ctx.params.link_type ? { link_type: ctx.params.link_type as 'relates_to' | 'blocks' } : {}),
      });
      if (E.isLeft(done)) return done.left;
      const { link_type } = done.right.events.find((event) => event.type === 'IssueLinkCreated')!.data as { link_type: string };
      return created(issueLinkEntity(done.right.state, presentContext(deps, ctx, done.right.state), [source.right.issue, target], link_type));
    },
  }),
  route({
    method: 'DELETE',
    path: '/projects/:id/issues/:issue_iid/links/:issue_link_id',
    params: unlinkParams,
    handler: async (ctx) => {
      const state = deps.app.state;
      // `IssueLink.find` (any link: 14.7 does not check that it is this issue's), then both issues as readable.
      const link = findIssueLink(state.issues, Number(ctx.routeParams['issue_link_id']));
      if (!link) return RECORD_NOT_FOUND;
      const source = issueOfRoute(ctx, state);
      if (E.isLeft(source)) return source.left;
      const target = findIssueById(state.issues, link.target_id);
      const targetProject = target && findProject(state.projects, target.project_id);
      if (!target || !targetProject || !canReadProject(state, viewerId(ctx), targetProject)) return notFound('Project');
      if (!canReadIssue(state, viewerId(ctx), targetProject, target)) return RECORD_NOT_FOUND;
      const before = issueLinkEntity(state, presentContext(deps, ctx), [findIssueById(state.issues, link.source_id)!, target], link.link_type);
      const done = await execute(deps, ctx, { type: 'DestroyIssueLink', link_id: link.id });
      if (E.isLeft(done)) return done.left;
      return ok(before);
    },
  }),
  ...(['subscribe', 'unsubscribe'] as const).map((action) =>
    route({
      method: 'POST',
      path: `/projects/:id/issues/:subscribable_id/${action}`,
      handler: async (ctx) => {
        const found = issueOfRoute(ctx, deps.app.state, 'subscribable_id');
        if (E.isLeft(found)) return found.left;
        const { project, issue } = found.right;
        const subscribe = action === 'subscribe';
        // `not_modified!` when the caller already is (or is not) subscribed, participation included.
        if (isSubscribed(issue, project, presentContext(deps, ctx)) === subscribe) return withStatus(304);
        const done = await execute(deps, ctx, { type: 'SetIssueSubscription', project_id: project.id, iid: issue.iid, subscribed: subscribe });
        if (E.isLeft(done)) return done.left;
        return created(issueEntity(findIssue(done.right.state.issues, project.id, issue.iid)!, project, presentContext(deps, ctx, done.right.state), { subscribed: true }));
      },
    }),
  ),
];

/**
 * `Entities::IssueLink`: both issues as `IssueBasic` (as `state` holds them, else as they were when asked: a command
 * batched after the link's may have deleted one), and the stored type.
 */
const issueLinkEntity = (state: State, view: PresentContext, [source, target]: readonly [Issue, Issue], linkType: string) => {
  const basic = (issue: Issue) => {
    const current = findIssueById(state.issues, issue.id) ?? issue;
    const project = findProject(state.projects, current.project_id);
    return project ? issueBasicEntity(current, project, view) : null;
  };
  return { source_issue: basic(source), target_issue: basic(target), link_type: linkType };
};

const canDestroy = (state: State, userId: number | null, project: Project): boolean => userId !== null && canOnProject(state, userId, 'destroy_issue', project);

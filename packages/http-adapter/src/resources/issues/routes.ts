/**
 * Project issues (lib/api/issues.rb, 14.7), lean: create, list (state, labels, search, order, iids,
 * confidential, author, assignee; paginated), get, update (with `state_event`), delete. Confidential issues are
 * visible to their author, assignees, Reporters and above.
 */
import * as E from 'fp-ts/lib/Either.js';
import { canCreateIssue, canOnProject, canReadIssue, findIssue, findUser, forbidden, issuesOf, notFound, type DomainError, type Issue, type Project, type State } from '@forgefold/core';
import { created, noContent, ok, checkUnmodifiedSince, route, type AnyRouteDef, type HandlerContext } from '../../http/index.js';
import { commandRoute, listRoute, projectOfRoute } from '../../app/routes.js';
import { presentContext, viewerId, type ApiDeps } from '../../app/deps.js';
import { createParams, listParams, updateParams } from './params.js';
import { issueEntity } from './entities.js';

/** `find_project_issue`: a readable issue of a readable project. */
const issueOfRoute = (ctx: HandlerContext<unknown>, state: State): E.Either<DomainError, { project: Project; issue: Issue }> => {
  const project = projectOfRoute(ctx, state);
  if (E.isLeft(project)) return project;
  const iid = Number(ctx.routeParams['issue_iid']);
  const issue = Number.isSafeInteger(iid) ? findIssue(state.issues, project.right.id, iid) : undefined;
  if (!issue || !canReadIssue(state, viewerId(ctx), project.right, issue)) return E.left(notFound('Issue'));
  return E.right({ project: project.right, issue });
};

const assigneesOf = (state: State, params: { assignee_id?: number | null; assignee_ids?: readonly (number | null)[] | null }): number[] | undefined => {
  const ids = params.assignee_ids ?? (params.assignee_id !== undefined ? (params.assignee_id === null || params.assignee_id === 0 ? [] : [params.assignee_id]) : undefined);
  return ids?.filter((id): id is number => id !== null && findUser(state.users, id) !== undefined);
};

const createdIid = (events: readonly { type: string; data: unknown }[]): number => (events.find((event) => event.type === 'IssueCreated')!.data as { iid: number }).iid;

export const issueRoutes = (deps: ApiDeps): AnyRouteDef[] => [
  listRoute(deps, {
    path: '/projects/:id/issues',
    auth: 'optional',
    params: listParams,
    find: projectOfRoute,
    rows: (ctx, state, project) => {
      const { params } = ctx;
      const search = params.search?.toLowerCase();
      const labels = params.labels?.filter((label) => label !== '') ?? [];
      const iids = params.iids?.filter((iid): iid is number => iid !== null);
      const list = issuesOf(state.issues, project.id).filter(
        (issue) =>
          canReadIssue(state, viewerId(ctx), project, issue) &&
          (params.state === 'all' || issue.state === params.state) &&
          labels.every((label) => issue.labels.includes(label)) &&
          (!search || `${issue.title}\n${issue.description}`.toLowerCase().includes(search)) &&
          (!iids || iids.length === 0 || iids.includes(issue.iid)) &&
          (params.confidential === undefined || params.confidential === null || issue.confidential === params.confidential) &&
          (params.author_id === undefined || params.author_id === null || issue.author_id === params.author_id) &&
          (params.assignee_id === undefined || params.assignee_id === null || issue.assignee_ids.includes(params.assignee_id)),
      );
      const key = params.order_by === 'updated_at' ? 'updated_at' : 'created_at';
      list.sort((a, b) => (a[key] < b[key] ? -1 : a[key] > b[key] ? 1 : a.id - b.id));
      if (params.sort !== 'asc') list.reverse();
      return list;
    },
    present: (issue, view, project) => issueEntity(issue, project, view),
  }),
  route({
    method: 'GET',
    path: '/projects/:id/issues/:issue_iid',
    auth: 'optional',
    handler: (ctx) => {
      const found = issueOfRoute(ctx, deps.app.state);
      if (E.isLeft(found)) return found.left;
      return ok(issueEntity(found.right.issue, found.right.project, presentContext(deps, ctx)));
    },
  }),
  commandRoute(deps, {
    method: 'POST',
    path: '/projects/:id/issues',
    params: createParams,
    find: projectOfRoute,
    authorize: (ctx, state, project) => (canCreateIssue(state, viewerId(ctx), project) ? null : forbidden()),
    command: (ctx, project) => {
      const { params } = ctx;
      const assignees = assigneesOf(deps.app.state, params);
      return {
        type: 'CreateIssue',
        project_id: project.id,
        title: params.title ?? '',
        ...(params.description !== undefined && params.description !== null ? { description: params.description } : {}),
        ...(params.confidential !== undefined && params.confidential !== null ? { confidential: params.confidential } : {}),
        ...(params.labels ? { labels: params.labels } : {}),
        ...(assignees ? { assignee_ids: assignees } : {}),
        ...(params.created_at ? { created_at: new Date(params.created_at).toISOString() } : {}),
      };
    },
    present: (done, ctx, project) => created(issueEntity(findIssue(done.state.issues, project.id, createdIid(done.events))!, project, presentContext(deps, ctx, done.state))),
  }),
  commandRoute(deps, {
    method: 'PUT',
    path: '/projects/:id/issues/:issue_iid',
    params: updateParams,
    find: issueOfRoute,
    command: (ctx, { project, issue }) => {
      const { params } = ctx;
      const assignees = assigneesOf(deps.app.state, params);
      return {
        type: 'UpdateIssue',
        project_id: project.id,
        iid: issue.iid,
        ...(params.title !== undefined && params.title !== null ? { title: params.title } : {}),
        ...(params.description !== undefined && params.description !== null ? { description: params.description } : {}),
        ...(params.confidential !== undefined && params.confidential !== null ? { confidential: params.confidential } : {}),
        ...(params.labels ? { labels: params.labels } : {}),
        ...(assignees ? { assignee_ids: assignees } : {}),
        ...(params.state_event ? { state_event: params.state_event as 'close' | 'reopen' } : {}),
      };
    },
    present: (done, ctx, { project, issue }) => ok(issueEntity(findIssue(done.state.issues, project.id, issue.iid)!, project, presentContext(deps, ctx, done.state))),
  }),
  commandRoute(deps, {
    method: 'DELETE',
    path: '/projects/:id/issues/:issue_iid',
    find: issueOfRoute,
    authorize: (ctx, state, { project }) => (canDestroy(state, viewerId(ctx), project) ? null : forbidden()),
    command: (ctx, { project, issue }) => {
      checkUnmodifiedSince(ctx.request.headers, issue.updated_at);
      return { type: 'DeleteIssue', project_id: project.id, iid: issue.iid };
    },
    present: () => noContent(),
  }),
];

const canDestroy = (state: State, userId: number | null, project: Project): boolean => userId !== null && canOnProject(state, userId, 'destroy_issue', project);

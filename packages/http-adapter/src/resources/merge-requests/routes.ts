/**
 * Merge requests (lib/api/merge_requests.rb, merge_request_diffs.rb, 14.7): list, create, get, update (with
 * `state_event`), participants, changes, commits, versions, and merge. The log holds the merge request and its versions (each
 * with base, start and head shas, recorded at creation and whenever the source branch moves); git holds the
 * commits. A merge is a real merge commit (the platform's default merge method), refused on conflicts with 406.
 */
import * as E from 'fp-ts/lib/Either.js';
import {
  branchSha,
  canApproveMergeRequest,
  canMergeMergeRequest,
  canReadProject,
  currentVersion,
  canRepository,
  findMergeRequest,
  findProject,
  findRepository,
  findUser,
  forbidden,
  headPipelineOf,
  isDraftTitle,
  canReadPipelines,
  pipelinesOfProject,
  issuesClosedByMerge,
  visibleClosingIssues,
  mergeRequestParticipants,
  forkNetworkRoot,
  mergeRequestsOf,
  mergeRequestsOfUser,
  unauthorized,
  type DomainError,
  type MergeRequest,
  type Project,
  type State,
} from '@forgefold/core';
import { parseSha } from '@forgefold/git';
import { ApiError, arraySource, checkUnmodifiedSince, created, noContent, ok, paginate, route, withStatus, type AnyRouteDef } from '../../http/index.js';
import { listParams, createParams, updateParams, mergeParams, groupListParams, userListParams, iidParams, approveParams, getParams, versionsParams, versionParams } from './params.js';
import { diffLimits, execute, groupTreeProjects, listableProjects, presentContext, viewerId, type ApiDeps, type Ctx } from '../../app/deps.js';
import { groupOfRoute, listRoute, nothing } from '../../app/routes.js';
import type { PresentContext } from '../context.js';
import { commitEntity, diffEntity } from '../repositories/entities.js';
import { filterMergeRequests, type MergeRequestFilters } from './filter.js';
import { filtersByDeployments, shippedByDeployments, type DeploymentFilters } from '../deployments/shipped.js';
import { ownScope } from '../issues/filter.js';
import { approvalStateEntity, isSubscribedToMergeRequest, mergeRequestBasicEntity, mergeRequestSimpleEntity, mergeRequestVersionEntity, type ReferenceFrom } from './entities.js';
import { presentMergeRequest } from './present.js';
import { participantsPage } from '../users/entities.js';
import { labelsOf } from '../issues/params.js';
import { issueBasicEntity } from '../issues/entities.js';
import { pipelineBasicEntity } from '../pipelines/entities.js';
import { findRepositoryProject, must, projectOf, requireRepositoryAbility } from '../repositories/shared.js';

/** `find_merge_request_with_access` is `find_by!`: RecordNotFound, which lib/api/api.rb answers so. */
const MR_NOT_FOUND = '404 Not found';

/** `handle_merge_request_errors!`: branch conflicts 422 and branch problems 409, as arrays; the rest as usual. */
const mergeRequestFailure = (error: DomainError): ApiError => {
  if (error._tag === 'Unprocessable') return ApiError.message(422, [error.message]);
  if (error._tag === 'Conflict') return ApiError.message(409, [error.message]);
  return ApiError.domain(error);
};

const assigneesOf = (state: State, project: Project, params: { assignee_id?: number | null; assignee_ids?: readonly (number | null)[] | null }): number[] | undefined => {
  const ids = params.assignee_ids ?? (params.assignee_id !== undefined ? (params.assignee_id === null || params.assignee_id === 0 ? [] : [params.assignee_id]) : undefined);
  return usersOf(state, project, ids);
};

/**
 * `filter_assignees_using_checks` / `filter_reviewer` (`user_can_read?`): the ids of users who exist and may read the
 * project's merge requests, in the order given, each once. An empty list or `[0]` (`IssuableFinder::Params::NONE`)
 * clears; a list none of whose users may read it is dropped (`params.delete`): nothing changes.
 */
const usersOf = (state: State, project: Project, ids: readonly (number | null)[] | null | undefined): number[] | undefined => {
  if (ids === undefined || ids === null) return undefined;
  if (ids.length === 0 || (ids.length === 1 && ids[0] === 0)) return [];
  const readers = [...new Set(ids.filter((id): id is number => id !== null && findUser(state.users, id) !== undefined && canRepository(state, id, project, 'read_merge_request')))];
  return readers.length > 0 ? readers : undefined;
};

/**
 * `MergeRequestsFinder` outside one project: the merge requests of these projects the viewer may read
 * (`read_merge_request`: Reporters on private projects, anyone who sees the others).
 */
const readableMergeRequests = (state: State, viewer: number | null, projects: Iterable<Project>): MergeRequest[] => {
  const out: MergeRequest[] = [];
  for (const project of projects) {
    if (!canReadProject(state, viewer, project) || !canRepository(state, viewer, project, 'read_merge_request')) continue;
    out.push(...mergeRequestsOf(state.repositories, project.id));
  }
  return out;
};

/** The caller's merge requests by `scope` from the author or assignee index (`ownScope`), those they can still read. */
const ownMergeRequests = (state: State, viewer: number | null, scope: string | null | undefined): MergeRequest[] | null => {
  const by = ownScope(scope, viewer);
  if (by === null || viewer === null) return null;
  return mergeRequestsOfUser(state.repositories, viewer, by).filter((mr) => {
    const project = findProject(state.projects, mr.project_id);
    return project !== undefined && canReadProject(state, viewer, project) && canRepository(state, viewer, project, 'read_merge_request');
  });
};

/** `serializer_options_for`: `MergeRequestSimple` with `view=simple`, else `MergeRequestBasic`. */
const listEntity = (mr: MergeRequest, view: PresentContext, params: { view?: string | null | undefined }, from: ReferenceFrom) => {
  const project = findProject(view.state.projects, mr.project_id)!;
  return params.view === 'simple' ? mergeRequestSimpleEntity(mr, project, view) : mergeRequestBasicEntity(mr, project, view, from);
};

/** `reviewer_ids` and `labels`/`add_labels`/`remove_labels` (`process_label_ids`), when given. */
const reviewersAndLabels = (
  state: State,
  project: Project,
  params: { reviewer_ids?: readonly (number | null)[] | null | undefined; labels?: readonly string[] | null | undefined; add_labels?: readonly string[] | null | undefined; remove_labels?: readonly string[] | null | undefined },
  current: readonly string[],
): { reviewer_ids?: number[]; labels?: string[] } => {
  const reviewers = usersOf(state, project, params.reviewer_ids);
  const labels = labelsOf(current, params);
  return { ...(reviewers ? { reviewer_ids: reviewers } : {}), ...(labels ? { labels } : {}) };
};

/**
 * The finder's filters; then, when asked, `by_deployments` (`environment`, `deployed_before`, `deployed_after`),
 * which reads git for what each deployment shipped: a promise only then.
 */
const filtered = (deps: ApiDeps, ctx: Ctx & { params: MergeRequestFilters & DeploymentFilters }, state: State, list: readonly MergeRequest[]): MergeRequest[] | Promise<MergeRequest[]> => {
  const rows = filterMergeRequests(list, ctx.params, state.users, viewerId(ctx));
  return filtersByDeployments(ctx.params) ? shippedByDeployments(deps, state, rows, ctx.params) : rows;
};

export const mergeRequestRoutes = (deps: ApiDeps): AnyRouteDef[] => {
  const read = requireRepositoryAbility(deps, 'read_merge_request');

  const find = (ctx: Ctx, project: Project, param = 'merge_request_iid'): MergeRequest => {
    const iid = Number(ctx.routeParams[param]);
    const mr = Number.isSafeInteger(iid) ? findMergeRequest(deps.app.state.repositories, project.id, iid) : undefined;
    if (!mr) throw ApiError.message(404, MR_NOT_FOUND);
    return mr;
  };

  const present = (ctx: Ctx, project: Project, mr: MergeRequest) => presentMergeRequest(deps, ctx, project, mr);

  /** A version for `head` against the target branch as git has it now. */
  const versionFor = (project: Project, head: string, targetBranch: string) => deps.repositories.versionFact(project.id, head, targetBranch);

  /**
   * The project, and `not_found!("Merge Request") unless can?(current_user, :read_merge_request, user_project)` of
   * the single reads: a project read without that ability answers `missing` (the lookups' own "404 Not found" on the
   * routes that only `find_by!`, as the finder finds nothing there).
   */
  const readProject = (ctx: Ctx, missing: string): Project => {
    const found = findRepositoryProject(deps.app.state, ctx, 'read_merge_request');
    if (E.isLeft(found) && found.left._tag === 'Forbidden') throw ApiError.message(404, missing);
    if (E.isLeft(found)) throw ApiError.domain(found.left);
    return found.right;
  };
  const readOr = (missing: string) => (ctx: Ctx) => {
    readProject(ctx, missing);
    return undefined;
  };
  const readSingle = readOr('404 Merge Request Not Found');
  const approvalState = (ctx: Ctx, project: Project) => {
    const mr = find(ctx, project);
    return approvalStateEntity(mr, presentContext(deps, ctx), canApproveMergeRequest(deps.app.state, viewerId(ctx), project, mr));
  };
  const readFound = readOr(MR_NOT_FOUND);

  return [
    listRoute(deps, {
      path: '/projects/:id/merge_requests',
      auth: 'optional',
      before: read,
      params: listParams,
      find: (ctx, state) => findRepositoryProject(state, ctx, 'read_merge_request'),
      rows: (ctx, state, project) => filtered(deps, ctx, state, mergeRequestsOf(state.repositories, project.id)),
      present: (mr, view, project, ctx) => listEntity(mr, view, ctx.params, { project }),
    }),
    // `GET /merge_requests`: `authenticate! unless params[:scope] == 'all'`; the caller's own by default.
    listRoute(deps, {
      path: '/merge_requests',
      auth: 'optional',
      params: userListParams,
      find: nothing,
      authorize: (ctx) => (ctx.params.scope !== 'all' && viewerId(ctx) === null ? unauthorized : null),
      rows: (ctx, state) => filtered(deps, ctx, state, ownMergeRequests(state, viewerId(ctx), ctx.params.scope) ?? readableMergeRequests(state, viewerId(ctx), listableProjects(ctx, state, true))),
      present: (mr, view, _found, ctx) => listEntity(mr, view, ctx.params, null),
    }),
    // `GET /groups/:id/merge_requests`: the group's and its subgroups' projects (`include_subgroups: true`), from what
    // the caller may see (`groupTreeProjects`); the rows are sorted by a timestamp, ties by id, so the projects' order
    // is not seen.
    listRoute(deps, {
      path: '/groups/:id/merge_requests',
      auth: 'optional',
      params: groupListParams,
      find: groupOfRoute,
      rows: (ctx, state, group) =>
        filtered(deps, ctx, state, readableMergeRequests(state, viewerId(ctx), groupTreeProjects(ctx, state, group))),
      present: (mr, view, group, ctx) => listEntity(mr, view, ctx.params, { group }),
    }),
    route({
      method: 'POST',
      path: '/projects/:id/merge_requests',
      before: read,
      params: createParams,
      handler: async (ctx) => {
        const project = projectOf(deps, ctx, 'read_merge_request');
        const state = deps.app.state;
        if (!canRepository(state, viewerId(ctx), project, 'create_merge_request_in')) throw ApiError.domain(forbidden());
        // `find_target_project`: a `target_project_id` the caller may create merge requests in is the target; then
        // `validate_fork` refuses one outside the source's fork network (422). A target inside it would be a merge
        // request between projects, which is not kept here: the source stays the target, as before.
        const target = ctx.params.target_project_id === undefined || ctx.params.target_project_id === null ? undefined : findProject(state.projects, ctx.params.target_project_id);
        if (target && target.id !== project.id && canReadProject(state, viewerId(ctx), target) && canRepository(state, viewerId(ctx), target, 'create_merge_request_in')) {
          if (forkNetworkRoot(state.projects, target).id !== forkNetworkRoot(state.projects, project).id) throw ApiError.message(422, ['Source project is not a fork of the target project']);
        }
        const { params } = ctx;
        const repository = findRepository(state.repositories, project.id)!;
        const source = branchSha(repository, params.source_branch ?? '');
        const version = source === null ? null : await versionFor(project, source, params.target_branch ?? '');
        const assignees = assigneesOf(state, project, params);
        const result = await execute(deps, ctx, {
          type: 'CreateMergeRequest',
          project_id: project.id,
          title: params.title ?? '',
          ...(params.description ? { description: params.description } : {}),
          source_branch: params.source_branch ?? '',
          target_branch: params.target_branch ?? '',
          ...(assignees ? { assignee_ids: assignees } : {}),
          ...reviewersAndLabels(state, project, params, []),
          ...(params.squash !== undefined && params.squash !== null ? { squash: params.squash } : {}),
          ...(params.remove_source_branch !== undefined && params.remove_source_branch !== null ? { remove_source_branch: params.remove_source_branch } : {}),
          version: version && version.start_commit_sha !== null ? version : null,
        });
        if (E.isLeft(result)) throw mergeRequestFailure(result.left);
        const created_ = result.right.events.find((event) => event.type === 'MergeRequestCreated')!.data as { iid: number };
        return created(await present(ctx, project, findMergeRequest(deps.app.state.repositories, project.id, created_.iid)!));
      },
    }),
    // `requires :merge_request_iid, type: Integer` (400 first), then the project and `read_merge_request` (404).
    route({
      method: 'GET',
      path: '/projects/:id/merge_requests/:merge_request_iid',
      auth: 'optional',
      params: getParams,
      handler: async (ctx) => {
        const project = readProject(ctx, '404 Merge Request Not Found');
        return ok(
          await presentMergeRequest(deps, ctx, project, find(ctx, project), project, {
            divergedCommitsCount: ctx.params.include_diverged_commits_count === true,
            rebaseInProgress: ctx.params.include_rebase_in_progress === true,
            firstContribution: true,
          }),
        );
      },
    }),
    // `find_project_merge_request`, then `authorize!(:destroy_merge_request)`; `destroy_conditionally!`.
    route({
      method: 'DELETE',
      path: '/projects/:id/merge_requests/:merge_request_iid',
      params: iidParams,
      handler: async (ctx) => {
        const project = readProject(ctx, MR_NOT_FOUND);
        const mr = find(ctx, project);
        if (!canRepository(deps.app.state, viewerId(ctx), project, 'destroy_merge_request')) throw ApiError.domain(forbidden());
        checkUnmodifiedSince(ctx.request.headers, mr.updated_at);
        const result = await execute(deps, ctx, { type: 'DeleteMergeRequest', project_id: project.id, iid: mr.iid });
        if (E.isLeft(result)) throw ApiError.domain(result.left);
        return noContent();
      },
    }),
    route({
      method: 'GET',
      path: '/projects/:id/merge_requests/:merge_request_iid/participants',
      auth: 'optional',
      before: readSingle,
      handler: (ctx) => {
        const project = projectOf(deps, ctx, 'read_merge_request');
        const view = presentContext(deps, ctx);
        // `paginate(::Kaminari.paginate_array(merge_request.participants))`, no user given.
        return participantsPage(ctx, view, mergeRequestParticipants(view.state, project, find(ctx, project), null));
      },
    }),
    // `pipelines`: the lookup, then `Ci::PipelinesForMergeRequestFinder`: the source branch's pipelines at the merge
    // request's commits (every version's), newest first, as PipelineBasic; none for who may not `read_pipeline`.
    route({
      method: 'GET',
      path: '/projects/:id/merge_requests/:merge_request_iid/pipelines',
      auth: 'optional',
      before: readFound,
      handler: async (ctx) => {
        const project = projectOf(deps, ctx, 'read_merge_request');
        const mr = find(ctx, project);
        if (!canReadPipelines(deps.app.state, viewerId(ctx), project)) return paginate(ctx, arraySource([]), { map: (pipeline: never) => pipeline });
        const git = deps.repositories.open(project.id);
        const shas = new Set<string>();
        for (const version of mr.versions) {
          shas.add(version.head_commit_sha);
          for (const commit of (await must(git.commitsBetween(version.base_commit_sha, version.head_commit_sha))).items) shas.add(commit.id);
        }
        const view = presentContext(deps, ctx);
        const pipelines = pipelinesOfProject(view.state.pipelines, project.id)
          .filter((pipeline) => !pipeline.tag && pipeline.ref === mr.source_branch && shas.has(pipeline.sha))
          .sort((a, b) => b.id - a.id);
        return paginate(ctx, arraySource(pipelines), { map: (pipeline) => pipelineBasicEntity(pipeline, view) });
      },
    }),
    // EE approvals (ee/lib/api/merge_request_approvals.rb): the state (`approvals`, deprecated, and `approval_state`),
    // approve (401 unless `can_approve?`, then the `sha` check) and unapprove (404 unless the caller approved); POSTs answer 201.
    route({
      method: 'GET',
      path: '/projects/:id/merge_requests/:merge_request_iid/approvals',
      auth: 'optional',
      before: readFound,
      handler: (ctx) => ok(approvalState(ctx, projectOf(deps, ctx, 'read_merge_request'))),
    }),
    route({
      method: 'GET',
      path: '/projects/:id/merge_requests/:merge_request_iid/approval_state',
      auth: 'optional',
      before: readFound,
      handler: (ctx) => {
        find(ctx, projectOf(deps, ctx, 'read_merge_request'));
        return ok({ approval_rules_overwritten: false, rules: [] });
      },
    }),
    route({
      method: 'POST',
      path: '/projects/:id/merge_requests/:merge_request_iid/approve',
      before: readFound,
      params: approveParams,
      handler: async (ctx) => {
        const project = projectOf(deps, ctx, 'read_merge_request');
        const mr = find(ctx, project);
        if (!canApproveMergeRequest(deps.app.state, viewerId(ctx), project, mr)) throw ApiError.message(401, '401 Unauthorized');
        const head = currentVersion(mr)?.head_commit_sha ?? null;
        if (ctx.params.sha && ctx.params.sha !== head) throw ApiError.message(409, `SHA does not match HEAD of source branch: ${head ?? ''}`);
        const result = await execute(deps, ctx, { type: 'ApproveMergeRequest', project_id: project.id, iid: mr.iid });
        if (E.isLeft(result)) throw ApiError.domain(result.left);
        return created(approvalState(ctx, project));
      },
    }),
    route({
      method: 'POST',
      path: '/projects/:id/merge_requests/:merge_request_iid/unapprove',
      before: readFound,
      handler: async (ctx) => {
        const project = projectOf(deps, ctx, 'read_merge_request');
        const mr = find(ctx, project);
        const result = await execute(deps, ctx, { type: 'UnapproveMergeRequest', project_id: project.id, iid: mr.iid });
        if (E.isLeft(result)) throw ApiError.domain(result.left);
        return created(approvalState(ctx, project));
      },
    }),
    // lib/api/subscriptions.rb: `authenticate!`, `find_merge_request_with_access(subscribable_id)` (a String: any text
    // is the lookup's 404), 304 when nothing would change (participation included), else 201 with the full entity.
    ...(['subscribe', 'unsubscribe'] as const).map((action) =>
      route({
        method: 'POST',
        path: `/projects/:id/merge_requests/:subscribable_id/${action}`,
        before: readFound,
        handler: async (ctx) => {
          const project = projectOf(deps, ctx, 'read_merge_request');
          const mr = find(ctx, project, 'subscribable_id');
          const subscribe = action === 'subscribe';
          if (isSubscribedToMergeRequest(mr, project, presentContext(deps, ctx)) === subscribe) return withStatus(304);
          const result = await execute(deps, ctx, { type: 'SetMergeRequestSubscription', project_id: project.id, iid: mr.iid, subscribed: subscribe });
          if (E.isLeft(result)) throw ApiError.domain(result.left);
          return created(await present(ctx, project, find(ctx, project, 'subscribable_id')));
        },
      }),
    ),
    // `closes_issues`: `find_merge_request_with_access`, then `visible_closing_issues_for(current_user)` as IssueBasic, paginated.
    route({
      method: 'GET',
      path: '/projects/:id/merge_requests/:merge_request_iid/closes_issues',
      auth: 'optional',
      before: readFound,
      handler: (ctx) => {
        const project = projectOf(deps, ctx, 'read_merge_request');
        const view = presentContext(deps, ctx);
        const issues = visibleClosingIssues(view.state, viewerId(ctx), project, find(ctx, project));
        return paginate(ctx, arraySource(issues), { map: ({ project: of, issue }) => issueBasicEntity(issue, of, view) });
      },
    }),
    route({
      method: 'PUT',
      path: '/projects/:id/merge_requests/:merge_request_iid',
      before: readFound,
      params: updateParams,
      handler: async (ctx) => {
        const project = projectOf(deps, ctx, 'read_merge_request');
        const mr = find(ctx, project);
        const { params } = ctx;
        const state = deps.app.state;
        const repository = findRepository(state.repositories, project.id)!;
        const target = params.target_branch ?? mr.target_branch;
        const source = branchSha(repository, mr.source_branch);
        const needsVersion = target !== mr.target_branch || params.state_event === 'reopen';
        const version = needsVersion && source !== null ? await versionFor(project, source, target) : null;
        const assignees = assigneesOf(state, project, params);
        const result = await execute(deps, ctx, {
          type: 'UpdateMergeRequest',
          project_id: project.id,
          iid: mr.iid,
          ...(params.title ? { title: params.title } : {}),
          ...(params.description !== undefined && params.description !== null ? { description: params.description } : {}),
          ...(params.target_branch ? { target_branch: params.target_branch } : {}),
          ...(assignees ? { assignee_ids: assignees } : {}),
          ...reviewersAndLabels(state, project, params, mr.labels),
          ...(params.squash !== undefined && params.squash !== null ? { squash: params.squash } : {}),
          ...(params.remove_source_branch !== undefined && params.remove_source_branch !== null ? { remove_source_branch: params.remove_source_branch } : {}),
          ...(params.state_event ? { state_event: params.state_event as 'close' | 'reopen' } : {}),
          ...(params.discussion_locked !== undefined && params.discussion_locked !== null ? { discussion_locked: params.discussion_locked } : {}),
          ...(version && version.start_commit_sha !== null ? { version } : {}),
        });
        if (E.isLeft(result)) throw mergeRequestFailure(result.left);
        return ok(await present(ctx, project, find(ctx, project)));
      },
    }),
    route({
      method: 'GET',
      path: '/projects/:id/merge_requests/:merge_request_iid/changes',
      auth: 'optional',
      before: readSingle,
      handler: async (ctx) => {
        const project = projectOf(deps, ctx, 'read_merge_request');
        const mr = find(ctx, project);
        const version = currentVersion(mr);
        const diffs = version
          ? await must(deps.repositories.open(project.id).compare({ from: version.base_commit_sha ?? version.head_commit_sha, to: version.head_commit_sha, straight: true, ...diffLimits(deps) }))
          : null;
        return ok({ ...(await present(ctx, project, mr)), changes: diffs ? diffs.diffs.map(diffEntity) : [], overflow: false });
      },
    }),
    route({
      method: 'GET',
      path: '/projects/:id/merge_requests/:merge_request_iid/commits',
      auth: 'optional',
      before: readSingle,
      handler: async (ctx) => {
        const project = projectOf(deps, ctx, 'read_merge_request');
        const mr = find(ctx, project);
        const version = currentVersion(mr);
        const commits = version ? await must(deps.repositories.open(project.id).commitsBetween(version.base_commit_sha, version.head_commit_sha)) : { items: [] };
        const context = presentContext(deps, ctx);
        return paginate(ctx, arraySource([...commits.items].reverse()), { map: (commit) => commitEntity(commit, project, context) });
      },
    }),
    // merge_request_diffs.rb: `before { authenticate! }` (401 before anything, public projects too), the integer
    // ids (400), then the project and `read_merge_request` in the handler.
    route({
      method: 'GET',
      path: '/projects/:id/merge_requests/:merge_request_iid/versions',
      params: versionsParams,
      handler: (ctx) => {
        const project = readProject(ctx, MR_NOT_FOUND);
        const mr = find(ctx, project);
        return paginate(ctx, arraySource([...mr.versions].reverse()), { map: (version) => mergeRequestVersionEntity(version, mr, null) });
      },
    }),
    route({
      method: 'GET',
      path: '/projects/:id/merge_requests/:merge_request_iid/versions/:version_id',
      params: versionParams,
      handler: async (ctx) => {
        const project = readProject(ctx, MR_NOT_FOUND);
        const mr = find(ctx, project);
        const version = mr.versions.find((candidate) => candidate.id === ctx.params.version_id);
        if (!version) throw ApiError.message(404, '404 Not found');
        const git = deps.repositories.open(project.id);
        const [commits, comparison] = await Promise.all([
          must(git.commitsBetween(version.base_commit_sha, version.head_commit_sha)),
          must(git.compare({ from: version.base_commit_sha ?? version.head_commit_sha, to: version.head_commit_sha, straight: true, ...diffLimits(deps) })),
        ]);
        const context = presentContext(deps, ctx);
        return ok({
          ...mergeRequestVersionEntity(version, mr, comparison.diffs.length),
          commits: [...commits.items].reverse().map((commit) => commitEntity(commit, project, context)),
          diffs: comparison.diffs.map(diffEntity),
        });
      },
    }),
    route({
      method: 'PUT',
      path: '/projects/:id/merge_requests/:merge_request_iid/merge',
      before: readFound,
      params: mergeParams,
      handler: async (ctx) => {
        const project = projectOf(deps, ctx, 'read_merge_request');
        const mr = find(ctx, project);
        const state = deps.app.state;
        const repository = findRepository(state.repositories, project.id)!;
        // The platform's order: who may merge (401), whether it is mergeable at all (405), conflicts (406), the sha (409).
        if (!canMergeMergeRequest(state, viewerId(ctx), project, repository, mr)) throw ApiError.message(401, '401 Unauthorized');
        // `merge_when_pipeline_succeeds`: merged at once when the head pipeline succeeded (`immediately_mergeable?`);
        // without a head pipeline neither that nor `automatically_mergeable?` holds: 405. An active one would set
        // auto-merge on the platform, which is not kept here: 405 too.
        if (ctx.params.merge_when_pipeline_succeeds && headPipelineOf(state.pipelines, project.id, mr.source_branch, currentVersion(mr)?.head_commit_sha ?? null)?.status !== 'success') {
          throw ApiError.message(405, '405 Method Not Allowed');
        }
        const source = branchSha(repository, mr.source_branch);
        const target = branchSha(repository, mr.target_branch);
        const draft = isDraftTitle(mr.title);
        if (mr.state !== 'opened' || draft || source === null || target === null) throw ApiError.message(405, '405 Method Not Allowed');
        const git = deps.repositories.open(project.id);
        if (!(await must(git.mergeable(target, source)))) throw ApiError.message(406, 'Branch cannot be merged');
        // `should_be_rebased?`: the `rebase_merge` and `ff` merge methods need the source on top of the target.
        if (project.merge_method !== 'merge' && !(await must(git.isAncestor(target, source)))) throw ApiError.message(406, 'Branch cannot be merged');
        const head = currentVersion(mr)?.head_commit_sha ?? source;
        if (ctx.params.sha && ctx.params.sha !== head) throw ApiError.message(409, `SHA does not match HEAD of source branch: ${head}`);
        const reference = `${project.path_with_namespace}!${mr.iid}`;
        const message = ctx.params.merge_commit_message || [`Merge branch '${mr.source_branch}' into '${mr.target_branch}'`, mr.title, `See merge request ${reference}`].join('\n\n');
        const signature = deps.repositories.signatureOf(viewerId(ctx));
        // `merge_request.update(squash: params[:squash]) if params[:squash]`, then the squash commit (authored by the
        // merge request's author, with `squash_commit_message` or the title) is merged in place of the source.
        if (ctx.params.squash && !mr.squash) await deps.app.execute(ctx.actor, { type: 'UpdateMergeRequest', project_id: project.id, iid: mr.iid, squash: true });
        const squash = ctx.params.squash || mr.squash ? { message: ctx.params.squash_commit_message || mr.title, author: deps.repositories.signatureOf(mr.author_id) } : undefined;
        const merged = await git.merge(
          {
            target_branch: mr.target_branch,
            source_sha: source,
            expected_target_sha: target,
            // `merge` and `rebase_merge` make a merge commit, `ff` moves the target to the (squashed) source.
            mode: project.merge_method === 'ff' ? 'fast_forward' : 'merge_commit',
            message,
            author: signature,
            committer: signature,
            ...(squash ? { squash } : {}),
          },
          deps.repositories.recorder(project.id, ctx.actor, (updates, versions) => ({
            type: 'MergeMergeRequest',
            project_id: project.id,
            iid: mr.iid,
            old_sha: updates[0]!.old_sha!,
            merge_commit_sha: updates[0]!.new_sha!,
            source_sha: source,
            ...(typeof ctx.params.should_remove_source_branch === 'boolean' ? { should_remove_source_branch: ctx.params.should_remove_source_branch } : {}),
            versions,
          })),
        );
        if (E.isLeft(merged)) {
          if (merged.left._tag === 'MergeConflict') throw ApiError.message(406, 'Branch cannot be merged');
          await must(Promise.resolve(merged));
        }
        // `MergeRequests::PostMergeService#close_issues`: `Issues::CloseService` as the merger for each open closing issue
        // it may update (each an `UpdateIssue` of its own, which checks that again; a refusal leaves the others to close).
        for (const issue of issuesClosedByMerge(deps.app.state, viewerId(ctx), project, mr)) {
          await execute(deps, ctx, { type: 'UpdateIssue', project_id: issue.project_id, iid: issue.iid, state_event: 'close' });
        }
        if (ctx.params.should_remove_source_branch ?? mr.remove_source_branch) {
          // The source branch goes as a branch deletion of its own (refused quietly when a check forbids it).
          const expectedSha = parseSha(source);
          if (expectedSha) await git.deleteBranch({ branch: mr.source_branch, expectedSha }, deps.repositories.recorder(project.id, ctx.actor));
        }
        return ok(await present(ctx, project, find(ctx, project)));
      },
    }),
  ];
};

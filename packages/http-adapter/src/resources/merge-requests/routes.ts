/**
 * Merge requests (lib/api/merge_requests.rb, merge_request_diffs.rb, 14.7): list, create, get, update (with
 * `state_event`), participants, changes, commits, versions, and merge. The log holds the merge request and its versions (each
 * with base, start and head shas, recorded at creation and whenever the source branch moves); git holds the
 * commits. A merge is a real merge commit (the platform's default merge method), refused on conflicts with 406.
 */
import * as E from 'fp-ts/lib/Either.js';
import { branchSha, canMergeMergeRequest, currentVersion, canRepository, findMergeRequest, findRepository, findUser, forbidden, issuesClosedByMerge, mergeRequestParticipants, mergeRequestsOf, type DomainError, type MergeRequest, type Project, type State } from '@forgefold/core';
import { parseSha } from '@forgefold/git';
import { ApiError, arraySource, created, ok, paginate, route, type AnyRouteDef } from '../../http/index.js';
import { listParams, createParams, updateParams, mergeParams } from './params.js';
import { diffLimits, execute, presentContext, viewerId, type ApiDeps, type Ctx } from '../../app/deps.js';
import { commitEntity, diffEntity } from '../repositories/entities.js';
import { filterMergeRequests } from './filter.js';
import { mergeRequestBasicEntity, mergeRequestVersionEntity } from './entities.js';
import { presentMergeRequest } from './present.js';
import { participantsPage } from '../users/entities.js';
import { must, projectOf, requireRepositoryAbility } from '../repositories/shared.js';

/** `find_merge_request_with_access` is `find_by!`: RecordNotFound, which lib/api/api.rb answers so. */
const MR_NOT_FOUND = '404 Not found';

/** `handle_merge_request_errors!`: branch conflicts 422 and branch problems 409, as arrays; the rest as usual. */
const mergeRequestFailure = (error: DomainError): ApiError => {
  if (error._tag === 'Unprocessable') return ApiError.message(422, [error.message]);
  if (error._tag === 'Conflict') return ApiError.message(409, [error.message]);
  return ApiError.domain(error);
};

const assigneesOf = (state: State, params: { assignee_id?: number | null; assignee_ids?: readonly (number | null)[] | null }): number[] | undefined => {
  const ids = params.assignee_ids ?? (params.assignee_id !== undefined ? (params.assignee_id === null || params.assignee_id === 0 ? [] : [params.assignee_id]) : undefined);
  return ids?.filter((id): id is number => id !== null && findUser(state.users, id) !== undefined);
};

export const mergeRequestRoutes = (deps: ApiDeps): AnyRouteDef[] => {
  const read = requireRepositoryAbility(deps, 'read_merge_request');

  const find = (ctx: Ctx, project: Project): MergeRequest => {
    const iid = Number(ctx.routeParams['merge_request_iid']);
    const mr = Number.isSafeInteger(iid) ? findMergeRequest(deps.app.state.repositories, project.id, iid) : undefined;
    if (!mr) throw ApiError.message(404, MR_NOT_FOUND);
    return mr;
  };

  const present = (ctx: Ctx, project: Project, mr: MergeRequest) => presentMergeRequest(deps, ctx, project, mr);

  /** A version for `head` against the target branch as git has it now. */
  const versionFor = (project: Project, head: string, targetBranch: string) => deps.repositories.versionFact(project.id, head, targetBranch);

  return [
    route({
      method: 'GET',
      path: '/projects/:id/merge_requests',
      auth: 'optional',
      before: read,
      params: listParams,
      handler: (ctx) => {
        const project = projectOf(deps, ctx, 'read_merge_request');
        const list = filterMergeRequests(mergeRequestsOf(deps.app.state.repositories, project.id), ctx.params);
        const context = presentContext(deps, ctx);
        return paginate(ctx, arraySource(list), { map: (mr) => mergeRequestBasicEntity(mr, project, context) });
      },
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
        const { params } = ctx;
        const repository = findRepository(state.repositories, project.id)!;
        const source = branchSha(repository, params.source_branch ?? '');
        const version = source === null ? null : await versionFor(project, source, params.target_branch ?? '');
        const assignees = assigneesOf(state, params);
        const result = await execute(deps, ctx, {
          type: 'CreateMergeRequest',
          project_id: project.id,
          title: params.title ?? '',
          ...(params.description ? { description: params.description } : {}),
          source_branch: params.source_branch ?? '',
          target_branch: params.target_branch ?? '',
          ...(assignees ? { assignee_ids: assignees } : {}),
          ...(params.squash !== undefined && params.squash !== null ? { squash: params.squash } : {}),
          ...(params.remove_source_branch !== undefined && params.remove_source_branch !== null ? { remove_source_branch: params.remove_source_branch } : {}),
          version: version && version.start_commit_sha !== null ? version : null,
        });
        if (E.isLeft(result)) throw mergeRequestFailure(result.left);
        const created_ = result.right.events.find((event) => event.type === 'MergeRequestCreated')!.data as { iid: number };
        return created(await present(ctx, project, findMergeRequest(deps.app.state.repositories, project.id, created_.iid)!));
      },
    }),
    route({
      method: 'GET',
      path: '/projects/:id/merge_requests/:merge_request_iid',
      auth: 'optional',
      before: read,
      handler: async (ctx) => {
        const project = projectOf(deps, ctx, 'read_merge_request');
        return ok(await present(ctx, project, find(ctx, project)));
      },
    }),
    route({
      method: 'GET',
      path: '/projects/:id/merge_requests/:merge_request_iid/participants',
      auth: 'optional',
      before: read,
      handler: (ctx) => {
        const project = projectOf(deps, ctx, 'read_merge_request');
        const view = presentContext(deps, ctx);
        // `paginate(::Kaminari.paginate_array(merge_request.participants))`, no user given.
        return participantsPage(ctx, view, mergeRequestParticipants(view.state, project, find(ctx, project), null));
      },
    }),
    route({
      method: 'PUT',
      path: '/projects/:id/merge_requests/:merge_request_iid',
      before: read,
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
        const assignees = assigneesOf(state, params);
        const result = await execute(deps, ctx, {
          type: 'UpdateMergeRequest',
          project_id: project.id,
          iid: mr.iid,
          ...(params.title ? { title: params.title } : {}),
          ...(params.description !== undefined && params.description !== null ? { description: params.description } : {}),
          ...(params.target_branch ? { target_branch: params.target_branch } : {}),
          ...(assignees ? { assignee_ids: assignees } : {}),
          ...(params.squash !== undefined && params.squash !== null ? { squash: params.squash } : {}),
          ...(params.remove_source_branch !== undefined && params.remove_source_branch !== null ? { remove_source_branch: params.remove_source_branch } : {}),
          ...(params.state_event ? { state_event: params.state_event as 'close' | 'reopen' } : {}),
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
      before: read,
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
      before: read,
      handler: async (ctx) => {
        const project = projectOf(deps, ctx, 'read_merge_request');
        const mr = find(ctx, project);
        const version = currentVersion(mr);
        const commits = version ? await must(deps.repositories.open(project.id).commitsBetween(version.base_commit_sha, version.head_commit_sha)) : { items: [] };
        const context = presentContext(deps, ctx);
        return paginate(ctx, arraySource([...commits.items].reverse()), { map: (commit) => commitEntity(commit, project, context) });
      },
    }),
    route({
      method: 'GET',
      path: '/projects/:id/merge_requests/:merge_request_iid/versions',
      auth: 'optional',
      before: read,
      handler: (ctx) => {
        const project = projectOf(deps, ctx, 'read_merge_request');
        const mr = find(ctx, project);
        return paginate(ctx, arraySource([...mr.versions].reverse()), { map: (version) => mergeRequestVersionEntity(version, mr, null) });
      },
    }),
    route({
      method: 'GET',
      path: '/projects/:id/merge_requests/:merge_request_iid/versions/:version_id',
      auth: 'optional',
      before: read,
      handler: async (ctx) => {
        const project = projectOf(deps, ctx, 'read_merge_request');
        const mr = find(ctx, project);
        const version = mr.versions.find((candidate) => String(candidate.id) === String(ctx.routeParams['version_id']));
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
      before: read,
      params: mergeParams,
      handler: async (ctx) => {
        const project = projectOf(deps, ctx, 'read_merge_request');
        const mr = find(ctx, project);
        const state = deps.app.state;
        const repository = findRepository(state.repositories, project.id)!;
        // The platform's order: who may merge (401), whether it is mergeable at all (405), conflicts (406), the sha (409).
        if (!canMergeMergeRequest(state, viewerId(ctx), project, repository, mr)) throw ApiError.message(401, '401 Unauthorized');
        const source = branchSha(repository, mr.source_branch);
        const target = branchSha(repository, mr.target_branch);
        const draft = /^\s*(\[draft\]|\(draft\)|draft:|draft\s-\s|draft\s|\[wip\]|wip:|wip\s)/i.test(mr.title);
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

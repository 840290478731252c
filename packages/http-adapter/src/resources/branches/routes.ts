/**
 * Repository branches (lib/api/branches.rb, 14.7): list (`search`, `sort`), get (and HEAD), create, delete, delete
 * the merged ones, and the legacy protect/unprotect. `download_code` first; creating and deleting need `push_code`, then the
 * pre-receive checks (protected branches, the default branch); failures of the services are 400.
 */
import * as E from 'fp-ts/lib/Either.js';
import { branchNames, branchRef, branchSha, canRepository, defaultBranchOf, findProtectedBranch, findRepository, forbidden, isEmptyRepository, isProtectedBranch, mergeRequestsOf, type Project, type Repository } from '@forgefold/core';
import { isValidNewRefName, parseSha, type Branch, type RefOrder, type Repository as GitRepository } from '@forgefold/git';
import { ApiError, checkUnmodifiedSince, created, noContent, ok, paginateLoaded, route, withStatus, type AnyRouteDef } from '../../http/index.js';
import { listParams, createParams, protectParams } from './params.js';
import { execute, presentContext, viewerId, type ApiDeps, type Ctx } from '../../app/deps.js';
import { branchEntity } from './entities.js';
import { must, precheck, projectOf, requireRepositoryAbility } from '../repositories/shared.js';

const BRANCH_NOT_FOUND = '404 Branch Not Found';

/** `find_branch!`: a name `Gitlab::GitRefValidator` refuses is a 400 before any lookup, a missing branch a 404. */
const findBranch = (deps: ApiDeps, project: Project, name: string): Promise<Branch> => {
  if (!isValidNewRefName(name)) throw ApiError.message(400, 'The branch refname is invalid');
  return must(deps.repositories.open(project.id).findBranch(name), BRANCH_NOT_FOUND);
};

/** BranchesFinder's sorts; anything else is the name order. */
const SORTS: Record<string, { orderBy: RefOrder; sort: 'asc' | 'desc' }> = {
  name_asc: { orderBy: 'name', sort: 'asc' },
  updated_asc: { orderBy: 'updated', sort: 'asc' },
  updated_desc: { orderBy: 'updated', sort: 'desc' },
};

/** The sha the default branch points at, or null (no repository, no default branch yet). */
const defaultHeadOf = (repository: Repository | undefined): string | null => {
  const defaultBranch = repository ? defaultBranchOf(repository) : null;
  return repository && defaultBranch !== null ? (branchSha(repository, defaultBranch) ?? null) : null;
};

/**
 * `merged_to_root_ref?`: the head is in the default branch's history and is not the default branch's head (so a
 * branch just made from it is not merged).
 */
const mergedToRootRef = async (git: GitRepository, sha: string, defaultHead: string | null): Promise<boolean> =>
  defaultHead !== null && sha !== defaultHead && E.getOrElse(() => false)(await git.isAncestor(sha, defaultHead));

export const branchRoutes = (deps: ApiDeps): AnyRouteDef[] => {
  const download = requireRepositoryAbility(deps, 'download_code');

  /** Branch entities, `merged` as `merged_branch_names` answers it (`mergedToRootRef`). */
  const present = async (ctx: Ctx, project: Project, branches: readonly Branch[]) => {
    const git = deps.repositories.open(project.id);
    const defaultHead = defaultHeadOf(findRepository(deps.app.state.repositories, project.id));
    const merged = await Promise.all(branches.map((branch) => mergedToRootRef(git, branch.commit.id, defaultHead)));
    const context = presentContext(deps, ctx);
    return branches.map((branch, index) => branchEntity(branch, merged[index]!, project, context));
  };

  const requirePush = (ctx: Ctx, project: Project) => {
    if (!canRepository(deps.app.state, viewerId(ctx), project, 'push_code')) throw ApiError.domain(forbidden());
  };
  const requireAdmin = (ctx: Ctx, project: Project) => {
    if (!canRepository(deps.app.state, viewerId(ctx), project, 'admin_project')) throw ApiError.domain(forbidden());
  };

  return [
    route({
      method: 'GET',
      path: '/projects/:id/repository/branches',
      auth: 'optional',
      before: download,
      params: listParams,
      handler: (ctx) => {
        const project = projectOf(deps, ctx, 'download_code');
        const order = SORTS[ctx.params.sort ?? ''] ?? SORTS['name_asc']!;
        const git = deps.repositories.open(project.id);
        return paginateLoaded(
          ctx,
          (offset, limit) => must(git.listBranches({ ...order, ...(ctx.params.search ? { search: ctx.params.search } : {}), offset, limit })),
          (branches) => present(ctx, project, branches),
        );
      },
    }),
    route({
      method: 'GET',
      path: '/projects/:id/repository/branches/:branch',
      auth: 'optional',
      before: download,
      handler: async (ctx) => {
        const project = projectOf(deps, ctx, 'download_code');
        const name = String(ctx.routeParams['branch']);
        // HEAD is `branch_exists?`: any name that is not a branch is a 404.
        if (ctx.request.method === 'HEAD') {
          await must(deps.repositories.open(project.id).findBranch(name), BRANCH_NOT_FOUND);
          return noContent();
        }
        return ok((await present(ctx, project, [await findBranch(deps, project, name)]))[0]);
      },
    }),
    route({
      method: 'POST',
      path: '/projects/:id/repository/branches',
      auth: 'optional',
      before: download,
      params: createParams,
      handler: async (ctx) => {
        const project = projectOf(deps, ctx, 'download_code');
        requirePush(ctx, project);
        const name = ctx.params.branch ?? '';
        const git = deps.repositories.open(project.id);
        const repository = findRepository(deps.app.state.repositories, project.id)!;
        // `Branches::CreateService`: an empty repository first gets its default branch (an empty README).
        if (isEmptyRepository(repository)) {
          const author = deps.repositories.signatureOf(viewerId(ctx));
          await must(
            git.commitFiles(
              { branch: repository.default_branch, commit_message: 'Add README.md', actions: [{ action: 'create', file_path: 'README.md', content: '' }], author, committer: author },
              deps.repositories.recorder(project.id, ctx.actor),
            ),
          );
        }
        // `Branches::ValidateNewService` before `add_branch` and its pre-receive checks: a name GitRefValidator
        // refuses, or a branch that exists, is refused as such whoever asks (the engine checks again under its lock).
        if (!isValidNewRefName(name)) throw ApiError.message(400, 'Branch name is invalid');
        if (branchSha(findRepository(deps.app.state.repositories, project.id)!, name) !== null) throw ApiError.message(400, 'Branch already exists');
        const target = await git.findCommit(ctx.params.ref ?? '');
        if (E.isRight(target)) {
          // `safe_commit_for_new_protected_branch?`, asked of git only for a protected name.
          const fromProtected = isProtectedBranch(repository, name)
            ? (await must(git.refsContaining(target.right.id, 'branch'))).some((ref) => isProtectedBranch(repository, ref.name))
            : undefined;
          precheck(deps, ctx, project, { ref: branchRef(name), old_sha: null, new_sha: target.right.id, ...(fromProtected === undefined ? {} : { from_protected_branch: fromProtected }) });
        }
        const result = await must(git.createBranch({ branch: name, ref: ctx.params.ref ?? '' }, deps.repositories.recorder(project.id, ctx.actor)));
        return created((await present(ctx, project, [result.branch]))[0]);
      },
    }),
    route({
      method: 'DELETE',
      path: '/projects/:id/repository/branches/:branch',
      auth: 'optional',
      before: download,
      handler: async (ctx) => {
        const project = projectOf(deps, ctx, 'download_code');
        requirePush(ctx, project);
        const name = String(ctx.routeParams['branch']);
        const git = deps.repositories.open(project.id);
        const branch = await findBranch(deps, project, name);
        checkUnmodifiedSince(ctx.request.headers, branch.commit.authored_date);
        precheck(deps, ctx, project, { ref: branchRef(name), old_sha: branch.commit.id, new_sha: null });
        await must(git.deleteBranch({ branch: name, expectedSha: branch.commit.id }, deps.repositories.recorder(project.id, ctx.actor)));
        return noContent();
      },
    }),
    route({
      method: 'DELETE',
      path: '/projects/:id/repository/merged_branches',
      before: download,
      handler: async (ctx) => {
        const project = projectOf(deps, ctx, 'download_code');
        // `Branches::DeleteMergedService` (run by a worker on the platform, so the answer is 202 whatever it does):
        // without `push_code` nothing is deleted; otherwise every branch merged into the default branch
        // (`merged_to_root_ref?`), except branches of open merge requests and protected ones, goes through
        // `Branches::DeleteService`, whose refusals are skipped.
        if (canRepository(deps.app.state, viewerId(ctx), project, 'push_code')) {
          const repository = findRepository(deps.app.state.repositories, project.id)!;
          const defaultHead = defaultHeadOf(repository);
          const open = mergeRequestsOf(deps.app.state.repositories, project.id).filter((mergeRequest) => mergeRequest.state === 'opened');
          const kept = new Set(open.flatMap((mergeRequest) => [mergeRequest.source_branch, mergeRequest.target_branch]));
          const git = deps.repositories.open(project.id);
          for (const name of branchNames(repository).sort()) {
            const sha = parseSha(branchSha(repository, name) ?? '');
            if (sha === null || kept.has(name) || isProtectedBranch(repository, name) || !(await mergedToRootRef(git, sha, defaultHead))) continue;
            try {
              precheck(deps, ctx, project, { ref: branchRef(name), old_sha: sha, new_sha: null });
              await must(git.deleteBranch({ branch: name, expectedSha: sha }, deps.repositories.recorder(project.id, ctx.actor)));
            } catch (error) {
              if (!(error instanceof ApiError)) throw error;
            }
          }
        }
        return withStatus(202, { message: '202 Accepted' });
      },
    }),
    route({
      method: 'PUT',
      path: '/projects/:id/repository/branches/:branch/protect',
      auth: 'optional',
      before: download,
      params: protectParams,
      handler: async (ctx) => {
        const project = projectOf(deps, ctx, 'download_code');
        requireAdmin(ctx, project);
        const branch = await findBranch(deps, project, String(ctx.routeParams['branch']));
        const result = await execute(deps, ctx, {
          type: 'ProtectBranchLegacy',
          project_id: project.id,
          name: branch.name,
          developers_can_push: ctx.params.developers_can_push === true,
          developers_can_merge: ctx.params.developers_can_merge === true,
        });
        if (E.isLeft(result)) throw ApiError.domain(result.left);
        return ok((await present(ctx, project, [branch]))[0]);
      },
    }),
    route({
      method: 'PUT',
      path: '/projects/:id/repository/branches/:branch/unprotect',
      auth: 'optional',
      before: download,
      handler: async (ctx) => {
        const project = projectOf(deps, ctx, 'download_code');
        requireAdmin(ctx, project);
        const branch = await findBranch(deps, project, String(ctx.routeParams['branch']));
        const repository = findRepository(deps.app.state.repositories, project.id);
        if (repository && findProtectedBranch(repository, branch.name)) {
          const result = await execute(deps, ctx, { type: 'UnprotectBranch', project_id: project.id, name: branch.name });
          if (E.isLeft(result)) throw ApiError.domain(result.left);
        }
        return ok((await present(ctx, project, [branch]))[0]);
      },
    }),
  ];
};

/**
 * Commits, merge base and compare (lib/api/commits.rb, repositories.rb, 14.7): list (`ref_name`, `since`,
 * `until`, `path`, `all`, `first_parent`, `order`, `with_stats`), create with actions, get (with stats), diff,
 * refs, contributors, the merge base of refs, and compare. Every route needs `download_code`; creating needs push access to
 * the branch ("You are not allowed to push into this branch"), then the commit service's checks (400 with its
 * message).
 */
import * as E from 'fp-ts/lib/Either.js';
import { canPushToBranch, canReadProject, defaultBranchOf, findProject, findRepository, forkNetworkRoot, type Project } from '@forgefold/core';
import type { Commit, CommitAction } from '@forgefold/git';
import { ApiError, arraySource, created, ok, paginate, paginateLoaded, route, type AnyRouteDef } from '../../http/index.js';
import { listParams, createParams, showParams, refsParams, compareParams, contributorsParams, mergeBaseParams } from './params.js';
import { diffLimits, findReadableProject, presentContext, viewerId, type ApiDeps, type Ctx } from '../../app/deps.js';
import { commitDetailEntity, commitEntity, diffEntity } from '../repositories/entities.js';
import { must, projectOf, requireRepositoryAbility } from '../repositories/shared.js';

const COMMIT_NOT_FOUND = '404 Commit Not Found';
const ACTIONS = ['create', 'update', 'move', 'delete', 'chmod'] as const;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Grape's nested validation of `actions[]` (`given action:` blocks), with its `actions[i][field]` messages. */
export const parseActions = (raw: readonly unknown[]): CommitAction[] => {
  const errors: string[] = [];
  const actions: CommitAction[] = [];
  raw.forEach((entry, index) => {
    const name = (field: string) => `actions[${index}][${field}]`;
    const item = isRecord(entry) ? entry : {};
    const text = (field: string): string | undefined => {
      const value = item[field];
      return typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;
    };
    const action = text('action');
    if (action === undefined) errors.push(`${name('action')} is missing`);
    else if (!(ACTIONS as readonly string[]).includes(action)) errors.push(`${name('action')} does not have a valid value`);
    if (item['file_path'] === undefined) errors.push(`${name('file_path')} is missing`);
    if (action === 'move' && item['previous_path'] === undefined) errors.push(`${name('previous_path')} is missing`);
    if (action === 'update' && item['content'] === undefined) errors.push(`${name('content')} is missing`);
    const encoding = text('encoding') ?? 'text';
    if (encoding !== 'text' && encoding !== 'base64') errors.push(`${name('encoding')} does not have a valid value`);
    let executeFilemode: boolean | undefined;
    const mode = item['execute_filemode'];
    if (mode !== undefined) {
      executeFilemode = mode === true || mode === 'true' || mode === '1' || mode === 1 ? true : mode === false || mode === 'false' || mode === '0' || mode === 0 ? false : undefined;
      if (executeFilemode === undefined) errors.push(`${name('execute_filemode')} is invalid`);
    } else if (action === 'chmod') errors.push(`${name('execute_filemode')} is missing`);
    if (action === undefined || !(ACTIONS as readonly string[]).includes(action)) return;
    const content = action === 'create' || action === 'update' || action === 'move' ? text('content') : undefined;
    const lastCommit = action === 'update' || action === 'move' || action === 'delete' ? text('last_commit_id') : undefined;
    actions.push({
      action: action as CommitAction['action'],
      file_path: text('file_path') ?? '',
      ...(action === 'move' ? { previous_path: text('previous_path') ?? '' } : {}),
      ...(content !== undefined ? { content } : {}),
      encoding: encoding as 'text' | 'base64',
      ...(executeFilemode !== undefined && (action === 'create' || action === 'chmod') ? { execute_filemode: executeFilemode } : {}),
      ...(lastCommit !== undefined ? { last_commit_id: lastCommit } : {}),
    });
  });
  if (errors.length > 0) throw ApiError.error(400, errors.join(', '));
  return actions;
};

/** `authorize_push_to_branch!`. */
export const authorizePushToBranch = (deps: ApiDeps, ctx: Ctx, project: Project, branch: string): void => {
  const state = deps.app.state;
  const repository = findRepository(state.repositories, project.id);
  if (!repository || !canPushToBranch(state, viewerId(ctx), project, repository, branch)) throw ApiError.message(403, '403 Forbidden - You are not allowed to push into this branch');
};

/** Ruby's `String#casecmp`: ASCII letters compared without case. */
const casecmp = (a: string, b: string): number => {
  const fold = (text: string) => text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
  const [x, y] = [fold(a), fold(b)];
  return x < y ? -1 : x > y ? 1 : 0;
};

interface Contributor {
  readonly name: string;
  readonly email: string;
  readonly commits: number;
  readonly additions: 0;
  readonly deletions: 0;
}

/**
 * `Repository#contributors` (14.7): the default branch's last 2,000 commits without merges, grouped by author
 * e-mail in order of appearance, named after the newest commit with a name; `Commit.order_by` sorts them
 * (e-mail and name without case; `desc` swaps the operands). `additions` and `deletions` are always 0.
 */
const contributorsOf = (commits: readonly Commit[], orderBy: string, sort: string): Contributor[] => {
  const byEmail = new Map<string, { name: string; email: string; commits: number }>();
  for (const commit of commits) {
    const entry = byEmail.get(commit.author_email) ?? { name: '', email: commit.author_email, commits: 0 };
    if (entry.name.trim() === '') entry.name = commit.author_name;
    entry.commits += 1;
    byEmail.set(commit.author_email, entry);
  }
  const compare = (a: Contributor, b: Contributor): number =>
    orderBy === 'commits' ? a.commits - b.commits : casecmp(orderBy === 'email' ? a.email : a.name, orderBy === 'email' ? b.email : b.name);
  return [...byEmail.values()].map((entry) => ({ ...entry, additions: 0 as const, deletions: 0 as const })).sort((a, b) => (sort === 'desc' ? compare(b, a) : compare(a, b)));
};

/** Whether project `id` (a number) is one the caller can read in `project`'s fork network, `project` included. */
const inForkNetworkOf = (deps: ApiDeps, ctx: Ctx, project: Project, id: string): boolean => {
  const projects = deps.app.state.projects;
  const other = /^\d+$/.test(id.trim()) ? findProject(projects, Number(id.trim())) : undefined;
  return other !== undefined && canReadProject(deps.app.state, viewerId(ctx), other) && forkNetworkRoot(projects, other).id === forkNetworkRoot(projects, project).id;
};

export const commitRoutes = (deps: ApiDeps): AnyRouteDef[] => {
  const download = requireRepositoryAbility(deps, 'download_code');
  const present = (ctx: Ctx, project: Project, commit: Commit) => commitEntity(commit, project, presentContext(deps, ctx));
  const defaultRef = (project: Project): string => {
    const repository = findRepository(deps.app.state.repositories, project.id);
    return (repository ? defaultBranchOf(repository) : null) ?? 'master';
  };

  return [
    route({
      method: 'GET',
      path: '/projects/:id/repository/commits',
      auth: 'optional',
      before: download,
      params: listParams,
      handler: (ctx) => {
        const project = projectOf(deps, ctx, 'download_code');
        const git = deps.repositories.open(project.id);
        const { params } = ctx;
        return paginateLoaded(
          ctx,
          async (offset, limit) => {
            const page = await git.log({
              ref: params.ref_name || defaultRef(project),
              ...(params.since ? { since: params.since } : {}),
              ...(params.until ? { until: params.until } : {}),
              ...(params.path ? { path: params.path } : {}),
              firstParent: params.first_parent === true,
              order: params.order as 'default' | 'topo',
              // `ref` is ignored with `all` (every ref is listed).
              ...(params.all === true ? { all: true } : {}),
              offset,
              limit,
              counted: false,
            });
            // An unknown ref lists nothing (Gitaly answers an empty list).
            if (E.isLeft(page) && page.left._tag === 'RevisionNotFound') return { items: [], total: offset + 1 };
            if (E.isLeft(page)) throw new Error(page.left.message);
            // The platform does not count: "1 more commit after the one we've loaded", so there is a next page
            // whenever this one is full (and `rel="last"` names it), and no total headers.
            return { items: page.right.items, total: offset + page.right.items.length + 1 };
          },
          async (commits) => {
            // `trailers=true`: Gitaly's `FindCommits` parses each commit's trailers (`{}` otherwise).
            const trailers = params.trailers ? await must(git.trailers(commits.map((commit) => commit.id))) : new Map<string, Readonly<Record<string, string>>>();
            const entity = (commit: Commit) => commitEntity(commit, project, presentContext(deps, ctx), trailers.get(commit.id));
            if (!params.with_stats) return commits.map(entity);
            return Promise.all(commits.map(async (commit) => ({ ...entity(commit), stats: await must(git.commitStats(commit.id)) })));
          },
          { excludeTotalHeaders: true },
        );
      },
    }),
    route({
      method: 'POST',
      path: '/projects/:id/repository/commits',
      auth: 'optional',
      before: download,
      params: createParams,
      handler: async (ctx) => {
        const project = projectOf(deps, ctx, 'download_code');
        const { params } = ctx;
        // Grape validates `actions[]` before the endpoint runs.
        const actions = parseActions(params.actions ?? []);
        if (params.start_project !== undefined && params.start_project !== null) {
          // `find_project!`, then `user_project.forked_from?(start_project)`, which is false for the project itself.
          // Starting a fork's commit from its source's branch would need the source's objects in the fork's
          // repository, which the engine does not fetch: that case stays refused too.
          const start = findReadableProject(deps.app.state, ctx, String(params.start_project));
          if (E.isLeft(start)) throw ApiError.domain(start.left);
          throw ApiError.message(403, `403 Forbidden - Project is not included in the fork network for ${start.right.name_with_namespace}`);
        }
        const branch = params.branch ?? '';
        authorizePushToBranch(deps, ctx, project, branch);
        const author = deps.repositories.signatureOf(viewerId(ctx), { name: params.author_name, email: params.author_email });
        const committer = deps.repositories.signatureOf(viewerId(ctx));
        const git = deps.repositories.open(project.id);
        const result = await must(
          git.commitFiles(
            {
              branch,
              commit_message: params.commit_message ?? '',
              actions,
              ...(params.start_branch ? { start_branch: params.start_branch } : {}),
              ...(params.start_sha ? { start_sha: params.start_sha } : {}),
              force: params.force,
              author,
              committer,
            },
            deps.repositories.recorder(project.id, ctx.actor),
          ),
        );
        const stats = params.stats ? (result.stats ?? (await must(git.commitStats(result.commit.id)))) : null;
        return created(commitDetailEntity(result.commit, stats, project, presentContext(deps, ctx)));
      },
    }),
    route({
      method: 'GET',
      path: '/projects/:id/repository/commits/:sha',
      auth: 'optional',
      before: download,
      params: showParams,
      handler: async (ctx) => {
        const project = projectOf(deps, ctx, 'download_code');
        const git = deps.repositories.open(project.id);
        const commit = await must(git.findCommit(String(ctx.routeParams['sha'])), COMMIT_NOT_FOUND);
        const stats = ctx.params.stats ? await must(git.commitStats(commit.id)) : null;
        return ok(commitDetailEntity(commit, stats, project, presentContext(deps, ctx), { withUser: true }));
      },
    }),
    route({
      method: 'GET',
      path: '/projects/:id/repository/commits/:sha/diff',
      auth: 'optional',
      before: download,
      handler: async (ctx) => {
        const project = projectOf(deps, ctx, 'download_code');
        const diffs = await must(deps.repositories.open(project.id).commitDiff(String(ctx.routeParams['sha']), diffLimits(deps)), COMMIT_NOT_FOUND);
        return paginate(ctx, arraySource(diffs), { map: diffEntity });
      },
    }),
    route({
      method: 'GET',
      path: '/projects/:id/repository/commits/:sha/refs',
      auth: 'optional',
      before: download,
      params: refsParams,
      handler: async (ctx) => {
        const project = projectOf(deps, ctx, 'download_code');
        const refs = await must(deps.repositories.open(project.id).refsContaining(String(ctx.routeParams['sha']), ctx.params.type as 'branch' | 'tag' | 'all'), COMMIT_NOT_FOUND);
        return paginate(ctx, arraySource(refs));
      },
    }),
    route({
      method: 'GET',
      path: '/projects/:id/repository/contributors',
      auth: 'optional',
      before: download,
      params: contributorsParams,
      handler: async (ctx) => {
        const project = projectOf(deps, ctx, 'download_code');
        const page = await deps.repositories.open(project.id).log({ ref: defaultRef(project), noMerges: true, offset: 0, limit: 2000 });
        // An empty repository (no default branch yet) has no contributors.
        if (E.isLeft(page) && page.left._tag !== 'RevisionNotFound') throw new Error(page.left.message);
        const contributors = contributorsOf(E.isRight(page) ? page.right.items : [], ctx.params.order_by ?? 'commits', ctx.params.sort ?? 'asc');
        return paginate(ctx, arraySource(contributors));
      },
    }),
    route({
      method: 'GET',
      path: '/projects/:id/repository/merge_base',
      auth: 'optional',
      before: download,
      params: mergeBaseParams,
      handler: async (ctx) => {
        const project = projectOf(deps, ctx, 'download_code');
        const refs = ctx.params.refs ?? [];
        if (refs.length < 2) throw ApiError.message(400, 'Provide at least 2 refs');
        const git = deps.repositories.open(project.id);
        const found = await Promise.all(refs.map(async (ref) => E.getOrElse<unknown, Commit | null>(() => null)(await git.findCommit(ref))));
        const commits = found.filter((commit): commit is Commit => commit !== null);
        // `Gitlab::Git::MergeBase#unknown_refs` pairs the refs with the commits found (`ListCommitsByOid` leaves
        // the unknown out) in order, in a Hash: the refs left without a commit are the ones named.
        const paired = new Map<string, Commit | null>();
        refs.forEach((ref, index) => paired.set(ref, commits[index] ?? null));
        const unknown = [...paired].filter(([, commit]) => commit === null).map(([ref]) => ref);
        if (unknown.length > 0) throw ApiError.message(400, `Could not find ${unknown.length === 1 ? 'ref' : 'refs'}: ${unknown.join(', ')}`);
        const [first, second, ...more] = commits.map((commit) => commit.id);
        const base = await must(git.mergeBase(first!, second!, ...more));
        if (base === null) throw ApiError.message(404, '404 Merge Base Not Found');
        return ok(present(ctx, project, await must(git.findCommit(base))));
      },
    }),
    route({
      method: 'GET',
      path: '/projects/:id/repository/compare',
      auth: 'optional',
      before: download,
      params: compareParams,
      handler: async (ctx) => {
        const project = projectOf(deps, ctx, 'download_code');
        const fromProjectId = ctx.params.from_project_id ?? '';
        // `MergeRequestTargetProjectFinder`: the project itself, or a project of its fork network the caller can
        // read. Comparing with another project of the network would need its objects here (not fetched): only
        // the refusal of the others is the platform's.
        if (fromProjectId.trim() !== '' && !inForkNetworkOf(deps, ctx, project, fromProjectId)) {
          throw ApiError.message(400, `Target project id:${fromProjectId} is not a fork of project id:${String(ctx.routeParams['id'])}`);
        }
        const comparison = await deps.repositories.open(project.id).compare({ from: ctx.params.from ?? '', to: ctx.params.to ?? '', straight: ctx.params.straight, ...diffLimits(deps) });
        if (E.isLeft(comparison)) {
          if (comparison.left._tag === 'RevisionNotFound') throw ApiError.message(404, '404 Ref Not Found');
          throw new Error(comparison.left.message);
        }
        const { commits, diffs, sameRef } = comparison.right;
        const last = commits[commits.length - 1];
        return ok({
          commit: last ? present(ctx, project, last) : null,
          commits: commits.map((commit) => present(ctx, project, commit)),
          diffs: diffs.map(diffEntity),
          compare_timeout: false,
          compare_same_ref: sameRef,
        });
      },
    }),
  ];
};

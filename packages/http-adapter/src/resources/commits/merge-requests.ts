/**
 * `GET …/repository/commits/:sha/merge_requests` (lib/api/commits.rb, 14.7): `download_code`, then
 * `authorize! :read_merge_request`, then the commit ("404 Commit Not Found"); the project's merge requests whose
 * latest diff holds the commit (`MergeRequestsFinder` with `commit_sha`: 14.7's `by_commit_sha` reads
 * `latest_merge_request_diff_id`, so neither older versions nor the merge commit count), newest first (the
 * finder's `id desc`), as `Entities::MergeRequestBasic`.
 */
import { currentVersion, mergeRequestsOf } from '@forgefold/core';
import { arraySource, paginate, paginationParams, route, type AnyRouteDef } from '../../http/index.js';
import { presentContext, type ApiDeps } from '../../app/deps.js';
import { mergeRequestBasicEntity } from '../merge-requests/entities.js';
import { must, projectOf, requireRepositoryAbility } from '../repositories/shared.js';


export const commitMergeRequestRoutes = (deps: ApiDeps): AnyRouteDef[] => {
  const download = requireRepositoryAbility(deps, 'download_code');
  const read = requireRepositoryAbility(deps, 'read_merge_request');
  return [
    route({
      method: 'GET',
      path: '/projects/:id/repository/commits/:sha/merge_requests',
      auth: 'optional',
      before: (ctx) => download(ctx) ?? read(ctx),
      params: paginationParams,
      handler: async (ctx) => {
        const project = projectOf(deps, ctx, 'read_merge_request');
        const git = deps.repositories.open(project.id);
        const commit = await must(git.findCommit(String(ctx.routeParams['sha'])), '404 Commit Not Found');
        // Whether the commit is `sha` or one of its ancestors: asked of git once per sha (merge requests share bases,
        // and heads when a branch is proposed again), never for the commit itself.
        const reached = new Map<string, boolean>();
        const reaches = async (sha: string): Promise<boolean> => {
          let answer = reached.get(sha);
          if (answer === undefined) {
            answer = sha === commit.id || (await must(git.isAncestor(commit.id, sha)));
            reached.set(sha, answer);
          }
          return answer;
        };
        const candidates = [...mergeRequestsOf(deps.app.state.repositories, project.id)].sort((a, b) => b.id - a.id);
        const holding = [];
        for (const mr of candidates) {
          const version = currentVersion(mr);
          if (!version) continue;
          // In the diff's commits (`base..head`): reachable from its head and not from its base; two ancestry
          // checks, not a listing of the diff's commits.
          if (!(await reaches(version.head_commit_sha))) continue;
          if (version.base_commit_sha !== null && (await reaches(version.base_commit_sha))) continue;
          holding.push(mr);
        }
        const view = presentContext(deps, ctx);
        return paginate(ctx, arraySource(holding), { map: (mr) => mergeRequestBasicEntity(mr, project, view) });
      },
    }),
  ];
};

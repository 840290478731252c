/** The full merge request entity, with what it needs from git (the merge requests routes and the issues' related list). */
import * as E from 'fp-ts/lib/Either.js';
import { branchSha, canMergeMergeRequest, currentVersion, findRepository, type MergeRequest, type Project } from '@forgefold/core';
import { diffLimits, presentContext, viewerId, type ApiDeps, type Ctx } from '../../app/deps.js';
import { mergeRequestEntity } from './entities.js';

/**
 * The single GET's options: `include_diverged_commits_count` (commits of the target the source lacks),
 * `include_rebase_in_progress` (never: no rebase runs here), and `include_first_contribution` (that route only).
 */
export interface PresentOptions {
  readonly divergedCommitsCount?: boolean;
  readonly rebaseInProgress?: boolean;
  readonly firstContribution?: boolean;
}

/** The git facts of the full entity: conflicts of an open merge request, and the size of its current diff. */
export const presentMergeRequest = async (deps: ApiDeps, ctx: Ctx, project: Project, mr: MergeRequest, from: Project = project, options: PresentOptions = {}) => {
  const git = deps.repositories.open(project.id);
  const state = deps.app.state;
  const repository = findRepository(state.repositories, project.id)!;
  const source = branchSha(repository, mr.source_branch);
  const target = branchSha(repository, mr.target_branch);
  const hasConflicts = mr.state === 'opened' && source !== null && target !== null ? !E.getOrElse(() => false)(await git.mergeable(target, source)) : false;
  const version = currentVersion(mr);
  const diffs = version ? await git.compare({ from: version.base_commit_sha ?? version.start_commit_sha ?? version.head_commit_sha, to: version.head_commit_sha, straight: true, ...diffLimits(deps) }) : null;
  const changesCount = diffs && E.isRight(diffs) ? diffs.right.diffs.length : null;
  const canMerge = viewerId(ctx) !== null && canMergeMergeRequest(state, viewerId(ctx), project, repository, mr);
  const diverged =
    options.divergedCommitsCount === true ? (source !== null && target !== null ? E.getOrElse(() => ({ total: 0 }))(await git.commitsBetween(source, target, 1)).total : 0) : undefined;
  return mergeRequestEntity(mr, project, presentContext(deps, ctx), { hasConflicts, changesCount, canMerge }, from, {
    ...(diverged !== undefined ? { divergedCommitsCount: diverged } : {}),
    ...(options.rebaseInProgress ? { rebaseInProgress: false } : {}),
    ...(options.firstContribution ? { firstContribution: false } : {}),
  });
};

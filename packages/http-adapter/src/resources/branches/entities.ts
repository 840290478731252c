/** `Entities::Branch` (lib/api/entities/branch.rb). */
import { canPushToBranch, defaultBranchOf, developersCan, findRepository, isProtectedBranch, type Project } from '@forgefold/core';
import type { Commit } from '@forgefold/git';
import type { PresentContext } from '../context.js';
import { commitEntity, projectWebUrl } from '../repositories/entities.js';

/** `Entities::Branch`; `merged` (into the default branch) is computed by the caller from git. */
export const branchEntity = (branch: { readonly name: string; readonly commit: Commit }, merged: boolean, project: Project, ctx: PresentContext) => {
  const repository = findRepository(ctx.state.repositories, project.id);
  return {
    name: branch.name,
    commit: commitEntity(branch.commit, project, ctx),
    merged,
    protected: repository ? isProtectedBranch(repository, branch.name) : false,
    developers_can_push: repository ? developersCan(repository, branch.name, 'push') : false,
    developers_can_merge: repository ? developersCan(repository, branch.name, 'merge') : false,
    can_push: repository ? canPushToBranch(ctx.state, ctx.viewerId, project, repository, branch.name) : false,
    default: repository ? defaultBranchOf(repository) === branch.name : false,
    web_url: `${projectWebUrl(project, ctx)}/-/tree/${branch.name}`,
  };
};


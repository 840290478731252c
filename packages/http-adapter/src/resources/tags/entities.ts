/** `Entities::Tag` (lib/api/entities/tag.rb). */
import { findRepository, isProtectedTag, type Project } from '@forgefold/core';
import type { Tag } from '@forgefold/git';
import type { PresentContext } from '../context.js';
import { commitEntity } from '../repositories/entities.js';

/** `Entities::Tag`; releases are not kept, so `release` is null. */
export const tagEntity = (tag: Tag, project: Project, ctx: PresentContext) => {
  const repository = findRepository(ctx.state.repositories, project.id);
  return {
    name: tag.name,
    message: tag.message,
    target: tag.target,
    commit: tag.commit ? commitEntity(tag.commit, project, ctx) : null,
    release: null,
    protected: repository ? isProtectedTag(repository, tag.name) : false,
  };
};


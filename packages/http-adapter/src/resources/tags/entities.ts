/** `Entities::Tag` (lib/api/entities/tag.rb). */
import { findRelease, findRepository, isProtectedTag, type Project } from '@forgefold/core';
import type { Tag } from '@forgefold/git';
import type { PresentContext } from '../context.js';
import { commitEntity } from '../repositories/entities.js';
import { tagReleaseEntity } from '../releases/entities.js';

/** `Entities::Tag`: `release` is the tag's release (`Entities::TagRelease`) or null. */
export const tagEntity = (tag: Tag, project: Project, ctx: PresentContext) => {
  const repository = findRepository(ctx.state.repositories, project.id);
  return {
    name: tag.name,
    message: tag.message,
    target: tag.target,
    commit: tag.commit ? commitEntity(tag.commit, project, ctx) : null,
    release: tagReleaseEntity(findRelease(ctx.state.releases, project.id, tag.name)),
    protected: repository ? isProtectedTag(repository, tag.name) : false,
  };
};


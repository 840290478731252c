/**
 * Who may do what to releases (ProjectPolicy, ReleasePolicy 14.7): anyone who sees a public or internal project
 * reads its releases, members from Guest up on a private one; Developers create, update and delete, except where
 * the tag is protected and they may not create it (`respect_protected_tag`).
 */
import { canOnProject, canReadProject, meetsRefAccessLevel } from '../access/abilities.js';
import type { Project } from '../projects/projection.js';
import { findRepository, matchingProtectedTags } from '../repositories/queries.js';
import type { ReleasesView } from './projection.js';

export type ReleaseAbility = 'read_release' | 'create_release' | 'update_release' | 'destroy_release';

export const canRelease = (state: ReleasesView, userId: number | null, project: Project, ability: ReleaseAbility, tag?: string): boolean => {
  if (ability === 'read_release') return canReadProject(state, userId, project) && (project.visibility !== 'private' || canOnProject(state, userId, 'read_release', project));
  if (!canOnProject(state, userId, ability, project)) return false;
  if (tag === undefined) return true;
  // `UserAccess#can_create_tag?`: the create levels of every matching protected tag rule, any of which lets the user
  // through (`protected_ref_accessible_to?`), else `admin_tag`.
  const repository = findRepository(state.repositories, project.id);
  if (!repository) return false;
  const rules = matchingProtectedTags(repository, tag);
  if (rules.length === 0) return canOnProject(state, userId, 'admin_tag', project);
  return rules.flatMap((rule) => rule.create_access_levels).some((level) => meetsRefAccessLevel(state, userId, project, level.access_level));
};

/**
 * Who may see what: the platform's read rules over the projections. Administrators see everything;
 * public resources are visible to all, internal ones to any signed-in user, private ones to members
 * (of the resource, an ancestor, or — for groups — anything below it).
 */
import type { State } from '../../state.js';
import { findUser } from '../users/queries.js';
import type { Group } from '../groups/projection.js';
import type { Project } from '../projects/projection.js';
import { groupAccessLevel, hasMembershipBelow, projectAccessLevel } from '../members/queries.js';

export const isAdmin = (state: State, userId: number | null): boolean => userId !== null && findUser(state.users, userId)?.is_admin === true;

export const canReadGroup = (state: State, userId: number | null, group: Group): boolean => {
  if (group.visibility === 'public') return true;
  if (userId === null) return false;
  if (group.visibility === 'internal' || isAdmin(state, userId)) return true;
  return groupAccessLevel(state, group, userId) > 0 || hasMembershipBelow(state, group, userId);
};

export const canReadProject = (state: State, userId: number | null, project: Project): boolean => {
  if (project.visibility === 'public') return true;
  if (userId === null) return false;
  if (project.visibility === 'internal' || isAdmin(state, userId)) return true;
  return projectAccessLevel(state, project, userId) > 0;
};

/** Effective access for permission checks: administrators act as owners. */
export const effectiveGroupAccess = (state: State, userId: number | null, group: Group): number =>
  userId === null ? 0 : isAdmin(state, userId) ? 50 : groupAccessLevel(state, group, userId);

export const effectiveProjectAccess = (state: State, userId: number | null, project: Project): number => {
  if (userId === null) return 0;
  if (isAdmin(state, userId)) return 50;
  // The owner of a personal namespace owns its projects (the platform shows 40 as their membership).
  if (project.namespace_kind === 'user' && findUser(state.users, userId)?.namespace_id === project.namespace_id) return 50;
  return projectAccessLevel(state, project, userId);
};

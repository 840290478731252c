import { tableEntries, tableGet, tableIds, tableValues, tableKeys } from '../../kernel/table.js';
import type { Project, ProjectsSlice, Star } from './projection.js';

export const findProject = (projects: ProjectsSlice, id: number): Project | undefined => tableGet(projects.byId, id);

export const findProjectByFullPath = (projects: ProjectsSlice, fullPath: string): Project | undefined => {
  const id = tableGet(projects.byFullPath, fullPath.toLowerCase());
  return id === undefined ? undefined : findProject(projects, id);
};

/** `:id` on project routes: digits are an id; a value with "/" a full path; anything else matches nothing. */
export const findProjectByIdOrPath = (projects: ProjectsSlice, value: string): Project | undefined => {
  if (/^\d+$/.test(value)) return findProject(projects, Number(value));
  return value.includes('/') ? findProjectByFullPath(projects, value) : undefined;
};

export function* projectsInNamespace(projects: ProjectsSlice, namespaceId: number): Generator<Project> {
  const ids = tableGet(projects.byNamespace, namespaceId);
  if (!ids) return;
  for (const id of tableKeys(ids)) {
    const project = findProject(projects, Number(id));
    if (project) yield project;
  }
}

/**
 * Ids of the projects of a namespace that every caller sees by visibility alone: its public ones, and for a caller
 * who sees internal projects its internal ones too (ascending within each set; the per-namespace index kept by evolve).
 */
export function* idsVisibleInNamespace(projects: ProjectsSlice, namespaceId: number, withInternal: boolean): Generator<number> {
  const publicIds = tableGet(projects.publicByNamespace, namespaceId);
  if (publicIds) yield* tableIds(publicIds);
  const internalIds = withInternal ? tableGet(projects.internalByNamespace, namespaceId) : undefined;
  if (internalIds) yield* tableIds(internalIds);
}

/** The direct forks of a project, in id order (the forks index: no scan of every project). */
export function* forksOf(projects: ProjectsSlice, id: number): Generator<Project> {
  const ids = tableGet(projects.forksOf, id);
  if (!ids) return;
  for (const forkId of tableValues(ids)) {
    const project = findProject(projects, forkId);
    if (project) yield project;
  }
}

/** A user's star on a project, or undefined when they have not starred it. */
export const starOf = (projects: ProjectsSlice, userId: number, projectId: number): Star | undefined => {
  const starred = tableGet(projects.starred, userId);
  return starred ? tableGet(starred, projectId) : undefined;
};

/** The projects a user starred, in project id order (the user's stars index: no scan of every project). */
export function* projectsStarredBy(projects: ProjectsSlice, userId: number): Generator<Project> {
  const starred = tableGet(projects.starred, userId);
  if (!starred) return;
  for (const [projectId] of tableEntries(starred)) {
    const project = findProject(projects, Number(projectId));
    if (project) yield project;
  }
}

/** A project's starrers with the time each starred it, newest star first (UsersStarProjectsFinder's `order_id_desc`). */
export const starrersOf = (projects: ProjectsSlice, projectId: number): { readonly user_id: number; readonly starred_since: string }[] => {
  const starrers = tableGet(projects.starrers, projectId);
  if (!starrers) return [];
  const rows: { user_id: number; starred_since: string }[] = [];
  for (const userId of tableValues(starrers)) {
    const star = starOf(projects, userId, projectId);
    if (star) rows.push({ user_id: userId, starred_since: star.at });
  }
  return rows.reverse();
};

/** The root of a project's fork network: the source of its source…, or the project itself when it forks nothing. */
export const forkNetworkRoot = (projects: ProjectsSlice, project: Project): Project => {
  let current = project;
  for (let parent = current.forked_from_id; parent !== null; parent = current.forked_from_id) {
    const next = findProject(projects, parent);
    if (!next) break;
    current = next;
  }
  return current;
};

export const listProjects = (projects: ProjectsSlice): Generator<Project> => tableValues(projects.byId);

/** The platform's `parameterize` for a path derived from a name. */
export const pathFromName = (name: string): string =>
  name
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9_.-]+/g, '-')
    .replace(/^-+|-+$/g, '');

/** `Project#to_reference_base(from)`: nothing in the same project, the path in the same namespace, else the full path. */
export const projectReferenceBase = (project: Project, from: Project): string => {
  if (project.id === from.id) return '';
  if (project.namespace_id === from.namespace_id && project.namespace_kind === from.namespace_kind) return project.path;
  return project.path_with_namespace;
};

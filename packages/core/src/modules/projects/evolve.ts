/** The projects module's evolve, and the group renames it follows to keep full paths current. */
import { emptyTable, tableDelete, tableEntries, tableGet, tableIndexUnder, tableKeys, tableSet, tableSetIn, tableValues } from '../../kernel/table.js';
import type { Draft } from 'immer';
import type { Writable } from '../../kernel/module.js';
import { advance, type Sequences } from '../../kernel/sequences.js';
import type { GroupEvent } from '../groups/events.js';
import { findGroup } from '../groups/queries.js';
import type { Group, GroupsSlice } from '../groups/projection.js';
import type { UserEvent } from '../users/events.js';
import type { UsersSlice } from '../users/projection.js';
import { placeByVisibility, type Visibility } from '../shared/access.js';
import type { ProjectEvent } from './events.js';
import type { Project, ProjectsSlice } from './projection.js';

export type ProjectsDraft = Writable<{ readonly sequences: Sequences; readonly users: UsersSlice; readonly groups: GroupsSlice; readonly projects: ProjectsSlice }, 'projects' | 'sequences'>;

const namespaceNames = (state: ProjectsDraft, kind: 'group' | 'user', namespaceId: number): { path: string; name: string } => {
  if (kind === 'group') {
    const group = tableGet(state.groups.byId, namespaceId);
    return { path: group?.full_path ?? '', name: group?.full_name ?? '' };
  }
  const ownerId = tableGet(state.users.byNamespace, namespaceId);
  const owner = ownerId === undefined ? undefined : tableGet(state.users.byId, ownerId);
  if (owner) return { path: owner.username, name: owner.name };
  return { path: '', name: '' };
};

/**
 * Lists a project in (or takes it off) its namespace's set for its visibility (`publicByNamespace`,
 * `internalByNamespace`; a private project is in neither). Called wherever `placeByVisibility` moves it, and on a
 * transfer.
 */
const placeInNamespace = (projects: ProjectsDraft['projects'], id: number, namespaceId: number, visibility: Visibility, listed: boolean): void => {
  if (visibility === 'public') tableIndexUnder(projects.publicByNamespace, [namespaceId], id, 1, listed);
  if (visibility === 'internal') tableIndexUnder(projects.internalByNamespace, [namespaceId], id, 1, listed);
};

export const evolve = (state: ProjectsDraft, event: ProjectEvent): void => {
  const projects = state.projects;
  switch (event.type) {
    case 'ProjectCreated': {
      const { creator_id, request_access_enabled, ...data } = event.data;
      const namespace = namespaceNames(state, data.namespace_kind, data.namespace_id);
      const project: Project = {
        ...data,
        creator_id,
        // Recorded only when off (absent: on, the default).
        request_access_enabled: request_access_enabled ?? true,
        path_with_namespace: `${namespace.path}/${data.path}`,
        name_with_namespace: `${namespace.name} / ${data.name}`,
        updated_at: data.created_at,
        last_activity_at: data.created_at,
        forked_from_id: null,
        forks_count: 0,
        star_count: 0,
        merge_method: 'merge',
      };
      tableSet(projects.byId, data.id, project);
      tableSet(projects.byFullPath, project.path_with_namespace.toLowerCase(), data.id);
      let inNamespace = tableGet(projects.byNamespace, data.namespace_id);
      if (!inNamespace) {
        tableSet(projects.byNamespace, data.namespace_id, emptyTable<number>());
        inNamespace = tableGet(projects.byNamespace, data.namespace_id)!;
      }
      tableSet(inNamespace, data.id, data.id);
      placeByVisibility(projects, data.id, null, data.visibility);
      placeInNamespace(projects, data.id, data.namespace_id, data.visibility, true);
      projects.count += 1;
      advance(state, 'project', data.id);
      return;
    }
    case 'ProjectUpdated': {
      const project = tableGet(projects.byId, event.data.id);
      if (!project) return;
      const before = project.path_with_namespace;
      if (event.data.visibility !== undefined && event.data.visibility !== project.visibility) {
        placeByVisibility(projects, project.id, project.visibility, event.data.visibility);
        placeInNamespace(projects, project.id, project.namespace_id, project.visibility, false);
        placeInNamespace(projects, project.id, project.namespace_id, event.data.visibility, true);
      }
      Object.assign(project, event.data);
      project.last_activity_at = event.data.updated_at;
      const namespacePath = before.slice(0, before.lastIndexOf('/'));
      const namespaceName = project.name_with_namespace.slice(0, project.name_with_namespace.lastIndexOf(' / '));
      project.path_with_namespace = `${namespacePath}/${project.path}`;
      project.name_with_namespace = `${namespaceName} / ${project.name}`;
      if (before !== project.path_with_namespace) {
        tableDelete(projects.byFullPath, before.toLowerCase());
        tableSet(projects.byFullPath, project.path_with_namespace.toLowerCase(), project.id);
      }
      return;
    }
    case 'ProjectTransferred': {
      const project = tableGet(projects.byId, event.data.id);
      if (!project) return;
      const from = tableGet(projects.byNamespace, project.namespace_id);
      if (from) tableDelete(from, project.id);
      let to = tableGet(projects.byNamespace, event.data.namespace_id);
      if (!to) {
        tableSet(projects.byNamespace, event.data.namespace_id, emptyTable<number>());
        to = tableGet(projects.byNamespace, event.data.namespace_id)!;
      }
      tableSet(to, project.id, project.id);
      placeInNamespace(projects, project.id, project.namespace_id, project.visibility, false);
      placeInNamespace(projects, project.id, event.data.namespace_id, project.visibility, true);
      const namespace = namespaceNames(state, event.data.namespace_kind, event.data.namespace_id);
      tableDelete(projects.byFullPath, project.path_with_namespace.toLowerCase());
      project.namespace_id = event.data.namespace_id;
      project.namespace_kind = event.data.namespace_kind;
      project.path_with_namespace = `${namespace.path}/${project.path}`;
      project.name_with_namespace = `${namespace.name} / ${project.name}`;
      project.updated_at = event.data.at;
      project.last_activity_at = event.data.at;
      tableSet(projects.byFullPath, project.path_with_namespace.toLowerCase(), project.id);
      return;
    }
    case 'ProjectDeleted': {
      const project = tableGet(projects.byId, event.data.id);
      if (!project) return;
      tableDelete(projects.byId, project.id);
      tableDelete(projects.byFullPath, project.path_with_namespace.toLowerCase());
      const inNamespace = tableGet(projects.byNamespace, project.namespace_id);
      if (inNamespace) tableDelete(inNamespace, project.id);
      placeByVisibility(projects, project.id, project.visibility, null);
      placeInNamespace(projects, project.id, project.namespace_id, project.visibility, false);
      projects.count -= 1;
      // The fork network loses the project: its source counts one fork less, its forks are forks of nothing.
      const source = project.forked_from_id === null ? undefined : tableGet(projects.byId, project.forked_from_id);
      if (source) source.forks_count = Math.max(0, source.forks_count - 1);
      if (project.forked_from_id !== null) {
        const siblings = tableGet(projects.forksOf, project.forked_from_id);
        if (siblings) tableDelete(siblings, project.id);
      }
      const forks = tableGet(projects.forksOf, project.id);
      if (forks) {
        for (const forkId of tableValues(forks)) {
          const fork = tableGet(projects.byId, forkId);
          if (fork) fork.forked_from_id = null;
        }
        tableDelete(projects.forksOf, project.id);
      }
      // `has_many :users_star_projects, dependent: :destroy`: the project's stars go with it.
      const starrers = tableGet(projects.starrers, project.id);
      if (starrers) {
        for (const userId of tableValues(starrers)) {
          const starredByUser = tableGet(projects.starred, userId);
          if (starredByUser) tableDelete(starredByUser, project.id);
        }
        tableDelete(projects.starrers, project.id);
      }
      return;
    }
    case 'ProjectStarred': {
      const project = tableGet(projects.byId, event.data.id);
      const starredByUser = tableGet(projects.starred, event.data.user_id);
      if (!project || (starredByUser && tableGet(starredByUser, project.id))) return;
      const serial = projects.starSerial + 1;
      projects.starSerial = serial;
      tableSetIn(projects.starrers, project.id, serial, event.data.user_id);
      tableSetIn(projects.starred, event.data.user_id, project.id, { serial, at: event.data.at });
      // `counter_cache: :star_count, touch: true`.
      project.star_count += 1;
      project.updated_at = event.data.at;
      return;
    }
    case 'ProjectUnstarred': {
      const project = tableGet(projects.byId, event.data.id);
      if (project) unstar(state, project, event.data.user_id, event.data.at);
      return;
    }
    case 'ProjectUnforked': {
      const fork = tableGet(projects.byId, event.data.id);
      if (!fork) return;
      fork.forked_from_id = null;
      const source = tableGet(projects.byId, event.data.forked_from_id);
      if (source) source.forks_count = Math.max(0, source.forks_count - 1);
      const siblings = tableGet(projects.forksOf, event.data.forked_from_id);
      if (siblings) tableDelete(siblings, fork.id);
      return;
    }
    case 'ProjectForked': {
      const fork = tableGet(projects.byId, event.data.id);
      const source = tableGet(projects.byId, event.data.forked_from_id);
      if (!fork || !source) return;
      fork.forked_from_id = source.id;
      source.forks_count += 1;
      let forks = tableGet(projects.forksOf, source.id);
      if (!forks) {
        tableSet(projects.forksOf, source.id, emptyTable<number>());
        forks = tableGet(projects.forksOf, source.id)!;
      }
      tableSet(forks, fork.id, fork.id);
      return;
    }
  }
};

/** Removes a user's star from a project (the counter cache decrements and the project is touched); none: nothing. */
const unstar = (state: ProjectsDraft, project: Draft<Project>, userId: number, at: string): void => {
  const projects = state.projects;
  const starredByUser = tableGet(projects.starred, userId);
  const star = starredByUser ? tableGet(starredByUser, project.id) : undefined;
  if (!starredByUser || !star) return;
  tableDelete(starredByUser, project.id);
  const starrers = tableGet(projects.starrers, project.id);
  if (starrers) tableDelete(starrers, star.serial);
  project.star_count = Math.max(0, project.star_count - 1);
  project.updated_at = at;
};

/** A deleted user's stars go with the account (`has_many :users_star_projects, dependent: :destroy`): one per project they starred. */
const followUserDeleted = (state: ProjectsDraft, event: Extract<UserEvent, { type: 'UserDeleted' }>): void => {
  const projects = state.projects;
  const starredByUser = tableGet(projects.starred, event.data.id);
  if (!starredByUser) return;
  for (const [projectId] of [...tableEntries(starredByUser)]) {
    const project = tableGet(projects.byId, Number(projectId));
    if (project) unstar(state, project, event.data.id, event.data.at);
  }
  tableDelete(projects.starred, event.data.id);
};

/** Moves the full paths and names of a group's projects, then of its subgroups' (depth first, as groups refresh). */
const refreshPaths = (state: ProjectsDraft, group: Group): void => {
  const projects = state.projects;
  const projectIds = tableGet(projects.byNamespace, group.id);
  if (projectIds) {
    for (const id of tableKeys(projectIds)) {
      const project = tableGet(projects.byId, Number(id));
      if (!project) continue;
      tableDelete(projects.byFullPath, project.path_with_namespace.toLowerCase());
      project.path_with_namespace = `${group.full_path}/${project.path}`;
      project.name_with_namespace = `${group.full_name} / ${project.name}`;
      tableSet(projects.byFullPath, project.path_with_namespace.toLowerCase(), project.id);
    }
  }
  for (const childId of group.children) {
    const child = findGroup(state.groups, childId);
    if (child) refreshPaths(state, child);
  }
};

/** A renamed group (path or name) moves the full paths and names of the projects in it and below it. */
const followGroupUpdated = (state: ProjectsDraft, event: Extract<GroupEvent, { type: 'GroupUpdated' }>): void => {
  if (event.data.path === undefined && event.data.name === undefined) return;
  const group = findGroup(state.groups, event.data.id);
  if (group) refreshPaths(state, group);
};

/** A transferred group moves the full paths and names of every project below it. */
const followGroupTransferred = (state: ProjectsDraft, event: Extract<GroupEvent, { type: 'GroupTransferred' }>): void => {
  const group = findGroup(state.groups, event.data.id);
  if (group) refreshPaths(state, group);
};

export type ProjectsFollowed = Extract<GroupEvent, { type: 'GroupUpdated' | 'GroupTransferred' }> | Extract<UserEvent, { type: 'UserDeleted' }>;

export const follows = { GroupUpdated: followGroupUpdated, GroupTransferred: followGroupTransferred, UserDeleted: followUserDeleted };

import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import { forbidden, notFound, type DomainError } from '../../kernel/domain-error.js';
import { emptyTable, tableDelete, tableGet, tableSet } from '../../kernel/table.js';
import type { Issued } from '../../kernel/decider.js';
import { advance, type ModuleDecider, type MutableState, type State } from '../../state.js';
import type { ForgefoldEvent } from '../../events.js';
import { AccessLevel } from '../shared/access.js';
import { effectiveGroupAccess, effectiveProjectAccess, isAdmin } from '../shared/policy.js';
import { Errors, isNamespacePath } from '../shared/validation.js';
import { findUser, findUserByNamespace } from '../users/queries.js';
import type { User } from '../users/projection.js';
import { findGroup } from '../groups/queries.js';
import { memberAdded } from '../members/decider.js';
import { deleteProjectEvents } from '../groups/decider.js';
import { repositoryCreated } from '../repositories/decide-refs.js';
import type { ProjectCommand } from './commands.js';
import type { ProjectEvent } from './events.js';
import type { Project } from './projection.js';
import { findProject, findProjectByFullPath, pathFromName } from './queries.js';

const PATH_FORMAT = "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'";

interface Namespace {
  readonly id: number;
  readonly kind: 'group' | 'user';
  readonly full_path: string;
  readonly owner: User | null;
}

const userNamespace = (state: State, namespaceId: number): User | undefined => findUserByNamespace(state.users, namespaceId);

/** Resolves `namespace_id` (a group or a personal namespace) and checks that the actor may create projects there. */
const resolveNamespace = (state: State, actorId: number | null, command: Extract<ProjectCommand, { type: 'CreateProject' }>): E.Either<DomainError, Namespace> => {
  if (command.owner_id !== undefined) {
    if (!isAdmin(state, actorId) && actorId !== null) return E.left(forbidden());
    const owner = findUser(state.users, command.owner_id);
    return owner ? E.right({ id: owner.namespace_id, kind: 'user', full_path: owner.username, owner }) : E.left(notFound('User'));
  }
  if (command.namespace_id === undefined) {
    const owner = actorId === null ? undefined : findUser(state.users, actorId);
    return owner ? E.right({ id: owner.namespace_id, kind: 'user', full_path: owner.username, owner }) : E.left(forbidden());
  }
  const group = findGroup(state.groups, command.namespace_id);
  if (group) {
    // Developers and above may create projects in a group (the platform's default project_creation_level).
    return actorId === null || effectiveGroupAccess(state, actorId, group) >= AccessLevel.DEVELOPER
      ? E.right({ id: group.id, kind: 'group', full_path: group.full_path, owner: null })
      : E.left(forbidden());
  }
  const owner = userNamespace(state, command.namespace_id);
  if (!owner) return E.left(notFound('Namespace'));
  return actorId === null || actorId === owner.id || isAdmin(state, actorId)
    ? E.right({ id: owner.namespace_id, kind: 'user', full_path: owner.username, owner })
    : E.left(forbidden());
};

const validateProject = (state: State, fields: { name?: string; path?: string }, namespacePath: string, self: Project | null): E.Either<DomainError, void> => {
  const errors = new Errors();
  if (fields.name !== undefined) errors.check(fields.name.trim() !== '', 'name', "can't be blank");
  if (fields.path !== undefined) {
    if (fields.path === '') errors.add('path', "can't be blank");
    else if (!isNamespacePath(fields.path)) errors.add('path', PATH_FORMAT);
    else {
      const holder = findProjectByFullPath(state.projects, `${namespacePath}/${fields.path}`);
      if (holder && holder.id !== self?.id) errors.add('path', 'has already been taken');
    }
  }
  return errors.toEither(undefined);
};

const requireProject = (state: State, id: number): E.Either<DomainError, Project> => {
  const project = findProject(state.projects, id);
  return project ? E.right(project) : E.left(notFound('Project'));
};

const requireAccess = (state: State, actorId: number | null, project: Project, level: number): E.Either<DomainError, Project> =>
  actorId === null || effectiveProjectAccess(state, actorId, project) >= level ? E.right(project) : E.left(forbidden());

const namespacePathOf = (project: Project): string => project.path_with_namespace.slice(0, project.path_with_namespace.length - project.path.length - 1);

const decide = (issued: Issued<ProjectCommand>, state: State): E.Either<DomainError, readonly ForgefoldEvent[]> => {
  const { command, at, actor } = issued;
  switch (command.type) {
    case 'CreateProject': {
      const name = command.name ?? command.path ?? '';
      const path = command.path ?? pathFromName(command.name ?? '');
      return pipe(
        resolveNamespace(state, actor.userId, command),
        E.chainFirst((namespace) => validateProject(state, { name, path }, namespace.full_path, null)),
        E.map((namespace): ForgefoldEvent[] => {
          const id = state.sequences.project + 1;
          const created: ProjectEvent = {
            type: 'ProjectCreated',
            data: {
              id,
              name,
              path,
              description: command.description ?? '',
              namespace_id: namespace.id,
              namespace_kind: namespace.kind,
              visibility: command.visibility ?? 'private',
              creator_id: actor.userId,
              created_at: at,
            },
          };
          // A personal project's owner becomes a direct maintainer; a group's project gets no direct members.
          const owner = namespace.owner
            ? [memberAdded(state, { source_type: 'Project', source_id: id, user_id: namespace.owner.id, access_level: AccessLevel.MAINTAINER, at, created_by_id: actor.userId })]
            : [];
          return [created, ...owner, repositoryCreated(id, command.default_branch ?? 'main', at)];
        }),
      );
    }
    case 'UpdateProject':
      return pipe(
        requireProject(state, command.id),
        E.chain((project) => requireAccess(state, actor.userId, project, AccessLevel.MAINTAINER)),
        E.chainFirst((project) => validateProject(state, command, namespacePathOf(project), project)),
        E.map((project): ForgefoldEvent[] => {
          const { type: _type, ...changes } = command;
          return [{ type: 'ProjectUpdated', data: { ...changes, id: project.id, updated_at: at } }];
        }),
      );
    case 'DeleteProject':
      return pipe(
        requireProject(state, command.id),
        E.chain((project) => requireAccess(state, actor.userId, project, AccessLevel.OWNER)),
        E.map((project) => deleteProjectEvents(state, project.id, at)),
      );
  }
};

const namespaceNames = (state: MutableState, kind: 'group' | 'user', namespaceId: number): { path: string; name: string } => {
  if (kind === 'group') {
    const group = tableGet(state.groups.byId, namespaceId);
    return { path: group?.full_path ?? '', name: group?.full_name ?? '' };
  }
  const ownerId = tableGet(state.users.byNamespace, namespaceId);
  const owner = ownerId === undefined ? undefined : tableGet(state.users.byId, ownerId);
  if (owner) return { path: owner.username, name: owner.name };
  return { path: '', name: '' };
};

const evolve = (state: MutableState, event: ProjectEvent): void => {
  const projects = state.projects;
  switch (event.type) {
    case 'ProjectCreated': {
      const { creator_id, ...data } = event.data;
      const namespace = namespaceNames(state, data.namespace_kind, data.namespace_id);
      const project: Project = {
        ...data,
        creator_id,
        path_with_namespace: `${namespace.path}/${data.path}`,
        name_with_namespace: `${namespace.name} / ${data.name}`,
        updated_at: data.created_at,
        last_activity_at: data.created_at,
      };
      tableSet(projects.byId, data.id, project);
      tableSet(projects.byFullPath, project.path_with_namespace.toLowerCase(), data.id);
      let inNamespace = tableGet(projects.byNamespace, data.namespace_id);
      if (!inNamespace) {
        tableSet(projects.byNamespace, data.namespace_id, emptyTable<number>());
        inNamespace = tableGet(projects.byNamespace, data.namespace_id)!;
      }
      tableSet(inNamespace, data.id, data.id);
      projects.count += 1;
      advance(state, 'project', data.id);
      return;
    }
    case 'ProjectUpdated': {
      const project = tableGet(projects.byId, event.data.id);
      if (!project) return;
      const before = project.path_with_namespace;
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
    case 'ProjectDeleted': {
      const project = tableGet(projects.byId, event.data.id);
      if (!project) return;
      tableDelete(projects.byId, project.id);
      tableDelete(projects.byFullPath, project.path_with_namespace.toLowerCase());
      const inNamespace = tableGet(projects.byNamespace, project.namespace_id);
      if (inNamespace) tableDelete(inNamespace, project.id);
      projects.count -= 1;
      return;
    }
  }
};

export const projectsDecider: ModuleDecider<ProjectCommand, ProjectEvent> = { decide, evolve };

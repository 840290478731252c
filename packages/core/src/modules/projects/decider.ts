/** The projects module's decisions: create (in a group, a personal namespace, or for a user), update, delete. */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import { forbidden, notFound, unauthorized, validation, type DomainError } from '../../kernel/domain-error.js';
import type { Issued } from '../../kernel/decider.js';
import type { Sequences } from '../../kernel/sequences.js';
import { authorizeProject, canCreateProjectsIn, canDownloadCode, canReadProject, canTransferProjectsInto, isAdmin } from '../access/abilities.js';
import type { SettingsSlice } from '../settings/projection.js';
import { defaultProjectVisibility, restrictedVisibilityMessage, visibilityRestricted } from '../settings/queries.js';
import { memberAdded } from '../members/builders.js';
import type { MemberEvent } from '../members/events.js';
import type { MembershipView } from '../members/projection.js';
import { findGroup } from '../groups/queries.js';
import { ownGroupAccessLevel } from '../members/queries.js';
import { AccessLevel, visibilityRank, type Visibility } from '../shared/access.js';
import { isProjectPath, PROJECT_PATH_FORMAT_MESSAGE, projectPathReserved, reservedName } from '../shared/paths.js';
import { isProjectNameFormat, PROJECT_NAME_FORMAT_MESSAGE } from '../shared/names.js';
import { changesAnything, dayOf, Errors, isRubyBlank, MAX_NAME, MAX_PROJECT_DESCRIPTION } from '../shared/validation.js';
import type { User } from '../users/projection.js';
import { findUser, findUserByNamespace, projectsLimitOf } from '../users/queries.js';
import { deleteProjectEvents } from './builders.js';
import type { ProjectCommand } from './commands.js';
import type { ProjectEvent } from './events.js';
import type { Project } from './projection.js';
import { findProject, findProjectByFullPath, forksOf, pathFromName, projectsInNamespace, starOf } from './queries.js';

/** What project decisions read. */
export type ProjectsView = MembershipView & { readonly sequences: Sequences; readonly settings: SettingsSlice };

/** `allowed_visibility_level?` / `valid_visibility_level_change?`: a restricted level is for administrators only. */
const refuseRestricted = (state: ProjectsView, actorId: number | null, visibility: Visibility | undefined): E.Either<DomainError, void> =>
  visibility !== undefined && actorId !== null && !isAdmin(state, actorId) && visibilityRestricted(state.settings, visibility)
    ? E.left(validation({ visibility_level: [restrictedVisibilityMessage(visibility)] }))
    : E.right(undefined);

/**
 * `check_personal_projects_limit`: a personal project counts against its creator's `projects_limit` (the instance's
 * `default_projects_limit` when the account was created).
 */
const checkPersonalProjectsLimit = (state: ProjectsView, creator: User | null): E.Either<DomainError, void> => {
  if (!creator) return E.right(undefined);
  const limit = projectsLimitOf(creator);
  let count = 0;
  for (const _ of projectsInNamespace(state.projects, creator.namespace_id)) if (++count >= limit) break;
  if (count < limit) return E.right(undefined);
  const message = limit === 0 ? 'Personal project creation is not allowed. Please contact your administrator with questions' : `Your project limit is ${limit} projects! Please contact your administrator to increase it`;
  return E.left(validation({ limit_reached: [message] }));
};

/** A new project's visibility: the one asked for, else the instance default, capped by its group's. */
const newProjectVisibility = (state: ProjectsView, asked: Visibility | undefined, namespaceId: number): Visibility => {
  if (asked !== undefined) return asked;
  const fallback = defaultProjectVisibility(state.settings);
  const group = findGroup(state.groups, namespaceId);
  return group && visibilityRank(fallback) > visibilityRank(group.visibility) ? group.visibility : fallback;
};

type Emitted = ProjectEvent | MemberEvent;

interface Namespace {
  readonly id: number;
  readonly kind: 'group' | 'user';
  readonly full_path: string;
  readonly owner: User | null;
}

const userNamespace = (state: ProjectsView, namespaceId: number): User | undefined => findUserByNamespace(state.users, namespaceId);

const NAMESPACE_NOT_VALID: DomainError = validation({ namespace: ['is not valid'] });

/** Resolves `namespace_id` (a group or a personal namespace) and checks that the actor may create projects there. */
const resolveNamespace = (state: ProjectsView, actorId: number | null, command: Extract<ProjectCommand, { type: 'CreateProject' }>): E.Either<DomainError, Namespace> => {
  // `POST /projects/user/:user_id`: the service runs as the user (`CreateService.new(user, attrs)`).
  let creatorId = actorId;
  if (command.owner_id !== undefined) {
    if (!isAdmin(state, actorId) && actorId !== null) return E.left(forbidden());
    const owner = findUser(state.users, command.owner_id);
    if (!owner) return E.left(notFound('User'));
    if (command.namespace_id === undefined) return E.right({ id: owner.namespace_id, kind: 'user', full_path: owner.username, owner });
    creatorId = owner.id;
  }
  if (command.namespace_id === undefined) {
    const owner = creatorId === null ? undefined : findUser(state.users, creatorId);
    return owner ? E.right({ id: owner.namespace_id, kind: 'user', full_path: owner.username, owner }) : E.left(forbidden());
  }
  // Projects::CreateService: `allowed_namespace?` (`create_projects` on the namespace, an unknown one included) or
  // `deny_namespace`, a model error (400 {"message":{"namespace":["is not valid"]}}).
  const group = findGroup(state.groups, command.namespace_id);
  if (group) {
    return creatorId === null || canCreateProjectsIn(state, creatorId, group) ? E.right({ id: group.id, kind: 'group', full_path: group.full_path, owner: null }) : E.left(NAMESPACE_NOT_VALID);
  }
  const owner = userNamespace(state, command.namespace_id);
  if (!owner) return E.left(NAMESPACE_NOT_VALID);
  return creatorId === null || creatorId === owner.id || isAdmin(state, creatorId)
    ? E.right({ id: owner.namespace_id, kind: 'user', full_path: owner.username, owner })
    : E.left(NAMESPACE_NOT_VALID);
};

/**
 * Project's `validates :name, presence: true, length: { maximum: 255 }, format: project_name_regex`, in that order.
 * The platform checks the format on every save; here a name is checked when it is new or changes, so that a project an
 * old log holds under no name rule keeps its other updates (as the path's rules).
 */
const nameErrors = (errors: Errors, name: string, current: string | undefined): Errors => {
  errors.check(!isRubyBlank(name), 'name', "can't be blank").maxLength('name', name, MAX_NAME);
  return name === current || isProjectNameFormat(name) ? errors : errors.add('name', PROJECT_NAME_FORMAT_MESSAGE);
};

const validateProject = (state: ProjectsView, fields: { name?: string; path?: string; description?: string }, namespacePath: string, self: Project | null): E.Either<DomainError, void> => {
  const errors = new Errors();
  // Project: description at most 2000 characters; `validates :name, presence, length: { maximum: 255 }, format`;
  // `validates :path, presence, project_path, length: { maximum: 255 }` (in the model's order; none has
  // `allow_blank`, so an empty path has the presence and the format messages).
  errors.maxLength('description', fields.description, MAX_PROJECT_DESCRIPTION);
  if (fields.name !== undefined) nameErrors(errors, fields.name, self?.name);
  if (fields.path !== undefined) {
    errors.check(!isRubyBlank(fields.path), 'path', "can't be blank");
    const valid = isProjectPath(fields.path);
    if (!valid) errors.add('path', PROJECT_PATH_FORMAT_MESSAGE);
    // ProjectPathValidator on the full path: the project route words. Checked when the path changes, so that a
    // project an old log holds keeps its other updates.
    else if (fields.path !== self?.path && projectPathReserved(namespacePath, fields.path)) errors.add('path', reservedName(fields.path));
    errors.maxLength('path', fields.path, MAX_NAME);
    if (valid) {
      // Routable's route uniqueness, appended after the model's own path errors (`set_path_errors`).
      const holder = findProjectByFullPath(state.projects, `${namespacePath}/${fields.path}`);
      if (holder && holder.id !== self?.id) errors.add('path', 'has already been taken');
    }
  }
  return errors.toEither(undefined);
};

/**
 * Projects::CreateService#set_project_name_from_path (forks too, through the same service): both present, kept; a
 * present path alone names the project; a present name alone gives the path; neither, both kept as given (and refused).
 */
const nameAndPath = (name: string | undefined, path: string | undefined): { name: string; path: string } => {
  const presentName = name !== undefined && !isRubyBlank(name);
  const presentPath = path !== undefined && !isRubyBlank(path);
  if (presentPath) return { name: presentName ? name : path, path };
  if (presentName) return { name, path: pathFromName(name) };
  return { name: name ?? '', path: path ?? '' };
};

const requireProject = (state: ProjectsView, id: number): E.Either<DomainError, Project> => {
  const project = findProject(state.projects, id);
  return project ? E.right(project) : E.left(notFound('Project'));
};

/** Projects::TransferService's refusals: 400 "Failed to transfer project {:new_namespace=>[…]}". */
const transferFailed = (text: string): DomainError => ({ _tag: 'BadRequest', message: `Failed to transfer project {:new_namespace=>[${JSON.stringify(text)}]}` });

const transferProjectEvents = (state: ProjectsView, actorId: number | null, project: Project, namespaceId: number, at: string): E.Either<DomainError, Emitted[]> => {
  const group = findGroup(state.groups, namespaceId);
  const owner = group ? undefined : userNamespace(state, namespaceId);
  if (!group && !owner) return E.left(notFound('Namespace'));
  // `allowed_transfer?`: another namespace, where the actor holds `transfer_projects` (a group: Maintainer and
  // `create_projects`, so its `project_creation_level` applies to administrators too; a personal namespace: its owner).
  const mayCreate = actorId === null || (group ? canTransferProjectsInto(state, actorId, group) : owner!.id === actorId || isAdmin(state, actorId));
  if (namespaceId === project.namespace_id || !mayCreate) return E.left(transferFailed('Transfer failed, please contact an admin.'));
  const targetPath = group ? group.full_path : owner!.username;
  const clash = [...projectsInNamespace(state.projects, namespaceId)].some((other) => other.path.toLowerCase() === project.path.toLowerCase() || other.name === project.name);
  if (clash || findProjectByFullPath(state.projects, `${targetPath}/${project.path}`)) return E.left(transferFailed('Project with same name or path in target namespace already exists'));
  const events: Emitted[] = [{ type: 'ProjectTransferred', data: { id: project.id, from_namespace_id: project.namespace_id, namespace_id: namespaceId, namespace_kind: group ? 'group' : 'user', at } }];
  // A project may not be more visible than the group it moves into.
  if (group && visibilityRank(project.visibility) > visibilityRank(group.visibility)) events.push({ type: 'ProjectUpdated', data: { id: project.id, visibility: group.visibility, updated_at: at } });
  return E.right(events);
};

/** A new project's events: ProjectCreated, and the owner of a personal namespace as a direct maintainer. */
const projectCreatedEvents = (
  state: ProjectsView,
  actorId: number | null,
  at: string,
  namespace: Namespace,
  fields: { readonly name: string; readonly path: string; readonly description: string; readonly visibility: Visibility; readonly request_access_enabled?: boolean },
): Emitted[] => {
  const id = state.sequences.project + 1;
  const created: ProjectEvent = {
    type: 'ProjectCreated',
    data: { id, ...fields, namespace_id: namespace.id, namespace_kind: namespace.kind, creator_id: actorId, created_at: at },
  };
  // A personal project's owner becomes a direct maintainer; a group's project gets no direct members.
  const owner = namespace.owner
    ? [memberAdded(state, { source_type: 'Project', source_id: id, user_id: namespace.owner.id, access_level: AccessLevel.MAINTAINER, at, created_by_id: actorId })]
    : [];
  return [created, ...owner];
};

const leastVisible = (...levels: readonly Visibility[]): Visibility => levels.reduce((a, b) => (visibilityRank(b) < visibilityRank(a) ? b : a));

/**
 * Projects::ForkService: `fork_project` on the source (else "404 Project Not Found"), a target namespace that
 * exists ("404 Namespace Not Found") and is a fork target of the actor (`ForkTargetsFinder`: their own namespace
 * or a group where they may create projects; administrators: any; else "404 Target Namespace Not Found"). The
 * fork is at most as visible as the source and the namespace (and `visibility`, when given); its name and path
 * must be free in the namespace (the HTTP route answers those 409).
 */
const decideFork = (state: ProjectsView, actorId: number | null, at: string, command: Extract<ProjectCommand, { type: 'ForkProject' }>): E.Either<DomainError, readonly Emitted[]> => {
  const source = findProject(state.projects, command.id);
  if (!source || (actorId !== null && !canDownloadCode(state, actorId, source))) return E.left(notFound('Project'));
  const admin = actorId === null || isAdmin(state, actorId);
  let namespace: Namespace;
  let namespaceVisibility: Visibility;
  if (command.namespace_id === undefined) {
    const owner = actorId === null ? undefined : findUser(state.users, actorId);
    if (!owner) return E.left(forbidden());
    namespace = { id: owner.namespace_id, kind: 'user', full_path: owner.username, owner };
    namespaceVisibility = 'public';
  } else {
    const group = findGroup(state.groups, command.namespace_id);
    const owner = group ? undefined : userNamespace(state, command.namespace_id);
    if (!group && !owner) return E.left(notFound('Namespace'));
    // `manageable_groups(include_groups_with_developer_maintainer_access: true)`: Maintainer (whatever the group's
    // `project_creation_level`), or Developer where developers create projects, by the actor's own memberships in the
    // group or above it (`owned_or_maintainers_groups`, `developer_groups` and the groups below them), not by shares.
    const access = group && actorId !== null ? ownGroupAccessLevel(state, group, actorId, dayOf(at)) : 0;
    const target = group ? access >= AccessLevel.MAINTAINER || (access >= AccessLevel.DEVELOPER && (group.project_creation_level ?? 2) === 2) : owner!.id === actorId;
    if (!admin && !target) return E.left(notFound('Target Namespace'));
    // Projects::CreateService's `allowed_namespace?` (`create_projects`), a model error the route answers with 409.
    if (group && actorId !== null && !canCreateProjectsIn(state, actorId, group)) return E.left(validation({ namespace: ['is not valid'] }));
    namespace = group ? { id: group.id, kind: 'group', full_path: group.full_path, owner: null } : { id: owner!.namespace_id, kind: 'user', full_path: owner!.username, owner: owner! };
    // A personal namespace is public.
    namespaceVisibility = group ? group.visibility : 'public';
  }
  // ForkService's `@params[:name] || @project.name` (an empty string is given), then CreateService's defaults.
  const { name, path } = nameAndPath(command.name ?? source.name, command.path ?? source.path);
  const description = command.description ?? source.description;
  const visibility = leastVisible(source.visibility, namespaceVisibility, ...(command.visibility ? [command.visibility] : []));
  const errors = new Errors();
  errors.maxLength('description', description, MAX_PROJECT_DESCRIPTION);
  nameErrors(errors, name, undefined);
  // `validates :name, uniqueness: { scope: :namespace_id }`, as `path` below.
  if ([...projectsInNamespace(state.projects, namespace.id)].some((other) => other.name === name)) errors.add('name', 'has already been taken');
  const pathChecked = validateProject(state, { path }, namespace.full_path, null);
  if (E.isLeft(pathChecked) && pathChecked.left._tag === 'Validation') for (const [field, messages] of Object.entries(pathChecked.left.errors)) for (const message of messages) errors.add(field, message);
  return pipe(
    errors.toEither(undefined),
    E.map((): Emitted[] => {
      const events = projectCreatedEvents(state, actorId, at, namespace, { name, path, description, visibility });
      return [...events, { type: 'ProjectForked', data: { id: state.sequences.project + 1, forked_from_id: source.id, at } }];
    }),
  );
};

/**
 * `POST /projects/:id/star` and `/unstar` (`User#toggle_star`): a signed-in user (else 401), a project they can read
 * (`user_project`, else "404 Project Not Found"); a star already there (or, to take back, none) records nothing, which
 * the route answers 304 (`not_modified!`).
 */
const decideStar = (state: ProjectsView, actorId: number | null, at: string, command: Extract<ProjectCommand, { type: 'StarProject' | 'UnstarProject' }>): E.Either<DomainError, readonly Emitted[]> => {
  if (actorId === null) return E.left(unauthorized);
  const project = findProject(state.projects, command.id);
  if (!project || !canReadProject(state, actorId, project)) return E.left(notFound('Project'));
  const starred = starOf(state.projects, actorId, project.id) !== undefined;
  if (command.type === 'StarProject') return E.right(starred ? [] : [{ type: 'ProjectStarred', data: { id: project.id, user_id: actorId, at } }]);
  return E.right(starred ? [{ type: 'ProjectUnstarred', data: { id: project.id, user_id: actorId, at } }] : []);
};

const namespacePathOf = (project: Project): string => project.path_with_namespace.slice(0, project.path_with_namespace.length - project.path.length - 1);

export const decide = (issued: Issued<ProjectCommand>, state: ProjectsView): E.Either<DomainError, readonly Emitted[]> => {
  const { command, at, actor } = issued;
  switch (command.type) {
    case 'CreateProject': {
      const { name, path } = nameAndPath(command.name, command.path);
      // The service's order: a restricted visibility, then the namespace, then the model's validations. With `owner_id`
      // (`POST /projects/user/:user_id`) the service runs as that user, whose level it checks.
      return pipe(
        refuseRestricted(state, command.owner_id !== undefined && actor.userId !== null ? command.owner_id : actor.userId, command.visibility),
        E.chain(() => resolveNamespace(state, actor.userId, command)),
        E.chainFirst((namespace) => checkPersonalProjectsLimit(state, namespace.kind === 'user' ? (command.owner_id !== undefined ? namespace.owner : actor.userId === null ? null : findUser(state.users, actor.userId) ?? null) : null)),
        E.chainFirst((namespace) => validateProject(state, { name, path, ...(command.description !== undefined ? { description: command.description } : {}) }, namespace.full_path, null)),
        E.map((namespace) =>
          projectCreatedEvents(state, actor.userId, at, namespace, {
            name,
            path,
            description: command.description ?? '',
            visibility: newProjectVisibility(state, command.visibility, namespace.id),
            ...(command.request_access_enabled === false ? { request_access_enabled: false } : {}),
          }),
        ),
      );
    }
    case 'ForkProject':
      return decideFork(state, actor.userId, at, command);
    case 'StarProject':
    case 'UnstarProject':
      return decideStar(state, actor.userId, at, command);
    case 'UpdateProject':
      return pipe(
        requireProject(state, command.id),
        E.chain((project) => authorizeProject(state, actor.userId, 'admin_project', project, project)),
        // lib/api/projects.rb: `authorize! :rename_project if attrs[:name].present?`, and `:change_visibility_level`
        // whenever a visibility is given (the same one too): both the owner's.
        E.chainFirst((project) => (command.name !== undefined && !isRubyBlank(command.name) ? authorizeProject(state, actor.userId, 'rename_project', project, project) : E.right(project))),
        E.chainFirst((project) => (command.visibility !== undefined ? authorizeProject(state, actor.userId, 'change_visibility_level', project, project) : E.right(project))),
        E.chainFirst((project) => (command.visibility !== project.visibility ? refuseRestricted(state, actor.userId, command.visibility) : E.right(undefined))),
        E.chainFirst((project) => validateProject(state, command, namespacePathOf(project), project)),
        E.map((project): Emitted[] => {
          const { type: _type, ...given } = command;
          // The value held is no change, and stays out of the event.
          const { request_access_enabled, ...rest } = given;
          const changes = request_access_enabled === undefined || request_access_enabled === project.request_access_enabled ? rest : given;
          return changesAnything(project, changes) ? [{ type: 'ProjectUpdated', data: { ...changes, id: project.id, updated_at: at } }] : [];
        }),
      );
    case 'TransferProject':
      return pipe(
        requireProject(state, command.id),
        // `authorize! :change_namespace`: the project's owner (or an administrator).
        E.chain((project) => authorizeProject(state, actor.userId, 'change_namespace', project, project)),
        E.chain((project) => transferProjectEvents(state, actor.userId, project, command.namespace_id, at)),
      );
    case 'UnlinkFork':
      return pipe(
        requireProject(state, command.id),
        // `authorize! :remove_fork_project` (ProjectPolicy: the owner). Projects::UnlinkForkService takes the project out
        // of its fork network and its direct forks with it (`forked_to_members.update_all(forked_from_project_id: nil)`),
        // a root of forks included; a project that forks nothing and has no forks changes nothing.
        E.chain((project) => authorizeProject(state, actor.userId, 'remove_fork_project', project, project)),
        E.map((project): Emitted[] => {
          const events: Emitted[] = project.forked_from_id === null ? [] : [{ type: 'ProjectUnforked', data: { id: project.id, forked_from_id: project.forked_from_id, at } }];
          for (const fork of forksOf(state.projects, project.id)) events.push({ type: 'ProjectUnforked', data: { id: fork.id, forked_from_id: project.id, at } });
          return events;
        }),
      );
    case 'DeleteProject':
      return pipe(
        requireProject(state, command.id),
        E.chain((project) => authorizeProject(state, actor.userId, 'remove_project', project, project)),
        E.map((project) => deleteProjectEvents(state, project.id, at)),
      );
  }
};


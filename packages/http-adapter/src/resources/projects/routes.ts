/** Projects: list (offset and keyset), create (also for a user, by an administrator), show, update, delete (lib/api/projects.rb). */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import {
  AccessLevel,
  branchSha,
  canOnProject,
  forbidden,
  defaultBranchOf,
  canReadGroup,
  canReadProject,
  findGroup,
  findGroupByIdOrPath,
  findProject,
  findRepository,
  findUserByIdOrUsername,
  findUserByNamespace,
  findUserByUsername,
  sharedProjectCandidates,
  linksOfSource,
  forksOf,
  groupProjectCandidates,
  selfAndDescendants,
  listProjects,
  notFound,
  projectAccessLevel,
  projectsInNamespace,
  projectsStarredBy,
  selfAndAncestors,
  starOf,
  type ForgefoldCommand,
  type Group,
  type Project,
  type User,
  type State,
  defaultBranchName,
  type DomainError,
} from '@forgefold/core';
import { isValidNewRefName } from '@forgefold/git';
import { ApiError, arraySource, checkUnmodifiedSince, created, noContent, ok, paginate, route, sortedArrayKeysetSource, withStatus, type HandlerContext, type ParamsOfSchema, type AnyRouteDef } from '../../http/index.js';
import { createdId, findReadableProject, findUserOr404, listableProjects, presentContext, viewerId, type ApiDeps, type Ctx } from '../../app/deps.js';
import { commandRoute, groupOfRoute, nothing, projectOfRoute, type CommandResultOf } from '../../app/routes.js';
import { groupDetailEntity, publicGroupDetailsEntity } from '../groups/entities.js';
import { readsProfile } from '../users/entities.js';
import { basicProjectDetails, projectEntity, projectWithAccessEntity } from './entities.js';
import {
  createForUserParams,
  createParams,
  forkParams,
  groupProjectsParams,
  groupProjectTransferParams,
  listParams,
  projectGroupsParams,
  transferParams,
  updateParams,
  userProjectsParams,
} from './params.js';

/** Offset pagination over projects stops at 50,000 records (reference §1.7 item 48). */
const MAX_OFFSET = { limit: 50_000, type: 'Project' };

const sortKey = (orderBy: ParamsOfSchema<typeof listParams>['order_by']): keyof Project => (orderBy === 'similarity' ? 'name' : orderBy);

/** The projects a caller may list, filtered and in the requested order. */
const listed = (ctx: HandlerContext<ParamsOfSchema<typeof listParams>>, state: State, candidates: Iterable<Project> = listProjects(state.projects)): Project[] => {
  const { params } = ctx;
  const userId = ctx.principal?.userId ?? null;
  const projects: Project[] = [];
  // No project is archived here (archiving is not served): asking for archived ones finds none.
  if (params.archived === true) return [];
  // ProjectsFinder#by_starred: the caller's starred projects; without a caller `starred` is no filter.
  const starredBy = params.starred && userId !== null ? userId : null;
  for (const project of candidates) {
    if (starredBy !== null && !starOf(state.projects, starredBy, project.id)) continue;
    if (!canReadProject(state, userId, project)) continue;
    if (params.visibility && project.visibility !== params.visibility) continue;
    // Project.search: path, name and description; with `search_namespaces`, the full path and full name instead.
    if (params.search && !(params.search_namespaces ? `${project.path_with_namespace}\n${project.name_with_namespace}` : `${project.path}\n${project.name}`).concat(`\n${project.description}`).toLowerCase().includes(params.search.toLowerCase())) continue;
    const needsAccess = params.membership || params.owned || params.min_access_level;
    if (needsAccess) {
      // `project_authorizations` (14.7): the namespace's owner holds a personal project as Maintainer
      // (`select_as_maintainer_for_project_authorization`; Owner only from 14.8), with or without a membership there;
      // administrators nothing more.
      const ownsNamespace = userId !== null && project.namespace_kind === 'user' && findUserByNamespace(state.users, project.namespace_id)?.id === userId;
      const level = userId === null ? 0 : Math.max(ownsNamespace ? AccessLevel.MAINTAINER : 0, projectAccessLevel(state, project, userId));
      if (level === 0) continue;
      if (params.min_access_level && level < params.min_access_level) continue;
      // `current_user.owned_projects`: the user's personal namespace's projects and those they are authorized in as Owner.
      if (params.owned && !ownsNamespace && level < AccessLevel.OWNER) continue;
    }
    projects.push(project);
  }
  // Projects iterate in id order already; other orders sort with id as the tie-breaker.
  if (params.order_by !== 'id') {
    const key = sortKey(params.order_by);
    projects.sort((a, b) => (a[key]! < b[key]! ? -1 : a[key]! > b[key]! ? 1 : a.id - b.id));
  }
  if (params.sort === 'desc') projects.reverse();
  return projects;
};

/** A namespace (group or personal) by id or full path, when the caller may read it; undefined otherwise. */
const readableNamespaceId = (state: State, viewer: number | null, viewerIsAdmin: boolean, value: string): number | undefined => {
  const group = findGroupByIdOrPath(state.groups, value);
  if (group) return canReadGroup(state, viewer, group) ? group.id : undefined;
  const owner = /^\d+$/.test(value) ? findUserByNamespace(state.users, Number(value)) : findUserByUsername(state.users, value);
  return owner && (viewerIsAdmin || owner.id === viewer) ? owner.namespace_id : undefined;
};

type CreateFields = ParamsOfSchema<typeof createParams>;

const createCommand = (params: CreateFields, ownerId?: number): ForgefoldCommand => {
  // A default branch git would refuse never reaches the log (the repository is created with it).
  if (params.default_branch && !isValidNewRefName(params.default_branch)) throw ApiError.error(400, 'default_branch is invalid');
  return {
  type: 'CreateProject',
  // A given name or path, empty or blank too, reaches the service (`declared_params(include_missing: false)`).
  ...(params.name !== undefined && params.name !== null ? { name: params.name } : {}),
  ...(params.path !== undefined && params.path !== null ? { path: params.path } : {}),
  ...(params.namespace_id !== undefined && params.namespace_id !== null ? { namespace_id: params.namespace_id } : {}),
  ...(ownerId !== undefined ? { owner_id: ownerId } : {}),
  ...(params.visibility ? { visibility: params.visibility } : {}),
  ...(params.description ? { description: params.description } : {}),
  ...(params.request_access_enabled === false ? { request_access_enabled: false } : {}),
  };
};

/** `error!(project.errors[:limit_reached], 403)`: the personal projects limit is answered 403 with the messages as an array. */
const limitReached = (error: DomainError): DomainError => {
  const messages = error._tag === 'Validation' ? error.errors['limit_reached'] : undefined;
  if (messages) throw new ApiError(403, { message: messages });
  return error;
};

export const projectRoutes = (deps: ApiDeps): AnyRouteDef[] => {
  const present = (ctx: Ctx, project: Project, state = deps.app.state) => projectEntity(project, presentContext(deps, ctx, state));
  /**
   * The repository follows the recorded project: its default branch (recorded while it has no branch), the git
   * repository, then its README commit, recorded as any commit.
   */
  const presentCreated = async (done: CommandResultOf, ctx: HandlerContext<CreateFields>) => {
    const id = createdId(done, 'ProjectCreated');
    const { initialize_with_readme: readme } = ctx.params;
    // The instance's `default_branch_name` names the initial branch unless the request names one (validated above).
    // The setting is stored as given, as the platform stores it; one git refuses ("a..b") is passed over for the
    // platform's own default, so that the project gets a repository (without one, its repository routes failed).
    const instanceDefault = defaultBranchName(done.state.settings);
    const defaultBranch = ctx.params.default_branch || (instanceDefault !== null && isValidNewRefName(instanceDefault) ? instanceDefault : null);
    if (defaultBranch && defaultBranch !== findRepository(done.state.repositories, id)?.default_branch) {
      await deps.app.execute(ctx.actor, { type: 'ChangeDefaultBranch', project_id: id, branch: defaultBranch, initial: true });
    }
    const project = findProject(done.state.projects, id)!;
    await deps.repositories.initialize(id, ctx.actor, readme ? { content: `# ${project.name}\n${project.description ? `\n${project.description}\n` : ''}` } : null);
    const state = deps.app.state;
    return created(present(ctx, findProject(state.projects, id) ?? project, state));
  };
  /** `simple=true`: BasicProjectDetails. */
  const presentListed = (ctx: HandlerContext<ParamsOfSchema<typeof listParams>>, project: Project) =>
    ctx.params.simple ? basicProjectDetails(project, presentContext(deps, ctx)) : present(ctx, project);
  /** A group's projects (lib/api/groups.rb's `present_projects`): the readable candidates by id, filtered, offset-paged. */
  const groupProjectsPage = (ctx: HandlerContext<ParamsOfSchema<typeof listParams>>, state: State, candidates: ReadonlyMap<number, Project>) =>
    paginate(ctx, arraySource(listed(ctx, state, [...candidates.values()].sort((a, b) => a.id - b.id))), {
      map: (project) => presentListed(ctx, project),
      maxOffset: MAX_OFFSET,
    });
  /**
   * `GET /projects`, `/users/:user_id/projects` and `/projects/:id/forks` (the projects helper's `present_projects`):
   * signed-in callers get ProjectWithAccess (their `permissions`), unless `simple`.
   */
  const page = (ctx: HandlerContext<ParamsOfSchema<typeof listParams>>, projects: Project[]) =>
    paginate(ctx, arraySource(projects), {
      map: (project) => (ctx.principal && !ctx.params.simple ? projectWithAccessEntity(project, presentContext(deps, ctx)) : presentListed(ctx, project)),
      maxOffset: MAX_OFFSET,
      keyset: {
        source: sortedArrayKeysetSource(ctx.params.sort === 'desc' ? [...projects].reverse() : projects, (project) => project.id),
        supports: (orderBy) => orderBy === 'id',
      },
    });
  /** A user's project list (`:user_id` by id or username, else 404 User Not Found) through the projects list. */
  const userProjectsRoute = (path: string, candidates: (state: State, user: User, ctx: Ctx) => Iterable<Project>) =>
    route({
      method: 'GET',
      path,
      auth: 'optional',
      params: userProjectsParams,
      handler: (ctx) => {
        const state = deps.app.state;
        const user = findUserByIdOrUsername(state.users, ctx.params.user_id);
        return user ? page(ctx, listed(ctx, state, candidates(state, user, ctx))) : notFound('User');
      },
    });
  return [
    route({
      method: 'GET',
      path: '/projects',
      auth: 'optional',
      params: listParams,
      handler: (ctx) => {
        const state = deps.app.state;
        const { membership, owned, min_access_level: minAccessLevel, starred } = ctx.params;
        // `starred=true` from a signed-in caller: their stars' index, not every project they can see.
        const userId = ctx.principal?.userId ?? null;
        if (starred && userId !== null) return page(ctx, listed(ctx, state, projectsStarredBy(state.projects, userId)));
        // Public and internal projects only when the filters do not ask for access.
        return page(ctx, listed(ctx, state, listableProjects(ctx, state, !(membership || owned || minAccessLevel))));
      },
    }),
    // lib/api/projects.rb: the projects of the user's personal namespace that the caller can see; by id or username.
    userProjectsRoute('/users/:user_id/projects', (state, user) => projectsInNamespace(state.projects, user.namespace_id)),
    // StarredProjectsFinder: the projects the user starred (their stars' index), through the projects list's
    // visibility, filters and order; none unless the caller may read the user's profile (`read_user_profile`).
    userProjectsRoute('/users/:user_id/starred_projects', (state, user, ctx) =>
      readsProfile(user, presentContext(deps, ctx, state)) ? projectsStarredBy(state.projects, user.id) : [],
    ),
    route({
      method: 'GET',
      path: '/groups/:id/projects',
      auth: 'optional',
      params: groupProjectsParams,
      handler: (ctx) => {
        // GroupProjectsFinder: the group's projects (with its subgroups' when `include_subgroups`) and, with
        // `with_shared`, the projects shared with the group; those the caller can see, with the projects list's
        // filters and order; offset pagination only.
        const state = deps.app.state;
        const found = groupOfRoute(ctx, state);
        if (E.isLeft(found)) return found.left;
        // Per group, every project when the caller reads them all through the group, else those it may see by
        // visibility and those its own memberships open (`groupProjectCandidates`): what the caller can see, not the
        // size of the group; `listed` then filters them as it would filter every project of the groups.
        const candidates = new Map<number, Project>();
        const groups = ctx.params.include_subgroups ? selfAndDescendants(state.groups, found.right) : [found.right];
        for (const project of groupProjectCandidates(state, viewerId(ctx), groups)) candidates.set(project.id, project);
        // `with_shared`: the group's shared projects the same way (`sharedProjectCandidates`), not every share into it.
        if (ctx.params.with_shared) for (const project of sharedProjectCandidates(state, viewerId(ctx), found.right)) candidates.set(project.id, project);
        return groupProjectsPage(ctx, state, candidates);
      },
    }),
    route({
      method: 'GET',
      path: '/groups/:id/projects/shared',
      auth: 'optional',
      params: listParams,
      handler: (ctx) => {
        // `find_group_projects(params, { only_shared: true })`: the projects shared with the group, from those the caller
        // may see by visibility and those its own memberships reach (`sharedProjectCandidates`), not every share.
        const state = deps.app.state;
        const found = groupOfRoute(ctx, state);
        if (E.isLeft(found)) return found.left;
        const candidates = new Map<number, Project>();
        for (const project of sharedProjectCandidates(state, viewerId(ctx), found.right)) candidates.set(project.id, project);
        return groupProjectsPage(ctx, state, candidates);
      },
    }),
    commandRoute(deps, {
      method: 'POST',
      path: '/groups/:id/projects/:project_id',
      admin: true,
      params: groupProjectTransferParams,
      // lib/api/groups.rb: administrators only, `find_group!`, `find_project!`, then Projects::TransferService; a refusal
      // is 400 "Failed to transfer project {…}" and the answer the GroupDetail of the group.
      find: (ctx, state) =>
        pipe(
          groupOfRoute(ctx, state),
          E.chain((group) =>
            pipe(
              findReadableProject(state, ctx, ctx.params.project_id ?? ''),
              E.map((project) => ({ group, project })),
            ),
          ),
        ),
      command: (_ctx, { group, project }) => ({ type: 'TransferProject', id: project.id, namespace_id: group.id }),
      present: (done, ctx, { group }) => created(groupDetailEntity(findGroup(done.state.groups, group.id)!, presentContext(deps, ctx, done.state))),
    }),
    route({
      method: 'GET',
      path: '/projects/:id/groups',
      auth: 'optional',
      params: projectGroupsParams,
      handler: (ctx) => {
        const state = deps.app.state;
        const found = projectOfRoute(ctx, state);
        if (E.isLeft(found)) return found.left;
        const project = found.right;
        const viewer = ctx.principal?.userId ?? null;
        // Projects::GroupsFinder: the project's group and its ancestors, with_shared adds the invited groups (at least
        // shared_min_access_level); groups the caller cannot see are left out; newest id first.
        const groups = new Map<number, Group>();
        const home = project.namespace_kind === 'group' ? findGroup(state.groups, project.namespace_id) : undefined;
        if (home) for (const group of selfAndAncestors(state.groups, home)) groups.set(group.id, group);
        if (ctx.params.with_shared) {
          for (const link of linksOfSource(state.members, 'Project', project.id)) {
            if (ctx.params.shared_min_access_level && link.group_access < ctx.params.shared_min_access_level) continue;
            const group = findGroup(state.groups, link.group_id);
            if (group) groups.set(group.id, group);
          }
        }
        const search = (ctx.params.search ?? '').toLowerCase();
        const skip = new Set((ctx.params.skip_groups ?? []).filter((id): id is number => id !== null));
        const rows = [...groups.values()]
          .filter((group) => canReadGroup(state, viewer, group) && !skip.has(group.id))
          .filter((group) => search === '' || `${group.name} ${group.path}`.toLowerCase().includes(search))
          .sort((a, b) => b.id - a.id);
        const view = presentContext(deps, ctx);
        return paginate(ctx, arraySource(rows), { map: (group) => publicGroupDetailsEntity(group, view) });
      },
    }),
    commandRoute(deps, { method: 'POST', path: '/projects', params: createParams, find: nothing, command: ({ params }) => createCommand(params), present: presentCreated, error: limitReached }),
    commandRoute(deps, {
      method: 'POST',
      path: '/projects/user/:user_id',
      admin: true,
      params: createForUserParams,
      find: (ctx, state) => findUserOr404(state, ctx.params.user_id),
      command: ({ params }, owner) => createCommand(params, owner.id),
      present: presentCreated,
      error: limitReached,
    }),
    route({
      method: 'GET',
      path: '/projects/:id',
      auth: 'optional',
      handler: (ctx) =>
        pipe(
          projectOfRoute(ctx, deps.app.state),
          // Signed-in callers get ProjectWithAccess (their `permissions`), anonymous ones the Project entity.
          E.map((project) => ok(ctx.principal ? projectWithAccessEntity(project, presentContext(deps, ctx)) : present(ctx, project))),
        ),
    }),
    commandRoute(deps, {
      method: 'PUT',
      path: '/projects/:id',
      params: updateParams,
      find: projectOfRoute,
      // lib/api/projects.rb authorizes everything before it updates anything: the default branch below must not move
      // for a request the decider then refuses (a Maintainer's rename, or any visibility: the owner's).
      authorize: (ctx, state, project) => {
        const viewer = ctx.principal?.userId ?? null;
        if (ctx.params.name && !canOnProject(state, viewer, 'rename_project', project)) return forbidden();
        if (ctx.params.visibility && !canOnProject(state, viewer, 'change_visibility_level', project)) return forbidden();
        return null;
      },
      command: async (ctx, project) => {
        const { params } = ctx;
        // The default branch first (its refusal changes nothing), then HEAD in git, which reconciliation keeps.
        if (params.default_branch) {
          const repository = findRepository(deps.app.state.repositories, project.id);
          if (!repository || branchSha(repository, params.default_branch) === null) return { _tag: 'BadRequest', message: 'Could not set the default branch' };
          const moved = await deps.app.execute(ctx.actor, { type: 'ChangeDefaultBranch', project_id: project.id, branch: params.default_branch });
          if (E.isLeft(moved)) return moved.left;
          if (moved.right.events.length > 0) await deps.repositories.open(project.id).setHeadBranch(params.default_branch);
        }
        return {
        type: 'UpdateProject',
        id: project.id,
        // A given name or path, empty or blank too, reaches the model (`declared_params(include_missing: false)`).
        ...(params.name !== undefined && params.name !== null ? { name: params.name } : {}),
        ...(params.path !== undefined && params.path !== null ? { path: params.path } : {}),
        ...(params.visibility ? { visibility: params.visibility } : {}),
        ...(params.description !== undefined && params.description !== null ? { description: params.description } : {}),
        ...(params.merge_method ? { merge_method: params.merge_method } : {}),
        ...(params.request_access_enabled !== undefined && params.request_access_enabled !== null ? { request_access_enabled: params.request_access_enabled } : {}),
        };
      },
      present: (done, ctx, project) => ok(present(ctx, findProject(done.state.projects, project.id)!, done.state)),
    }),
    commandRoute(deps, {
      method: 'PUT',
      path: '/projects/:id/transfer',
      params: transferParams,
      find: projectOfRoute,
      // `find_namespace!`: a group the caller can read, or a personal namespace they own (administrators: any), by id
      // or path; anything else is -1, which the decision answers "404 Namespace Not Found" after its 403.
      command: (ctx, project) => ({
        type: 'TransferProject',
        id: project.id,
        namespace_id: readableNamespaceId(deps.app.state, ctx.principal?.userId ?? null, ctx.principal?.isAdmin ?? false, ctx.params.namespace ?? '') ?? -1,
      }),
      present: (done, ctx, project) => ok(present(ctx, findProject(done.state.projects, project.id)!, done.state)),
    }),
    route({
      method: 'GET',
      path: '/projects/:id/forks',
      auth: 'optional',
      params: listParams,
      handler: (ctx) => {
        // `ForkProjectsFinder`: the project's direct forks the caller can see, with the project list's filters,
        // order and pagination (`present_projects`).
        const state = deps.app.state;
        const found = projectOfRoute(ctx, state);
        if (E.isLeft(found)) return found.left;
        const source = found.right;
        return page(ctx, listed(ctx, state, forksOf(state.projects, source.id)));
      },
    }),
    commandRoute(deps, {
      method: 'POST',
      path: '/projects/:id/fork',
      params: forkParams,
      find: projectOfRoute,
      // `find_namespace!` / `find_namespace_by_path!`: a namespace the caller can read, else -1 ("404 Namespace Not Found").
      command: (ctx, project) => {
        const { params } = ctx;
        const asked = params.namespace_id !== undefined && params.namespace_id !== null ? String(params.namespace_id) : params.namespace_path || params.namespace || undefined;
        const namespaceId = asked === undefined ? undefined : (readableNamespaceId(deps.app.state, ctx.principal?.userId ?? null, ctx.principal?.isAdmin ?? false, asked) ?? -1);
        return {
          type: 'ForkProject',
          id: project.id,
          ...(namespaceId !== undefined ? { namespace_id: namespaceId } : {}),
          // ForkService's `@params[:name] || @project.name`: an empty string is given (then CreateService's defaults).
          ...(params.name !== undefined && params.name !== null ? { name: params.name } : {}),
          ...(params.path !== undefined && params.path !== null ? { path: params.path } : {}),
          ...(params.description !== undefined && params.description !== null ? { description: params.description } : {}),
          ...(params.visibility ? { visibility: params.visibility } : {}),
        };
      },
      // `conflict!(forked_project.errors.messages)`: the model's errors, with 409.
      error: (error) => {
        if (error._tag === 'Validation') throw ApiError.message(409, error.errors);
        return error;
      },
      // The repository follows the recorded fork: HEAD on the source's default branch, then every branch and tag.
      present: async (done, ctx, source) => {
        const id = createdId(done, 'ProjectCreated');
        const sourceBranch = defaultBranchOf(findRepository(done.state.repositories, source.id)!);
        if (sourceBranch !== null && sourceBranch !== findRepository(done.state.repositories, id)?.default_branch) {
          await deps.app.execute(ctx.actor, { type: 'ChangeDefaultBranch', project_id: id, branch: sourceBranch, initial: true });
        }
        await deps.repositories.initializeFork(id, source.id, ctx.actor);
        const state = deps.app.state;
        return created(present(ctx, findProject(state.projects, id)!, state));
      },
    }),
    commandRoute(deps, {
      method: 'DELETE',
      path: '/projects/:id/fork',
      find: projectOfRoute,
      // lib/api/projects.rb: `authorize! :remove_fork_project`, then `destroy_conditionally!` (If-Unmodified-Since) around
      // Projects::UnlinkForkService; 204, or `not_modified!` when the project forks nothing.
      command: (ctx, project) => {
        checkUnmodifiedSince(ctx.request.headers, project.updated_at);
        return { type: 'UnlinkFork', id: project.id };
      },
      present: (done) => (done.events.length > 0 ? noContent() : withStatus(304)),
    }),
    commandRoute(deps, {
      method: 'DELETE',
      path: '/projects/:id',
      find: projectOfRoute,
      command: (ctx, project) => {
        checkUnmodifiedSince(ctx.request.headers, project.updated_at);
        return { type: 'DeleteProject', id: project.id };
      },
      present: () => withStatus(202, { message: '202 Accepted' }),
    }),
  ];
};

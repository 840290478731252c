/** Projects: list (offset and keyset), create (also for a user, by an administrator), show, update, delete (lib/api/projects.rb). */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import {
  VISIBILITIES,
  canReadGroup,
  canReadProject,
  findGroup,
  findGroupByIdOrPath,
  findProject,
  findUserByNamespace,
  findUserByUsername,
  type State,
  findUserByIdOrUsername,
  linksOfSource,
  listProjects,
  notFound,
  projectAccessLevel,
  projectsInNamespace,
  selfAndAncestors,
  type Group,
  type Project,
  type Visibility,
} from '@forgefold/core';
import { arraySource, atLeastOneOf, checkUnmodifiedSince, created, extend, ok, optional, paginate, requires, route, schema, sortedArrayKeysetSource, T, withStatus, type RouteDef } from '../http/index.js';
import { publicGroupDetailsEntity } from '../entities/groups.js';
import { projectEntity, projectWithAccessEntity } from '../entities/projects.js';
import { createdId, execute, findReadableProject, findUserOr404, presentContext, type ApiDeps, type Ctx } from '../app/deps.js';

const ORDERS = ['id', 'name', 'path', 'created_at', 'updated_at', 'last_activity_at', 'similarity'] as const;

const listParams = schema(
  optional('order_by', T.String, { values: [...ORDERS], default: 'created_at' }),
  optional('sort', T.String, { values: ['asc', 'desc'], default: 'desc' }),
  optional('search', T.String),
  optional('visibility', T.String, { values: VISIBILITIES as readonly string[] }),
  optional('owned', T.Boolean, { default: false }),
  optional('membership', T.Boolean, { default: false }),
  optional('simple', T.Boolean, { default: false }),
  optional('min_access_level', T.Integer, { values: [10, 20, 30, 40, 50] }),
  optional('pagination', T.String, { values: ['offset', 'keyset'] }),
  optional('id_after', T.Integer),
  optional('id_before', T.Integer),
  optional('page', T.Integer, { default: 1 }),
  optional('per_page', T.Integer, { default: 20 }),
);

const createFields = [
  optional('name', T.String),
  optional('path', T.String),
  optional('namespace_id', T.Integer),
  optional('visibility', T.String, { values: VISIBILITIES as readonly string[] }),
  optional('description', T.String),
  atLeastOneOf('name', 'path'),
] as const;

const updateParams = schema(
  optional('name', T.String),
  optional('path', T.String),
  optional('visibility', T.String, { values: VISIBILITIES as readonly string[] }),
  optional('description', T.String),
);

/** A namespace (group or personal) by id or full path, when the caller may read it; undefined otherwise. */
const readableNamespaceId = (state: State, viewer: number | null, viewerIsAdmin: boolean, value: string): number | undefined => {
  const group = findGroupByIdOrPath(state.groups, value);
  if (group) return canReadGroup(state, viewer, group) ? group.id : undefined;
  const owner = /^\d+$/.test(value) ? findUserByNamespace(state.users, Number(value)) : findUserByUsername(state.users, value);
  return owner && (viewerIsAdmin || owner.id === viewer) ? owner.namespace_id : undefined;
};

type ListParams = typeof listParams extends { _A: infer P } ? P : never;

/** Offset pagination over projects stops at 50,000 records (reference §1.7 item 48). */
const MAX_OFFSET = { limit: 50_000, type: 'Project' };

const sortKey = (orderBy: string): keyof Project => (orderBy === 'similarity' ? 'name' : (orderBy as keyof Project));

export const projectRoutes = (deps: ApiDeps): RouteDef[] => {
  const present = (ctx: Ctx, project: Project, state = deps.app.state) => projectEntity(project, presentContext(deps, ctx, state));
  const create = async (ctx: Ctx, params: { name?: string | null; path?: string | null; namespace_id?: number | null; visibility?: string | null; description?: string | null }, ownerId?: number) => {
    const result = await execute(deps, ctx, {
      type: 'CreateProject',
      ...(params.name ? { name: params.name } : {}),
      ...(params.path ? { path: params.path } : {}),
      ...(params.namespace_id !== undefined && params.namespace_id !== null ? { namespace_id: params.namespace_id } : {}),
      ...(ownerId !== undefined ? { owner_id: ownerId } : {}),
      ...(params.visibility ? { visibility: params.visibility as Visibility } : {}),
      ...(params.description ? { description: params.description } : {}),
    });
    return pipe(
      result,
      E.map((done) => created(present(ctx, findProject(done.state.projects, createdId(done, 'ProjectCreated'))!, done.state))),
    );
  };
  /** `GET /projects` and `GET /users/:user_id/projects`: the readable ones among `candidates`, filtered, ordered, paged. */
  const list = (ctx: Ctx & { params: ListParams }, candidates: Iterable<Project>) => {
        const { params } = ctx;
        const state = deps.app.state;
        const userId = ctx.principal?.userId ?? null;
        const projects: Project[] = [];
        for (const project of candidates) {
          if (!canReadProject(state, userId, project)) continue;
          if (params.visibility && project.visibility !== params.visibility) continue;
          if (params.search && !`${project.name} ${project.path}`.toLowerCase().includes(params.search.toLowerCase())) continue;
          const needsAccess = params.membership || params.owned || params.min_access_level;
          if (needsAccess) {
            const level = userId === null ? 0 : projectAccessLevel(state, project, userId);
            if (level === 0) continue;
            if (params.min_access_level && level < params.min_access_level) continue;
            if (params.owned && project.creator_id !== userId) continue;
          }
          projects.push(project);
        }
        // Projects iterate in id order already; other orders sort with id as the tie-breaker.
        if (params.order_by !== 'id') {
          const key = sortKey(params.order_by);
          projects.sort((a, b) => (a[key]! < b[key]! ? -1 : a[key]! > b[key]! ? 1 : a.id - b.id));
        }
        if (params.sort === 'desc') projects.reverse();
        return paginate(ctx, arraySource(projects), {
          map: (project) => present(ctx, project),
          maxOffset: MAX_OFFSET,
          keyset: {
            source: sortedArrayKeysetSource(params.sort === 'desc' ? [...projects].reverse() : projects, (project) => project.id),
            supports: (orderBy) => orderBy === 'id',
          },
        });
  };
  return [
    route({
      method: 'GET',
      path: '/projects',
      auth: 'optional',
      params: listParams,
      handler: (ctx) => list(ctx, listProjects(deps.app.state.projects)),
    }),
    route({
      method: 'GET',
      path: '/users/:user_id/projects',
      auth: 'optional',
      params: extend(schema(requires('user_id', T.String)), listParams),
      handler: (ctx) => {
        // lib/api/projects.rb: the projects of the user's personal namespace that the caller can see; by id or username.
        const user = findUserByIdOrUsername(deps.app.state.users, ctx.params.user_id ?? '');
        if (!user) return notFound('User');
        return list(ctx, projectsInNamespace(deps.app.state.projects, user.namespace_id));
      },
    }),
    route({
      method: 'GET',
      path: '/projects/:id/groups',
      auth: 'optional',
      params: schema(
        optional('search', T.String),
        optional('skip_groups', T.Array(T.Integer)),
        optional('with_shared', T.Boolean, { default: false }),
        optional('shared_min_access_level', T.Integer, { values: [10, 20, 30, 40, 50] }),
        optional('page', T.Integer, { default: 1 }),
        optional('per_page', T.Integer, { default: 20 }),
      ),
      handler: (ctx) => {
        const state = deps.app.state;
        const found = findReadableProject(state, ctx, String(ctx.routeParams['id']));
        if (E.isLeft(found)) return found;
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
    route({
      method: 'POST',
      path: '/projects',
      params: schema(...createFields),
      handler: (ctx) => create(ctx, ctx.params),
    }),
    route({
      method: 'POST',
      path: '/projects/user/:user_id',
      admin: true,
      params: schema(requires('user_id', T.Integer), ...createFields),
      handler: (ctx) => {
        const owner = findUserOr404(deps.app.state, ctx.params.user_id ?? 0);
        return E.isLeft(owner) ? owner : create(ctx, ctx.params, owner.right.id);
      },
    }),
    route({
      method: 'GET',
      path: '/projects/:id',
      auth: 'optional',
      handler: (ctx) =>
        pipe(
          findReadableProject(deps.app.state, ctx, String(ctx.routeParams['id'])),
          // Signed-in callers get ProjectWithAccess (their `permissions`), anonymous ones the Project entity.
          E.map((project) => ok(ctx.principal ? projectWithAccessEntity(project, presentContext(deps, ctx)) : present(ctx, project))),
        ),
    }),
    route({
      method: 'PUT',
      path: '/projects/:id',
      params: updateParams,
      handler: async (ctx) => {
        const found = findReadableProject(deps.app.state, ctx, String(ctx.routeParams['id']));
        if (E.isLeft(found)) return found;
        const { params } = ctx;
        const result = await execute(deps, ctx, {
          type: 'UpdateProject',
          id: found.right.id,
          ...(params.name ? { name: params.name } : {}),
          ...(params.path ? { path: params.path } : {}),
          ...(params.visibility ? { visibility: params.visibility as Visibility } : {}),
          ...(params.description !== undefined && params.description !== null ? { description: params.description } : {}),
        });
        return pipe(
          result,
          E.map((done) => ok(present(ctx, findProject(done.state.projects, found.right.id)!, done.state))),
        );
      },
    }),
    route({
      method: 'PUT',
      path: '/projects/:id/transfer',
      params: schema(requires('namespace', T.String)),
      handler: async (ctx) => {
        const state = deps.app.state;
        const found = findReadableProject(state, ctx, String(ctx.routeParams['id']));
        if (E.isLeft(found)) return found;
        // `find_namespace!`: a group the caller can read, or a personal namespace they own (administrators: any), by
        // id or path; anything else is -1, which the decision answers "404 Namespace Not Found" after its 403.
        const namespaceId = readableNamespaceId(state, ctx.principal?.userId ?? null, ctx.principal?.isAdmin ?? false, ctx.params.namespace ?? '') ?? -1;
        const result = await execute(deps, ctx, { type: 'TransferProject', id: found.right.id, namespace_id: namespaceId });
        return pipe(
          result,
          E.map((done) => ok(present(ctx, findProject(done.state.projects, found.right.id)!, done.state))),
        );
      },
    }),
    route({
      method: 'DELETE',
      path: '/projects/:id',
      handler: async (ctx) => {
        const found = findReadableProject(deps.app.state, ctx, String(ctx.routeParams['id']));
        if (E.isLeft(found)) return found;
        checkUnmodifiedSince(ctx.request.headers, found.right.updated_at);
        const result = await execute(deps, ctx, { type: 'DeleteProject', id: found.right.id });
        return pipe(
          result,
          E.map(() => withStatus(202, { message: '202 Accepted' })),
        );
      },
    }),
  ];
};

/** Projects: list (offset and keyset), create (also for a user, by an administrator), show, update, delete (lib/api/projects.rb). */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import {
  VISIBILITIES,
  canReadProject,
  findProject,
  listProjects,
  projectAccessLevel,
  type Project,
  type Visibility,
} from '@forgefold/core';
import { arraySource, atLeastOneOf, checkUnmodifiedSince, created, ok, optional, paginate, requires, route, schema, sortedArrayKeysetSource, T, withStatus, type RouteDef } from '../http/index.js';
import { projectEntity } from '../entities/projects.js';
import { createdId, execute, findReadableProject, findUserOr404, presentContext, type ApiDeps, type Ctx } from '../app/deps.js';
import { isValidNewRefName } from '@forgefold/git';
import { ApiError } from '../http/index.js';

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
  optional('initialize_with_readme', T.Boolean),
  optional('default_branch', T.String),
  atLeastOneOf('name', 'path'),
] as const;

const updateParams = schema(
  optional('default_branch', T.String),
  optional('name', T.String),
  optional('path', T.String),
  optional('visibility', T.String, { values: VISIBILITIES as readonly string[] }),
  optional('description', T.String),
);

/** Offset pagination over projects stops at 50,000 records (reference §1.7 item 48). */
const MAX_OFFSET = { limit: 50_000, type: 'Project' };

const sortKey = (orderBy: string): keyof Project => (orderBy === 'similarity' ? 'name' : (orderBy as keyof Project));

export const projectRoutes = (deps: ApiDeps): RouteDef[] => {
  const present = (ctx: Ctx, project: Project, state = deps.app.state) => projectEntity(project, presentContext(deps, ctx, state));
  const create = async (
    ctx: Ctx,
    params: {
      name?: string | null;
      path?: string | null;
      namespace_id?: number | null;
      visibility?: string | null;
      description?: string | null;
      initialize_with_readme?: boolean | null;
      default_branch?: string | null;
    },
    ownerId?: number,
  ) => {
    // A default branch git would refuse never reaches the log (the repository is created with it).
    if (params.default_branch && !isValidNewRefName(params.default_branch)) throw ApiError.error(400, 'default_branch is invalid');
    const result = await execute(deps, ctx, {
      type: 'CreateProject',
      ...(params.name ? { name: params.name } : {}),
      ...(params.path ? { path: params.path } : {}),
      ...(params.namespace_id !== undefined && params.namespace_id !== null ? { namespace_id: params.namespace_id } : {}),
      ...(ownerId !== undefined ? { owner_id: ownerId } : {}),
      ...(params.visibility ? { visibility: params.visibility as Visibility } : {}),
      ...(params.description ? { description: params.description } : {}),
      ...(params.default_branch ? { default_branch: params.default_branch } : {}),
    });
    if (E.isLeft(result)) return result;
    // The repository follows the recorded project: git first, then its README commit, recorded as any commit.
    const id = createdId(result.right, 'ProjectCreated');
    const project = findProject(result.right.state.projects, id)!;
    const readme = params.initialize_with_readme ? { content: `# ${project.name}\n${project.description ? `\n${project.description}\n` : ''}` } : null;
    await deps.repositories.initialize(id, ctx.actor, readme);
    const state = deps.app.state;
    return created(present(ctx, findProject(state.projects, id) ?? project, state));
  };
  return [
    route({
      method: 'GET',
      path: '/projects',
      auth: 'optional',
      params: listParams,
      handler: (ctx) => {
        const { params } = ctx;
        const state = deps.app.state;
        const userId = ctx.principal?.userId ?? null;
        const projects: Project[] = [];
        for (const project of listProjects(state.projects)) {
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
          E.map((project) => ok(present(ctx, project))),
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
        // The default branch first (its refusal changes nothing), then HEAD in git, which reconciliation keeps.
        if (params.default_branch) {
          const moved = await execute(deps, ctx, { type: 'ChangeDefaultBranch', project_id: found.right.id, branch: params.default_branch });
          if (E.isLeft(moved)) return moved;
          if (moved.right.events.length > 0) await deps.repositories.open(found.right.id).setHeadBranch(params.default_branch);
        }
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

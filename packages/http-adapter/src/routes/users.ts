/** Users: `/user`, `/users`, `/users/:id` and the administrator's account management (lib/api/users.rb). */
import { randomBytes } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import { findGroup, findProject, findUser, findUserByIdentity, membershipsOfUser, forbidden, listUsers, matchesUserSearch, notFound, validation, type IdentityInput, type User } from '@forgefold/core';
import { allOrNoneOf, ApiError, arraySource, atLeastOneOf, created, noContent, ok, optional, paginate, requires, route, schema, T, type RouteDef } from '../http/index.js';
import { userBasic, userFor, userWithAdmin } from '../entities/users.js';
import { createdId, execute, findUserOr404, presentContext, type ApiDeps } from '../app/deps.js';
import { passwordDigest } from '../app/secrets.js';

const MIN_PASSWORD = 8;

/** The only model validation that needs the plain password, so it happens here, before hashing. */
const passwordError = (password: string | null | undefined) =>
  password !== undefined && password !== null && password.length < MIN_PASSWORD
    ? validation({ password: [`is too short (minimum is ${MIN_PASSWORD} characters)`] })
    : null;

const listParams = schema(
  optional('username', T.String),
  optional('extern_uid', T.String),
  optional('provider', T.String),
  optional('search', T.String),
  optional('active', T.Boolean, { default: false }),
  optional('blocked', T.Boolean, { default: false }),
  optional('admins', T.Boolean, { default: false }),
  optional('exclude_internal', T.Boolean, { default: false }),
  allOrNoneOf('extern_uid', 'provider'),
  optional('order_by', T.String, { values: ['id', 'name', 'username', 'created_at', 'updated_at'], default: 'id' }),
  optional('sort', T.String, { values: ['asc', 'desc'], default: 'desc' }),
  optional('page', T.Integer, { default: 1 }),
  optional('per_page', T.Integer, { default: 20 }),
);

const createParams = schema(
  requires('email', T.String),
  requires('name', T.String),
  requires('username', T.String),
  optional('password', T.String),
  optional('reset_password', T.Boolean),
  optional('force_random_password', T.Boolean),
  atLeastOneOf('password', 'reset_password', 'force_random_password'),
  optional('skip_confirmation', T.Boolean),
  optional('admin', T.Boolean),
  optional('public_email', T.String),
  optional('extern_uid', T.String),
  optional('provider', T.String),
  allOrNoneOf('extern_uid', 'provider'),
);

const updateParams = schema(
  requires('id', T.Integer),
  optional('email', T.String),
  optional('name', T.String),
  optional('username', T.String),
  optional('password', T.String),
  optional('admin', T.Boolean),
  optional('public_email', T.String),
  optional('extern_uid', T.String),
  optional('provider', T.String),
  allOrNoneOf('extern_uid', 'provider'),
);

/** `provider` and `extern_uid` together (the schema's all-or-none rule lets only both or neither through). */
const identityOf = (params: { provider?: string | null; extern_uid?: string | null }): { identity?: IdentityInput } =>
  typeof params.provider === 'string' && typeof params.extern_uid === 'string' ? { identity: { provider: params.provider, extern_uid: params.extern_uid } } : {};

const idParams = schema(requires('id', T.Integer));

const compareBy = (orderBy: string) => (a: User, b: User): number => {
  const key = orderBy as keyof User;
  const left = a[key] as string | number;
  const right = b[key] as string | number;
  return left < right ? -1 : left > right ? 1 : a.id - b.id;
};

/** API::Users registers `read_user` for GET requests: every route of the class lists it (see `RouteDef.readScopes`). */
export const userRoutes = (deps: ApiDeps): RouteDef[] => usersClassRoutes(deps).map((def) => ({ ...def, readScopes: ['read_user'] }));

const usersClassRoutes = (deps: ApiDeps): RouteDef[] => [
  route({
    method: 'GET',
    path: '/user',
    handler: (ctx) => {
      const state = deps.app.state;
      const user = findUser(state.users, ctx.principal!.userId);
      return user ? ok(userFor(user, presentContext(deps, ctx))) : notFound('User');
    },
  }),
  route({
    method: 'GET',
    path: '/users',
    auth: 'optional',
    params: listParams,
    handler: (ctx) => {
      const { params } = ctx;
      const state = deps.app.state;
      const present = presentContext(deps, ctx);
      const isAdmin = ctx.principal?.isAdmin ?? false;
      // Looking a user up by an external identity is for administrators (`authenticated_as_admin!`).
      if (params.extern_uid && params.provider) {
        if (!ctx.principal) throw ApiError.message(401, '401 Unauthorized');
        if (!isAdmin) throw ApiError.message(403, '403 Forbidden');
      }
      let users = [...listUsers(state.users)];
      if (params.extern_uid && params.provider) {
        const holder = findUserByIdentity(state.users, params.provider, params.extern_uid);
        users = holder ? [holder] : [];
      }
      if (params.username) users = users.filter((user) => user.username.toLowerCase() === params.username!.toLowerCase());
      if (params.search) users = users.filter((user) => matchesUserSearch(user, params.search!));
      if (params.active) users = users.filter((user) => user.state === 'active');
      if (params.blocked) users = users.filter((user) => user.state === 'blocked');
      if (params.exclude_internal) users = users.filter((user) => user.bot === null);
      if (params.admins && isAdmin) users = users.filter((user) => user.is_admin);
      users.sort(compareBy(params.order_by));
      if (params.sort === 'desc') users.reverse();
      return paginate(ctx, arraySource(users), { map: (user) => (isAdmin ? userWithAdmin(user, present) : userBasic(user, present)) });
    },
  }),
  route({
    method: 'GET',
    path: '/users/:id',
    auth: 'optional',
    params: idParams,
    handler: (ctx) => {
      const user = ctx.params.id === null ? undefined : findUser(deps.app.state.users, ctx.params.id);
      return user ? ok(userFor(user, presentContext(deps, ctx))) : notFound('User');
    },
  }),
  route({
    method: 'POST',
    path: '/users',
    admin: true,
    params: createParams,
    handler: async (ctx) => {
      const { params } = ctx;
      const password = params.password ?? (params.force_random_password ? randomBytes(24).toString('base64url') : null);
      const invalid = passwordError(password);
      if (invalid) return invalid;
      const result = await execute(deps, ctx, {
        type: 'CreateUser',
        username: params.username ?? '',
        name: params.name ?? '',
        email: params.email ?? '',
        password_digest: password ? await passwordDigest(password) : null,
        is_admin: params.admin ?? false,
        public_email: params.public_email ?? null,
        ...identityOf(params),
      });
      return pipe(
        result,
        E.map((done) => created(userWithAdmin(findUser(done.state.users, createdId(done, 'UserCreated'))!, presentContext(deps, ctx, done.state)))),
      );
    },
  }),
  route({
    method: 'PUT',
    path: '/users/:id',
    admin: true,
    params: updateParams,
    handler: async (ctx) => {
      const { params } = ctx;
      const invalid = passwordError(params.password);
      if (invalid) return invalid;
      const result = await execute(deps, ctx, {
        type: 'UpdateUser',
        id: params.id ?? 0,
        ...(params.email ? { email: params.email } : {}),
        ...(params.name ? { name: params.name } : {}),
        ...(params.username ? { username: params.username } : {}),
        ...(params.public_email !== undefined ? { public_email: params.public_email } : {}),
        ...(params.admin !== undefined && params.admin !== null ? { is_admin: params.admin } : {}),
        ...(params.password ? { password_digest: await passwordDigest(params.password) } : {}),
        ...identityOf(params),
      });
      return pipe(
        result,
        E.map((done) => ok(userWithAdmin(findUser(done.state.users, params.id!)!, presentContext(deps, ctx, done.state)))),
      );
    },
  }),
  route({
    method: 'DELETE',
    path: '/users/:id',
    admin: true,
    params: idParams,
    handler: async (ctx) => {
      const found = findUserOr404(deps.app.state, ctx.params.id ?? 0);
      if (E.isLeft(found)) return found;
      if (found.right.id === ctx.principal?.realUserId) return forbidden('You cannot delete yourself');
      return pipe(await execute(deps, ctx, { type: 'DeleteUser', id: found.right.id }), E.map(() => undefined));
    },
  }),
  route({
    method: 'GET',
    path: '/users/:user_id/memberships',
    admin: true,
    params: schema(requires('user_id', T.Integer), optional('type', T.String, { values: ['Project', 'Namespace'] }), optional('page', T.Integer, { default: 1 }), optional('per_page', T.Integer, { default: 20 })),
    handler: (ctx) => {
      const state = deps.app.state;
      const found = findUserOr404(state, ctx.params.user_id ?? 0);
      if (E.isLeft(found)) return found;
      // `user.members` (or its project/group members) in member-id order, as Entities::Membership.
      const rows = [...membershipsOfUser(state.members, found.right.id)]
        .filter((member) => !ctx.params.type || member.source_type === ctx.params.type)
        .sort((a, b) => a.id - b.id);
      return paginate(ctx, arraySource(rows), {
        map: (member) => ({
          source_id: member.source_id,
          source_name: member.source_type === 'Namespace' ? (findGroup(state.groups, member.source_id)?.name ?? null) : (findProject(state.projects, member.source_id)?.name ?? null),
          source_type: member.source_type,
          access_level: member.access_level,
        }),
      });
    },
  }),
  route({
    method: 'DELETE',
    path: '/users/:id/identities/:provider',
    admin: true,
    params: schema(requires('id', T.Integer), requires('provider', T.String)),
    handler: async (ctx) => {
      const found = findUserOr404(deps.app.state, ctx.params.id ?? 0);
      if (E.isLeft(found)) return found;
      return pipe(await execute(deps, ctx, { type: 'DeleteUserIdentity', id: found.right.id, provider: ctx.params.provider ?? '' }), E.map(() => noContent()));
    },
  }),
  ...(['ban', 'unban'] as const).map((action) =>
    route({
      method: 'POST',
      path: `/users/:id/${action}`,
      admin: true,
      params: idParams,
      handler: async (ctx) => {
        const found = findUserOr404(deps.app.state, ctx.params.id ?? 0);
        if (E.isLeft(found)) return found;
        const result = await execute(deps, ctx, { type: action === 'ban' ? 'BanUser' : 'UnbanUser', id: found.right.id });
        return pipe(result, E.map(() => created(true)));
      },
    }),
  ),
  ...(['block', 'unblock'] as const).map((action) =>
    route({
      method: 'POST',
      path: `/users/:id/${action}`,
      admin: true,
      params: idParams,
      handler: async (ctx) => {
        const found = findUserOr404(deps.app.state, ctx.params.id ?? 0);
        if (E.isLeft(found)) return found;
        const result = await execute(deps, ctx, { type: action === 'block' ? 'BlockUser' : 'UnblockUser', id: found.right.id });
        // The platform answers what its call returned: `break` on an already blocked user (null), `user.activate`
        // on an active one (false, no transition), true when the state changed.
        return pipe(result, E.map((done) => created(done.events.length > 0 ? true : action === 'block' ? null : false)));
      },
    }),
  ),
];

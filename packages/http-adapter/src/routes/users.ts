/** Users: `/user`, `/users`, `/users/:id` and the administrator's account management (lib/api/users.rb). */
import { randomBytes } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import { avatarErrors, findUser, forbidden, listUsers, matchesUserSearch, notFound, validation, type Avatar, type DomainError, type User } from '@forgefold/core';
import { arraySource, atLeastOneOf, created, mount, ok, optional, paginate, paramType, requires, route, schema, T, type Mount, type RouteDef, type UploadedFile } from '../http/index.js';
import { sha256Hex } from '../app/uploads.js';
import { userBasic, userFor, userWithAdmin } from '../entities/users.js';
import { createdId, execute, findUserOr404, presentContext, type ApiDeps } from '../app/deps.js';
import { passwordDigest } from '../app/secrets.js';

const MIN_PASSWORD = 8;

/** The only model validation that needs the plain password, so it happens here, before hashing. */
const passwordError = (password: string | null | undefined) =>
  password !== undefined && password !== null && password.length < MIN_PASSWORD
    ? validation({ password: [`is too short (minimum is ${MIN_PASSWORD} characters)`] })
    : null;

/** Grape's file parameter (the platform's WorkhorseFile): a multipart file part; a plain value "is invalid". */
const FileParam = paramType<UploadedFile>('File', (raw) =>
  typeof raw === 'object' && raw !== null && typeof (raw as UploadedFile).filename === 'string' && Buffer.isBuffer((raw as UploadedFile).data) ? (raw as UploadedFile) : undefined,
);

/** CarrierWave's SanitizedFile: the base name, every character but word characters, '.', '-' and '+' as '_'. */
export const sanitizeFilename = (name: string): string => {
  const base = name.replaceAll('\\', '/').split('/').pop() ?? '';
  const clean = base.replace(/[^\p{L}\p{M}\p{N}\p{Pc}.+-]/gu, '_');
  if (clean === '') return 'unnamed';
  return /^\.+$/.test(clean) ? `_${clean}` : clean;
};

/**
 * An uploaded avatar checked as the model would (extension, 200 KB) and stored before the command runs, so
 * that the log only ever names bytes the store holds; rejected images are never stored.
 */
const storeAvatar = async (deps: ApiDeps, file: UploadedFile | null | undefined): Promise<E.Either<DomainError, Avatar | undefined>> => {
  if (!file) return E.right(undefined);
  const avatar: Avatar = { filename: sanitizeFilename(file.filename), sha256: sha256Hex(file.data), size: file.data.length };
  const errors = avatarErrors(avatar);
  if (errors.length > 0) return E.left(validation({ avatar: errors }));
  await deps.uploads.put(file.data);
  return E.right(avatar);
};

const IMAGE_TYPES: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  bmp: 'image/bmp',
  tiff: 'image/tiff',
  ico: 'image/vnd.microsoft.icon',
  webp: 'image/webp',
};

/**
 * `GET /uploads/-/system/user/avatar/:id/:filename`: a user's uploaded avatar, the same bytes, to anyone (user
 * avatars are public on the platform). Anything else under the path is a 404.
 */
export const uploadMounts = (deps: ApiDeps): Mount[] => [
  mount(
    '/uploads',
    [
      route({
        method: 'GET',
        path: '/-/system/user/avatar/:id/:filename',
        auth: 'none',
        cache: false,
        handler: async (ctx) => {
          const id = ctx.routeParams['id'] ?? '';
          const user = /^\d+$/.test(id) ? findUser(deps.app.state.users, Number(id)) : undefined;
          const avatar = user?.avatar;
          if (!user || !avatar || ctx.routeParams['filename'] !== avatar.filename) return notFound();
          const bytes = await deps.uploads.get(avatar.sha256);
          if (!bytes) return notFound();
          const extension = /\.([^.]+)$/.exec(avatar.filename)?.[1]?.toLowerCase() ?? '';
          return { ...ok(null, { contentType: IMAGE_TYPES[extension] ?? 'application/octet-stream', headers: { 'Content-Disposition': 'inline' } }), rawBody: bytes };
        },
      }),
    ],
    { catchAll: false },
  ),
];

const listParams = schema(
  optional('username', T.String),
  optional('search', T.String),
  optional('active', T.Boolean, { default: false }),
  optional('blocked', T.Boolean, { default: false }),
  optional('admins', T.Boolean, { default: false }),
  optional('exclude_internal', T.Boolean, { default: false }),
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
  optional('avatar', FileParam),
);

const updateParams = schema(
  requires('id', T.Integer),
  optional('email', T.String),
  optional('name', T.String),
  optional('username', T.String),
  optional('password', T.String),
  optional('admin', T.Boolean),
  optional('public_email', T.String),
  optional('avatar', FileParam),
);

const idParams = schema(requires('id', T.Integer));

const compareBy = (orderBy: string) => (a: User, b: User): number => {
  const key = orderBy as keyof User;
  const left = a[key] as string | number;
  const right = b[key] as string | number;
  return left < right ? -1 : left > right ? 1 : a.id - b.id;
};

export const userRoutes = (deps: ApiDeps): RouteDef[] => [
  route({
    method: 'GET',
    path: '/user',
    scopes: ['read_user'],
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
    scopes: ['read_user'],
    params: listParams,
    handler: (ctx) => {
      const { params } = ctx;
      const state = deps.app.state;
      const present = presentContext(deps, ctx);
      const isAdmin = ctx.principal?.isAdmin ?? false;
      let users = [...listUsers(state.users)];
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
    scopes: ['read_user'],
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
      const avatar = await storeAvatar(deps, params.avatar);
      if (E.isLeft(avatar)) return avatar;
      const result = await execute(deps, ctx, {
        type: 'CreateUser',
        username: params.username ?? '',
        name: params.name ?? '',
        email: params.email ?? '',
        password_digest: password ? await passwordDigest(password) : null,
        is_admin: params.admin ?? false,
        public_email: params.public_email ?? null,
        ...(avatar.right ? { avatar: avatar.right } : {}),
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
      const avatar = await storeAvatar(deps, params.avatar);
      if (E.isLeft(avatar)) return avatar;
      const result = await execute(deps, ctx, {
        type: 'UpdateUser',
        id: params.id ?? 0,
        ...(params.email ? { email: params.email } : {}),
        ...(params.name ? { name: params.name } : {}),
        ...(params.username ? { username: params.username } : {}),
        ...(params.public_email !== undefined ? { public_email: params.public_email } : {}),
        ...(params.admin !== undefined && params.admin !== null ? { is_admin: params.admin } : {}),
        ...(params.password ? { password_digest: await passwordDigest(params.password) } : {}),
        ...(avatar.right ? { avatar: avatar.right } : {}),
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
        return pipe(result, E.map(() => created(true)));
      },
    }),
  ),
];

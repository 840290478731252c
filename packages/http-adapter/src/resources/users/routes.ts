/** Users: `/user`, `/users`, `/users/:id` and the administrator's account management (lib/api/users.rb). */
import { randomBytes } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import { avatarErrors, compareUserSearch, findGroup, findProject, findUser, findUserByIdentity, findUserByUsername, forbidden, hasProjectAccess, isRubyBlank, listUsers, matchesUserSearch, membershipsOfUser, notFound, unauthorized, validation, visibilityRestricted, type Avatar, type DomainError, type IdentityInput, type State, type User, type UserProfile } from '@forgefold/core';
import { created, noContent, ok, route, type AnyRouteDef, type UploadedFile } from '../../http/index.js';
import { sha256Hex } from '../../app/uploads.js';
import { createdId, findUserOr404, presentContext, today, type ApiDeps } from '../../app/deps.js';
import { commandRoute, listRoute, nothing } from '../../app/routes.js';
import { passwordDigest } from '../../app/secrets.js';
import { currentUserEntity, userBasic, userFor, userWithAdmin } from './entities.js';
import { createParams, identityParams, idParams, listParams, membershipsParams, updateParams } from './params.js';

const MIN_PASSWORD = 8;

/** The only model validation that needs the plain password, so it happens here, before hashing. */
const passwordError = (password: string | null | undefined) =>
  password !== undefined && password !== null && password.length < MIN_PASSWORD
    ? validation({ password: [`is too short (minimum is ${MIN_PASSWORD} characters)`] })
    : null;

/** CarrierWave's SanitizedFile: the base name, every character but word characters, '.', '-' and '+' as '_'. */
const sanitizeFilename = (name: string): string => {
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

const compareBy = (orderBy: 'id' | 'name' | 'username' | 'created_at' | 'updated_at') => (a: User, b: User): number => {
  const left = a[orderBy];
  const right = b[orderBy];
  return left < right ? -1 : left > right ? 1 : a.id - b.id;
};

type ProfileParams = {
  readonly [K in 'bio' | 'skype' | 'linkedin' | 'twitter' | 'website_url' | 'note' | 'location' | 'organization' | 'pronouns']?: string | null;
} & { readonly theme_id?: number | null; readonly color_scheme_id?: number | null; readonly private_profile?: boolean | null };

/** The profile attributes given: a null text is '' where the platform's column is NOT NULL DEFAULT '', else null. */
const profileOf = (params: ProfileParams): UserProfile => {
  const text = (value: string | null | undefined, blank: '' | null) => (value === undefined ? {} : { value: value ?? blank });
  const entries = {
    bio: text(params.bio, ''),
    skype: text(params.skype, ''),
    linkedin: text(params.linkedin, ''),
    twitter: text(params.twitter, ''),
    website_url: text(params.website_url, ''),
    note: text(params.note, null),
    location: text(params.location, null),
    organization: text(params.organization, null),
    pronouns: text(params.pronouns, null),
  };
  return {
    ...Object.fromEntries(Object.entries(entries).flatMap(([field, given]) => ('value' in given ? [[field, given.value]] : []))),
    ...(typeof params.theme_id === 'number' ? { theme_id: params.theme_id } : {}),
    ...(typeof params.color_scheme_id === 'number' ? { color_scheme_id: params.color_scheme_id } : {}),
    ...(typeof params.private_profile === 'boolean' ? { private_profile: params.private_profile } : {}),
  };
};

/** GlobalPolicy's `restricted_public_level`: the public visibility level is restricted. */
const publicRestricted = (state: State): boolean => visibilityRestricted(state.settings, 'public');

/** `provider` and `extern_uid` together (the schema's all-or-none rule lets only both or neither through). */
const identityOf = (params: { provider?: string | null; extern_uid?: string | null }): { identity?: IdentityInput } =>
  typeof params.provider === 'string' && typeof params.extern_uid === 'string' ? { identity: { provider: params.provider, extern_uid: params.extern_uid } } : {};

/** API::Users registers `read_user` for GET requests: every route of the class lists it (see `RouteDef.readScopes`). */
export const userRoutes = (deps: ApiDeps): AnyRouteDef[] => usersClassRoutes(deps).map((def) => ({ ...def, readScopes: ['read_user'] }));

const usersClassRoutes = (deps: ApiDeps): AnyRouteDef[] => [
  route({
    method: 'GET',
    path: '/user',
    handler: (ctx) => {
      const user = ctx.principal ? findUser(deps.app.state.users, ctx.principal.userId) : undefined;
      return user ? ok(currentUserEntity(user, presentContext(deps, ctx))) : notFound('User');
    },
  }),
  listRoute(deps, {
    path: '/users',
    auth: 'optional',
    params: listParams,
    find: nothing,
    authorize: (ctx, state) => {
      const { params, principal } = ctx;
      // Looking a user up by an external identity is for administrators (`authenticated_as_admin!`).
      if (params.extern_uid && params.provider) return !principal ? unauthorized : principal.isAdmin ? null : forbidden();
      // `read_users_list`, which GlobalPolicy denies anonymous callers when the public level is restricted; an
      // anonymous caller must also name a username, so that nobody lists the instance's users anonymously.
      if (!principal && (publicRestricted(state) || !params.username)) return forbidden('Not authorized to access /api/v4/users');
      return null;
    },
    rows: (ctx, state) => {
      const { params } = ctx;
      const isAdmin = ctx.principal?.isAdmin ?? false;
      const username = params.username;
      // An identity or a username names one account: read it from its index, not by a scan of every account (the
      // one list an anonymous caller may ask for).
      const named = (user: User | undefined): User[] => (user ? [user] : []);
      let users =
        params.extern_uid && params.provider
          ? named(findUserByIdentity(state.users, params.provider, params.extern_uid))
          : username
            ? named(findUserByUsername(state.users, username))
            : [...listUsers(state.users)];
      // UsersFinder#by_search: `params[:search].present?`, so a blank (or whitespace) search is no filter.
      const search = params.search && !isRubyBlank(params.search) ? params.search : undefined;
      if (username) users = users.filter((user) => user.username.toLowerCase() === username.toLowerCase());
      if (search) users = users.filter((user) => matchesUserSearch(user, search));
      if (params.blocked) users = users.filter((user) => user.state === 'blocked');
      if (params.active) users = users.filter((user) => user.state === 'active');
      // UsersFinder#by_external: `exclude_external` wins over `external`.
      if (params.exclude_external) users = users.filter((user) => user.external !== true);
      else if (params.external) users = users.filter((user) => user.external === true);
      if (params.exclude_internal) users = users.filter((user) => user.bot === null);
      if (params.admins && isAdmin) users = users.filter((user) => user.is_admin);
      if (!isAdmin) {
        // Non-administrators' created_after/before, order_by, sort, two_factor and without_projects are dropped
        // (`params.except!`), and without order_by and sort the finder's order stands: newest id first, or
        // `User.search`'s order when searching.
        return users.sort(search ? compareUserSearch(search) : (a, b) => b.id - a.id);
      }
      // Nobody has two-factor authentication here: `enabled` finds no one, `disabled` everyone.
      if (params.two_factor === 'enabled') users = [];
      const after = params.created_after;
      const before = params.created_before;
      if (after) users = users.filter((user) => user.created_at >= after);
      if (before) users = users.filter((user) => user.created_at <= before);
      if (params.without_projects) {
        const day = today(deps);
        users = users.filter((user) => !hasProjectAccess(state, user, day));
      }
      users.sort(compareBy(params.order_by));
      if (params.sort === 'desc') users.reverse();
      return users;
    },
    present: (user, view) => (view.viewerIsAdmin ? userWithAdmin(user, view) : userBasic(user, view)),
  }),
  route({
    method: 'GET',
    path: '/users/:id',
    auth: 'optional',
    params: idParams,
    handler: (ctx) => {
      const user = findUser(deps.app.state.users, ctx.params.id);
      // UserPolicy's `read_user`: anyone signed in; anonymous callers unless the public level is restricted.
      if (!user || (!ctx.principal && publicRestricted(deps.app.state))) return notFound('User');
      return ok(userFor(user, presentContext(deps, ctx), today(deps)));
    },
  }),
  commandRoute(deps, {
    method: 'POST',
    path: '/users',
    admin: true,
    params: createParams,
    find: nothing,
    command: async ({ params }) => {
      const password = params.password ?? (params.force_random_password ? randomBytes(24).toString('base64url') : null);
      const invalid = passwordError(password);
      if (invalid) return invalid;
      const avatar = await storeAvatar(deps, params.avatar);
      if (E.isLeft(avatar)) return avatar.left;
      return {
        type: 'CreateUser',
        username: params.username ?? '',
        name: params.name ?? '',
        email: params.email ?? '',
        password_digest: password ? await passwordDigest(password) : null,
        is_admin: params.admin ?? false,
        public_email: params.public_email ?? null,
        ...(avatar.right ? { avatar: avatar.right } : {}),
        ...(typeof params.projects_limit === 'number' ? { projects_limit: params.projects_limit } : {}),
        ...(typeof params.can_create_group === 'boolean' ? { can_create_group: params.can_create_group } : {}),
        ...(typeof params.external === 'boolean' ? { external: params.external } : {}),
        ...identityOf(params),
        ...profileOf(params),
      };
    },
    present: (done, ctx) => created(userWithAdmin(findUser(done.state.users, createdId(done, 'UserCreated'))!, presentContext(deps, ctx, done.state))),
  }),
  commandRoute(deps, {
    method: 'PUT',
    path: '/users/:id',
    admin: true,
    params: updateParams,
    find: nothing,
    command: async ({ params }) => {
      const invalid = passwordError(params.password);
      if (invalid) return invalid;
      const avatar = await storeAvatar(deps, params.avatar);
      if (E.isLeft(avatar)) return avatar.left;
      return {
        type: 'UpdateUser',
        id: params.id,
        // Given blank (or null), these are the model's "can't be blank", not absent.
        ...(params.email !== undefined ? { email: params.email ?? '' } : {}),
        ...(params.name !== undefined ? { name: params.name ?? '' } : {}),
        ...(params.username !== undefined ? { username: params.username ?? '' } : {}),
        ...(params.public_email !== undefined ? { public_email: params.public_email } : {}),
        ...(params.admin !== undefined && params.admin !== null ? { is_admin: params.admin } : {}),
        ...(params.password ? { password_digest: await passwordDigest(params.password) } : {}),
        ...(avatar.right ? { avatar: avatar.right } : {}),
        ...(typeof params.projects_limit === 'number' ? { projects_limit: params.projects_limit } : {}),
        ...(typeof params.can_create_group === 'boolean' ? { can_create_group: params.can_create_group } : {}),
        ...(typeof params.external === 'boolean' ? { external: params.external } : {}),
        ...identityOf(params),
        ...profileOf(params),
      };
    },
    present: (done, ctx) => ok(userWithAdmin(findUser(done.state.users, ctx.params.id)!, presentContext(deps, ctx, done.state))),
  }),
  commandRoute(deps, {
    method: 'DELETE',
    path: '/users/:id',
    admin: true,
    params: idParams,
    find: (ctx, state) => findUserOr404(state, ctx.params.id),
    authorize: (ctx, _state, user) => (user.id === ctx.principal?.realUserId ? forbidden('You cannot delete yourself') : null),
    command: (_ctx, user) => ({ type: 'DeleteUser', id: user.id }),
    present: () => undefined,
  }),
  // The platform answers what its call returned: true when the state changed; else `break` on a user already in the
  // state asked for (null: blocked, deactivated) or `user.activate` on an active one (false: no transition).
  ...(
    [
      ['block', 'BlockUser', null],
      ['unblock', 'UnblockUser', false],
      ['deactivate', 'DeactivateUser', null],
      ['activate', 'ActivateUser', false],
    ] as const
  ).map(([action, type, unchanged]) =>
    commandRoute(deps, {
      method: 'POST',
      path: `/users/:id/${action}`,
      admin: true,
      params: idParams,
      find: (ctx, state) => findUserOr404(state, ctx.params.id),
      command: (_ctx, user) => ({ type, id: user.id }),
      present: (done) => created(done.events.length > 0 ? true : unchanged),
    }),
  ),
  ...(['ban', 'unban'] as const).map((action) =>
    commandRoute(deps, {
      method: 'POST',
      path: `/users/:id/${action}`,
      admin: true,
      params: idParams,
      find: (ctx, state) => findUserOr404(state, ctx.params.id),
      command: (_ctx, user) => ({ type: action === 'ban' ? 'BanUser' : 'UnbanUser', id: user.id }),
      present: () => created(true),
    }),
  ),
  listRoute(deps, {
    path: '/users/:user_id/memberships',
    admin: true,
    params: membershipsParams,
    find: (ctx, state) => findUserOr404(state, ctx.params.user_id),
    // `user.members` (or its project/group members) in member-id order, as Entities::Membership.
    rows: (ctx, state, user) => [...membershipsOfUser(state.members, user.id)].filter((member) => !ctx.params.type || member.source_type === ctx.params.type).sort((a, b) => a.id - b.id),
    present: (member, view) => ({
      source_id: member.source_id,
      source_name: member.source_type === 'Namespace' ? (findGroup(view.state.groups, member.source_id)?.name ?? null) : (findProject(view.state.projects, member.source_id)?.name ?? null),
      source_type: member.source_type,
      access_level: member.access_level,
    }),
  }),
  commandRoute(deps, {
    method: 'DELETE',
    path: '/users/:id/identities/:provider',
    admin: true,
    params: identityParams,
    find: (ctx, state) => findUserOr404(state, ctx.params.id),
    command: (ctx, user) => ({ type: 'DeleteUserIdentity', id: user.id, provider: ctx.params.provider }),
    present: () => noContent(),
  }),
];


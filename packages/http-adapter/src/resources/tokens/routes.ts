/**
 * Access tokens: personal (lib/api/personal_access_tokens.rb, users.rb), impersonation (users.rb) and
 * project/group access tokens (lib/api/resource_access_tokens.rb). A token's value is generated here,
 * shown once in the creation response, and only its digest reaches the core.
 */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import { accessTokensOf, personalAccessTokenPrefix, badRequest, canOnGroup, canOnProject, findAccessToken, forbidden, isTokenActive, notFound, unauthorized, type AccessToken, type DomainError, type State } from '@forgefold/core';
import { arraySource, created, noContent, ok, paginate, route, type AnyRouteDef, type Schema } from '../../http/index.js';
import { createdId, findReadableGroup, findReadableProject, findUserOr404, today, type ApiDeps, type Ctx } from '../../app/deps.js';
import { commandRoute, nothing, type CommandResultOf } from '../../app/routes.js';
import { newTokenValue, tokenDigest } from '../../app/secrets.js';
import { accessTokenEntity, personalAccessTokenEntity } from './entities.js';
import { createPersonalUserTokenParams, createResourceTokenParams, createUserTokenParams, idParams, impersonationTokenParams, listImpersonationParams, listPersonalParams, tokenIdParams } from './params.js';

const strings = (values: readonly (string | null)[]): string[] => values.filter((value): value is string => typeof value === 'string');

const tokenValues = new WeakMap<object, string>();

/** The token's value, made once per request with the instance's `personal_access_token_prefix` (the same for all personal access tokens, bots' included). */
const valueOf = (deps: ApiDeps, ctx: object): string => {
  let value = tokenValues.get(ctx);
  if (value === undefined) {
    value = newTokenValue(personalAccessTokenPrefix(deps.app.state.settings));
    tokenValues.set(ctx, value);
  }
  return value;
};

/** An administrator creates a personal (or impersonation) token for a user, answered 201 with the value shown this once. */
const createTokenRoute = (deps: ApiDeps, path: string, impersonation: boolean) =>
  impersonation ? createTokenRouteWith(deps, path, true, createUserTokenParams) : createTokenRouteWith(deps, path, false, createPersonalUserTokenParams);

interface CreateTokenParams {
  readonly user_id: number;
  readonly name: string | null;
  readonly scopes: readonly (string | null)[];
  readonly expires_at?: string | null;
}

const createTokenRouteWith = <P extends CreateTokenParams>(deps: ApiDeps, path: string, impersonation: boolean, params: Schema<P>) =>
  commandRoute(deps, {
    method: 'POST',
    path,
    admin: true,
    params,
    find: (ctx, state) => findUserOr404(state, ctx.params.user_id),
    command: (ctx, user) => ({
      type: 'CreatePersonalAccessToken',
      user_id: user.id,
      name: ctx.params.name ?? '',
      scopes: strings(ctx.params.scopes),
      expires_at: ctx.params.expires_at ?? null,
      token_digest: tokenDigest(valueOf(deps, ctx)),
      impersonation,
    }),
    present: (done, ctx) => created(accessTokenEntity(findAccessToken(done.state.tokens, createdId(done, 'AccessTokenCreated'))!, today(deps), valueOf(deps, ctx))),
  });

const resourceRoutes = (deps: ApiDeps, resource: 'project' | 'group'): AnyRouteDef[] => {
  const base = resource === 'project' ? '/projects/:id/access_tokens' : '/groups/:id/access_tokens';
  /** `find_project!`/`find_group!` then `admin_resource_access_tokens` (maintainer of a project, owner of a group). */
  const findResource = (ctx: Ctx, state: State): E.Either<DomainError, number> => {
    const id = String(ctx.routeParams['id']);
    const viewer = ctx.principal?.userId ?? null;
    if (resource === 'project') {
      return pipe(
        findReadableProject(state, ctx, id),
        E.chain((project) => (canOnProject(state, viewer, 'admin_resource_access_tokens', project) ? E.right(project.id) : E.left(forbidden()))),
      );
    }
    return pipe(
      findReadableGroup(state, ctx, id),
      E.chain((group) => (canOnGroup(state, viewer, 'admin_resource_access_tokens', group) ? E.right(group.id) : E.left(forbidden()))),
    );
  };
  const isOf = (resourceId: number) => (token: AccessToken) => token.resource_type === resource && token.resource_id === resourceId;
  return [
    route({
      method: 'GET',
      path: base,
      handler: (ctx) =>
        pipe(
          findResource(ctx, deps.app.state),
          E.map((resourceId) => {
            const tokens = accessTokensOf(deps.app.state.tokens, (token) => isOf(resourceId)(token) && !token.revoked);
            return paginate(ctx, arraySource(tokens), { map: (token) => accessTokenEntity(token, today(deps)) });
          }),
        ),
    }),
    commandRoute(deps, {
      method: 'POST',
      path: base,
      params: createResourceTokenParams,
      find: findResource,
      command: (ctx, resourceId) => ({
        type: 'CreateResourceAccessToken',
        resource_type: resource,
        resource_id: resourceId,
        name: ctx.params.name ?? '',
        scopes: strings(ctx.params.scopes),
        access_level: ctx.params.access_level,
        expires_at: ctx.params.expires_at ?? null,
        token_digest: tokenDigest(valueOf(deps, ctx)),
        email_domain: new URL(deps.config.externalUrl ?? ctx.request.baseUrl).hostname,
      }),
      present: (done: CommandResultOf, ctx) => created(accessTokenEntity(findAccessToken(done.state.tokens, createdId(done, 'AccessTokenCreated'))!, today(deps), valueOf(deps, ctx))),
    }),
    commandRoute(deps, {
      method: 'DELETE',
      path: `${base}/:token_id`,
      params: tokenIdParams,
      find: findResource,
      command: (ctx, resourceId) => ({ type: 'RevokeResourceAccessToken', resource_type: resource, resource_id: resourceId, id: ctx.params.token_id }),
      // The platform answers a token it could not find or revoke with "400 Bad request - Failed to find token".
      error: (error) => (error._tag === 'NotFound' ? badRequest(`Failed to find ${resource} access token`) : error),
      present: () => noContent(),
    }),
  ];
};

/** Routes under `/users/:user_id` belong to API::Users, which registers `read_user` for reads (see resources/users). */
export const tokenRoutes = (deps: ApiDeps): AnyRouteDef[] => tokenClassRoutes(deps).map((def) => (def.path.startsWith('/users/') ? { ...def, readScopes: ['read_user'] } : def));

const tokenClassRoutes = (deps: ApiDeps): AnyRouteDef[] => [
  createTokenRoute(deps, '/users/:user_id/personal_access_tokens', false),
  route({
    method: 'GET',
    path: '/personal_access_tokens',
    params: listPersonalParams,
    handler: (ctx) => {
      const principal = ctx.principal!;
      const userId = ctx.params.user_id;
      // `restrict_non_admins!`: a non-administrator naming a user other than themselves (or no user) is 401.
      if (!principal.isAdmin && userId !== undefined && userId !== null && userId !== principal.userId) return unauthorized;
      // PersonalAccessTokensFinder: administrators see every user's tokens (optionally one user's), impersonation
      // and bots' tokens included; others their own, without impersonation tokens (`impersonation: false`).
      const owner = principal.isAdmin ? (userId ?? null) : principal.userId;
      const day = today(deps);
      const tokens = accessTokensOf(
        deps.app.state.tokens,
        (token) =>
          (principal.isAdmin || token.kind !== 'impersonation') &&
          (owner === null || token.user_id === owner) &&
          (ctx.params.state === undefined || ctx.params.state === null || (ctx.params.state === 'active') === isTokenActive(token, day)),
      );
      return paginate(ctx, arraySource(tokens), { map: (token) => personalAccessTokenEntity(token, day) });
    },
  }),
  route({
    method: 'GET',
    path: '/personal_access_tokens/:id',
    params: idParams,
    handler: (ctx) => {
      const token = findAccessToken(deps.app.state.tokens, ctx.params.id);
      const principal = ctx.principal!;
      if (!token || token.kind !== 'personal' || (!principal.isAdmin && token.user_id !== principal.userId)) return notFound();
      return ok(accessTokenEntity(token, today(deps)));
    },
  }),
  commandRoute(deps, {
    method: 'DELETE',
    path: '/personal_access_tokens/:id',
    params: idParams,
    find: nothing,
    // `PersonalAccessToken.find(id)` finds an impersonation token too, which its user or an administrator revokes here.
    command: (ctx) => ({ type: 'RevokePersonalAccessToken', id: ctx.params.id }),
    // As the platform's RevokeService: any failure (unknown token, someone else's) is a plain 400.
    error: () => badRequest(),
    present: () => noContent(),
  }),
  route({
    method: 'GET',
    path: '/users/:user_id/impersonation_tokens',
    admin: true,
    params: listImpersonationParams,
    handler: (ctx) => {
      const user = findUserOr404(deps.app.state, ctx.params.user_id);
      if (E.isLeft(user)) return user;
      const day = today(deps);
      const tokens = accessTokensOf(
        deps.app.state.tokens,
        (token) => token.kind === 'impersonation' && token.user_id === user.right.id && (ctx.params.state === 'all' || (ctx.params.state === 'active') === isTokenActive(token, day)),
      );
      return paginate(ctx, arraySource(tokens), { map: (token) => accessTokenEntity(token, day) });
    },
  }),
  createTokenRoute(deps, '/users/:user_id/impersonation_tokens', true),
  route({
    method: 'GET',
    path: '/users/:user_id/impersonation_tokens/:impersonation_token_id',
    admin: true,
    params: impersonationTokenParams,
    handler: (ctx) => {
      const user = findUserOr404(deps.app.state, ctx.params.user_id);
      if (E.isLeft(user)) return user;
      const token = findAccessToken(deps.app.state.tokens, ctx.params.impersonation_token_id);
      return token && token.kind === 'impersonation' && token.user_id === user.right.id ? ok(accessTokenEntity(token, today(deps))) : notFound('Impersonation Token');
    },
  }),
  commandRoute(deps, {
    method: 'DELETE',
    path: '/users/:user_id/impersonation_tokens/:impersonation_token_id',
    admin: true,
    params: impersonationTokenParams,
    find: (ctx, state) => findUserOr404(state, ctx.params.user_id),
    command: (ctx, user) => ({ type: 'RevokePersonalAccessToken', id: ctx.params.impersonation_token_id, user_id: user.id, impersonation: true }),
    present: () => noContent(),
  }),
  ...resourceRoutes(deps, 'project'),
  ...resourceRoutes(deps, 'group'),
];

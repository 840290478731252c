/**
 * Access tokens: personal (lib/api/personal_access_tokens.rb, users.rb), impersonation (users.rb) and
 * project/group access tokens (lib/api/resource_access_tokens.rb). A token's value is generated here,
 * shown once in the creation response, and only its digest reaches the core.
 */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import {
  AccessLevel,
  PERSONAL_SCOPES,
  accessTokensOf,
  badRequest,
  effectiveGroupAccess,
  effectiveProjectAccess,
  findAccessToken,
  isTokenActive,
  forbidden,
  notFound,
  type AccessToken,
} from '@forgefold/core';
import { arraySource, created, extend, noContent, ok, optional, paginate, requires, route, schema, T, type RouteDef } from '../http/index.js';
import { accessTokenEntity } from '../entities/tokens.js';
import { createdId, execute, findReadableGroup, findReadableProject, findUserOr404, today, type ApiDeps, type Ctx } from '../app/deps.js';
import { newTokenValue, tokenDigest } from '../app/secrets.js';

/** Scopes a project or group bot may hold (`Gitlab::Auth.resource_bot_scopes`). */
const RESOURCE_SCOPES = ['api', 'read_api', 'read_repository', 'write_repository', 'read_registry', 'write_registry'];

const createTokenParams = schema(
  requires('name', T.String),
  requires('scopes', T.Array(T.String), { values: [...PERSONAL_SCOPES] }),
  optional('expires_at', T.Date),
);

/** `POST /users/:user_id/personal_access_tokens` also takes a comma list (`coerce_with: CommaSeparatedToArray`, reference #139). */
const createPersonalTokenParams = schema(
  requires('name', T.String),
  requires('scopes', T.CommaSeparatedStrings, { values: [...PERSONAL_SCOPES] }),
  optional('expires_at', T.Date),
);

const createResourceTokenParams = schema(
  requires('name', T.String),
  requires('scopes', T.Array(T.String), { values: RESOURCE_SCOPES }),
  optional('expires_at', T.Date),
  optional('access_level', T.Integer, { values: [10, 20, 30, 40, 50], default: 40 }),
);

const strings = (values: readonly (string | null)[] | null): string[] => (values ?? []).filter((value): value is string => typeof value === 'string');

/** Creates a token of a user, answering 201 with the value shown this once. */
const createPersonalToken = async (deps: ApiDeps, ctx: Ctx, userId: number, params: { name: string | null; scopes: (string | null)[] | null; expires_at?: string | null }, impersonation: boolean) => {
  const value = newTokenValue();
  const result = await execute(deps, ctx, {
    type: 'CreatePersonalAccessToken',
    user_id: userId,
    name: params.name ?? '',
    scopes: strings(params.scopes),
    expires_at: params.expires_at ?? null,
    token_digest: tokenDigest(value),
    impersonation,
  });
  return pipe(
    result,
    E.map((done) => created(accessTokenEntity(findAccessToken(done.state.tokens, createdId(done, 'AccessTokenCreated'))!, today(deps), value))),
  );
};

/** An administrator creates a personal (or impersonation) token for a user. */
const createTokenRoute = (deps: ApiDeps, path: string, impersonation: boolean) => {
  const handler = async (ctx: Ctx & { params: { user_id: number | null; name: string | null; scopes: (string | null)[] | null; expires_at?: string | null } }) => {
    const user = findUserOr404(deps.app.state, ctx.params.user_id ?? 0);
    return E.isLeft(user) ? user : createPersonalToken(deps, ctx, user.right.id, ctx.params, impersonation);
  };
  const userId = schema(requires('user_id', T.Integer));
  return impersonation
    ? route({ method: 'POST', path, admin: true, params: extend(userId, createTokenParams), handler })
    : route({ method: 'POST', path, admin: true, params: extend(userId, createPersonalTokenParams), handler });
};

const resourceRoutes = (deps: ApiDeps, resource: 'project' | 'group'): RouteDef[] => {
  const base = resource === 'project' ? '/projects/:id/access_tokens' : '/groups/:id/access_tokens';
  /** `find_project!`/`find_group!` then the maintainer (project) or owner (group) check of the resource-token policy. */
  const findResource = (ctx: Ctx) => {
    const state = deps.app.state;
    const id = String(ctx.routeParams['id']);
    if (resource === 'project') {
      return pipe(
        findReadableProject(state, ctx, id),
        E.chain((project) => (effectiveProjectAccess(state, ctx.principal?.userId ?? null, project) >= AccessLevel.MAINTAINER ? E.right(project.id) : E.left(forbidden()))),
      );
    }
    return pipe(
      findReadableGroup(state, ctx, id),
      E.chain((group) => (effectiveGroupAccess(state, ctx.principal?.userId ?? null, group) >= AccessLevel.OWNER ? E.right(group.id) : E.left(forbidden()))),
    );
  };
  const isOf = (resourceId: number) => (token: AccessToken) => token.resource_type === resource && token.resource_id === resourceId;
  return [
    route({
      method: 'GET',
      path: base,
      handler: (ctx) =>
        pipe(
          findResource(ctx),
          E.map((resourceId) => {
            const tokens = accessTokensOf(deps.app.state.tokens, (token) => isOf(resourceId)(token) && !token.revoked);
            return paginate(ctx, arraySource(tokens), { map: (token) => accessTokenEntity(token, today(deps)) });
          }),
        ),
    }),
    route({
      method: 'POST',
      path: base,
      params: createResourceTokenParams,
      handler: async (ctx) => {
        const found = findResource(ctx);
        if (E.isLeft(found)) return found;
        const value = newTokenValue();
        const result = await execute(deps, ctx, {
          type: 'CreateResourceAccessToken',
          resource_type: resource,
          resource_id: found.right,
          name: ctx.params.name ?? '',
          scopes: strings(ctx.params.scopes),
          access_level: ctx.params.access_level,
          expires_at: ctx.params.expires_at ?? null,
          token_digest: tokenDigest(value),
          email_domain: new URL(deps.config.externalUrl ?? ctx.request.baseUrl).hostname,
        });
        return pipe(
          result,
          E.map((done) => created(accessTokenEntity(findAccessToken(done.state.tokens, createdId(done, 'AccessTokenCreated'))!, today(deps), value))),
        );
      },
    }),
    route({
      method: 'DELETE',
      path: `${base}/:token_id`,
      params: schema(requires('token_id', T.Integer)),
      handler: async (ctx) => {
        const found = findResource(ctx);
        if (E.isLeft(found)) return found;
        const result = await execute(deps, ctx, { type: 'RevokeResourceAccessToken', resource_type: resource, resource_id: found.right, id: ctx.params.token_id ?? 0 });
        // The platform answers a token it could not find or revoke with "400 Bad request - Failed to find token".
        return pipe(
          result,
          E.mapLeft((error) => (error._tag === 'NotFound' ? badRequest(`Failed to find ${resource} access token`) : error)),
          E.map(() => noContent()),
        );
      },
    }),
  ];
};

/** Routes under `/users/:user_id` belong to API::Users, which registers `read_user` for reads (see users.ts). */
export const tokenRoutes = (deps: ApiDeps): RouteDef[] =>
  tokenClassRoutes(deps).map((def) => (def.path.startsWith('/users/') ? { ...def, readScopes: ['read_user'] } : def));

const tokenClassRoutes = (deps: ApiDeps): RouteDef[] => [
  createTokenRoute(deps, '/users/:user_id/personal_access_tokens', false),
  route({
    method: 'GET',
    path: '/personal_access_tokens',
    params: schema(optional('user_id', T.Integer), optional('state', T.String, { values: ['active', 'inactive'] })),
    handler: (ctx) => {
      const principal = ctx.principal!;
      // Administrators see every user's tokens (optionally one user's); others only their own.
      const owner = principal.isAdmin ? ctx.params.user_id ?? null : principal.userId;
      const day = today(deps);
      const tokens = accessTokensOf(
        deps.app.state.tokens,
        (token) =>
          token.kind === 'personal' &&
          (owner === null || token.user_id === owner) &&
          (ctx.params.state === undefined || ctx.params.state === null || (ctx.params.state === 'active') === isTokenActive(token, day)),
      );
      return paginate(ctx, arraySource(tokens), { map: (token) => accessTokenEntity(token, day) });
    },
  }),
  route({
    method: 'GET',
    path: '/personal_access_tokens/:id',
    params: schema(requires('id', T.Integer)),
    handler: (ctx) => {
      const token = findAccessToken(deps.app.state.tokens, ctx.params.id ?? 0);
      const principal = ctx.principal!;
      if (!token || token.kind !== 'personal' || (!principal.isAdmin && token.user_id !== principal.userId)) return notFound();
      return ok(accessTokenEntity(token, today(deps)));
    },
  }),
  route({
    method: 'DELETE',
    path: '/personal_access_tokens/:id',
    params: schema(requires('id', T.Integer)),
    handler: async (ctx) => {
      const result = await execute(deps, ctx, { type: 'RevokePersonalAccessToken', id: ctx.params.id ?? 0, impersonation: false });
      // As the platform's RevokeService: any failure (unknown token, someone else's) is a plain 400.
      return pipe(
        result,
        E.mapLeft(() => badRequest()),
        E.map(() => noContent()),
      );
    },
  }),
  route({
    method: 'GET',
    path: '/users/:user_id/impersonation_tokens',
    admin: true,
    params: schema(requires('user_id', T.Integer), optional('state', T.String, { values: ['all', 'active', 'inactive'], default: 'all' })),
    handler: (ctx) => {
      const user = findUserOr404(deps.app.state, ctx.params.user_id ?? 0);
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
    params: schema(requires('user_id', T.Integer), requires('impersonation_token_id', T.Integer)),
    handler: (ctx) => {
      const user = findUserOr404(deps.app.state, ctx.params.user_id ?? 0);
      if (E.isLeft(user)) return user;
      const token = findAccessToken(deps.app.state.tokens, ctx.params.impersonation_token_id ?? 0);
      return token && token.kind === 'impersonation' && token.user_id === user.right.id ? ok(accessTokenEntity(token, today(deps))) : notFound('Impersonation Token');
    },
  }),
  route({
    method: 'DELETE',
    path: '/users/:user_id/impersonation_tokens/:impersonation_token_id',
    admin: true,
    params: schema(requires('user_id', T.Integer), requires('impersonation_token_id', T.Integer)),
    handler: async (ctx) => {
      const user = findUserOr404(deps.app.state, ctx.params.user_id ?? 0);
      if (E.isLeft(user)) return user;
      const result = await execute(deps, ctx, { type: 'RevokePersonalAccessToken', id: ctx.params.impersonation_token_id ?? 0, user_id: user.right.id, impersonation: true });
      return pipe(result, E.map(() => noContent()));
    },
  }),
  ...resourceRoutes(deps, 'project'),
  ...resourceRoutes(deps, 'group'),
];

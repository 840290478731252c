/**
 * SAML SSO set-up (`/api/v4/groups/:id/saml_provider`, `/api/v4/groups/:id/scim_token`) and the group SCIM API
 * (`/api/scim/v2/groups/:group/…`): Users (list with RFC 7644 filters, get, POST, PATCH, PUT, DELETE) and
 * discovery (ServiceProviderConfig, Schemas, ResourceTypes). SCIM answers `application/scim+json` with the
 * RFC 7644 error schema; the group's SCIM token is the credential (checked here: the routes are `auth: 'none'`).
 */
import * as E from 'fp-ts/lib/Either.js';
import {
  compileScimUserFilter,
  findGroupByIdOrPath,
  findSamlProvider,
  findScimIdentityByExternUid,
  isRubyBlank,
  parseFilter,
  parseUserResource,
  patchChanges,
  provisionFailure,
  requireProvisioningAttributes,
  SAVE_FAILED_PREFIX,
  UPDATE_FAILED_PREFIX,
  scimTokenMatches,
  scimUserView,
  searchScimIdentities,
  type Actor,
  type DomainError,
  type Group,
  type SamlProvider,
  type ScimRequestError,
  type State,
} from '@forgefold/core';
import {
  ApiError,
  SCIM_CONTENT_TYPE,
  created,
  jsonBodyParams,
  mount,
  noContent,
  ok,
  parseJsonBody,
  route,
  type Mount,
  type AnyRouteDef,
} from '../../http/index.js';
import { tokenDigest } from '../../app/secrets.js';
import type { ApiDeps, Ctx } from '../../app/deps.js';
import {
  SCIM_USER_SCHEMA,
  scimBaseUrl,
  scimErrorEntity,
  scimListEntity,
  scimUserEntity,
  scimUserLocation,
} from './entities.js';
import { inspectedParams } from './params.js';

// ---------------------------------------------------------------------------------------------------------------
// Errors

/**
 * The adapter's own errors under the SCIM root (unknown route, wrong method, a body that is not JSON,
 * parameter validation) in the SCIM error schema; errors the SCIM handlers raise are SCIM already.
 */
const scimAdapterError = (status: number, body: unknown): unknown => {
  if (typeof body === 'object' && body !== null && 'schemas' in body) return body;
  const fields = (body ?? {}) as { error?: unknown; message?: unknown };
  const text = typeof fields.error === 'string' ? fields.error : typeof fields.message === 'string' ? fields.message : `${status}`;
  return scimErrorEntity(status, text, status === 400 ? 'invalidSyntax' : undefined);
};

export const scimError = (status: number, detail: string, scimType?: string, extra: Record<string, unknown> = {}): ApiError =>
  new ApiError(status, { ...scimErrorEntity(status, detail, scimType), ...extra });

const fromRequestError = (error: ScimRequestError): ApiError => scimError(error.status, error.detail, error.scimType);

/** Core decisions' failures in the SCIM error schema. */
export const fromDomainError = (error: DomainError): ApiError => {
  switch (error._tag) {
    case 'NotFound':
      return scimError(404, error.message ?? `${error.resource ?? 'Resource'} not found`);
    case 'Conflict':
      return scimError(409, error.message, 'uniqueness');
    case 'Validation':
      return scimError(400, Object.entries(error.errors).map(([attribute, messages]) => `${attribute} ${messages.join(', ')}`).join('; '), 'invalidValue');
    case 'PreconditionFailed':
      return scimError(412, error.message ?? 'Precondition Failed');
    case 'BadRequest':
      return scimError(400, error.message ?? error.reason ?? 'Bad request');
    case 'Forbidden':
      return scimError(403, error.reason ?? 'Forbidden');
    case 'Unauthorized':
      return scimError(401, 'Unauthorized', undefined, { message: '401 Unauthorized' });
    case 'MethodNotAllowed':
      return scimError(405, error.message ?? 'Method Not Allowed');
    case 'Unprocessable':
      return scimError(422, error.message ?? 'Unprocessable Entity');
  }
};

/**
 * The platform's POST failure text, `"Error saving user with #{params.inspect}: #{message}"`: the core's message
 * (`Error saving user: …`) with the request's params put in.
 */
const withRequestParams = (error: DomainError, params: () => string): DomainError => {
  if ((error._tag !== 'Conflict' && error._tag !== 'PreconditionFailed') || !error.message?.startsWith(SAVE_FAILED_PREFIX)) return error;
  return { ...error, message: `Error saving user with ${params()}: ${error.message.slice(SAVE_FAILED_PREFIX.length)}` };
};

/** A failed update, `"Error updating #{identity.user.name} with #{params.inspect}"` (412): the core names the user. */
const withUpdateParams = (error: DomainError, params: () => string): DomainError =>
  error._tag === 'PreconditionFailed' && error.message?.startsWith(UPDATE_FAILED_PREFIX) ? { ...error, message: `${error.message} with ${params()}` } : error;

// ---------------------------------------------------------------------------------------------------------------
// The SCIM API under /api/scim/v2

interface ScimScope {
  readonly state: State;
  readonly group: Group;
  readonly provider: SamlProvider;
  /** The group's SCIM root URL (for `meta.location`). */
  readonly base: string;
  readonly actor: Actor;
}

/**
 * Reference §3.1 item 117, in order: an unknown group is 404 "Group <g> not found", a group without SAML 404
 * "… does not have SAML SSO configured" (both before the token is looked at), then a missing token or one that is
 * not this group's current token is 401 (the platform's `message` beside the SCIM fields).
 */
const scimScope = (deps: ApiDeps, ctx: Ctx): ScimScope => {
  const state = deps.app.state;
  const param = ctx.routeParams['group']!;
  const group = findGroupByIdOrPath(state.groups, param);
  if (!group) throw scimError(404, `Group ${param} not found`);
  const provider = findSamlProvider(state.scim, group.id);
  if (!provider) throw scimError(404, `Group ${param} does not have SAML SSO configured`);
  if (ctx.token === null || !scimTokenMatches(state.scim, group.id, tokenDigest(ctx.token))) {
    throw scimError(401, 'Invalid or missing SCIM token for this group', undefined, { message: '401 Unauthorized' });
  }
  const base = scimBaseUrl(deps.config.externalUrl ?? ctx.request.baseUrl, group);
  return { state, group, provider, base, actor: { userId: null, origin: 'scim', requestId: ctx.request.requestId } };
};

const notAnObject = (): ApiError => scimError(400, 'The request body must be a JSON object', 'invalidSyntax');
const notJson = (): ApiError => scimError(400, 'The request body is not valid JSON', 'invalidSyntax');
/** JSON's white space: a body of nothing else is no object at all. */
const isBlank = (body: Buffer): boolean => body.every((b) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d);

/**
 * The request's JSON object, whatever its declared type (identity providers send `application/scim+json`,
 * `application/json`, `text/plain` or none), read from the body as it came with the checks every JSON body gets
 * (malformed strings, nesting), which a body not declared as JSON used to skip: an unpaired surrogate was stored,
 * then made every list answer 500. A body declared as JSON was parsed and checked before routing too (a fault
 * answers there, the same); its params are not taken from there, as a large one holds only the names a schema
 * declares (see `body-worker.ts`), and these routes have none. Read after the SCIM token is checked.
 */
const jsonBody = (ctx: Ctx): Record<string, unknown> => {
  if (isBlank(ctx.rawBody)) throw notAnObject();
  // A malformed string is the adapter's 400, rendered in the SCIM schema as a JSON-declared body's is.
  const parsed = parseJsonBody(ctx.rawBody, notJson);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw notAnObject();
  return jsonBodyParams(parsed);
};

/** Ruby `to_i` on a query value: leading digits (with a sign), else null. */
const intParam = (value: unknown): number | null => {
  if (typeof value === 'number' && Number.isFinite(value)) return Math.trunc(value);
  if (typeof value !== 'string') return null;
  const match = /^\s*([+-]?\d+)/.exec(value);
  return match ? Number(match[1]) : null;
};

export const DEFAULT_COUNT = 20;
export const MAX_COUNT = 100;

const userResponse = (scope: ScimScope, state: State, externUid: string, status: 200 | 201) => {
  const identity = findScimIdentityByExternUid(state.scim, scope.group.id, externUid);
  const view = identity && scimUserView(state, identity);
  if (!view) throw scimError(404, `Resource ${externUid} not found`);
  const body = scimUserEntity(view, scope.base);
  const headers = { Location: scimUserLocation(scope.base, view.identity.extern_uid) };
  return status === 201 ? created(body, { headers }) : ok(body, { headers, etag: false });
};

const requireIdentity = (scope: ScimScope, id: string) => {
  // While SSO is disabled the group's identities are not there, as the list shows none (reference item 120).
  const identity = scope.provider.enabled ? findScimIdentityByExternUid(scope.state.scim, scope.group.id, id) : undefined;
  if (!identity || !scimUserView(scope.state, identity)) throw scimError(404, `Resource ${id} not found`);
  return identity;
};

const usersRoutes = (deps: ApiDeps): AnyRouteDef[] => [
  route({
    method: 'GET',
    path: '/groups/:group/Users',
    handler: (ctx) => {
      const scope = scimScope(deps, ctx);
      const startIndex = Math.max(intParam(ctx.query['startIndex']) ?? 1, 1);
      const requested = intParam(ctx.query['count']);
      const count = requested === null ? DEFAULT_COUNT : Math.min(Math.max(requested, 0), MAX_COUNT);
      const rawFilter = ctx.query['filter'];
      let filter = null;
      let predicate = null;
      if (rawFilter !== undefined && rawFilter !== null && !(typeof rawFilter === 'string' && isRubyBlank(rawFilter))) {
        if (typeof rawFilter !== 'string') throw scimError(400, 'The filter must be a string', 'invalidFilter');
        const parsed = parseFilter(rawFilter);
        if (E.isLeft(parsed)) throw scimError(400, parsed.left.detail, 'invalidFilter');
        const compiled = compileScimUserFilter(parsed.right);
        if (E.isLeft(compiled)) throw scimError(400, compiled.left.detail, 'invalidFilter');
        filter = parsed.right;
        predicate = compiled.right;
      }
      // The platform lists nothing while SAML SSO is disabled (reference §3.3 item 120).
      const result = scope.provider.enabled
        ? searchScimIdentities(scope.state, scope.group.id, filter, predicate, startIndex, count)
        : { totalResults: 0, resources: [] };
      return ok(scimListEntity(result.totalResults, startIndex, result.resources.map((view) => scimUserEntity(view, scope.base))), { etag: false });
    },
  }),
  route({
    method: 'GET',
    path: '/groups/:group/Users/:id*',
    handler: (ctx) => {
      const scope = scimScope(deps, ctx);
      return userResponse(scope, scope.state, requireIdentity(scope, ctx.routeParams['id']!).extern_uid, 200);
    },
  }),
  route({
    method: 'POST',
    path: '/groups/:group/Users',
    handler: async (ctx) => {
      const scope = scimScope(deps, ctx);
      const body = jsonBody(ctx);
      const parsed = parseUserResource(body, { keepBlankEmail: true });
      if (E.isLeft(parsed)) throw fromRequestError(parsed.left);
      const fields = requireProvisioningAttributes(parsed.right);
      if (E.isLeft(fields)) throw fromRequestError(fields.left);
      const result = await deps.app.execute(scope.actor, { type: 'ProvisionScimIdentity', group_id: scope.group.id, ...fields.right });
      // A failed save names the request's params, as the platform's POST does; one after a membership was saved too.
      const params = () => inspectedParams(ctx.query, body, { group: ctx.routeParams['group']! });
      if (E.isLeft(result)) throw fromDomainError(withRequestParams(result.left, params));
      const failure = provisionFailure(result.right);
      if (failure) throw fromDomainError(withRequestParams(failure, params));
      return userResponse(scope, result.right.state, fields.right.extern_uid, 201);
    },
  }),
  route({
    method: 'PATCH',
    path: '/groups/:group/Users/:id*',
    handler: async (ctx) => {
      const scope = scimScope(deps, ctx);
      const identity = requireIdentity(scope, ctx.routeParams['id']!);
      const body = jsonBody(ctx);
      const changes = patchChanges(body);
      if (E.isLeft(changes)) throw fromRequestError(changes.left);
      const result = await deps.app.execute(scope.actor, { type: 'UpdateScimIdentity', group_id: scope.group.id, extern_uid: identity.extern_uid, changes: changes.right, exclusive: true });
      if (E.isLeft(result)) throw fromDomainError(withUpdateParams(result.left, () => inspectedParams(ctx.query, body, { group: ctx.routeParams['group']!, id: ctx.routeParams['id']! })));
      return noContent();
    },
  }),
  route({
    method: 'PUT',
    path: '/groups/:group/Users/:id*',
    handler: async (ctx) => {
      const scope = scimScope(deps, ctx);
      const identity = requireIdentity(scope, ctx.routeParams['id']!);
      const body = jsonBody(ctx);
      const parsed = parseUserResource(body);
      if (E.isLeft(parsed)) throw fromRequestError(parsed.left);
      // Full replacement (RFC 7644 §3.5.1): the resource's required attributes must all be there; the id (our
      // externalId) stays unless the body names another externalId; an absent `active` leaves it as it is.
      const fields = requireProvisioningAttributes(parsed.right, ['userName', 'emails', 'name']);
      if (E.isLeft(fields)) throw fromRequestError(fields.left);
      const externUid = parsed.right.extern_uid ?? identity.extern_uid;
      const result = await deps.app.execute(scope.actor, {
        type: 'UpdateScimIdentity',
        group_id: scope.group.id,
        extern_uid: identity.extern_uid,
        changes: {
          extern_uid: externUid,
          user_name: fields.right.user_name,
          email: fields.right.email,
          name: fields.right.name,
          given_name: fields.right.given_name,
          family_name: fields.right.family_name,
          ...(parsed.right.active !== undefined ? { active: parsed.right.active } : {}),
        },
      });
      if (E.isLeft(result)) throw fromDomainError(withUpdateParams(result.left, () => inspectedParams(ctx.query, body, { group: ctx.routeParams['group']!, id: ctx.routeParams['id']! })));
      return userResponse(scope, result.right.state, externUid, 200);
    },
  }),
  route({
    method: 'DELETE',
    path: '/groups/:group/Users/:id*',
    handler: async (ctx) => {
      const scope = scimScope(deps, ctx);
      const identity = requireIdentity(scope, ctx.routeParams['id']!);
      const result = await deps.app.execute(scope.actor, { type: 'DeleteScimIdentity', group_id: scope.group.id, extern_uid: identity.extern_uid });
      if (E.isLeft(result)) throw fromDomainError(result.left);
      return noContent();
    },
  }),
];

// ---------------------------------------------------------------------------------------------------------------
// Discovery (RFC 7644 §4): exactly what this server supports.

const attribute = (name: string, type: string, extra: Record<string, unknown> = {}) => ({
  name,
  type,
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  ...extra,
});

export const userSchemaResource = (base: string) => ({
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:Schema'],
  id: SCIM_USER_SCHEMA,
  name: 'User',
  description: 'User Account. Filters may name any of these attributes, and id and externalId.',
  attributes: [
    attribute('userName', 'string', { required: true, uniqueness: 'server', description: 'Unique within the group; compared case-insensitively.' }),
    attribute('name', 'complex', {
      required: true,
      description: 'formatted, else "givenName familyName", else displayName, is the user\'s name.',
      subAttributes: [attribute('formatted', 'string'), attribute('givenName', 'string'), attribute('familyName', 'string')],
    }),
    attribute('displayName', 'string', { description: "The user's name (the same value as name.formatted)." }),
    attribute('emails', 'complex', {
      multiValued: true,
      required: true,
      description: 'One work e-mail address, the primary one; compared case-insensitively.',
      subAttributes: [
        attribute('value', 'string', { required: true }),
        attribute('type', 'string', { canonicalValues: ['work'] }),
        attribute('primary', 'boolean'),
      ],
    }),
    attribute('active', 'boolean', { description: 'false removes the group membership; true restores it at the default membership role.' }),
  ],
  meta: { resourceType: 'Schema', location: `${base}/Schemas/${SCIM_USER_SCHEMA}` },
});

export const userResourceType = (base: string) => ({
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
  id: 'User',
  name: 'User',
  endpoint: '/Users',
  description: 'User Account',
  schema: SCIM_USER_SCHEMA,
  schemaExtensions: [],
  meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/User` },
});

export const serviceProviderConfig = (base: string) => ({
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
  patch: { supported: true },
  bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
  filter: { supported: true, maxResults: MAX_COUNT },
  changePassword: { supported: false },
  sort: { supported: false },
  etag: { supported: false },
  authenticationSchemes: [
    {
      type: 'oauthbearertoken',
      name: 'OAuth Bearer Token',
      description: "The group's SCIM token, sent as Authorization: Bearer <token>",
      primary: true,
    },
  ],
  meta: { resourceType: 'ServiceProviderConfig', location: `${base}/ServiceProviderConfig` },
});

const discoveryRoutes = (deps: ApiDeps): AnyRouteDef[] => [
  route({ method: 'GET', path: '/groups/:group/ServiceProviderConfig', handler: (ctx) => ok(serviceProviderConfig(scimScope(deps, ctx).base)) }),
  route({ method: 'GET', path: '/groups/:group/Schemas', handler: (ctx) => ok(scimListEntity(1, 1, [userSchemaResource(scimScope(deps, ctx).base)])) }),
  route({
    method: 'GET',
    path: '/groups/:group/Schemas/:id*',
    handler: (ctx) => {
      const { base } = scimScope(deps, ctx);
      if (ctx.routeParams['id']!.toLowerCase() !== SCIM_USER_SCHEMA.toLowerCase()) throw scimError(404, `Resource ${ctx.routeParams['id']} not found`);
      return ok(userSchemaResource(base));
    },
  }),
  route({ method: 'GET', path: '/groups/:group/ResourceTypes', handler: (ctx) => ok(scimListEntity(1, 1, [userResourceType(scimScope(deps, ctx).base)])) }),
  route({
    method: 'GET',
    path: '/groups/:group/ResourceTypes/:id*',
    handler: (ctx) => {
      const { base } = scimScope(deps, ctx);
      if (ctx.routeParams['id']!.toLowerCase() !== 'user') throw scimError(404, `Resource ${ctx.routeParams['id']} not found`);
      return ok(userResourceType(base));
    },
  }),
];

export const scimRoutes = (deps: ApiDeps): AnyRouteDef[] => [...usersRoutes(deps), ...discoveryRoutes(deps)];

/** The SCIM API's mount: its own content type and error schema; the group's SCIM token is checked by each route. */
export const scimMount = (deps: ApiDeps): Mount => mount('/api/scim/v2', scimRoutes(deps), { contentType: SCIM_CONTENT_TYPE, auth: 'none', renderError: scimAdapterError });

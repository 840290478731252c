/** SAML SSO set-up of a top-level group: its provider (`/groups/:id/saml_provider`) and its SCIM token (`/groups/:id/scim_token`). */
import { randomBytes } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import { canOnGroup, findSamlProvider, forbidden, notFound, type DomainError, type Group, type State } from '@forgefold/core';
import { created, ok, type HandlerContext, type AnyRouteDef } from '../../http/index.js';
import { tokenDigest } from '../../app/secrets.js';
import { presentContext, viewerId, type ApiDeps } from '../../app/deps.js';
import { commandRoute, groupOfRoute, perRequest } from '../../app/routes.js';
import { samlProviderEntity, scimBaseUrl } from '../scim/entities.js';
import { samlParams } from './params.js';

/** A SCIM token as the platform's "Generate a SCIM token" button shows it: 20 random URL-safe characters. */
const newScimToken = (): string => randomBytes(15).toString('base64url');

/** `find_group!` then `admin_group_saml` (owners and administrators). */
const ownedGroup = (ctx: HandlerContext<unknown>, state: State): E.Either<DomainError, Group> =>
  pipe(
    groupOfRoute(ctx, state),
    E.chain((group) => (canOnGroup(state, viewerId(ctx), 'admin_group_saml', group) ? E.right(group) : E.left(forbidden()))),
  );

/** The new token's value: shown once in the answer, only its digest recorded. */
const tokenOf = perRequest(newScimToken);

export const samlRoutes = (deps: ApiDeps): AnyRouteDef[] => [
  {
    method: 'GET',
    path: '/groups/:id/saml_provider',
    handler: (ctx) =>
      pipe(
        ownedGroup(ctx, deps.app.state),
        E.chain((group) => {
          const provider = findSamlProvider(deps.app.state.scim, group.id);
          return provider ? E.right(ok(samlProviderEntity(provider))) : E.left(notFound('SAML Provider'));
        }),
      ),
  },
  commandRoute(deps, {
    method: 'PUT',
    path: '/groups/:id/saml_provider',
    params: samlParams,
    // The owner check answers before the parameters are validated.
    before: (ctx) => {
      const found = ownedGroup(ctx, deps.app.state);
      return E.isLeft(found) ? found.left : undefined;
    },
    find: ownedGroup,
    command: ({ params: p }, group) => ({
      type: 'ConfigureSamlProvider',
      group_id: group.id,
      ...(p.enabled != null ? { enabled: p.enabled } : {}),
      ...(p.sso_url != null ? { sso_url: p.sso_url } : {}),
      ...(p.certificate_fingerprint != null ? { certificate_fingerprint: p.certificate_fingerprint } : {}),
      ...(p.enforced_sso != null ? { enforced_sso: p.enforced_sso } : {}),
      ...(p.default_membership_role != null ? { default_membership_role: p.default_membership_role } : {}),
    }),
    present: (done, _ctx, group) => ok(samlProviderEntity(findSamlProvider(done.state.scim, group.id)!)),
  }),
  commandRoute(deps, {
    method: 'POST',
    path: '/groups/:id/scim_token',
    find: ownedGroup,
    command: (ctx, group) => ({ type: 'RotateScimToken', group_id: group.id, token_digest: tokenDigest(tokenOf(ctx)) }),
    present: (_done, ctx, group) => created({ scim_api_url: scimBaseUrl(presentContext(deps, ctx).baseUrl, group), scim_token: tokenOf(ctx) }),
  }),
];

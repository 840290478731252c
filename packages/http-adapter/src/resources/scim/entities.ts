/**
 * SCIM presenters: the User resource (the platform's keys, in its order — `id` = extern_uid, the flat
 * `"name.formatted"` — plus the RFC 7643 attributes identity providers read back: `externalId`, the `name` object,
 * `displayName`, `meta.created/lastModified/location`), the list and error messages, the SAML provider, and
 * the `group_saml_identity` of members.
 */
import {
  canOnGroup,
  findGroup,
  findSamlProvider,
  findScimIdentityOfUser,
  rootAncestor,
  scimEmails,
  type Group,
  type Member,
  type SamlProvider,
  type ScimUserView,
} from '@forgefold/core';
import { encodeUriComponentSafely } from '../../http/index.js';
import type { PresentContext } from '../context.js';

export const SCIM_USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const SCIM_LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const SCIM_ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** The group's SCIM root, e.g. "https://host/api/scim/v2/groups/my-group". */
export const scimBaseUrl = (baseUrl: string, group: Group): string => `${baseUrl}/api/scim/v2/groups/${encodeUriComponentSafely(group.full_path)}`;

/** An externalId stored before malformed strings were refused may hold an unpaired surrogate: never a URIError. */
export const scimUserLocation = (groupBase: string, externUid: string): string => `${groupBase}/Users/${encodeUriComponentSafely(externUid)}`;

export const scimUserEntity = (view: ScimUserView, groupBase: string) => {
  const { identity, user } = view;
  return {
    schemas: [SCIM_USER_SCHEMA],
    id: identity.extern_uid,
    externalId: identity.extern_uid,
    active: identity.active,
    emails: scimEmails(user).map((email) => ({ type: email.type, value: email.value, primary: email.primary })),
    'name.formatted': user.name,
    name: {
      formatted: user.name,
      ...(identity.given_name !== null ? { givenName: identity.given_name } : {}),
      ...(identity.family_name !== null ? { familyName: identity.family_name } : {}),
    },
    displayName: user.name,
    meta: { resourceType: 'User', created: identity.created_at, lastModified: identity.updated_at, location: scimUserLocation(groupBase, identity.extern_uid) },
    userName: identity.user_name,
  };
};

export const scimListEntity = <T>(totalResults: number, startIndex: number, resources: readonly T[]) => ({
  schemas: [SCIM_LIST_SCHEMA],
  totalResults,
  itemsPerPage: resources.length,
  startIndex,
  Resources: resources,
});

/** RFC 7644 §3.12: `status` is the HTTP status as a string; `scimType` only when one applies. */
export const scimErrorEntity = (status: number, detail: string, scimType?: string) => ({
  schemas: [SCIM_ERROR_SCHEMA],
  status: String(status),
  ...(scimType ? { scimType } : {}),
  detail,
});

export const samlProviderEntity = (provider: SamlProvider) => ({
  id: provider.id,
  group_id: provider.group_id,
  enabled: provider.enabled,
  sso_url: provider.sso_url,
  certificate_fingerprint: provider.certificate_fingerprint,
  enforced_sso: provider.enforced_sso,
  default_membership_role: provider.default_membership_role,
  created_at: provider.created_at,
  updated_at: provider.updated_at,
});

/**
 * `group_saml_identity` of a member entity (reference §2.8): shown only to owners of the member's group (and
 * administrators) when its top-level group has SAML SSO enabled — the member's active SSO identity there, or
 * null; `undefined` leaves the key out.
 */
export const groupSamlIdentity = (member: Member, ctx: PresentContext): { provider: string; extern_uid: string; saml_provider_id: number } | null | undefined => {
  if (member.source_type !== 'Namespace') return undefined;
  const group = findGroup(ctx.state.groups, member.source_id);
  if (!group) return undefined;
  const root = rootAncestor(ctx.state.groups, group);
  const provider = findSamlProvider(ctx.state.scim, root.id);
  if (!provider || !provider.enabled) return undefined;
  if (!ctx.viewerIsAdmin && !canOnGroup(ctx.state, ctx.viewerId, 'read_group_saml_identity', group)) return undefined;
  const identity = member.user_id === null ? undefined : findScimIdentityOfUser(ctx.state.scim, root.id, member.user_id);
  return identity && identity.active ? { provider: 'group_saml', extern_uid: identity.extern_uid, saml_provider_id: provider.id } : null;
};

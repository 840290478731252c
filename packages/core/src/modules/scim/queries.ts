import { tableGet, tableKeys } from '../../kernel/table.js';
import { findUser, findUserByEmail } from '../users/queries.js';
import type { User, UsersSlice } from '../users/projection.js';
import { compileFilter, complexAttr, indexKeys, type Filter, type FilterError, type FilterSchema, type Predicate } from './filter.js';
import { externUidKey, groupUserKey, userNameKey, type SamlProvider, type ScimIdentity, type ScimSlice, type ScimToken } from './projection.js';
import * as E from 'fp-ts/lib/Either.js';

export const findSamlProvider = (scim: ScimSlice, groupId: number): SamlProvider | undefined => tableGet(scim.providers, groupId);

export const findScimToken = (scim: ScimSlice, groupId: number): ScimToken | undefined => tableGet(scim.tokens, groupId);

/** Whether a token digest is the current SCIM token of this group (a token of another group is not). */
export const scimTokenMatches = (scim: ScimSlice, groupId: number, digest: string): boolean => tableGet(scim.tokens, groupId)?.token_digest === digest;

export const findScimIdentity = (scim: ScimSlice, id: number): ScimIdentity | undefined => tableGet(scim.identities, id);

/** The identity with this SCIM id / externalId in the group (case-insensitive). */
export const findScimIdentityByExternUid = (scim: ScimSlice, groupId: number, externUid: string): ScimIdentity | undefined => {
  const id = tableGet(scim.byExternUid, externUidKey(groupId, externUid));
  return id === undefined ? undefined : findScimIdentity(scim, id);
};

export const findScimIdentityByUserName = (scim: ScimSlice, groupId: number, userName: string): ScimIdentity | undefined => {
  const id = tableGet(scim.byUserName, userNameKey(groupId, userName));
  return id === undefined ? undefined : findScimIdentity(scim, id);
};

export const findScimIdentityOfUser = (scim: ScimSlice, groupId: number, userId: number): ScimIdentity | undefined => {
  const id = tableGet(scim.byGroupUser, groupUserKey(groupId, userId));
  return id === undefined ? undefined : findScimIdentity(scim, id);
};

/** The identity in the group whose user has this e-mail (case-insensitive). */
export const findScimIdentityByEmail = (state: { readonly users: UsersSlice; readonly scim: ScimSlice }, groupId: number, email: string): ScimIdentity | undefined => {
  const user = findUserByEmail(state.users, email);
  return user ? findScimIdentityOfUser(state.scim, groupId, user.id) : undefined;
};

export const scimIdentityCount = (scim: ScimSlice, groupId: number): number => tableGet(scim.counts, groupId) ?? 0;

/** The group's identities in identity-id order. */
export function* scimIdentitiesOfGroup(scim: ScimSlice, groupId: number): Generator<ScimIdentity> {
  const ids = tableGet(scim.ofGroup, groupId);
  if (!ids) return;
  for (const key of tableKeys(ids)) {
      const identity = findScimIdentity(scim, Number(key));
      if (identity) yield identity;
    }
}

// ---------------------------------------------------------------------------------------------------------------
// The SCIM User resource as filters see it: the identity and its user.

export interface ScimUserView {
  readonly identity: ScimIdentity;
  readonly user: User;
}

export interface ScimEmail {
  readonly value: string;
  readonly type: 'work';
  readonly primary: true;
}

export const scimEmails = (user: User): readonly ScimEmail[] => [{ value: user.email, type: 'work', primary: true }];

const str = <R>(read: (r: R) => string | null) => ({ kind: 'scalar' as const, type: 'string' as const, values: (r: R) => [read(r)] });

/**
 * Every attribute a filter may name (lower-cased), and how to read it. Anything else is an `invalidFilter`.
 * The shapes agree with the rendered resource (`entities/scim.ts`).
 */
export const scimUserFilterSchema: FilterSchema<ScimUserView> = {
  id: str((v) => v.identity.extern_uid),
  externalid: str((v) => v.identity.extern_uid),
  username: str((v) => v.identity.user_name),
  displayname: str((v) => v.user.name),
  active: { kind: 'scalar', type: 'boolean', values: (v) => [v.identity.active] },
  name: complexAttr<ScimUserView, ScimUserView>({
    kind: 'complex',
    multiValued: false,
    elements: (v) => [v],
    sub: { formatted: str((v: ScimUserView) => v.user.name), givenname: str((v: ScimUserView) => v.identity.given_name), familyname: str((v: ScimUserView) => v.identity.family_name) },
  }),
  emails: complexAttr<ScimUserView, ScimEmail>({
    kind: 'complex',
    multiValued: true,
    elements: (v) => scimEmails(v.user),
    sub: { value: str((e: ScimEmail) => e.value), type: str((e: ScimEmail) => e.type), primary: { kind: 'scalar', type: 'boolean', values: (e: ScimEmail) => [e.primary] } },
  }),
  meta: complexAttr<ScimUserView, ScimUserView>({
    kind: 'complex',
    multiValued: false,
    elements: (v) => [v],
    sub: {
      resourcetype: str(() => 'User'),
      created: { kind: 'scalar', type: 'dateTime', values: (v: ScimUserView) => [v.identity.created_at] },
      lastmodified: { kind: 'scalar', type: 'dateTime', values: (v: ScimUserView) => [v.identity.updated_at] },
    },
  }),
};

export const compileScimUserFilter = (filter: Filter): E.Either<FilterError, Predicate<ScimUserView>> => compileFilter(filter, scimUserFilterSchema);

export const scimUserView = (state: { readonly users: UsersSlice; readonly scim: ScimSlice }, identity: ScimIdentity): ScimUserView | undefined => {
  const user = findUser(state.users, identity.user_id);
  return user ? { identity, user } : undefined;
};

export interface ScimSearchResult {
  readonly totalResults: number;
  readonly resources: readonly ScimUserView[];
}

/**
 * The identities of a group matching a filter, in identity-id order, one page of them: `startIndex` is 1-based,
 * `count` the page size. An `eq` on id, externalId, userName or e-mail (alone, or under `and`/`or`) is answered
 * from the indexes; any other filter scans the group.
 */
export const searchScimIdentities = (
  state: { readonly users: UsersSlice; readonly scim: ScimSlice },
  groupId: number,
  filter: Filter | null,
  predicate: Predicate<ScimUserView> | null,
  startIndex: number,
  count: number,
): ScimSearchResult => {
  const keys = filter === null ? null : indexKeys(filter);
  const offset = Math.max(startIndex, 1) - 1;
  if (keys !== null) {
    const ids = new Set<number>();
    for (const key of keys) {
      const identity =
        key.by === 'externalId'
          ? findScimIdentityByExternUid(state.scim, groupId, key.value)
          : key.by === 'userName'
            ? findScimIdentityByUserName(state.scim, groupId, key.value)
            : findScimIdentityByEmail(state, groupId, key.value);
      if (identity) ids.add(identity.id);
    }
    const matches = [...ids]
      .sort((a, b) => a - b)
      .map((id) => scimUserView(state, findScimIdentity(state.scim, id)!))
      .filter((view): view is ScimUserView => view !== undefined && (predicate === null || predicate(view)));
    return { totalResults: matches.length, resources: matches.slice(offset, offset + count) };
  }
  let total = 0;
  const page: ScimUserView[] = [];
  if (predicate === null) {
    total = scimIdentityCount(state.scim, groupId);
    if (count === 0 || offset >= total) return { totalResults: total, resources: [] };
    let index = 0;
    for (const identity of scimIdentitiesOfGroup(state.scim, groupId)) {
      if (index >= offset) {
        const view = scimUserView(state, identity);
        if (view) page.push(view);
        if (page.length >= count) break;
      }
      index++;
    }
    return { totalResults: total, resources: page };
  }
  for (const identity of scimIdentitiesOfGroup(state.scim, groupId)) {
    const view = scimUserView(state, identity);
    if (!view || !predicate(view)) continue;
    if (total >= offset && page.length < count) page.push(view);
    total++;
  }
  return { totalResults: total, resources: page };
};

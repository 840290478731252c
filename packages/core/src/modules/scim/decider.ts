/**
 * SAML SSO configuration, SCIM token rotation, and the provisioning decisions of SCIM identities. Provisioning
 * emits the user and membership events together with the SCIM event, in one decision, so that the audit trail
 * (origin `scim`) shows what the identity provider did and what it caused.
 */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import { conflict, forbidden, notFound, preconditionFailed, validation, type DomainError } from '../../kernel/domain-error.js';
import { emptyTable, tableDelete, tableGet, tableSet, tableKeys } from '../../kernel/table.js';
import type { Issued } from '../../kernel/decider.js';
import type { ModuleDecider, MutableState, State } from '../../state.js';
import type { ForgefoldEvent } from '../../events.js';
import { Errors, isEmail, isNamespacePath, MAX_NAME } from '../shared/validation.js';
import { isAdmin } from '../shared/policy.js';
import { findGroup, findTopLevelNamespaceByPath, selfAndDescendants } from '../groups/queries.js';
import type { Group } from '../groups/projection.js';
import { findUser, findUserByEmail, findUserByUsername } from '../users/queries.js';
import type { User } from '../users/projection.js';
import type { UserEvent } from '../users/events.js';
import { directMembership, groupAccessLevel, membersOfSource, membershipsOfUser } from '../members/queries.js';
import { memberAdded } from '../members/decider.js';
import type { MemberEvent } from '../members/events.js';
import type { ScimChanges, ScimCommand } from './commands.js';
import type { ScimEvent } from './events.js';
import { externUidKey, groupUserKey, userNameKey, type ScimIdentity } from './projection.js';
import { findSamlProvider, findScimIdentityByExternUid, findScimIdentityByUserName, findScimIdentityOfUser } from './queries.js';

/** Roles a SAML provider may give new members: Minimal Access to Maintainer (the platform's `values_with_minimal_access`). */
export const DEFAULT_MEMBERSHIP_ROLES: readonly number[] = [5, 10, 20, 30, 40];
const FINGERPRINT = /^(?:[0-9a-f]{2}(?::?[0-9a-f]{2}){19}|[0-9a-f]{2}(?::?[0-9a-f]{2}){31})$/i;

const requireTopLevelGroup = (state: State, groupId: number): E.Either<DomainError, Group> => {
  const group = findGroup(state.groups, groupId);
  if (!group) return E.left(notFound('Group'));
  return group.parent_id === null ? E.right(group) : E.left({ _tag: 'BadRequest', reason: 'SAML single sign-on and SCIM are only available for top-level groups' });
};

/** Owners of the group and administrators configure single sign-on (the system actor too, for bootstrap). */
const requireOwner = (issued: Issued<unknown>, state: State, group: Group): E.Either<DomainError, Group> => {
  const actorId = issued.actor.userId;
  if (actorId === null || isAdmin(state, actorId) || groupAccessLevel(state, group, actorId) >= 50) return E.right(group);
  return E.left(forbidden());
};

const resourceNotFound = (id: string): DomainError => notFound(undefined, `Resource ${id} not found`);

/** SCIM operations need the group's SAML provider (reference §3.1: 404 otherwise; the adapter checks first). */
const requireProvider = (state: State, groupId: number) => {
  const provider = findSamlProvider(state.scim, groupId);
  const group = findGroup(state.groups, groupId);
  return provider && group ? E.right({ provider, group }) : E.left(notFound(undefined, `Group ${groupId} does not have SAML SSO configured`));
};

/** SCIM works only while single sign-on is enabled (spec): a disabled provider's identities are not there to change. */
export const SSO_DISABLED = 'SAML single sign-on is not enabled for this group';
const requireEnabled = (externUid: string) => <A extends { provider: { enabled: boolean } }>(found: A): E.Either<DomainError, A> =>
  found.provider.enabled ? E.right(found) : E.left(resourceNotFound(externUid));

/**
 * The platform's `Namespace.clean_path` for usernames derived from a SCIM userName: the local part of an e-mail,
 * allowed characters only, no trailing ".git"/".atom"/".", no leading "-", "blank" when nothing is left; then
 * the first free one of `base`, `base1`, `base2`, …
 */
export const usernameFor = (state: State, userName: string, selfId: number | null = null): string => {
  let path = userName.replace(/@.*$/s, '').replace(/[^a-zA-Z0-9_.-]/g, '');
  for (let previous = ''; previous !== path; ) {
    previous = path;
    path = path.replace(/\.git$/, '').replace(/\.atom$/, '').replace(/\.$/, '');
  }
  path = path.replace(/^-+/, '');
  if (path === '' || !isNamespacePath(path)) path = 'blank';
  const taken = (candidate: string) => {
    const owner = findUserByUsername(state.users, candidate);
    return (owner !== undefined && owner.id !== selfId) || findTopLevelNamespaceByPath(state.groups, candidate) !== undefined;
  };
  if (!taken(path)) return path;
  for (let n = 1; ; n++) if (!taken(`${path}${n}`)) return `${path}${n}`;
};

/** Whether a new membership in this group waits for approval because the top-level group's user cap is reached. */
const awaitingUnderCap = (state: State, group: Group, userId: number): boolean => {
  const cap = group.new_user_signups_cap;
  if (cap === null || cap === undefined) return false;
  const users = new Set<number>();
  for (const candidate of selfAndDescendants(state.groups, group)) {
    for (const member of membersOfSource(state.members, 'Namespace', candidate.id)) {
      if (member.user_id !== null && member.state === 'active') users.add(member.user_id);
    }
  }
  return !users.has(userId) && users.size >= cap;
};

const addMembership = (state: State, group: Group, userId: number, role: number, at: string, offset = 0): MemberEvent[] =>
  directMembership(state.members, 'Namespace', group.id, userId)
    ? []
    : [memberAdded(state, { source_type: 'Namespace', source_id: group.id, user_id: userId, access_level: role, at, created_by_id: null, state: awaitingUnderCap(state, group, userId) ? 'awaiting' : 'active' }, offset)];

/**
 * Removing the user from the group, as `Members::DestroyService` does: the memberships of the group, its
 * subgroups and their projects. The last owner of the group is never removed.
 */
const removeMemberships = (state: State, group: Group, user: User, at: string): E.Either<DomainError, MemberEvent[]> => {
  const own = directMembership(state.members, 'Namespace', group.id, user.id);
  if (own && own.access_level === 50 && own.state === 'active') {
    const otherOwner = [...membersOfSource(state.members, 'Namespace', group.id)].some((m) => m.user_id !== user.id && m.user_id !== null && m.access_level === 50 && m.state === 'active');
    if (!otherOwner) return E.left(preconditionFailed(`Could not remove ${user.name} from ${group.name}. Cannot remove last group owner.`));
  }
  const groupIds = new Set(selfAndDescendants(state.groups, group).map((g) => g.id));
  const events: MemberEvent[] = [];
  for (const member of membershipsOfUser(state.members, user.id)) {
    const inTree =
      member.source_type === 'Namespace'
        ? groupIds.has(member.source_id)
        : (() => {
            const project = tableGet(state.projects.byId, member.source_id);
            return project !== undefined && project.namespace_kind === 'group' && groupIds.has(project.namespace_id);
          })();
    if (inTree) events.push({ type: 'MemberRemoved', data: { id: member.id, source_type: member.source_type, source_id: member.source_id, user_id: member.user_id, at } });
  }
  return E.right(events);
};

const taken = (attribute: string): DomainError => conflict(`${attribute} has already been taken`);

const decideProvision = (issued: Issued<Extract<ScimCommand, { type: 'ProvisionScimIdentity' }>>, state: State): E.Either<DomainError, readonly ForgefoldEvent[]> => {
  const { command, at } = issued;
  return pipe(
    requireProvider(state, command.group_id),
    E.chain((found) => (found.provider.enabled ? E.right(found) : E.left(preconditionFailed(SSO_DISABLED)))),
    E.chain(({ provider, group }): E.Either<DomainError, readonly ForgefoldEvent[]> => {
      // The same externalId again: the existing resource, unchanged (the adapter answers 201 with it).
      if (findScimIdentityByExternUid(state.scim, group.id, command.extern_uid)) return E.right([]);
      const errors = new Errors()
        .check(command.extern_uid.trim() !== '', 'externalId', "can't be blank")
        .check(command.user_name.trim() !== '', 'userName', "can't be blank")
        .check(isEmail(command.email), 'emails', 'is invalid')
        .check(command.name.trim() !== '', 'name', "can't be blank")
        // The user and identity columns' limits (User and Namespace models; 255 for the extern_uid too).
        .maxLength('externalId', command.extern_uid, MAX_NAME)
        .maxLength('userName', command.user_name, MAX_NAME)
        .maxLength('emails', command.email, MAX_NAME)
        .maxLength('name', command.name, MAX_NAME)
        .maxLength('name.givenName', command.given_name, MAX_NAME)
        .maxLength('name.familyName', command.family_name, MAX_NAME);
      if (!errors.empty) return errors.toEither([]);
      if (findScimIdentityByUserName(state.scim, group.id, command.user_name)) return E.left(taken('userName'));
      const existing = findUserByEmail(state.users, command.email);
      if (existing && findScimIdentityOfUser(state.scim, group.id, existing.id)) return E.left(taken('Email'));
      const events: ForgefoldEvent[] = [];
      let userId: number;
      if (existing) {
        userId = existing.id;
      } else {
        userId = state.sequences.user + 1;
        const created: UserEvent = {
          type: 'UserCreated',
          data: {
            id: userId,
            username: usernameFor(state, command.user_name),
            name: command.name,
            email: command.email,
            public_email: null,
            is_admin: false,
            bot: null,
            password_digest: null,
            namespace_id: state.sequences.namespace + 1,
            created_at: at,
            created_by_id: null,
          },
        };
        events.push(created);
      }
      if (command.active) events.push(...addMembership(state, group, userId, provider.default_membership_role, at));
      const identity: ScimEvent = {
        type: 'ScimIdentityProvisioned',
        data: {
          id: state.scim.lastIdentityId + 1,
          group_id: group.id,
          user_id: userId,
          extern_uid: command.extern_uid,
          user_name: command.user_name,
          given_name: command.given_name,
          family_name: command.family_name,
          active: command.active,
          at,
        },
      };
      events.push(identity);
      return E.right(events);
    }),
  );
};

const decideUpdate = (issued: Issued<Extract<ScimCommand, { type: 'UpdateScimIdentity' }>>, state: State): E.Either<DomainError, readonly ForgefoldEvent[]> => {
  const { command, at } = issued;
  const changes: ScimChanges = command.changes;
  return pipe(
    requireProvider(state, command.group_id),
    E.chain(requireEnabled(command.extern_uid)),
    E.chain(({ provider, group }): E.Either<DomainError, readonly ForgefoldEvent[]> => {
      const identity = findScimIdentityByExternUid(state.scim, group.id, command.extern_uid);
      const user = identity && findUser(state.users, identity.user_id);
      if (!identity || !user) return E.left(resourceNotFound(command.extern_uid));
      const errors = new Errors();
      const changed: string[] = [];
      const identityChanges: { extern_uid?: string; user_name?: string; given_name?: string | null; family_name?: string | null } = {};
      const userChanges: { username?: string; name?: string; email?: string } = {};

      if (changes.extern_uid !== undefined && changes.extern_uid !== identity.extern_uid) {
        if (changes.extern_uid.trim() === '') errors.add('externalId', "can't be blank");
        errors.maxLength('externalId', changes.extern_uid, MAX_NAME);
        const other = findScimIdentityByExternUid(state.scim, group.id, changes.extern_uid);
        if (other && other.id !== identity.id) return E.left(taken('externalId'));
        identityChanges.extern_uid = changes.extern_uid;
        changed.push('externalId');
      }
      if (changes.user_name !== undefined && changes.user_name !== identity.user_name) {
        if (changes.user_name.trim() === '') errors.add('userName', "can't be blank");
        errors.maxLength('userName', changes.user_name, MAX_NAME);
        const other = findScimIdentityByUserName(state.scim, group.id, changes.user_name);
        if (other && other.id !== identity.id) return E.left(taken('userName'));
        identityChanges.user_name = changes.user_name;
        changed.push('userName');
        // The platform username follows, when its cleaned form is free (otherwise it stays).
        const wanted = changes.user_name.replace(/@.*$/s, '');
        const username = usernameFor(state, changes.user_name, user.id);
        if (username.toLowerCase() !== user.username.toLowerCase() && username.toLowerCase() === wanted.toLowerCase()) userChanges.username = username;
      }
      if (changes.email !== undefined && changes.email.toLowerCase() !== user.email.toLowerCase()) {
        if (!isEmail(changes.email)) errors.add('emails', 'is invalid');
        errors.maxLength('emails', changes.email, MAX_NAME);
        const owner = findUserByEmail(state.users, changes.email);
        if (owner && owner.id !== user.id) return E.left(taken('Email'));
        userChanges.email = changes.email;
        changed.push('emails');
      }
      if (changes.name !== undefined && changes.name !== user.name) {
        if (changes.name.trim() === '') errors.add('name', "can't be blank");
        errors.maxLength('name', changes.name, MAX_NAME);
        userChanges.name = changes.name;
        changed.push('name.formatted');
      }
      if (changes.given_name !== undefined && changes.given_name !== identity.given_name) {
        errors.maxLength('name.givenName', changes.given_name, MAX_NAME);
        identityChanges.given_name = changes.given_name;
        changed.push('name.givenName');
      }
      if (changes.family_name !== undefined && changes.family_name !== identity.family_name) {
        errors.maxLength('name.familyName', changes.family_name, MAX_NAME);
        identityChanges.family_name = changes.family_name;
        changed.push('name.familyName');
      }
      if (!errors.empty) return errors.toEither([]);

      const events: ForgefoldEvent[] = [];
      if (Object.keys(userChanges).length > 0) events.push({ type: 'UserUpdated', data: { id: user.id, updated_at: at, ...userChanges } });
      if (changed.length > 0) events.push({ type: 'ScimIdentityUpdated', data: { id: identity.id, group_id: group.id, user_id: user.id, at, changed, ...identityChanges } });
      const ref = { id: identity.id, group_id: group.id, user_id: user.id, at };
      if (changes.active === false && identity.active) {
        const removed = removeMemberships(state, group, user, at);
        if (E.isLeft(removed)) return removed;
        events.push(...removed.right, { type: 'ScimIdentityDeprovisioned', data: ref });
      } else if (changes.active === true && !identity.active) {
        events.push(...addMembership(state, group, user.id, provider.default_membership_role, at), { type: 'ScimIdentityReprovisioned', data: ref });
      }
      return E.right(events);
    }),
  );
};

const decide = (issued: Issued<ScimCommand>, state: State): E.Either<DomainError, readonly ForgefoldEvent[]> => {
  const { command, at } = issued;
  switch (command.type) {
    case 'ConfigureSamlProvider':
      return pipe(
        requireTopLevelGroup(state, command.group_id),
        E.chain((group) => requireOwner(issued, state, group)),
        E.chain((group): E.Either<DomainError, readonly ForgefoldEvent[]> => {
          const current = findSamlProvider(state.scim, group.id);
          const next = {
            enabled: command.enabled ?? current?.enabled ?? true,
            sso_url: command.sso_url ?? current?.sso_url ?? '',
            certificate_fingerprint: command.certificate_fingerprint ?? current?.certificate_fingerprint ?? '',
            enforced_sso: command.enforced_sso ?? current?.enforced_sso ?? false,
            default_membership_role: command.default_membership_role ?? current?.default_membership_role ?? 10,
          };
          const errors = new Errors();
          if (next.sso_url === '') errors.add('sso_url', "can't be blank");
          else if (!/^https:\/\/[^\s/?#]+[^\s]*$/i.test(next.sso_url)) errors.add('sso_url', 'must be a valid URL using https');
          errors.maxLength('sso_url', next.sso_url, MAX_NAME);
          if (next.certificate_fingerprint === '') errors.add('certificate_fingerprint', "can't be blank");
          else if (!FINGERPRINT.test(next.certificate_fingerprint)) errors.add('certificate_fingerprint', 'is invalid');
          errors.check(DEFAULT_MEMBERSHIP_ROLES.includes(next.default_membership_role), 'default_membership_role', 'is not included in the list');
          if (!errors.empty) return errors.toEither([]);
          const event: ScimEvent = { type: 'SamlProviderConfigured', data: { id: current?.id ?? state.scim.lastProviderId + 1, group_id: group.id, ...next, at } };
          return E.right([event]);
        }),
      );
    case 'RotateScimToken':
      return pipe(
        requireTopLevelGroup(state, command.group_id),
        E.chain((group) => requireOwner(issued, state, group)),
        E.chain((group) =>
          /^[0-9a-f]{64}$/.test(command.token_digest)
            ? E.right<DomainError, readonly ForgefoldEvent[]>([{ type: 'ScimTokenRotated', data: { group_id: group.id, token_digest: command.token_digest, at } }])
            : E.left(validation({ token_digest: ['is invalid'] })),
        ),
      );
    case 'ProvisionScimIdentity':
      return decideProvision({ ...issued, command }, state);
    case 'UpdateScimIdentity':
      return decideUpdate({ ...issued, command }, state);
    case 'DeleteScimIdentity':
      return pipe(
        requireProvider(state, command.group_id),
        E.chain(requireEnabled(command.extern_uid)),
        E.chain(({ group }): E.Either<DomainError, readonly ForgefoldEvent[]> => {
          const identity = findScimIdentityByExternUid(state.scim, group.id, command.extern_uid);
          const user = identity && findUser(state.users, identity.user_id);
          if (!identity || !user) return E.left(resourceNotFound(command.extern_uid));
          return pipe(
            removeMemberships(state, group, user, at),
            E.map((removed): ForgefoldEvent[] => [
              ...removed,
              { type: 'ScimIdentityDeleted', data: { id: identity.id, group_id: group.id, user_id: user.id, extern_uid: identity.extern_uid, at } },
            ]),
          );
        }),
      );
  }
};

// ---------------------------------------------------------------------------------------------------------------

const indexIdentity = (state: MutableState, identity: ScimIdentity): void => {
  const scim = state.scim;
  tableSet(scim.byExternUid, externUidKey(identity.group_id, identity.extern_uid), identity.id);
  tableSet(scim.byUserName, userNameKey(identity.group_id, identity.user_name), identity.id);
  tableSet(scim.byGroupUser, groupUserKey(identity.group_id, identity.user_id), identity.id);
};

const unindexIdentity = (state: MutableState, identity: ScimIdentity): void => {
  const scim = state.scim;
  tableDelete(scim.byExternUid, externUidKey(identity.group_id, identity.extern_uid));
  tableDelete(scim.byUserName, userNameKey(identity.group_id, identity.user_name));
  tableDelete(scim.byGroupUser, groupUserKey(identity.group_id, identity.user_id));
};

const removeIdentity = (state: MutableState, id: number): void => {
  const scim = state.scim;
  const identity = tableGet(scim.identities, id);
  if (!identity) return;
  unindexIdentity(state, identity);
  tableDelete(scim.identities, id);
  const ofGroup = tableGet(scim.ofGroup, identity.group_id);
  if (ofGroup) tableDelete(ofGroup, id);
  const ofUser = tableGet(scim.ofUser, identity.user_id);
  if (ofUser) tableDelete(ofUser, id);
  tableSet(scim.counts, identity.group_id, (tableGet(scim.counts, identity.group_id) ?? 1) - 1);
};

/** Events of other modules that end identities: a deleted user or group takes its identities along. */
export type ScimFollowedEvent = ForgefoldEvent & { type: 'UserDeleted' | 'GroupDeleted' };

const evolve = (state: MutableState, event: ScimEvent | ScimFollowedEvent): void => {
  const scim = state.scim;
  switch (event.type) {
    case 'SamlProviderConfigured': {
      const { at, ...data } = event.data;
      const current = tableGet(scim.providers, data.group_id);
      tableSet(scim.providers, data.group_id, { ...data, created_at: current?.created_at ?? at, updated_at: at });
      if (data.id > scim.lastProviderId) scim.lastProviderId = data.id;
      return;
    }
    case 'ScimTokenRotated':
      tableSet(scim.tokens, event.data.group_id, { group_id: event.data.group_id, token_digest: event.data.token_digest, created_at: event.data.at });
      return;
    case 'ScimIdentityProvisioned': {
      const { at, ...data } = event.data;
      const identity: ScimIdentity = { ...data, created_at: at, updated_at: at };
      tableSet(scim.identities, identity.id, identity);
      indexIdentity(state, identity);
      let ofGroup = tableGet(scim.ofGroup, identity.group_id);
      if (!ofGroup) {
        tableSet(scim.ofGroup, identity.group_id, emptyTable<1>());
        ofGroup = tableGet(scim.ofGroup, identity.group_id)!;
      }
      tableSet(ofGroup, identity.id, 1);
      let ofUser = tableGet(scim.ofUser, identity.user_id);
      if (!ofUser) {
        tableSet(scim.ofUser, identity.user_id, emptyTable<number>());
        ofUser = tableGet(scim.ofUser, identity.user_id)!;
      }
      tableSet(ofUser, identity.id, identity.group_id);
      tableSet(scim.counts, identity.group_id, (tableGet(scim.counts, identity.group_id) ?? 0) + 1);
      if (identity.id > scim.lastIdentityId) scim.lastIdentityId = identity.id;
      return;
    }
    case 'ScimIdentityUpdated': {
      const identity = tableGet(scim.identities, event.data.id);
      if (!identity) return;
      unindexIdentity(state, identity);
      const { at, changed: _changed, id: _id, group_id: _group, user_id: _user, ...changes } = event.data;
      Object.assign(identity, changes, { updated_at: at });
      indexIdentity(state, identity);
      return;
    }
    case 'ScimIdentityDeprovisioned':
    case 'ScimIdentityReprovisioned': {
      const identity = tableGet(scim.identities, event.data.id);
      if (!identity) return;
      identity.active = event.type === 'ScimIdentityReprovisioned';
      identity.updated_at = event.data.at;
      return;
    }
    case 'ScimIdentityDeleted':
      removeIdentity(state, event.data.id);
      return;
    case 'UserDeleted': {
      const ofUser = tableGet(scim.ofUser, event.data.id);
      if (!ofUser) return;
      for (const key of tableKeys(ofUser)) removeIdentity(state, Number(key));
      tableDelete(scim.ofUser, event.data.id);
      return;
    }
    case 'GroupDeleted': {
      const groupId = event.data.id;
      const ofGroup = tableGet(scim.ofGroup, groupId);
      if (ofGroup) for (const key of tableKeys(ofGroup)) removeIdentity(state, Number(key));
      tableDelete(scim.ofGroup, groupId);
      tableDelete(scim.providers, groupId);
      tableDelete(scim.tokens, groupId);
      return;
    }
  }
};

export const scimDecider: ModuleDecider<ScimCommand, ScimEvent | ScimFollowedEvent> = { decide, evolve };

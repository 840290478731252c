/**
 * SAML SSO configuration, SCIM token rotation, and the provisioning decisions of SCIM identities. Provisioning
 * emits the user and membership events together with the SCIM event, in one decision, so that the audit trail
 * (origin `scim`) shows what the identity provider did and what it caused.
 */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import { conflict, notFound, preconditionFailed, validation, type DomainError } from '../../kernel/domain-error.js';
import { withOutcome, type Decision, type Issued, type IssuedAs } from '../../kernel/decider.js';
import type { Sequences } from '../../kernel/sequences.js';
import { tableGet } from '../../kernel/table.js';
import { authorizeGroup } from '../access/abilities.js';
import type { Group } from '../groups/projection.js';
import { findGroup, findTopLevelNamespaceByPath, selfAndDescendants } from '../groups/queries.js';
import { memberAddedWithCap } from '../members/builders.js';
import type { MemberEvent } from '../members/events.js';
import type { MembershipView } from '../members/projection.js';
import { BOT_HELD_ELSEWHERE, botHeldElsewhere, directMembership, membersOfSource, membershipsOfUser } from '../members/queries.js';
import { NAMESPACE_PATH_TOO_SHORT, namespacePathReserved, namespacePathTooShort } from '../shared/paths.js';
import { changesAnything, Errors, isEmail, isNamespacePath, isRubyBlank, MAX_NAME, normalizedEmail } from '../shared/validation.js';
import { userCreated, userUpdated } from '../users/builders.js';
import type { UserEvent } from '../users/events.js';
import type { User } from '../users/projection.js';
import { findUser, findUserByEmail, findUserByUsername } from '../users/queries.js';
import type { ScimChanges, ScimCommand } from './commands.js';
import type { ScimEvent } from './events.js';
import type { ScimSlice } from './projection.js';
import { findSamlProvider, findScimIdentityByExternUid, findScimIdentityByUserName, findScimIdentityOfUser } from './queries.js';

/** What SCIM decisions read. */
export type ScimView = MembershipView & { readonly sequences: Sequences; readonly scim: ScimSlice };

type Emitted = ScimEvent | UserEvent | MemberEvent;

/** Roles a SAML provider may give new members: Minimal Access to Maintainer (the platform's `values_with_minimal_access`). */
export const DEFAULT_MEMBERSHIP_ROLES: readonly number[] = [5, 10, 20, 30, 40];
const FINGERPRINT = /^(?:[0-9a-f]{2}(?::?[0-9a-f]{2}){19}|[0-9a-f]{2}(?::?[0-9a-f]{2}){31})$/i;

const requireTopLevelGroup = (state: ScimView, groupId: number): E.Either<DomainError, Group> => {
  const group = findGroup(state.groups, groupId);
  if (!group) return E.left(notFound('Group'));
  return group.parent_id === null ? E.right(group) : E.left({ _tag: 'BadRequest', reason: 'SAML single sign-on and SCIM are only available for top-level groups' });
};

/** Owners of the group and administrators configure single sign-on (the system actor too, for bootstrap). */
const requireOwner = (issued: Issued<unknown>, state: ScimView, group: Group): E.Either<DomainError, Group> => authorizeGroup(state, issued.actor.userId, 'admin_group_saml', group, group);

const resourceNotFound = (id: string): DomainError => notFound(undefined, `Resource ${id} not found`);

/** SCIM operations need the group's SAML provider (reference §3.1: 404 otherwise; the adapter checks first). */
const requireProvider = (state: ScimView, groupId: number) => {
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
 * the first free one of `base`, `base1`, `base2`, … that is no reserved name.
 */
export const usernameFor = (state: ScimView, userName: string, selfId: number | null = null): string => {
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
  // EE ProvisioningService#valid_username: `Uniquify` again while `!NamespacePathValidator.valid_path?(s)`, so a
  // reserved name gets the first counter that makes it valid ("admin" → "admin1"). That candidate is checked for
  // being free too (the platform's save would fail on a taken one; here the next counter is taken instead).
  const unusable = (candidate: string) => taken(candidate) || namespacePathReserved(candidate);
  if (!unusable(path)) return path;
  for (let n = 1; ; n++) if (!unusable(`${path}${n}`)) return `${path}${n}`;
};

/**
 * The provider's default role in the group, under the group's user cap (the members module's rule). `group.add_user`
 * saves nothing for a member the model finds invalid: a token's bot that holds a membership elsewhere (the only rule a
 * SCIM membership can fail: the group is top-level, the role one of the provider's, no expiry).
 */
const addMembership = (state: ScimView, group: Group, userId: number, role: number, at: string, offset = 0): MemberEvent[] =>
  directMembership(state.members, 'Namespace', group.id, userId) || botHeldElsewhere(state, userId, 'Namespace', group.id)
    ? []
    : [memberAddedWithCap(state, { source_type: 'Namespace', source_id: group.id, user_id: userId, access_level: role, at, created_by_id: null }, offset)];

/**
 * How the platform words a provisioning that failed: `"Error saving user with #{params.inspect}: #{message}"`. The
 * core does not hold the request's params: its message is this prefix and the failure; the SCIM adapter inserts the
 * request's params (`Error saving user with {…}: …`).
 */
export const SAVE_FAILED_PREFIX = 'Error saving user: ';
/**
 * EE `ProvisioningService#create_identity_and_member`: `member.valid? && identity.save`, so an existing account the
 * membership cannot be saved for (a token's bot holding a membership elsewhere: its e-mail reaches it) gets no
 * identity either, and the endpoint answers its `:error` status, 412 "Error saving user with …: <full messages>".
 */
const BOT_NOT_PROVISIONED = preconditionFailed(`${SAVE_FAILED_PREFIX}User ${BOT_HELD_ELSEWHERE}`);

/**
 * Removing the user from the group, as `Members::DestroyService` does: the memberships of the group, its
 * subgroups and their projects. The last owner of the group is never removed.
 */
const removeMemberships = (state: ScimView, group: Group, user: User, at: string): E.Either<DomainError, MemberEvent[]> => {
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

/** How the platform words a PATCH that failed: `"Error updating #{identity.user.name} with #{params.inspect}"` (the adapter adds the params). */
export const UPDATE_FAILED_PREFIX = 'Error updating ';
/** `identity.save` of a new identity for an account that already holds one in the group (ScimIdentity's `user` uniqueness). */
const USER_TAKEN = conflict(`${SAVE_FAILED_PREFIX}User has already been taken`);
/**
 * A new account for an externalId another identity of the group holds: the account's built identity fails its
 * `extern_uid` uniqueness, which the user's save reports as its association's "is invalid" (no autosave).
 */
const SCIM_IDENTITIES_INVALID = preconditionFailed(`${SAVE_FAILED_PREFIX}Scim identities is invalid`);

/** A new account's save with a blank e-mail (Devise's `validates_presence_of :email`). */
const EMAIL_BLANK = preconditionFailed(`${SAVE_FAILED_PREFIX}Email can't be blank`);

/** What a provisioning reports beside its events: a failure after something was saved (the platform saves no transaction). */
export interface ProvisionOutcome {
  readonly failure: DomainError;
}

/** The failure a `ProvisionScimIdentity` result reports beside its events, if any. */
export const provisionFailure = (result: { readonly outcome?: unknown }): DomainError | undefined => {
  const outcome = result.outcome;
  return typeof outcome === 'object' && outcome !== null && 'failure' in outcome ? (outcome as ProvisionOutcome).failure : undefined;
};

/**
 * EE `ProvisioningService#execute` (14.7, mehulagg `ee/lib/ee/gitlab/scim/provisioning_service.rb`), in its order:
 * the identity of this externalId whose user is a member answers itself (`existing_identity_and_member?`); else the
 * account with this e-mail, when there is one, is linked: a member gets the identity only (`create_identity`),
 * anyone else first the membership, then the identity (`create_identity_and_member`: `member.valid? &&
 * identity.save`, no transaction); else a new account is made with its membership and identity. The identity "saved"
 * is the externalId's existing one when there is one, unchanged (its user stays whoever it was).
 */
const decideProvision = (issued: IssuedAs<ScimCommand, 'ProvisionScimIdentity'>, state: ScimView): E.Either<DomainError, Decision<Emitted>> => {
  const { at } = issued;
  // The account's e-mail as the User model saves it (Devise strips and lower-cases it), so that lookups match.
  const command = { ...issued.command, email: normalizedEmail(issued.command.email) };
  return pipe(
    requireProvider(state, command.group_id),
    E.chain((found) => (found.provider.enabled ? E.right(found) : E.left(preconditionFailed(SSO_DISABLED)))),
    E.chain(({ provider, group }): E.Either<DomainError, Decision<Emitted>> => {
      const existing = findUserByEmail(state.users, command.email);
      const isMember = (userId: number): boolean => directMembership(state.members, 'Namespace', group.id, userId) !== undefined;
      // `create_identity_and_member` for an existing account outside the group: `member.valid?` before anything else
      // fails for a token's bot held elsewhere (412), whatever the identities of the group hold.
      const botRefused = (): boolean => existing !== undefined && command.active && !isMember(existing.id) && botHeldElsewhere(state, existing.id, 'Namespace', group.id);
      // `group.add_user` for the e-mail's account outside the group (none while `active: false`, our decision).
      const joining = (userId: number): MemberEvent[] => (command.active ? addMembership(state, group, userId, provider.default_membership_role, at) : []);
      const same = findScimIdentityByExternUid(state.scim, group.id, command.extern_uid);
      // The same externalId again, its user in the group: the existing resource, unchanged (the adapter answers 201).
      if (same && isMember(same.user_id)) return E.right([]);
      // Its user out of the group: the platform goes on with the e-mail's account, and "saves" the existing identity
      // unchanged, which succeeds. A member is left as it is; anyone else joins the group (the same user again too:
      // its membership comes back, its identity stays as it was, inactive or not).
      if (same && existing) {
        if (isMember(existing.id)) return E.right([]);
        if (botRefused()) return E.left(BOT_NOT_PROVISIONED);
        return E.right(joining(existing.id));
      }
      // No user is saved for an existing account and the identity only after the membership, so none of their checks
      // comes before the bot's refusal.
      if (botRefused()) return E.left(BOT_NOT_PROVISIONED);
      const errors = new Errors()
        .check(!isRubyBlank(command.extern_uid), 'externalId', "can't be blank")
        .check(!isRubyBlank(command.user_name), 'userName', "can't be blank")
        .check(command.email === '' || isEmail(command.email), 'emails', 'is invalid')
        .check(!isRubyBlank(command.name), 'name', "can't be blank")
        // The user and identity columns' limits (User and Namespace models; 255 for the extern_uid too).
        .maxLength('externalId', command.extern_uid, MAX_NAME)
        .maxLength('userName', command.user_name, MAX_NAME)
        .maxLength('emails', command.email, MAX_NAME)
        .maxLength('name', command.name, MAX_NAME)
        .maxLength('name.givenName', command.given_name, MAX_NAME)
        .maxLength('name.familyName', command.family_name, MAX_NAME);
      // A blank e-mail (POST keeps one that is sent) finds no account; the new account's save fails on Devise's
      // presence alone (its format check allows blank): 412 "Error saving user with …: Email can't be blank". With
      // an externalId the group holds, or beside our own 400s, what the platform joins to it is not pinned: our 400.
      if (command.email === '' && errors.empty && !same) return E.left(EMAIL_BLANK);
      if (command.email === '') errors.add('emails', "can't be blank");
      if (!errors.empty) return errors.toEither([]);
      // A new account for an externalId the group holds: `user.save` fails on its built identity, nothing is saved.
      if (same) return E.left(SCIM_IDENTITIES_INVALID);
      // Uniqueness after it. The platform finds the account's other identity only when the identity is saved, after
      // the membership: `create_identity` (a member) saves nothing, `create_identity_and_member` has saved the
      // membership first. That comes before our own userName rule (the platform never looks at it), which an
      // identity provider sending the same person again under a new externalId would meet first otherwise.
      if (existing && findScimIdentityOfUser(state.scim, group.id, existing.id)) {
        const saved = isMember(existing.id) ? [] : joining(existing.id);
        return saved.length === 0 ? E.left(USER_TAKEN) : E.right(withOutcome(saved, { failure: USER_TAKEN } satisfies ProvisionOutcome));
      }
      if (findScimIdentityByUserName(state.scim, group.id, command.user_name)) return E.left(taken('userName'));
      const events: Emitted[] = [];
      let userId: number;
      if (existing) {
        userId = existing.id;
      } else {
        const username = usernameFor(state, command.user_name);
        // `Namespace.clean_path` keeps a one-character name: the new user's save fails on the namespace's minimum length.
        if (namespacePathTooShort(username)) return E.left(preconditionFailed(`${SAVE_FAILED_PREFIX}Username ${NAMESPACE_PATH_TOO_SHORT}`));
        const created = userCreated(state, { username, name: command.name, email: command.email }, at, null);
        userId = created.data.id;
        events.push(created);
      }
      events.push(...joining(userId));
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

/**
 * The one branch of EE `update_scim_user` (14.7 `ee/lib/api/scim.rb`) a PATCH runs, in its order: `active: false`
 * deprovisions and nothing else (`parser.deprovision_user?`); else an inactive identity is reprovisioned and nothing
 * else (`reprovisionable?`: the reference notes, §3.7, any PATCH that does not deactivate it); else a given externalId is the only change
 * (`identity.update(parsed_hash.slice(:extern_uid))`, its own value too); else the user's attributes, without `active`
 * (`Users::UpdateService` with `parsed_hash.except(:extern_uid, :active)`).
 */
const patchBranch = (changes: ScimChanges, identityActive: boolean): ScimChanges => {
  if (changes.active === false) return { active: false };
  if (!identityActive) return { active: true };
  if (changes.extern_uid !== undefined) return { extern_uid: changes.extern_uid };
  const { active: _active, extern_uid: _externUid, ...rest } = changes;
  return rest;
};

const decideUpdate = (issued: IssuedAs<ScimCommand, 'UpdateScimIdentity'>, state: ScimView): E.Either<DomainError, readonly Emitted[]> => {
  const { command, at } = issued;
  // A changed e-mail is saved stripped and lower-cased, as at provisioning.
  const given: ScimChanges = command.changes.email === undefined ? command.changes : { ...command.changes, email: normalizedEmail(command.changes.email) };
  return pipe(
    requireProvider(state, command.group_id),
    E.chain(requireEnabled(command.extern_uid)),
    E.chain(({ provider, group }): E.Either<DomainError, readonly Emitted[]> => {
      const identity = findScimIdentityByExternUid(state.scim, group.id, command.extern_uid);
      const user = identity && findUser(state.users, identity.user_id);
      if (!identity || !user) return E.left(resourceNotFound(command.extern_uid));
      const changes = command.exclusive === true ? patchBranch(given, identity.active) : given;
      // A PATCH's failed save (the identity's `update` or `Users::UpdateService`) is the endpoint's 412 naming the user.
      const updateFailed = preconditionFailed(`${UPDATE_FAILED_PREFIX}${user.name}`);
      // The user's branch looks at a taken e-mail first (409 "Email has already been taken"), before the service runs.
      if (command.exclusive === true && changes.email !== undefined && changes.email.toLowerCase() !== user.email.toLowerCase()) {
        const owner = findUserByEmail(state.users, changes.email);
        if (owner && owner.id !== user.id) return E.left(taken('Email'));
      }
      const errors = new Errors();
      const changed: string[] = [];
      const identityChanges: { extern_uid?: string; user_name?: string; given_name?: string | null; family_name?: string | null } = {};
      const userChanges: { username?: string; name?: string; email?: string } = {};

      if (changes.extern_uid !== undefined && changes.extern_uid !== identity.extern_uid) {
        if (isRubyBlank(changes.extern_uid)) errors.add('externalId', "can't be blank");
        errors.maxLength('externalId', changes.extern_uid, MAX_NAME);
        // `identity.update(extern_uid:)` fails on its uniqueness and the endpoint answers 412 "Error updating <name> with …".
        const other = findScimIdentityByExternUid(state.scim, group.id, changes.extern_uid);
        if (other && other.id !== identity.id) return E.left(updateFailed);
        identityChanges.extern_uid = changes.extern_uid;
        changed.push('externalId');
      }
      if (changes.user_name !== undefined && changes.user_name !== identity.user_name) {
        if (isRubyBlank(changes.user_name)) errors.add('userName', "can't be blank");
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
        if (isRubyBlank(changes.name)) errors.add('name', "can't be blank");
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
      // A PATCH's invalid value fails the model's save (ScimIdentity's extern_uid presence, the User's name and e-mail
      // rules): 412 "Error updating <name> with …"; our PUT keeps its 400 naming the attributes.
      if (!errors.empty) return command.exclusive === true ? E.left(updateFailed) : errors.toEither([]);

      const events: Emitted[] = [];
      if (Object.keys(userChanges).length > 0) events.push(userUpdated(user.id, at, userChanges));
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

export const decide = (issued: Issued<ScimCommand>, state: ScimView): E.Either<DomainError, Decision<Emitted>> => {
  const { command, at } = issued;
  switch (command.type) {
    case 'ConfigureSamlProvider':
      return pipe(
        requireTopLevelGroup(state, command.group_id),
        E.chain((group) => requireOwner(issued, state, group)),
        E.chain((group): E.Either<DomainError, readonly Emitted[]> => {
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
          if (current && !changesAnything(current, next)) return E.right([]);
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
            ? E.right<DomainError, readonly Emitted[]>([{ type: 'ScimTokenRotated', data: { group_id: group.id, token_digest: command.token_digest, at } }])
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
        E.chain(({ group }): E.Either<DomainError, readonly Emitted[]> => {
          const identity = findScimIdentityByExternUid(state.scim, group.id, command.extern_uid);
          const user = identity && findUser(state.users, identity.user_id);
          if (!identity || !user) return E.left(resourceNotFound(command.extern_uid));
          return pipe(
            removeMemberships(state, group, user, at),
            E.map((removed): Emitted[] => [
              ...removed,
              { type: 'ScimIdentityDeleted', data: { id: identity.id, group_id: group.id, user_id: user.id, extern_uid: identity.extern_uid, at } },
            ]),
          );
        }),
      );
  }
};


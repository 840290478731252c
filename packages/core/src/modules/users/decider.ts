/** The users module's decisions: accounts (create, update, block, unblock, delete) and activity. */
import type { SettingsSlice } from '../settings/projection.js';
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import { conflict, forbidden, forbiddenMessage, notFound, type DomainError } from '../../kernel/domain-error.js';
import type { Issued } from '../../kernel/decider.js';
import type { Sequences } from '../../kernel/sequences.js';
import { authorizeAdmin } from '../access/abilities.js';
import { deleteGroupEvents } from '../groups/builders.js';
import type { GroupEvent } from '../groups/events.js';
import type { Group } from '../groups/projection.js';
import { findGroup, findTopLevelNamespaceByPath } from '../groups/queries.js';
import { acceptInvitations, endAccessRequests, removeMembershipsOfUser } from '../members/builders.js';
import type { MemberEvent } from '../members/events.js';
import type { MembershipView } from '../members/projection.js';
import { accessRequestsOfUser, membersOfSource, membershipsOfUser } from '../members/queries.js';
import { deleteProjectEvents } from '../projects/builders.js';
import type { ProjectEvent } from '../projects/events.js';
import { projectsInNamespace } from '../projects/queries.js';
import { namespacePathErrors } from '../shared/paths.js';
import { changesAnything, DAY_MS, dayOf, Errors, isEmail, isRubyBlank, MAX_NAME, normalizedEmail } from '../shared/validation.js';
import type { IdentityInput, UserCommand } from './commands.js';
import { userCreated } from './builders.js';
import type { UserEvent } from './events.js';
import { findUser, findUserByEmail, findUserByIdentity, findUserByUsername } from './queries.js';
import { AVATAR_EXTENSIONS, AVATAR_MAX_BYTES, PROFILE_FIELDS, type Avatar, type User, type UserProfile } from './projection.js';

/** What user decisions read. */
export type UsersView = MembershipView & { readonly sequences: Sequences; readonly settings: SettingsSlice };

type Emitted = UserEvent | GroupEvent | ProjectEvent | MemberEvent;

/** `User::MINIMUM_INACTIVE_DAYS`: only an account without activity for this long may be deactivated. */
const MINIMUM_INACTIVE_DAYS = 90;

/**
 * The negation of `User#no_recent_activity?`: `last_active_at` (the later of `last_activity_on`, as a day's start, and
 * `current_sign_in_at`) falls within the last 90 days. Never active is not recent.
 */
const activeSince = (user: User, at: string): boolean => {
  const moments = [user.last_activity_on, user.current_sign_in_at].filter((value): value is string => value !== null).map((value) => Date.parse(value));
  return moments.length > 0 && Math.max(...moments) > Date.parse(at) - MINIMUM_INACTIVE_DAYS * DAY_MS;
};

/** `Gitlab::Themes.valid_ids` and `Gitlab::ColorSchemes.valid_ids` (14.7). */
const THEME_IDS: readonly number[] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
const COLOR_SCHEME_IDS: readonly number[] = [1, 2, 3, 4, 5, 6];

/** The profile fields a create command carries. */
const profileOf = (command: UserProfile): UserProfile => {
  const profile: Record<string, unknown> = {};
  for (const field of PROFILE_FIELDS) if (command[field] !== undefined) profile[field] = command[field];
  // Safe: every key is one of UserProfile's, with the command's value for it.
  return profile as UserProfile;
};

/** What an account holds for a field it never set (UserProfile's and the account settings' defaults). */
const STORED_DEFAULTS: Readonly<Record<string, unknown>> = {
  bio: '',
  skype: '',
  linkedin: '',
  twitter: '',
  website_url: '',
  note: null,
  location: null,
  organization: null,
  pronouns: null,
  private_profile: false,
  theme_id: 1,
  color_scheme_id: 1,
  projects_limit: 100000,
  can_create_group: true,
  external: false,
};

/** `Gitlab::Database::MAX_INT_VALUE`: the largest value of a PostgreSQL integer column. */
const MAX_INT_VALUE = 2147483647;

const requireUser = (state: UsersView, id: number) => {
  const user = findUser(state.users, id);
  return user ? E.right(user) : E.left(notFound('User'));
};

/** Only administrators manage accounts (the system actor, for bootstrap, counts as one). */
const requireAdmin = (issued: Issued<unknown>, state: UsersView): E.Either<DomainError, void> => authorizeAdmin(state, issued.actor.userId);

/**
 * Top-level groups where this user is the only active owner. An invitation at Owner is no owner here: the platform's
 * `group.owners == [self]` goes through the members' users, which an invitation has not (User#solo_owned_groups).
 */
const soloOwnedGroups = (state: UsersView, userId: number): Group[] =>
  [...membershipsOfUser(state.members, userId)]
    .filter((member) => member.source_type === 'Namespace' && member.access_level === 50 && member.state === 'active')
    .map((member) => findGroup(state.groups, member.source_id))
    .filter((group): group is Group => group !== undefined && group.parent_id === null)
    .filter((group) => [...membersOfSource(state.members, 'Namespace', group.id)].every((m) => m.user_id === userId || m.user_id === null || m.access_level < 50 || m.state !== 'active'));

/** Avatarable's validations, with its messages (the adapter runs the same checks before storing the bytes). */
export const avatarErrors = (avatar: Avatar): string[] => {
  const errors: string[] = [];
  const extension = /\.([^./]+)$/.exec(avatar.filename)?.[1]?.toLowerCase();
  if (extension === undefined || !AVATAR_EXTENSIONS.includes(extension)) {
    errors.push(`file format is not supported. Please try one of the following supported formats: ${AVATAR_EXTENSIONS.join(', ')}`);
  }
  if (avatar.size > AVATAR_MAX_BYTES) errors.push('is too big (should be at most 200 KB)');
  return errors;
};

const isStoredAvatar = (avatar: Avatar): boolean =>
  /^[0-9a-f]{64}$/.test(avatar.sha256) && Number.isSafeInteger(avatar.size) && avatar.size >= 0 && avatar.filename.length > 0 && avatar.filename.length <= 255 && !/[/\\\0]/.test(avatar.filename) && avatar.filename !== '.' && avatar.filename !== '..';

const validateProfile = (
  state: UsersView,
  fields: { username?: string; name?: string; email?: string; public_email?: string | null; avatar?: Avatar; projects_limit?: number } & UserProfile,
  selfId: number | null,
) => {
  const current = selfId === null ? undefined : findUser(state.users, selfId);
  // In the model's order: Devise's e-mail checks, then name and public e-mail, then the namespace's path rules
  // reported on `username` (User#set_username_errors). E-mails are capped at 255 like names (see decisions).
  const errors = new Errors();
  // Devise's validatable: presence, then the format (`allow_blank`), so a blank address is only "can't be blank".
  if (fields.email !== undefined) {
    if (fields.email === '') errors.add('email', "can't be blank");
    else errors.check(isEmail(fields.email), 'email', 'is invalid').maxLength('email', fields.email, MAX_NAME);
  }
  if (fields.avatar !== undefined) {
    if (!isStoredAvatar(fields.avatar)) errors.add('avatar', 'is invalid');
    else for (const message of avatarErrors(fields.avatar)) errors.add('avatar', message);
  }
  if (fields.name !== undefined) errors.check(!isRubyBlank(fields.name), 'name', "can't be blank").maxLength('name', fields.name, MAX_NAME);
  errors.maxLength('public_email', fields.public_email, MAX_NAME);
  // User#owns_public_email (when it changes): a non-blank public address must be one of the user's verified ones,
  // here their primary address (no secondary addresses are kept; every account counts as confirmed).
  // (A public address over the length limit has its length error alone: no owned address is that long.)
  if (fields.public_email && [...fields.public_email].length <= MAX_NAME && fields.public_email !== current?.public_email) errors.check(fields.public_email === (fields.email ?? current?.email), 'public_email', 'is not an email you own');
  // `validates :projects_limit, numericality: { greater_than_or_equal_to: 0, less_than_or_equal_to: MAX_INT_VALUE }`.
  if (fields.projects_limit !== undefined) {
    errors.check(fields.projects_limit >= 0, 'projects_limit', 'must be greater than or equal to 0');
    errors.check(fields.projects_limit <= MAX_INT_VALUE, 'projects_limit', `must be less than or equal to ${MAX_INT_VALUE}`);
  }
  // Gitlab::Themes and Gitlab::ColorSchemes (`inclusion`, "%{value} is not a valid …"); UserDetail's lengths.
  if (fields.theme_id !== undefined) errors.check(THEME_IDS.includes(fields.theme_id), 'theme_id', `${fields.theme_id} is not a valid theme`);
  if (fields.color_scheme_id !== undefined) errors.check(COLOR_SCHEME_IDS.includes(fields.color_scheme_id), 'color_scheme_id', `${fields.color_scheme_id} is not a valid color scheme`);
  errors.maxLength('bio', fields.bio, MAX_NAME).maxLength('pronouns', fields.pronouns, 50);
  for (const field of ['note', 'location', 'skype', 'linkedin', 'twitter', 'website_url', 'organization'] as const) errors.maxLength(field, fields[field], MAX_NAME);
  if (fields.username !== undefined) {
    errors.check(fields.username !== '', 'username', "can't be blank").maxLength('username', fields.username, MAX_NAME);
    // The personal namespace's NamespacePathValidator, reported on `username`: the format, then (the namespace
    // being top-level) TOP_LEVEL_ROUTES. The namespace is validated when its path changes (autosave validates a
    // changed association only), so a name an old log holds stays valid for its user.
    if (fields.username !== current?.username) for (const message of namespacePathErrors(fields.username, fields.username)) errors.add('username', message);
  }
  const emailOwner = fields.email === undefined ? undefined : findUserByEmail(state.users, fields.email);
  const usernameOwner = fields.username === undefined ? undefined : findUserByUsername(state.users, fields.username);
  const pathOwner = fields.username === undefined ? undefined : findTopLevelNamespaceByPath(state.groups, fields.username);
  // The platform reports a taken e-mail, then a taken username, as 409 before any other validation error.
  if (emailOwner && emailOwner.id !== selfId) return E.left(conflict('Email has already been taken'));
  if ((usernameOwner && usernameOwner.id !== selfId) || pathOwner) return E.left(conflict('Username has already been taken'));
  return errors.toEither(undefined);
};

/**
 * `Users::UpdateService#assign_identity`: the identity with that provider is created or its extern_uid changed.
 * The provider must be present; an extern_uid is unique per provider (case-insensitive), as the Identity model says.
 */
const identityEvents = (state: UsersView, userId: number, identity: IdentityInput | undefined, at: string): E.Either<DomainError, UserEvent[]> => {
  if (identity === undefined) return E.right([]);
  const errors = new Errors()
    .check(!isRubyBlank(identity.provider), 'provider', "can't be blank")
    .maxLength('provider', identity.provider, MAX_NAME)
    .maxLength('extern_uid', identity.extern_uid, MAX_NAME);
  const holder = findUserByIdentity(state.users, identity.provider, identity.extern_uid);
  if (holder && holder.id !== userId) errors.add('extern_uid', 'has already been taken');
  if (!errors.empty) return errors.toEither([]);
  const current = findUser(state.users, userId)?.identities.find((candidate) => candidate.provider === identity.provider);
  if (current?.extern_uid === identity.extern_uid) return E.right([]);
  return E.right([{ type: 'UserIdentitySet', data: { id: userId, provider: identity.provider, extern_uid: identity.extern_uid, at } }]);
};

/** The e-mail of a create or update command as the model saves it. */
const withNormalizedEmail = (command: UserCommand): UserCommand =>
  (command.type === 'CreateUser' || command.type === 'UpdateUser') && command.email !== undefined ? { ...command, email: normalizedEmail(command.email) } : command;

export const decide = (issued: Issued<UserCommand>, state: UsersView): E.Either<DomainError, readonly Emitted[]> => {
  const { at } = issued;
  const command = withNormalizedEmail(issued.command);
  switch (command.type) {
    case 'CreateUser': {
      const id = state.sequences.user + 1;
      return pipe(
        requireAdmin(issued, state),
        E.chain(() => validateProfile(state, command, null)),
        E.chain(() => identityEvents(state, id, command.identity, at)),
        E.map((identity): Emitted[] => [
          userCreated(
            state,
            {
              username: command.username,
              name: command.name,
              email: command.email,
              public_email: command.public_email ?? null,
              is_admin: command.is_admin ?? false,
              password_digest: command.password_digest,
              ...(command.projects_limit !== undefined ? { projects_limit: command.projects_limit } : {}),
              ...(command.can_create_group !== undefined ? { can_create_group: command.can_create_group } : {}),
              ...(command.external !== undefined ? { external: command.external } : {}),
            },
            at,
            issued.actor.userId,
          ),
          // An avatar or profile given at creation is recorded as the account's first update (UserCreated keeps its schema).
          ...(command.avatar || Object.keys(profileOf(command)).length > 0
            ? [{ type: 'UserUpdated' as const, data: { id, ...(command.avatar ? { avatar: command.avatar } : {}), ...profileOf(command), updated_at: at } }]
            : []),
          ...identity,
          // Pending e-mail invitations to this address become the new account's memberships.
          ...acceptInvitations(state, command.email, id, at),
        ]),
      );
    }
    case 'UpdateUser':
      return pipe(
        requireAdmin(issued, state),
        E.chain(() => requireUser(state, command.id)),
        E.chainFirst((user) => validateProfile(state, command, user.id)),
        E.chain((user) => E.map((identity: UserEvent[]) => ({ user, identity }))(identityEvents(state, user.id, command.identity, at))),
        E.map(({ user, identity }): UserEvent[] => {
          const { type: _type, identity: _identity, ...changes } = command;
          // Compared with what the user holds, defaults included: a field never set holds its default, so giving
          // that default (`bio: ''`, `private_profile: false`, `projects_limit: 100000`…) changes nothing.
          return [...(changesAnything({ ...STORED_DEFAULTS, ...user }, changes) ? [{ type: 'UserUpdated' as const, data: { ...changes, id: user.id, updated_at: at } }] : []), ...identity];
        }),
      );
    case 'DeleteUserIdentity':
      return pipe(
        requireAdmin(issued, state),
        E.chain(() => requireUser(state, command.id)),
        E.chain((user): E.Either<DomainError, UserEvent[]> =>
          user.identities.some((identity) => identity.provider === command.provider)
            ? E.right([{ type: 'UserIdentityRemoved', data: { id: user.id, provider: command.provider, at } }])
            : E.left(notFound('Identity')),
        ),
      );
    case 'BlockUser':
      return pipe(
        requireAdmin(issued, state),
        E.chain(() => requireUser(state, command.id)),
        E.chain((user) =>
          // A banned user is already `blocked?`: nothing to do, as for a blocked one.
          user.id === issued.actor.userId
            ? E.left(forbidden('You cannot block yourself'))
            : E.right<DomainError, UserEvent[]>(user.state === 'blocked' || user.state === 'banned' ? [] : [{ type: 'UserBlocked', data: { id: user.id, at } }]),
        ),
      );
    case 'UnblockUser':
      return pipe(
        requireAdmin(issued, state),
        E.chain(() => requireUser(state, command.id)),
        // `user.activate` lifts a block or a ban alike; a deactivated user is the activate endpoint's.
        E.chain((user): E.Either<DomainError, UserEvent[]> =>
          user.state === 'deactivated'
            ? E.left(forbidden('Deactivated users cannot be unblocked by the API'))
            : E.right(user.state === 'blocked' || user.state === 'banned' ? [{ type: 'UserUnblocked', data: { id: user.id, at } }] : []),
        ),
      );
    case 'DeactivateUser':
      // lib/api/users.rb `:id/deactivate`: a deactivated user again is nothing (`break`); otherwise
      // `can_be_deactivated?` (active, no activity in the last 90 days) or the first of its refusals.
      return pipe(
        requireAdmin(issued, state),
        E.chain(() => requireUser(state, command.id)),
        E.chain((user): E.Either<DomainError, UserEvent[]> => {
          if (user.state === 'deactivated') return E.right([]);
          if (user.state === 'blocked' || user.state === 'banned') return E.left(forbidden('A blocked user cannot be deactivated by the API'));
          if (activeSince(user, at)) return E.left(forbidden(`The user you are trying to deactivate has been active in the past ${MINIMUM_INACTIVE_DAYS} days and cannot be deactivated`));
          return E.right([{ type: 'UserDeactivated', data: { id: user.id, at } }]);
        }),
      );
    case 'ActivateUser':
      // `:id/activate`: a blocked (or banned) user must be unblocked first; `user.activate` on an active one changes nothing.
      return pipe(
        requireAdmin(issued, state),
        E.chain(() => requireUser(state, command.id)),
        E.chain((user): E.Either<DomainError, UserEvent[]> =>
          user.state === 'blocked' || user.state === 'banned'
            ? E.left(forbidden('A blocked user must be unblocked to be activated'))
            : E.right(user.state === 'deactivated' ? [{ type: 'UserActivated', data: { id: user.id, at } }] : []),
        ),
      );
    case 'BanUser':
    case 'UnbanUser': {
      // Users::BanService / UnbanService: only an active user is banned, only a banned one unbanned; otherwise
      // 403 "You cannot <action> <state> users." (`render_api_error!` with the service's message).
      const [action, from, type] = command.type === 'BanUser' ? (['ban', 'active', 'UserBanned'] as const) : (['unban', 'banned', 'UserUnbanned'] as const);
      return pipe(
        requireAdmin(issued, state),
        E.chain(() => requireUser(state, command.id)),
        E.chain((user): E.Either<DomainError, UserEvent[]> =>
          user.state === from ? E.right([{ type, data: { id: user.id, at } }]) : E.left(forbiddenMessage(`You cannot ${action} ${user.state} users.`)),
        ),
      );
    }
    case 'DeleteUser':
      return pipe(
        requireAdmin(issued, state),
        E.chain(() => requireUser(state, command.id)),
        E.map((user): Emitted[] => {
          // As the platform: groups the user alone owns and the user's personal projects go with the account.
          const soloOwned = soloOwnedGroups(state, user.id).flatMap((group) => deleteGroupEvents(state, group, at));
          const personal = [...projectsInNamespace(state.projects, user.namespace_id)].flatMap((project) => deleteProjectEvents(state, project.id, at));
          const cascaded = [...soloOwned, ...personal];
          const alreadyRemoved = new Set(cascaded.flatMap((event) => (event.type === 'MemberRemoved' ? [event.data.id] : [])));
          // Memberships end explicitly, so that the audit trail shows when the access went away.
          const memberships = removeMembershipsOfUser(state, user.id, at).filter((event) => !alreadyRemoved.has(event.data.id));
          const ended = new Set(cascaded.flatMap((event) => (event.type === 'AccessRequestDenied' ? [`${event.data.source_type}:${event.data.source_id}:${event.data.user_id}`] : [])));
          const requests = endAccessRequests(accessRequestsOfUser(state, user.id).filter((r) => !ended.has(`${r.source_type}:${r.source_id}:${r.user_id}`)), at, 'user_deleted');
          return [...cascaded, ...memberships, ...requests, { type: 'UserDeleted', data: { id: user.id, at } }];
        }),
      );
    case 'RecordUserActivity':
      return pipe(
        requireUser(state, command.id),
        E.map((user): UserEvent[] => (user.last_activity_on === dayOf(at) ? [] : [{ type: 'UserActivityRecorded', data: { id: user.id, day: dayOf(at) } }])),
      );
  }
};


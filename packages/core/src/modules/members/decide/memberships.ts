/** Direct memberships: add (one user, or a comma list whose failures are the outcome), change and remove. */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import { withOutcome, type Decision } from '../../../kernel/decider.js';
import { conflict, forbidden, notFound, validation } from '../../../kernel/domain-error.js';
import type { Group } from '../../groups/projection.js';
import { selfAndDescendants } from '../../groups/queries.js';
import { projectsInNamespace } from '../../projects/queries.js';
import type { User } from '../../users/projection.js';
import { findUser, findUserByEmail, isProjectBot } from '../../users/queries.js';
import { isAdmin } from '../../access/abilities.js';
import { AccessLevel } from '../../shared/access.js';
import { dayOf, exceedsLength, isEmail, MAX_NAME, tooLong, toSentence, type Errors } from '../../shared/validation.js';
import { memberAdded, memberAddedWithCap, removed } from '../builders.js';
import type { MemberEvent } from '../events.js';
import type { Member, SourceType } from '../projection.js';
import { directMembership, findAccessRequest, invitationOf, isLastOwner, membersOfSource, type OwnersChanged } from '../queries.js';
import {
  administeredSource,
  isMembershipLocked,
  isPersonalProjectOwner,
  mayAdmin,
  MEMBERSHIP_LOCKED,
  refuseLdapSynced,
  requireDirectMember,
  resolveSource,
  sourceTakingMembers,
  type Command,
  type Either,
  type MembersView,
  type ResolvedSource,
} from './source.js';
import { errorEntries, fullMessages, signupRestriction, toEither, validateMembership } from './validation.js';

/** The outcome of `AddMembers`: what the events do not say. */
export interface AddMembersOutcome {
  /** "<username>: <full messages>" per failed user. */
  readonly failures: readonly string[];
  /** A failure of the whole request ("No users specified."). */
  readonly error?: string;
}

interface AddMembersPlan extends AddMembersOutcome {
  readonly events: readonly MemberEvent[];
}

export const memberChangeEvents = (member: Member, level: number, expiresAt: string | null | undefined, at: string, reason?: string): MemberEvent[] => {
  const ref = { id: member.id, source_type: member.source_type, source_id: member.source_id, user_id: member.user_id };
  const events: MemberEvent[] = [];
  if (level !== member.access_level) events.push({ type: 'MemberAccessLevelChanged', data: { ...ref, from: member.access_level, to: level, at, ...(reason ? { reason } : {}) } });
  if (expiresAt !== undefined && expiresAt !== member.expires_at) events.push({ type: 'MemberExpirySet', data: { ...ref, expires_at: expiresAt, at } });
  return events;
};

/**
 * The member policies' `project_bot` condition: `update_*_member` and `destroy_*_member` are enabled only for
 * `~project_bot & can?(:admin_*_member)`, so a token's bot's membership goes with its token, never through the members
 * API; only `target_is_self` still enables `destroy_*_member` (the bot leaving with its own token).
 */
const isBotMembership = (state: MembersView, member: Member): boolean => member.user_id !== null && isProjectBot(findUser(state.users, member.user_id));

/**
 * `update_group_member` / `update_project_member` of a caller who administers the source: prevented for the group's
 * last owner (GroupMemberPolicy `last_owner`), the personal project's owner (ProjectMemberPolicy `target_is_owner`), an
 * LDAP-synced membership not overridden (EE) and a token's bot (`~project_bot`).
 */
const updatePrevented = (state: MembersView, member: Member, owners?: OwnersChanged): boolean =>
  isLastOwner(state, member, owners) || isPersonalProjectOwner(state, member) || (member.ldap && !member.override) || isBotMembership(state, member);

/** `Members::CreateService::DEFAULT_INVITE_LIMIT`: the items (distinct as given) one comma list may name. */
const ADD_LIMIT = 100;

/** `parse_users_list`'s user id: all digits (`/\A\d+\Z/`, so one final newline too); blanks around it make no id. */
const USER_ID_ITEM = /^\d+\n?$/;

/** `validates :user_id, uniqueness: { message: "already exists in source" }`: a second row for the user in the source. */
export const USER_TAKEN = 'User already exists in source';

/** `invite_email`'s uniqueness in the source, under its 14.7 attribute name ("The member's email address"). */
export const INVITE_TAKEN = "The member's email address has already been taken";

/** Whether the user holds a row in the source (a membership or an access request): a new row would fail its uniqueness. */
export const holdsRowIn = (state: MembersView, source: ResolvedSource, userId: number): boolean =>
  directMembership(state.members, source.type, source.id, userId) !== undefined || findAccessRequest(state, source.type, source.id, userId) !== undefined;

/**
 * A new invitation row's failure, or null: the `invite_email` uniqueness (`takenNow`: by this request), then the sign-up
 * rules (`signup_email_valid?`), then the membership's own messages. The comma list and `/invitations` build it alike.
 */
export const invitationFailure = (state: MembersView, source: ResolvedSource, email: string, actorId: number | null, messages: readonly string[], takenNow = false): string | null => {
  const taken = takenNow || invitationOf(state.members, source.type, source.id, email) !== undefined;
  const restricted = signupRestriction(state.settings, source, email, isAdmin(state, actorId));
  if (!taken && restricted === null && messages.length === 0) return null;
  return toSentence([...(taken ? [INVITE_TAKEN] : []), ...(restricted !== null ? [`User ${restricted}`] : []), ...messages]);
};

/**
 * A comma list item by item, as `Members::CreateService` hands `user_id.to_s.split(',').uniq` to `add_users`, whose
 * `parse_users_list` keeps what is a user id (unknown ids dropped: `User.id_in`) or an e-mail address (`Devise.email_regexp`)
 * and silently drops the rest (usernames, items with blanks around them, malformed addresses). The addresses go first
 * (one of nobody is an invitation), then the ids' users. A user's row is the one `existing_members` found for the ids
 * before anything was saved (a member is updated, an access request granted), reached by every item naming the user,
 * address or id; else a new row, which fails the uniqueness validation when the user already has one in the source (a
 * member or a requester named by address only, or a row this list saved). Rows are saved one after the other.
 */
const planAddMembers = (issued: Command<'AddMembers'>, state: MembersView, source: ResolvedSource): AddMembersPlan => {
  const { command, at, actor } = issued;
  const today = dayOf(at);
  const items = [...new Set(command.user_ids)];
  if (items.length === 0) return { events: [], failures: [], error: 'No users specified.' };
  if (items.length > ADD_LIMIT) return { events: [], failures: [], error: `Too many users specified (limit is ${ADD_LIMIT})` };
  const ids = new Set<number>();
  const emails: string[] = [];
  for (const item of items) {
    if (USER_ID_ITEM.test(item)) {
      const id = Number(item.trim());
      if (Number.isSafeInteger(id)) ids.add(id);
    } else if (isEmail(item)) emails.push(item);
  }
  const users = [...ids].map((id) => findUser(state.users, id)).filter((user) => user !== undefined);
  // `existing_members` (`members_and_requesters` of the ids' users). A member's entry follows the list's changes, so a
  // second item naming the user saves it again to no effect; a request's entry, once granted or refused, answers the
  // same again (the row was saved with the list's values, or fails as it did).
  const rows = new Map<number, Member | 'request'>();
  for (const user of users) {
    const member = directMembership(state.members, source.type, source.id, user.id);
    if (member) rows.set(user.id, member);
    else if (findAccessRequest(state, source.type, source.id, user.id)) rows.set(user.id, 'request');
  }
  const requestOutcomes = new Map<number, string | null>();
  const events: MemberEvent[] = [];
  const failures: string[] = [];
  const addedNow = new Set<number>();
  const invitedNow = new Set<string>();
  // The group's owners as the rows saved so far leave them: `last_owner` asks the database before each update.
  const owners = { demoted: new Set<number>(), added: new Set<number>() };
  const level = command.access_level;
  // `member_attributes` assigns `expires_at: args[:expires_at]`: an existing member's expiry goes when none is given.
  const expiresAt = command.expires_at ?? null;
  let offset = 0;
  const messagesOf = (errors: Errors): string[] => fullMessages(validation(Object.fromEntries(errorEntries(errors))));
  const sentence = (prefix: string, errors: Errors, taken?: string): string => `${prefix}${toSentence([...(taken ? [taken] : []), ...messagesOf(errors)])}`;
  const add = (userId: number) => {
    addedNow.add(userId);
    const event = memberAddedWithCap(state, { source_type: source.type, source_id: source.id, user_id: userId, access_level: level, expires_at: expiresAt, at, created_by_id: actor.userId }, offset++);
    if (source.type === 'Namespace' && level === AccessLevel.OWNER && event.type === 'MemberAdded' && event.data.state === 'active') owners.added.add(userId);
    events.push(event);
  };
  /** `CreatorService#execute` and `process_result` for one item naming a user: the failure's text, or null. */
  const settle = (user: User): string | null => {
    const prefix = `${user.username}: `;
    const row = rows.get(user.id);
    if (row === undefined) {
      const taken = addedNow.has(user.id) || holdsRowIn(state, source, user.id);
      const errors = validateMembership(state, source, user.id, level, expiresAt, today);
      if (taken || !errors.empty) return sentence(prefix, errors, taken ? USER_TAKEN : undefined);
      add(user.id);
      return null;
    }
    if (row === 'request') {
      const known = requestOutcomes.get(user.id);
      if (known !== undefined) return known;
      const errors = validateMembership(state, source, user.id, level, expiresAt, today);
      const outcome = errors.empty ? null : sentence(prefix, errors);
      if (outcome === null) add(user.id);
      requestOutcomes.set(user.id, outcome);
      return outcome;
    }
    // `Member.add_user` returns a member the actor may not update (`can_update_member?`; the system, no actor, may)
    // as it is, and `Members::CreateService#process_result` reports only what `member.invalid?` then finds: the
    // unchanged row, validated at its own level and expiry.
    const unchanged = actor.userId !== null && updatePrevented(state, row, owners);
    const errors = unchanged
      ? validateMembership(state, source, user.id, row.access_level, row.expires_at, today)
      : validateMembership(state, source, user.id, level, expiresAt, today);
    if (!errors.empty) return sentence(prefix, errors);
    if (unchanged) return null;
    const changes = memberChangeEvents(row, level, expiresAt, at);
    if (changes.length === 0) return null;
    events.push(...changes);
    if (row.access_level === AccessLevel.OWNER && level !== AccessLevel.OWNER) owners.demoted.add(row.id);
    rows.set(user.id, { ...row, access_level: level, expires_at: expiresAt });
    return null;
  };
  const report = (failure: string | null) => {
    if (failure !== null) failures.push(failure);
  };
  for (const email of emails) {
    const user = findUserByEmail(state.users, email);
    if (user) {
      report(settle(user));
      continue;
    }
    const errors = validateMembership(state, source, null, level, expiresAt, today);
    const key = email.toLowerCase();
    if (exceedsLength(email, MAX_NAME)) errors.add('invite_email', tooLong(MAX_NAME));
    const messages = messagesOf(errors).map((m) => m.replace(/^Invite email /, "The member's email address "));
    const failure = invitationFailure(state, source, email, actor.userId, messages, invitedNow.has(key));
    if (failure !== null) {
      failures.push(failure);
      continue;
    }
    invitedNow.add(key);
    events.push(memberAdded(state, { source_type: source.type, source_id: source.id, user_id: null, invite_email: email, access_level: level, expires_at: expiresAt, at, created_by_id: actor.userId }, offset++));
  }
  for (const user of users) report(settle(user));
  return { events, failures };
};

/** `skip_subresources: false`: the user's memberships below a group, and the unaccepted invitations they created there. */
const subresourceRemovals = (state: MembersView, group: Group, member: Member, at: string): MemberEvent[] => {
  const events: MemberEvent[] = [];
  for (const g of selfAndDescendants(state.groups, group)) {
    const sources: { type: SourceType; id: number }[] = [{ type: 'Namespace', id: g.id }, ...[...projectsInNamespace(state.projects, g.id)].map((p) => ({ type: 'Project' as const, id: p.id }))];
    for (const source of sources) {
      for (const m of membersOfSource(state.members, source.type, source.id)) {
        if (m.id === member.id) continue;
        const own = m.user_id !== null && m.user_id === member.user_id && !(source.type === 'Namespace' && source.id === group.id);
        const invitedByThem = m.user_id === null && m.created_by_id !== null && m.created_by_id === member.user_id;
        if (own || invitedByThem) {
          events.push({ type: 'MemberRemoved', data: { id: m.id, source_type: m.source_type, source_id: m.source_id, user_id: m.user_id, at, reason: own ? 'parent_membership_removed' : 'inviter_removed' } });
        }
      }
    }
  }
  return events;
};

export const decideAddMember = (issued: Command<'AddMember'>, state: MembersView): Either<MemberEvent[]> => {
  const { command, at, actor } = issued;
  const today = dayOf(at);
  return pipe(
    administeredSource(state, issued),
    E.chainFirst((source) => refuseLdapSynced(state, source)),
    E.chain((source) => {
      const user = findUser(state.users, command.user_id);
      if (!user) return E.left(notFound('User'));
      if (directMembership(state.members, source.type, source.id, user.id)) return E.left(conflict('Member already exists'));
      if (isMembershipLocked(state, source)) return E.left(MEMBERSHIP_LOCKED);
      const errors = validateMembership(state, source, user.id, command.access_level, command.expires_at, today);
      return pipe(
        toEither(errors),
        E.map((): MemberEvent[] => [
          memberAddedWithCap(state, { source_type: source.type, source_id: source.id, user_id: user.id, access_level: command.access_level, expires_at: command.expires_at ?? null, at, created_by_id: actor.userId }),
        ]),
      );
    }),
  );
};

export const decideAddMembers = (issued: Command<'AddMembers'>, state: MembersView): Either<Decision<MemberEvent>> =>
  pipe(
    sourceTakingMembers(state, issued),
    E.map((source): Decision<MemberEvent> => {
      const { events, ...outcome } = planAddMembers(issued, state, source);
      return withOutcome<MemberEvent, AddMembersOutcome>(events, outcome);
    }),
  );

export const decideUpdateMember = (issued: Command<'UpdateMember'>, state: MembersView): Either<MemberEvent[]> => {
  const { command, at } = issued;
  const today = dayOf(at);
  return pipe(
    administeredSource(state, issued),
    E.chain((source) =>
      pipe(
        requireDirectMember(state, source, command.user_id),
        E.chainFirst((member) =>
          updatePrevented(state, member) ? E.left(forbidden()) : E.right(undefined),
        ),
        E.chainFirst(() => toEither(validateMembership(state, source, command.user_id, command.access_level, command.expires_at, today))),
        E.map((member) => memberChangeEvents(member, command.access_level, command.expires_at, at)),
      ),
    ),
  );
};

export const decideRemoveMember = (issued: Command<'RemoveMember'>, state: MembersView): Either<MemberEvent[]> => {
  const { command, at, actor } = issued;
  const actorId = actor.userId;
  return pipe(
    resolveSource(state, command.source_type, command.source_id),
    E.chain((source) =>
      pipe(
        requireDirectMember(state, source, command.user_id),
        E.chainFirst((member) => {
          const self = actorId !== null && member.user_id === actorId;
          if (!self && !mayAdmin(state, actorId, source, dayOf(at))) return E.left(forbidden());
          if (isLastOwner(state, member) || isPersonalProjectOwner(state, member)) return E.left(forbidden());
          if (!self && isBotMembership(state, member)) return E.left(forbidden());
          return E.right(undefined);
        }),
        E.map((member): MemberEvent[] => [removed(member, at), ...(source.group && !command.skip_subresources ? subresourceRemovals(state, source.group, member, at) : [])]),
      ),
    ),
  );
};

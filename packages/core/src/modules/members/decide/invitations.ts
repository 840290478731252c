/** Invitations by e-mail: invite (failures per address are the outcome), change and remove an invitation. */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import { withOutcome, type Decision } from '../../../kernel/decider.js';
import { notFound, validation } from '../../../kernel/domain-error.js';
import { findUserByEmail } from '../../users/queries.js';
import { dayOf, exceedsLength, isEmail, MAX_NAME, normalizedEmail, tooLong, toSentence } from '../../shared/validation.js';
import { memberAdded, memberAddedWithCap, removed } from '../builders.js';
import type { MemberEvent } from '../events.js';
import { invitationOf } from '../queries.js';
import { holdsRowIn, invitationFailure, memberChangeEvents, USER_TAKEN } from './memberships.js';
import { administeredSource, sourceTakingMembers, type Command, type Either, type MembersView, type ResolvedSource } from './source.js';
import { errorEntries, fullMessages, toEither, validateMembership } from './validation.js';

/** The outcome of `InviteMembers`. */
export interface InviteOutcome {
  /** E-mail → error text, for `{"status":"error","message":{…}}`. */
  readonly failures: Readonly<Record<string, string>>;
  /** A failure of the whole request (`{"status":"error","message":"<text>"}`): no address, or more than 100. */
  readonly error?: string;
}

/** `Members::InviteService`'s `DEFAULT_LIMIT`: the distinct addresses one request may name. */
const INVITE_LIMIT = 100;

interface InvitePlan extends InviteOutcome {
  readonly events: readonly MemberEvent[];
}

const planInvitations = (issued: Command<'InviteMembers'>, state: MembersView, source: ResolvedSource): InvitePlan => {
  const { command, at, actor } = issued;
  const today = dayOf(at);
  const events: MemberEvent[] = [];
  const failures: Record<string, string> = {};
  const seen = new Set<string>();
  // `params[:email].split(',').uniq`, counted before any address is looked at: nothing is invited past the limit.
  // An address counts once whatever its case or surrounding blanks (the key is `normalizedEmail`); the invitation keeps
  // the address as given, blanks taken off.
  const keys = command.emails.map(normalizedEmail);
  // `validate_invitable!`: `raise BlankInvitesError, blank_invites_message if invites.blank?`.
  if (keys.every((key) => key === '')) return { events: [], failures: {}, error: 'Emails cannot be blank' };
  if (new Set(keys.filter((key) => key !== '')).size > INVITE_LIMIT) {
    return { events: [], failures: {}, error: `Too many users specified (limit is ${INVITE_LIMIT})` };
  }
  const addedNow = new Set<number>();
  let offset = 0;
  for (const [index, raw] of command.emails.entries()) {
    const key = keys[index]!;
    if (key === '' || seen.has(key)) continue;
    seen.add(key);
    const email = raw.trim();
    if (!isEmail(email)) {
      failures[email] = 'Invite email is invalid';
      continue;
    }
    if (exceedsLength(email, MAX_NAME)) {
      failures[email] = `Invite email ${tooLong(MAX_NAME)}`;
      continue;
    }
    const user = findUserByEmail(state.users, email);
    const errors = validateMembership(state, source, user?.id ?? null, command.access_level, command.expires_at, today);
    const messages = fullMessages(validation(Object.fromEntries(errorEntries(errors))));
    if (user) {
      // `add_users` builds a new row for a user named by address (only ids' rows are looked up first), so a member or
      // an access requester fails the uniqueness; `process_result` keys the failure by `member.user.email`.
      const taken = addedNow.has(user.id) || holdsRowIn(state, source, user.id);
      if (taken || messages.length > 0) {
        failures[user.email] = toSentence([...(taken ? [USER_TAKEN] : []), ...messages]);
        continue;
      }
      addedNow.add(user.id);
      events.push(memberAddedWithCap(state, { source_type: source.type, source_id: source.id, user_id: user.id, access_level: command.access_level, expires_at: command.expires_at ?? null, at, created_by_id: actor.userId }, offset++));
      continue;
    }
    // A new invitation: the `invite_email` uniqueness, then the sign-up rules (`signup_email_valid?`), then the rest.
    const failure = invitationFailure(state, source, email, actor.userId, messages);
    if (failure !== null) {
      failures[email] = failure;
      continue;
    }
    events.push(memberAdded(state, { source_type: source.type, source_id: source.id, user_id: null, invite_email: email, access_level: command.access_level, expires_at: command.expires_at ?? null, at, created_by_id: actor.userId }, offset++));
  }
  return { events, failures };
};

export const decideInviteMembers = (issued: Command<'InviteMembers'>, state: MembersView): Either<Decision<MemberEvent>> =>
  pipe(
    sourceTakingMembers(state, issued),
    E.map((source): Decision<MemberEvent> => {
      const { events, ...outcome } = planInvitations(issued, state, source);
      return withOutcome<MemberEvent, InviteOutcome>(events, outcome);
    }),
  );

export const decideUpdateInvitation = (issued: Command<'UpdateInvitation'>, state: MembersView): Either<MemberEvent[]> => {
  const { command, at } = issued;
  const today = dayOf(at);
  return pipe(
    administeredSource(state, issued),
    E.chain((source) => {
      const invitation = invitationOf(state.members, source.type, source.id, command.email);
      if (!invitation) return E.left(notFound());
      const level = command.access_level ?? invitation.access_level;
      return pipe(
        toEither(validateMembership(state, source, null, level, command.expires_at, today)),
        E.map(() => memberChangeEvents(invitation, level, command.expires_at, at)),
      );
    }),
  );
};

export const decideRemoveInvitation = (issued: Command<'RemoveInvitation'>, state: MembersView): Either<MemberEvent[]> => {
  const { command, at } = issued;
  return pipe(
    administeredSource(state, issued),
    E.chain((source) => {
      const invitation = invitationOf(state.members, source.type, source.id, command.email);
      return invitation ? E.right([removed(invitation, at, 'invitation_removed')]) : E.left(notFound());
    }),
  );
};

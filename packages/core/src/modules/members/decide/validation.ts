/** Validation of a membership: the Member model's messages (reference §2.5). */
import * as E from 'fp-ts/lib/Either.js';
import type { DomainError } from '../../../kernel/domain-error.js';
import { AccessLevel, GROUP_ACCESS_LEVELS, PROJECT_ACCESS_LEVELS, humanAccess } from '../../shared/access.js';
import { Errors } from '../../shared/validation.js';
import { BOT_HELD_ELSEWHERE, botHeldElsewhere, inheritedMembership } from '../queries.js';
import type { SettingsSlice } from '../../settings/projection.js';
import type { Either, MembersView, ResolvedSource } from './source.js';

const ACCESS_FIELD = 'access_level';

export const validateMembership = (
  state: MembersView,
  source: ResolvedSource,
  userId: number | null,
  level: number,
  expiresAt: string | null | undefined,
  today: string,
): Errors => {
  const errors = new Errors();
  if (source.type === 'Project') {
    if (!PROJECT_ACCESS_LEVELS.includes(level)) errors.add(ACCESS_FIELD, 'is not included in the list');
  } else if (level === AccessLevel.MINIMAL_ACCESS) {
    if (source.group.parent_id !== null) errors.add(ACCESS_FIELD, 'is not included in the list').add(ACCESS_FIELD, 'supported on top level groups only');
  } else if (!GROUP_ACCESS_LEVELS.includes(level)) errors.add(ACCESS_FIELD, 'is not included in the list');
  if (errors.empty && userId !== null) {
    const inherited = inheritedMembership(state, source.type, source.id, userId);
    if (inherited && level < inherited.level) {
      errors.add(ACCESS_FIELD, `should be greater than or equal to ${humanAccess(inherited.level)} inherited membership from group ${inherited.group.name}`);
    }
  }
  if (expiresAt !== null && expiresAt !== undefined && expiresAt < today) errors.add('expires_at', 'cannot be a date in the past');
  if (userId !== null && botHeldElsewhere(state, userId, source.type, source.id)) errors.add('user_id', BOT_HELD_ELSEWHERE);
  return errors;
};

export const toEither = (errors: Errors): Either<void> => errors.toEither(undefined);

/** ActiveSupport `humanize`: a trailing `_id` goes ("User project bots cannot be added …"), underscores are spaces. */
const humanField = (field: string): string => {
  const text = field.replace(/_id$/, '').replace(/_/g, ' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
};

/** ActiveModel `full_messages`: "Access level is not included in the list". */
export const fullMessages = (error: DomainError): string[] =>
  error._tag === 'Validation' ? Object.entries(error.errors).flatMap(([field, messages]) => messages.map((m) => `${humanField(field)} ${m}`)) : [];

/** The field → messages pairs of failed validations. */
export const errorEntries = (errors: Errors): [string, string[]][] => {
  const either = errors.toEither(undefined);
  return E.isLeft(either) && either.left._tag === 'Validation' ? Object.entries(either.left.errors).map(([k, v]) => [k, [...v]]) : [];
};

/** `RestrictedSignup`'s pointers for an administrator, as `ERB::Util.html_escape_once` leaves them (quotes escaped). */
const SIGNUP_RULE_HINTS = {
  allowlist: 'Go to the &#39;Admin area &gt; Sign-up restrictions&#39;, and check &#39;Allowed domains for sign-ups&#39;.',
  denylist: 'Go to the &#39;Admin area &gt; Sign-up restrictions&#39;, and check the &#39;Domain denylist&#39;.',
} as const;

const stringList = (value: unknown): readonly string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);

/** `domain_matches?`: the address's domain (`Mail::Address#domain`) against patterns where `*` is any run, whole and case-blind. */
const domainMatches = (domains: readonly string[], email: string): boolean => {
  const at = email.lastIndexOf('@');
  const domain = at < 0 ? '' : email.slice(at + 1);
  return domains.some((pattern) => new RegExp(`^${pattern.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&').replace(/\\\*/g, '.*?')}$`, 'i').test(domain));
};

/**
 * `Member#signup_email_valid?` (`validate … on: :create, if: invite_email.present?`): a new invitation's address
 * against the instance's sign-up rules (`RestrictedSignup#validate_admin_signup_restrictions`). An address in the
 * allowlist passes; a present allowlist refuses the rest; else an enabled denylist refuses a matching domain. The
 * text goes on `user`: "is not allowed for this group|project." and, when the inviter (`created_by`) is an
 * administrator, where the rule is set, else "Check with your administrator.". `email_restrictions` is not a setting
 * here (see decisions, h-invite). Null when the address may be invited.
 */
export const signupRestriction = (settings: SettingsSlice, source: ResolvedSource, email: string, inviterIsAdmin: boolean): string | null => {
  const allowlist = stringList(settings.values.domain_allowlist);
  if (allowlist.length > 0 && domainMatches(allowlist, email)) return null;
  let rule: keyof typeof SIGNUP_RULE_HINTS;
  if (allowlist.length > 0) rule = 'allowlist';
  else if (settings.values.domain_denylist_enabled === true && domainMatches(stringList(settings.values.domain_denylist), email)) rule = 'denylist';
  else return null;
  const where = source.type === 'Project' ? 'is not allowed for this project.' : 'is not allowed for this group.';
  return `${where} ${inviterIsAdmin ? SIGNUP_RULE_HINTS[rule] : 'Check with your administrator.'}`;
};

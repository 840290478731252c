/** Validation of a membership: the Member model's messages (reference §2.5). */
import * as E from 'fp-ts/lib/Either.js';
import type { DomainError } from '../../../kernel/domain-error.js';
import { AccessLevel, GROUP_ACCESS_LEVELS, PROJECT_ACCESS_LEVELS, humanAccess } from '../../shared/access.js';
import { Errors } from '../../shared/validation.js';
import { BOT_HELD_ELSEWHERE, botHeldElsewhere, inheritedMembership } from '../queries.js';
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

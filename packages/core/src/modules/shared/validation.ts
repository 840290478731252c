/** Small helpers for model validations that produce the platform's `{field: [messages]}` errors. */
import * as E from 'fp-ts/lib/Either.js';
import { validation, type DomainError } from '../../kernel/domain-error.js';

export class Errors {
  private readonly errors: Record<string, string[]> = {};

  add(field: string, message: string): this {
    (this.errors[field] ??= []).push(message);
    return this;
  }

  check(condition: boolean, field: string, message: string): this {
    return condition ? this : this.add(field, message);
  }

  /** Rails' `length: { maximum: max }`: "is too long (maximum is 255 characters)"; absent values pass. */
  maxLength(field: string, value: string | null | undefined, max: number): this {
    return value !== null && value !== undefined && exceedsLength(value, max) ? this.add(field, tooLong(max)) : this;
  }

  get empty(): boolean {
    return Object.keys(this.errors).length === 0;
  }

  /** Left(validation error) when anything was added, else Right(value). */
  toEither<A>(value: A): E.Either<DomainError, A> {
    return this.empty ? E.right(value) : E.left(validation(this.errors));
  }
}

/** `Date.current` for a timestamp: the UTC calendar day "YYYY-MM-DD". */
export const dayOf = (timestamp: string): string => timestamp.slice(0, 10);

/** A day in milliseconds. */
export const DAY_MS = 86_400_000;

/**
 * Devise's `strip_whitespace_keys` and `case_insensitive_keys` (both `[:email]`): an account's e-mail is saved
 * stripped and lower-cased, whichever path creates or changes it (the users API, SCIM, the CLI).
 */
export const normalizedEmail = (email: string): string => rubyStrip(email).toLowerCase();

const EMAIL = /^[^@\s]+@[^@\s]+$/;
export const isEmail = (value: string): boolean => EMAIL.test(value);

/** Namespace paths: letters, digits, `_`, `-`, `.`; not starting with `-` or ending in `.`, `.git` or `.atom`. */
export { isNamespacePath } from './paths.js';

/** The platform's model limits (`length: { maximum: … }` on User, Namespace, Project). */
export const MAX_NAME = 255;
export const MAX_PROJECT_DESCRIPTION = 2000;

/**
 * ActiveSupport's `String#blank?` (`allow_blank`, `presence`): empty or only `[[:space:]]`, Onigmo's Unicode white
 * space, which has U+0085 and not the byte-order mark U+FEFF (JavaScript's `trim` is the other way round).
 */
const RUBY_BLANK = /^[\t-\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*$/;
export const isRubyBlank = (value: string): boolean => RUBY_BLANK.test(value);

const isAsciiSpace = (code: number): boolean => code === 0x20 || (code >= 0x09 && code <= 0x0d);

/**
 * Ruby 2.7's `String#strip` (the platform's Ruby): ASCII white space only ("\t\n\v\f\r "), and NUL at the end but
 * not at the start (Ruby 3.0.2 and later take a leading NUL too). Unicode spaces such as U+00A0 or U+3000 stay,
 * where JavaScript's `trim` takes them (and leaves NUL).
 */
export const rubyStrip = (value: string): string => {
  let start = 0;
  let end = value.length;
  while (start < end && isAsciiSpace(value.charCodeAt(start))) start++;
  while (end > start && (value.charCodeAt(end - 1) === 0 || isAsciiSpace(value.charCodeAt(end - 1)))) end--;
  return start === 0 && end === value.length ? value : value.slice(start, end);
};

/**
 * Ruby 2.7's `Hash#inspect` of `errors.messages`, as the services interpolate it ("Failed to save group
 * {:path=>[\"has already been taken\"]}").
 */
export const rubyErrorsInspect = (errors: Readonly<Record<string, readonly string[]>>): string =>
  `{${Object.entries(errors)
    .map(([field, messages]) => `:${field}=>[${messages.map((message) => JSON.stringify(message)).join(', ')}]`)
    .join(', ')}}`;

/** ActiveModel's message for `length: { maximum: max }`. */
export const tooLong = (max: number): string => `is too long (maximum is ${max} characters)`;

/** Whether a string has more than `max` characters, counted as Ruby does (code points, not UTF-16 units). */
export const exceedsLength = (value: string, max: number): boolean => {
  if (value.length <= max) return false;
  // Every code point takes one or two UTF-16 units: only a string of at most 2 × max units can still fit.
  if (value.length > 2 * max) return true;
  let count = 0;
  for (const _ of value) if (++count > max) return true;
  return false;
};
/** Ruby's `Array#to_sentence`. */
export const toSentence = (items: readonly string[]): string =>
  items.length <= 1 ? (items[0] ?? '') : items.length === 2 ? `${items[0]} and ${items[1]}` : `${items.slice(0, -1).join(', ')}, and ${items[items.length - 1]}`;

/**
 * Whether an update names a field whose value differs from `current`'s (a field `current` does not hold, or a list,
 * counts as a change). An update that changes nothing writes no event: a model saved unchanged keeps its
 * `updated_at`, and an audit log of "updates" that changed nothing is noise.
 */
export const changesAnything = (current: object, changes: Readonly<Record<string, unknown>>): boolean => {
  const held = current as Readonly<Record<string, unknown>>;
  for (const key of Object.keys(changes)) {
    const value = changes[key];
    if (value === undefined) continue;
    if (!(key in held) || !Object.is(held[key], value)) return true;
  }
  return false;
};

/**
 * Whether two lists hold the same values, whatever their order or repeats: labels and assignees are sets
 * (`IssuableBaseService#ids_changing?` compares them sorted), so giving the ones held changes nothing.
 */
export const sameMembers = <T>(held: readonly T[], given: readonly T[]): boolean => {
  const a = new Set(held);
  const b = new Set(given);
  return a.size === b.size && [...a].every((value) => b.has(value));
};

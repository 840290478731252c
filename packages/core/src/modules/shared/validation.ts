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

const EMAIL = /^[^@\s]+@[^@\s]+$/;
export const isEmail = (value: string): boolean => EMAIL.test(value);

/** Namespace paths: letters, digits, `_`, `-`, `.`; not starting with `-` or ending in `.git`/`.atom`. */
const PATH = /^[a-zA-Z0-9_.][a-zA-Z0-9_.-]*$/;
export const isNamespacePath = (value: string): boolean => PATH.test(value) && !/\.(git|atom)$/.test(value) && !value.endsWith('.');

/** Ruby's `Array#to_sentence`. */
export const toSentence = (items: readonly string[]): string =>
  items.length <= 1 ? (items[0] ?? '') : items.length === 2 ? `${items[0]} and ${items[1]}` : `${items.slice(0, -1).join(', ')}, and ${items[items.length - 1]}`;

/**
 * RFC 7644 §3.4.2.2 filters: parser, printer and a compiler to predicates over SCIM users.
 *
 * Grammar (RFC 7644 Figure 1), with the extensions identity providers send:
 *   FILTER    = attrExp / logExp / valuePath / "not" "(" FILTER ")" / "(" FILTER ")"
 *   valuePath = attrPath "[" valFilter "]"            ; also `attrPath "[" valFilter "]" "." subAttr` before an
 *                                                      ; operator: `emails[type eq "work"].value eq "x"` (Entra, GitLab)
 *   attrExp   = attrPath SP "pr" / attrPath SP compareOp SP compValue
 *   logExp    = FILTER SP ("and" / "or") SP FILTER     ; "and" binds tighter than "or"; both left-associative
 *   compValue = false / null / true / number / string  ; JSON; a bare token is read as a string (lenient)
 *   attrPath  = [URI ":"] ATTRNAME ["." ATTRNAME]
 * Attribute names, operators and the keywords `and`, `or`, `not`, `pr`, `true`, `false`, `null` are
 * case-insensitive; runs of white space count as one SP.
 *
 * Bounds: at most `MAX_FILTER_TOKENS` tokens and `MAX_FILTER_DEPTH` levels of parentheses and brackets, far
 * beyond what identity providers send (one or two comparisons), so that the parser, the compiler and the
 * predicate, all recursive, stay well within the stack; beyond them the filter is an `invalidFilter`.
 */
import * as E from 'fp-ts/lib/Either.js';

export type CompareOp = 'eq' | 'ne' | 'co' | 'sw' | 'ew' | 'gt' | 'ge' | 'lt' | 'le';
export const COMPARE_OPS: readonly CompareOp[] = ['eq', 'ne', 'co', 'sw', 'ew', 'gt', 'ge', 'lt', 'le'];
export type CompValue = string | number | boolean | null;

export interface AttrPath {
  /** Schema URN prefix as written (without the trailing ":"), or null. */
  readonly uri: string | null;
  readonly attr: string;
  readonly sub: string | null;
}

export type Filter =
  | { readonly type: 'pr'; readonly path: AttrPath; readonly where: Filter | null }
  | { readonly type: 'cmp'; readonly op: CompareOp; readonly path: AttrPath; readonly value: CompValue; readonly where: Filter | null }
  | { readonly type: 'and' | 'or'; readonly left: Filter; readonly right: Filter }
  | { readonly type: 'not'; readonly filter: Filter }
  /** valuePath: `emails[type eq "work"]`, true when an element of the multi-valued attribute matches. */
  | { readonly type: 'has'; readonly path: AttrPath; readonly filter: Filter };

export interface FilterError {
  readonly _tag: 'InvalidFilter';
  readonly detail: string;
  /** The filter is beyond a bound (length, depth), not against the grammar. */
  readonly tooComplex?: true;
}

const invalid = (detail: string): FilterError => ({ _tag: 'InvalidFilter', detail });

/** Tokens in a filter: a chain of 1,024 comparisons, a tree as deep (the compiler overflowed at 4,000 to 8,000). */
export const MAX_FILTER_TOKENS = 4096;
/** Parentheses (`not (` too) and value-path brackets open at once. */
export const MAX_FILTER_DEPTH = 64;

const tooComplex = (detail: string): FilterError => ({ _tag: 'InvalidFilter', detail, tooComplex: true });
const tooLong = (): E.Either<FilterError, never> => E.left(tooComplex(`Filter longer than ${MAX_FILTER_TOKENS} tokens`));

// ---------------------------------------------------------------------------------------------------------------
// Tokenizer

type Token =
  | { readonly kind: '(' | ')' | '[' | ']'; readonly pos: number; readonly spaced: boolean }
  | { readonly kind: 'word'; readonly text: string; readonly pos: number; readonly spaced: boolean }
  | { readonly kind: 'string'; readonly value: string; readonly pos: number; readonly spaced: boolean };

const WS = /\s/;

/** The filter's tokens; the bounds are checked here, before any recursion and while the input is read. */
const tokenize = (input: string): E.Either<FilterError, Token[]> => {
  const tokens: Token[] = [];
  let i = 0;
  let spaced = true;
  // Brackets open so far: the parser's nesting for any filter it accepts (a stray closer fails there first).
  let depth = 0;
  while (i < input.length) {
    if (tokens.length > MAX_FILTER_TOKENS) return tooLong();
    const ch = input[i]!;
    if (WS.test(ch)) {
      spaced = true;
      i++;
      continue;
    }
    if (ch === '(' || ch === ')' || ch === '[' || ch === ']') {
      depth = ch === '(' || ch === '[' ? depth + 1 : Math.max(depth - 1, 0);
      if (depth > MAX_FILTER_DEPTH) return E.left(tooComplex(`Filter nested deeper than ${MAX_FILTER_DEPTH} levels`));
      tokens.push({ kind: ch, pos: i, spaced });
      i++;
    } else if (ch === '"') {
      let j = i + 1;
      while (j < input.length && input[j] !== '"') j += input[j] === '\\' ? 2 : 1;
      if (j >= input.length) return E.left(invalid(`Unterminated string starting at position ${i + 1}`));
      let value: unknown;
      try {
        value = JSON.parse(input.slice(i, j + 1));
      } catch {
        return E.left(invalid(`Invalid string literal at position ${i + 1}`));
      }
      tokens.push({ kind: 'string', value: value as string, pos: i, spaced });
      i = j + 1;
    } else {
      let j = i;
      while (j < input.length && !WS.test(input[j]!) && !'()[]"'.includes(input[j]!)) j++;
      tokens.push({ kind: 'word', text: input.slice(i, j), pos: i, spaced });
      i = j;
    }
    spaced = false;
  }
  return tokens.length > MAX_FILTER_TOKENS ? tooLong() : E.right(tokens);
};

// ---------------------------------------------------------------------------------------------------------------
// Parser

const ATTR_PATH = /^(?:(urn:[A-Za-z0-9:._-]+):)?([A-Za-z][A-Za-z0-9_$-]*)(?:\.([A-Za-z][A-Za-z0-9_$-]*))?$/i;
const SUB_ATTR = /^\.([A-Za-z][A-Za-z0-9_$-]*)$/;
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

class ParseFailure extends Error {}

class Parser {
  private i = 0;
  constructor(private readonly tokens: readonly Token[]) {}

  private peek(offset = 0): Token | undefined {
    return this.tokens[this.i + offset];
  }
  private fail(message: string): never {
    throw new ParseFailure(message);
  }
  private where(): string {
    const token = this.peek();
    return token ? `at position ${token.pos + 1}` : 'at the end of the filter';
  }
  private isWord(token: Token | undefined, word: string): boolean {
    return token?.kind === 'word' && token.text.toLowerCase() === word;
  }
  private expect(kind: '(' | ')' | '[' | ']'): void {
    if (this.peek()?.kind !== kind) this.fail(`Expected "${kind}" ${this.where()}`);
    this.i++;
  }

  parseAll(): Filter {
    if (this.tokens.length === 0) this.fail('Empty filter');
    const filter = this.parseOr(false);
    if (this.i < this.tokens.length) this.fail(`Unexpected token ${this.where()}`);
    return filter;
  }

  private parseOr(inner: boolean): Filter {
    let left = this.parseAnd(inner);
    while (this.isWord(this.peek(), 'or')) {
      this.i++;
      left = { type: 'or', left, right: this.parseAnd(inner) };
    }
    return left;
  }

  private parseAnd(inner: boolean): Filter {
    let left = this.parseUnary(inner);
    while (this.isWord(this.peek(), 'and')) {
      this.i++;
      left = { type: 'and', left, right: this.parseUnary(inner) };
    }
    return left;
  }

  private parseUnary(inner: boolean): Filter {
    const token = this.peek();
    if (this.isWord(token, 'not') && this.peek(1)?.kind === '(') {
      this.i += 2;
      const filter = this.parseOr(inner);
      this.expect(')');
      return { type: 'not', filter };
    }
    if (token?.kind === '(') {
      this.i++;
      const filter = this.parseOr(inner);
      this.expect(')');
      return filter;
    }
    return this.parseAttrExp(inner);
  }

  private parseAttrPath(): AttrPath {
    const token = this.peek();
    if (token?.kind !== 'word') this.fail(`Expected an attribute path ${this.where()}`);
    const match = ATTR_PATH.exec(token.text);
    if (!match) this.fail(`Invalid attribute path "${token.text}" at position ${token.pos + 1}`);
    this.i++;
    return { uri: match[1] ?? null, attr: match[2]!, sub: match[3] ?? null };
  }

  private parseAttrExp(inner: boolean): Filter {
    let path = this.parseAttrPath();
    let where: Filter | null = null;
    if (this.peek()?.kind === '[' && !this.peek()!.spaced) {
      if (inner) this.fail(`Nested value filter ${this.where()}`);
      if (path.sub !== null) this.fail(`A value filter applies to an attribute, not a sub-attribute ${this.where()}`);
      this.i++;
      const filter = this.parseOr(true);
      this.expect(']');
      const next = this.peek();
      if (next?.kind === 'word' && !next.spaced && SUB_ATTR.test(next.text)) {
        this.i++;
        path = { ...path, sub: SUB_ATTR.exec(next.text)![1]! };
        where = filter;
      } else {
        return { type: 'has', path, filter };
      }
    }
    const opToken = this.peek();
    if (opToken?.kind !== 'word') this.fail(`Expected an operator ${this.where()}`);
    const op = opToken.text.toLowerCase();
    this.i++;
    if (op === 'pr') return { type: 'pr', path, where };
    if (!(COMPARE_OPS as readonly string[]).includes(op)) this.fail(`Unknown operator "${opToken.text}" at position ${opToken.pos + 1}`);
    return { type: 'cmp', op: op as CompareOp, path, value: this.parseValue(), where };
  }

  private parseValue(): CompValue {
    const token = this.peek();
    if (token?.kind === 'string') {
      this.i++;
      return token.value;
    }
    if (token?.kind !== 'word') this.fail(`Expected a value ${this.where()}`);
    this.i++;
    const lower = token.text.toLowerCase();
    if (lower === 'true') return true;
    if (lower === 'false') return false;
    if (lower === 'null') return null;
    if (JSON_NUMBER.test(token.text)) return Number(token.text);
    // Lenient: `externalId eq jyoung` (Microsoft's older examples), `id eq a-b-c-d` (the platform's docs).
    return token.text;
  }
}

/** Parses a filter; any syntax error is an `invalidFilter`. */
export const parseFilter = (input: string): E.Either<FilterError, Filter> =>
  E.chain((tokens: Token[]) => {
    try {
      return E.right(new Parser(tokens).parseAll());
    } catch (e) {
      if (e instanceof ParseFailure) return E.left(invalid(e.message));
      throw e;
    }
  })(tokenize(input));

// ---------------------------------------------------------------------------------------------------------------
// Printer: the canonical text of a filter (single spaces, lower-case operators, JSON values); parse ∘ print = id.

export const printPath = (path: AttrPath): string => `${path.uri === null ? '' : `${path.uri}:`}${path.attr}${path.sub === null ? '' : `.${path.sub}`}`;

const printValue = (value: CompValue): string => (value === null ? 'null' : JSON.stringify(value));

const printTarget = (path: AttrPath, where: Filter | null): string =>
  where === null ? printPath(path) : `${printPath({ ...path, sub: null })}[${printFilter(where)}].${path.sub}`;

const precedence = (filter: Filter): number => (filter.type === 'or' ? 1 : filter.type === 'and' ? 2 : 3);

export const printFilter = (filter: Filter): string => {
  switch (filter.type) {
    case 'pr':
      return `${printTarget(filter.path, filter.where)} pr`;
    case 'cmp':
      return `${printTarget(filter.path, filter.where)} ${filter.op} ${printValue(filter.value)}`;
    case 'not':
      return `not (${printFilter(filter.filter)})`;
    case 'has':
      return `${printPath(filter.path)}[${printFilter(filter.filter)}]`;
    case 'and':
    case 'or': {
      const own = precedence(filter);
      const left = precedence(filter.left) < own ? `(${printFilter(filter.left)})` : printFilter(filter.left);
      const right = precedence(filter.right) <= own ? `(${printFilter(filter.right)})` : printFilter(filter.right);
      return `${left} ${filter.type} ${right}`;
    }
  }
};

// ---------------------------------------------------------------------------------------------------------------
// Compiler: a filter checked against an attribute schema and turned into a predicate.

export type ScalarType = 'string' | 'boolean' | 'dateTime';

export interface ScalarAttr<R> {
  readonly kind: 'scalar';
  readonly type: ScalarType;
  /** The values of the attribute on a resource (empty when unassigned). */
  readonly values: (resource: R) => readonly unknown[];
}

export interface ComplexAttr<R, El> {
  readonly kind: 'complex';
  readonly multiValued: boolean;
  /** The attribute's elements (one for a single-valued complex attribute, when assigned). */
  readonly elements: (resource: R) => readonly El[];
  readonly sub: Readonly<Record<string, ScalarAttr<El>>>;
}

/**
 * A complex attribute in a schema: its element type is its own (its `elements` produce what its `sub` attributes
 * read), so the schema holds it erased.
 */
export const complexAttr = <R, El>(attr: ComplexAttr<R, El>): ComplexAttr<R, unknown> => attr as unknown as ComplexAttr<R, unknown>;

/** Lower-cased attribute names → how to read them. */
export type FilterSchema<R> = Readonly<Record<string, ScalarAttr<R> | ComplexAttr<R, unknown>>>;

export type Predicate<R> = (resource: R) => boolean;

const lower = (value: string): string => value.toLowerCase();

/** The comparison of one attribute value with a literal (values already known to be present). */
const compareScalar = (type: ScalarType, op: CompareOp, actual: unknown, literal: CompValue): boolean => {
  if (literal === null) return op === 'ne';
  if (type === 'boolean') {
    const wanted = typeof literal === 'boolean' ? literal : typeof literal === 'string' && /^(true|false)$/i.test(literal) ? lower(literal) === 'true' : undefined;
    if (wanted === undefined) return op === 'ne';
    return op === 'eq' ? actual === wanted : actual !== wanted;
  }
  if (typeof literal === 'boolean') return op === 'ne';
  const a = lower(String(actual));
  const b = lower(String(literal));
  if (type === 'dateTime' && op !== 'co' && op !== 'sw' && op !== 'ew') {
    const x = Date.parse(String(actual));
    const y = Date.parse(String(literal));
    if (Number.isNaN(x) || Number.isNaN(y)) return op === 'ne';
    switch (op) {
      case 'eq': return x === y;
      case 'ne': return x !== y;
      case 'gt': return x > y;
      case 'ge': return x >= y;
      case 'lt': return x < y;
      case 'le': return x <= y;
    }
  }
  switch (op) {
    case 'eq': return a === b;
    case 'ne': return a !== b;
    case 'co': return a.includes(b);
    case 'sw': return a.startsWith(b);
    case 'ew': return a.endsWith(b);
    case 'gt': return a > b;
    case 'ge': return a >= b;
    case 'lt': return a < b;
    case 'le': return a <= b;
  }
  return false;
};

const isPresent = (value: unknown): boolean => value !== null && value !== undefined && value !== '';

/** Any-semantics over the attribute's values; an unassigned attribute matches only `ne` and `eq null`. */
const compareValues = (type: ScalarType, op: CompareOp, values: readonly unknown[], literal: CompValue): boolean => {
  const present = values.filter(isPresent);
  if (present.length === 0) return literal === null ? op === 'eq' : op === 'ne';
  return present.some((value) => compareScalar(type, op, value, literal));
};

const CORE_USER_URN = 'urn:ietf:params:scim:schemas:core:2.0:user';

class CompileFailure extends Error {}

const compileIn = <R>(filter: Filter, schema: FilterSchema<R>, scope: 'resource' | 'element'): Predicate<R> => {
  const fail = (detail: string): never => {
    throw new CompileFailure(detail);
  };
  const resolve = (path: AttrPath) => {
    if (path.uri !== null && (scope === 'element' || lower(path.uri) !== CORE_USER_URN)) fail(`Unsupported schema "${path.uri}"`);
    const attr = schema[lower(path.attr)];
    if (!attr) fail(`Unsupported attribute "${printPath(path)}"`);
    return attr!;
  };
  /** A path to a scalar: a scalar attribute, a complex one's sub-attribute, or a multi-valued complex's value. */
  const scalarTarget = (path: AttrPath, where: Filter | null): { type: ScalarType; values: (r: R) => readonly unknown[] } => {
    const attr = resolve(path);
    if (attr.kind === 'scalar') {
      if (path.sub !== null) fail(`Attribute "${path.attr}" has no sub-attribute "${path.sub}"`);
      return attr;
    }
    const subName = path.sub === null ? (attr.multiValued ? 'value' : null) : lower(path.sub);
    if (subName === null) fail(`Attribute "${path.attr}" is complex: name a sub-attribute`);
    const sub = attr.sub[subName!];
    if (!sub) fail(`Unsupported attribute "${printPath(path)}"`);
    const keep = where === null ? null : compileIn(where, attr.sub as FilterSchema<unknown>, 'element');
    return {
      type: sub!.type,
      values: (resource: R) => attr.elements(resource).flatMap((element: unknown) => (keep === null || keep(element) ? sub!.values(element) : [])),
    };
  };
  switch (filter.type) {
    case 'and':
    case 'or': {
      const left = compileIn(filter.left, schema, scope);
      const right = compileIn(filter.right, schema, scope);
      return filter.type === 'and' ? (r) => left(r) && right(r) : (r) => left(r) || right(r);
    }
    case 'not': {
      const inner = compileIn(filter.filter, schema, scope);
      return (r) => !inner(r);
    }
    case 'has': {
      const attr = resolve(filter.path);
      const complex = attr.kind === 'complex' ? attr : fail(`Attribute "${filter.path.attr}" is not complex`);
      const keep = compileIn(filter.filter, complex.sub as FilterSchema<unknown>, 'element');
      return (r) => complex.elements(r).some(keep);
    }
    case 'pr': {
      const attr = resolve(filter.path);
      if (attr.kind === 'complex' && filter.path.sub === null && filter.where === null) {
        const subs = Object.values(attr.sub);
        return (r) => attr.elements(r).some((element: unknown) => subs.some((sub) => sub.values(element).some(isPresent)));
      }
      const target = scalarTarget(filter.path, filter.where);
      return (r) => target.values(r).some(isPresent);
    }
    case 'cmp': {
      const target = scalarTarget(filter.path, filter.where);
      if (target.type === 'boolean' && filter.op !== 'eq' && filter.op !== 'ne') fail(`Operator "${filter.op}" is not supported on boolean attribute "${printPath(filter.path)}"`);
      const { op, value } = filter;
      return (r) => compareValues(target.type, op, target.values(r), value);
    }
  }
};

/** Checks a filter against a schema (unknown attributes, unsupported comparisons) and compiles it. */
export const compileFilter = <R>(filter: Filter, schema: FilterSchema<R>): E.Either<FilterError, Predicate<R>> => {
  try {
    return E.right(compileIn(filter, schema, 'resource'));
  } catch (e) {
    if (e instanceof CompileFailure) return E.left(invalid(e.message));
    throw e;
  }
};

// ---------------------------------------------------------------------------------------------------------------
// Index planning: which keyed lookups can stand in for a scan.

export type IndexKey = { readonly by: 'externalId' | 'userName' | 'email'; readonly value: string };

/** Keys whose identities are a superset of the matches, or null when only a scan can answer. */
export const indexKeys = (filter: Filter): readonly IndexKey[] | null => {
  switch (filter.type) {
    case 'cmp': {
      if (filter.op !== 'eq' || (typeof filter.value !== 'string' && typeof filter.value !== 'number')) return null;
      if (filter.path.uri !== null && lower(filter.path.uri) !== CORE_USER_URN) return null;
      const value = String(filter.value);
      const attr = lower(filter.path.attr);
      const sub = filter.path.sub === null ? null : lower(filter.path.sub);
      if ((attr === 'id' || attr === 'externalid') && sub === null) return [{ by: 'externalId', value }];
      if (attr === 'username' && sub === null) return [{ by: 'userName', value }];
      if (attr === 'emails' && (sub === null || sub === 'value')) return [{ by: 'email', value }];
      return null;
    }
    case 'and': {
      const left = indexKeys(filter.left);
      const right = indexKeys(filter.right);
      if (left === null) return right;
      if (right === null) return left;
      return left.length <= right.length ? left : right;
    }
    case 'or': {
      const left = indexKeys(filter.left);
      const right = indexKeys(filter.right);
      return left === null || right === null ? null : [...left, ...right];
    }
    default:
      return null;
  }
};

/**
 * Declarative request-parameter schemas with Grape's coercion rules and Grape's error texts.
 *
 * Every parameter type is an io-ts codec (`t.Type<A | null, unknown, unknown>`) decoding a raw value (as produced
 * by `params.ts`: strings, arrays, hashes, or JSON scalars) into its coerced value. `schema(...)` composes the
 * declarations into one io-ts codec for the whole params object; its failures carry Grape's message in the io-ts
 * `ValidationError.message` and the parameter path in the io-ts context, and `grapeMessages` turns them into the
 * single `{"error": "..."}` text Grape emits (messages grouped by parameter, de-duplicated, joined with ", ").
 *
 * Rules copied from Grape 1.5 (GitLab 14.x):
 * - `requires` only checks that the key is present: an empty string or JSON null satisfies it.
 * - For non-String types an empty string coerces to null (`treat_as_nil?`); JSON null stays null. Hence every
 *   coerced type is `A | null`.
 * - Order of messages = declaration order; per parameter: presence, coercion, blank, values, except_values. We stop
 *   at the first failing check of a parameter (see decisions).
 * - `default` applies when the key is absent or its value is null.
 * - `values` is not checked for null unless the param is required.
 */
import * as t from 'io-ts';
import { isLeft } from 'fp-ts/lib/Either.js';
import { isRubyBlank, rubyStrip } from '@forgefold/core';

/** A raw parameter value as parsed from query, form, multipart or JSON. */
export type RawParams = Record<string, unknown>;

/** A coercing parameter type: decodes a raw value; the failure message is Grape's (without the param name). */
export type ParamType<A> = t.Type<A | null, unknown, unknown>;

const M_INVALID = 'is invalid';
const M_MISSING = 'is missing';
const M_VALUES = 'does not have a valid value';
const M_EXCEPT = 'has a value not allowed';
const M_EMPTY = 'is empty';

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !Buffer.isBuffer(v);

/** Builds a ParamType from a coercion function; `undefined` from `coerce` means "invalid". */
export function paramType<A>(name: string, coerce: (raw: unknown) => A | null | undefined, is?: (u: unknown) => boolean): ParamType<A> {
  return new t.Type<A | null, unknown, unknown>(
    name,
    (u): u is A | null => (is ? is(u) : true),
    (u, c) => {
      if (u === null) return t.success(null);
      const out = coerce(u);
      return out === undefined ? t.failure(u, c, M_INVALID) : t.success(out);
    },
    (a) => a,
  );
}

const INT_RE = /^\s*[+-]?\d+(?:_\d+)*\s*$/;
const FLOAT_RE = /^\s*[+-]?(?:\d+(?:_\d+)*)?(?:\.\d+)?(?:[eE][+-]?\d+)?\s*$/;
const TRUE_STRINGS = new Set(['1', 'on', 't', 'true', 'y', 'yes']);
const FALSE_STRINGS = new Set(['0', 'off', 'f', 'false', 'n', 'no']);

/**
 * Grape's Integer: dry-types' `Params.to_int`, `Integer(input, 10)` for a string, `Integer(input)` for a JSON number,
 * which cuts a fraction off toward zero (`Integer(2.5)` is 2).
 */
function coerceInteger(u: unknown): number | null | undefined {
  if (typeof u === 'number') {
    const n = Math.trunc(u) + 0; // + 0: a cut -0.5 is 0, not -0
    return Number.isSafeInteger(n) ? n : undefined;
  }
  if (typeof u === 'string') {
    if (u === '') return null;
    if (!INT_RE.test(u)) return undefined;
    const n = Number(u.replace(/_/g, '').trim());
    return Number.isSafeInteger(n) ? n : undefined;
  }
  return undefined;
}

function coerceFloat(u: unknown): number | null | undefined {
  if (typeof u === 'number') return Number.isFinite(u) ? u : undefined;
  if (typeof u === 'string') {
    if (u === '') return null;
    if (!FLOAT_RE.test(u) || !/\d/.test(u)) return undefined;
    const n = Number(u.replace(/_/g, '').trim());
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

function coerceBoolean(u: unknown): boolean | null | undefined {
  if (typeof u === 'boolean') return u;
  if (typeof u === 'number') return u === 1 ? true : u === 0 ? false : undefined;
  if (typeof u === 'string') {
    if (u === '') return null;
    const s = u.toLowerCase();
    if (TRUE_STRINGS.has(s)) return true;
    if (FALSE_STRINGS.has(s)) return false;
  }
  return undefined;
}

function coerceString(u: unknown): string | null | undefined {
  if (typeof u === 'string') return u;
  if (typeof u === 'number' || typeof u === 'boolean') return String(u);
  return undefined;
}

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');
const DATE_RE = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:$|[T ])/;
const DATETIME_RE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

function validYmd(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  const dim = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return d <= dim;
}

/** `YYYY-MM-DD` (an ISO date-time is accepted and truncated to its date, as Ruby's Date.parse does). */
function coerceDate(u: unknown): string | null | undefined {
  if (typeof u !== 'string') return undefined;
  if (u === '') return null;
  const m = DATE_RE.exec(u.trim());
  if (!m) return undefined;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  if (!validYmd(y, mo, d)) return undefined;
  return `${m[1]}-${pad(mo)}-${pad(d)}`;
}

/** ISO 8601 date or date-time; no zone means UTC. Normalised to `toISOString()` (UTC, milliseconds). */
function coerceDateTime(u: unknown): string | null | undefined {
  if (typeof u !== 'string') return undefined;
  if (u === '') return null;
  const m = DATETIME_RE.exec(u.trim());
  if (!m) return undefined;
  const [, ys, mos, ds, hs, mis, ss, frac, zone] = m;
  const y = Number(ys);
  const mo = Number(mos);
  const d = Number(ds);
  if (!validYmd(y, mo, d)) return undefined;
  const h = Number(hs ?? 0);
  const mi = Number(mis ?? 0);
  const s = Number(ss ?? 0);
  if (h > 23 || mi > 59 || s > 60) return undefined;
  const ms = frac ? Number(frac.slice(0, 3).padEnd(3, '0')) : 0;
  let offsetMin = 0;
  if (zone && zone.toUpperCase() !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    offsetMin = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4) || '0'));
  }
  const time = Date.UTC(y, mo - 1, d, h, mi, Math.min(s, 59), ms) - offsetMin * 60_000;
  return new Date(time).toISOString();
}

/** Ruby's `String#to_i`: leading integer or 0. */
export function rubyToI(s: string): number {
  const m = /^\s*([+-]?\d+(?:_\d+)*)/.exec(s);
  if (!m || m[1] === undefined) return 0;
  const n = Number(m[1].replace(/_/g, ''));
  return Number.isSafeInteger(n) ? n : 0;
}

/** Ruby's `String#split(',')`: trailing empty fields are dropped. */
export function rubySplitComma(s: string): string[] {
  const parts = s.split(',');
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

function toText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return '';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return '';
}

// ---------------------------------------------------------------------------------------------------------------
// Types

export const Integer: ParamType<number> = paramType('Integer', coerceInteger);
export const Float: ParamType<number> = paramType('Float', coerceFloat);
export const StringParam: ParamType<string> = paramType('String', coerceString);
export const BooleanParam: ParamType<boolean> = paramType('Boolean', coerceBoolean);
/** Grape `Date`: output `YYYY-MM-DD`. */
export const DateParam: ParamType<string> = paramType('Date', coerceDate);
/** Grape `DateTime`: output an ISO-8601 UTC string. */
export const DateTimeParam: ParamType<string> = paramType('DateTime', coerceDateTime);
/** Untyped / JSON parameter: passed through as parsed. */
export const Json: ParamType<unknown> = paramType('JSON', (u) => u);
/** Grape `types: [Integer, String]`: "12" → 12, "abc" → "abc", "12,13" → "12,13". */
export const IntegerOrString: ParamType<number | string> = paramType('IntegerOrString', (u) => {
  const i = coerceInteger(u);
  if (i !== undefined) return i === null ? '' : i;
  return coerceString(u);
});

/** Grape `Array[T]`: an array (or `x[]=` list); each element coerced; a scalar is invalid. */
export function ArrayOf<A>(item: ParamType<A>): ParamType<Array<A | null>> {
  return new t.Type<Array<A | null> | null, unknown, unknown>(
    `Array[${item.name}]`,
    (u): u is Array<A | null> => Array.isArray(u),
    (u, c) => {
      if (u === null) return t.success(null);
      if (!Array.isArray(u)) return t.failure(u, c, M_INVALID);
      const out: Array<A | null> = [];
      for (const el of u) {
        const r = item.validate(el, c);
        if (isLeft(r)) return t.failure(u, c, M_INVALID);
        out.push(r.right);
      }
      return t.success(out);
    },
    (a) => a,
  );
}

/** GitLab `CommaSeparatedToArray`: "a, b" → ["a","b"]; arrays are flattened the same way; anything else → []. */
export const CommaSeparatedStrings: ParamType<string[]> = paramType('CommaSeparatedToArray', (u) => {
  if (typeof u === 'string') return rubySplitComma(u).map(rubyStrip);
  if (Array.isArray(u)) return u.flatMap((v) => rubySplitComma(toText(v)).map(rubyStrip));
  if (typeof u === 'number') return [String(u)];
  return [];
});

/** GitLab `CommaSeparatedToIntegerArray`: "1,2" or `x[]=1&x[]=2` → [1, 2] (Ruby `to_i`, so "abc" → 0). */
export const CommaSeparatedIntegers: ParamType<number[]> = paramType('CommaSeparatedToIntegerArray', (u) => {
  if (typeof u === 'number') return Number.isSafeInteger(u) ? [u] : [Math.trunc(u)];
  if (typeof u === 'string') return rubySplitComma(u).map((s) => rubyToI(rubyStrip(s)));
  if (Array.isArray(u))
    return u.flatMap((v) => (typeof v === 'number' ? [Math.trunc(v)] : rubySplitComma(toText(v)).map((s) => rubyToI(rubyStrip(s)))));
  return [];
});

/** GitLab `HashOfIntegerValues`: a hash whose values become integers (Ruby `to_i`); a non-hash is invalid. */
export const HashOfIntegerValues: ParamType<Record<string, number>> = paramType('HashOfIntegerValues', (u) => {
  if (!isPlainObject(u)) return undefined;
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(u)) out[k] = typeof v === 'number' ? Math.trunc(v) : rubyToI(toText(v));
  return out;
});

/** Grape-named types, for `requires('x', T.Integer)`. */
export const T = {
  Integer,
  Float,
  String: StringParam,
  Boolean: BooleanParam,
  Date: DateParam,
  DateTime: DateTimeParam,
  JSON: Json,
  IntegerOrString,
  Array: ArrayOf,
  Hash: <S extends AnySchema>(inner: S) => HashOf(inner),
  CommaSeparatedIntegers,
  CommaSeparatedStrings,
  HashOfIntegerValues,
} as const;

// ---------------------------------------------------------------------------------------------------------------
// Declarations

/** For an array parameter, `values` constrains each element. */
type ValueOf<A> = A extends readonly (infer E)[] ? E : A;

export interface DeclOptions<A> {
  /** Allowed values (or a predicate); outside → "<name> does not have a valid value". Arrays: every element. */
  readonly values?: readonly ValueOf<A>[] | ((v: ValueOf<A>) => boolean);
  /** Forbidden values → "<name> has a value not allowed". */
  readonly exceptValues?: readonly A[];
  /** `false`: a blank value (empty string, empty array/hash, whitespace) → "<name> is empty". */
  readonly allowBlank?: boolean;
}

/** Declaration options with the parameter's type erased, as a declaration keeps them. */
interface ErasedOptions {
  readonly values?: readonly unknown[] | ((v: never) => boolean);
  readonly exceptValues?: readonly unknown[];
  readonly allowBlank?: boolean;
}

export interface ParamDecl<N extends string = string, Out = unknown> {
  readonly kind: 'param';
  readonly name: N;
  readonly type: t.Type<unknown, unknown, unknown>;
  readonly required: boolean;
  readonly hasDefault: boolean;
  readonly defaultValue?: unknown;
  readonly options: ErasedOptions;
  /** Phantom: the output type of this declaration. */
  readonly __out?: Out;
}

export type GroupRuleKind = 'mutually_exclusive' | 'at_least_one_of' | 'exactly_one_of' | 'all_or_none_of';
export interface GroupRule {
  readonly kind: 'rule';
  readonly rule: GroupRuleKind;
  readonly names: readonly string[];
  /** Grape's `message:` option (replaces the rule's own wording). */
  readonly message?: string;
  /**
   * Names the rule sees under another name in the request (Grape's `as:` renames a parameter before the group
   * rules run, so the rule and its message use the new name): rule name → the name a client sends.
   */
  readonly sentAs?: Readonly<Record<string, string>>;
}

export type Decl = ParamDecl<string, unknown> | GroupRule;

/** The type a list of allowed values narrows a parameter to: the values (each element's, for an array). */
type Narrowed<A, V extends readonly unknown[]> = A extends readonly unknown[] ? V[number][] : V[number];

/**
 * A required parameter. Grape only checks that the key is present (an empty string or JSON null passes, as null),
 * except that `values` is checked for a required null: with a list of values the output is never null, and has the
 * type of the values.
 */
export function requires<N extends string, A, const V extends readonly ValueOf<A>[]>(name: N, type: ParamType<A>, options: DeclOptions<A> & { readonly values: V }): ParamDecl<N, Narrowed<A, V>>;
export function requires<N extends string, A>(name: N, type: ParamType<A>, options?: DeclOptions<A>): ParamDecl<N, A | null>;
export function requires<N extends string, A>(name: N, type: ParamType<A>, options: DeclOptions<A> = {}): ParamDecl<N, unknown> {
  return { kind: 'param', name, type: type as t.Type<unknown, unknown, unknown>, required: true, hasDefault: false, options };
}

/**
 * A route parameter (`:user_id`): a path segment is never empty and route parameters override query and body, so
 * once it coerces it is never null. Declared like `requires`; the output type is not nullable.
 */
export function pathParam<N extends string, A>(name: N, type: ParamType<A>): ParamDecl<N, A> {
  return { kind: 'param', name, type: type as t.Type<unknown, unknown, unknown>, required: true, hasDefault: false, options: { values: (value: unknown) => value !== null } };
}

export function optional<N extends string, A, const V extends readonly ValueOf<A>[]>(
  name: N,
  type: ParamType<A>,
  options: DeclOptions<A> & { readonly values: V; readonly default: V[number] },
): ParamDecl<N, Narrowed<A, V>>;
export function optional<N extends string, A>(
  name: N,
  type: ParamType<A>,
  options: DeclOptions<A> & { readonly default: A },
): ParamDecl<N, A>;
export function optional<N extends string, A, const V extends readonly ValueOf<A>[]>(name: N, type: ParamType<A>, options: DeclOptions<A> & { readonly values: V }): ParamDecl<N, Narrowed<A, V> | null | undefined>;
export function optional<N extends string, A>(name: N, type: ParamType<A>, options?: DeclOptions<A>): ParamDecl<N, A | null | undefined>;
export function optional<N extends string, A>(
  name: N,
  type: ParamType<A>,
  options: DeclOptions<A> & { readonly default?: A } = {},
): ParamDecl<N, unknown> {
  const hasDefault = Object.prototype.hasOwnProperty.call(options, 'default');
  return {
    kind: 'param',
    name,
    type: type as t.Type<unknown, unknown, unknown>,
    required: false,
    hasDefault,
    defaultValue: options.default,
    options,
  };
}

export const mutuallyExclusive = (...names: string[]): GroupRule => ({ kind: 'rule', rule: 'mutually_exclusive', names });
/** `mutually_exclusive …, message: '…'`. */
export const mutuallyExclusiveWith = (message: string, ...names: string[]): GroupRule => ({ kind: 'rule', rule: 'mutually_exclusive', names, message });
export const atLeastOneOf = (...names: string[]): GroupRule => ({ kind: 'rule', rule: 'at_least_one_of', names });
/** `at_least_one_of` over names some of which a client sends under another (`optional :start_date, as: :start_date_fixed`). */
export const atLeastOneOfSentAs = (sentAs: Readonly<Record<string, string>>, ...names: string[]): GroupRule => ({ kind: 'rule', rule: 'at_least_one_of', names, sentAs });
export const exactlyOneOf = (...names: string[]): GroupRule => ({ kind: 'rule', rule: 'exactly_one_of', names });
export const allOrNoneOf = (...names: string[]): GroupRule => ({ kind: 'rule', rule: 'all_or_none_of', names });

type Simplify<T> = { [K in keyof T]: T[K] } & {};
export type ParamsOf<D extends readonly Decl[]> = Simplify<{
  [E in Extract<D[number], ParamDecl<string, unknown>> as E['name']]: E extends ParamDecl<string, infer A> ? A : never;
}>;

/** A schema with its type erased (io-ts codecs are invariant in their type, hence `t.Mixed`). */
export type AnySchema = t.Mixed & { readonly decls: readonly Decl[] };

/** The typed params object a schema decodes to. */
export type ParamsOfSchema<S> = S extends Schema<infer P> ? P : never;

/** A compiled schema: an io-ts codec from the merged raw params to the typed params object. */
export interface Schema<P> extends t.Type<P, unknown, unknown> {
  readonly decls: readonly Decl[];
  /**
   * Every top-level name the schema reads (its parameters' and its rules'): all a route takes of a body parsed off
   * the event loop (see `body-worker.ts`).
   */
  readonly names: readonly string[];
}

/**
 * Grape's `allow_blank: false` (`AllowBlankValidator`): the value, Ruby-stripped when a string (`value.strip`), is not
 * `present?`. The strip matters only for NUL: a trailing one goes with the strip, which `blank?` alone keeps.
 */
export const isGrapeBlank = (v: unknown): boolean => isBlank(typeof v === 'string' ? rubyStrip(v) : v);

/** The names of declarations, each once, in order. */
const namesOf = (decls: readonly Decl[]): string[] => [...new Set(decls.flatMap((d) => (d.kind === 'param' ? [d.name] : d.names)))];

/** ActiveSupport's `blank?`: nil, a string of `[[:space:]]` only (`isRubyBlank`), an empty array or hash. */
export function isBlank(v: unknown): boolean {
  if (v === null || v === undefined) return true;
  if (typeof v === 'string') return isRubyBlank(v);
  if (Array.isArray(v)) return v.length === 0;
  if (isPlainObject(v)) return Object.keys(v).length === 0;
  return false;
}

function inValues(values: ErasedOptions['values'], v: unknown): boolean {
  if (values === undefined) return true;
  // A predicate was declared for this parameter's own type, which is what it receives.
  const test = (x: unknown): boolean => (typeof values === 'function' ? values(x as never) : values.includes(x));
  return Array.isArray(v) ? v.every(test) : test(v);
}

/** Group-rule failures use a context key holding the joined names; the reporter prints it verbatim. */
function ruleFailure(c: t.Context, names: readonly string[], message: string, value: unknown): t.ValidationError {
  return { value, context: [...c, { key: names.join(', '), type: t.unknown, actual: value }], message };
}

function validateDecls(decls: readonly Decl[], input: unknown, c: t.Context): { out: Record<string, unknown>; errors: t.ValidationError[] } {
  const src: Record<string, unknown> = isPlainObject(input) ? input : {};
  const out: Record<string, unknown> = {};
  const errors: t.ValidationError[] = [];
  const has = (k: string): boolean => Object.prototype.hasOwnProperty.call(src, k) && src[k] !== undefined;
  for (const d of decls) {
    if (d.kind === 'rule') {
      const sentAs = d.sentAs;
      const present = sentAs ? d.names.filter((name) => has(name) || (sentAs[name] !== undefined && has(sentAs[name]))) : d.names.filter(has);
      switch (d.rule) {
        case 'mutually_exclusive':
          if (present.length > 1) errors.push(ruleFailure(c, present, d.message ?? 'are mutually exclusive', src));
          break;
        case 'at_least_one_of':
          if (present.length === 0) errors.push(ruleFailure(c, d.names, 'are missing, at least one parameter must be provided', src));
          break;
        case 'exactly_one_of':
          if (present.length === 0) errors.push(ruleFailure(c, d.names, 'are missing, exactly one parameter must be provided', src));
          else if (present.length > 1) errors.push(ruleFailure(c, present, d.message ?? 'are mutually exclusive', src));
          break;
        case 'all_or_none_of':
          if (present.length !== 0 && present.length !== d.names.length) errors.push(ruleFailure(c, d.names, 'provide all or none of parameters', src));
          break;
      }
      continue;
    }
    if (!has(d.name)) {
      // The context only when it is reported: most declared parameters are absent from a request.
      if (d.required) errors.push({ value: undefined, context: [...c, { key: d.name, type: d.type, actual: src[d.name] }], message: M_MISSING });
      else out[d.name] = d.hasDefault ? d.defaultValue : undefined;
      continue;
    }
    const ctx: t.Context = [...c, { key: d.name, type: d.type, actual: src[d.name] }];
    const r = d.type.validate(src[d.name], ctx);
    if (isLeft(r)) {
      // Keep the first message for this parameter (nested hashes may report several nested names).
      errors.push(...r.left);
      continue;
    }
    let v = r.right;
    if (d.options.allowBlank === false && isGrapeBlank(src[d.name])) {
      errors.push({ value: v, context: ctx, message: M_EMPTY });
      continue;
    }
    if (v === null && d.hasDefault) v = d.defaultValue;
    if ((v !== null || d.required) && !inValues(d.options.values, v)) {
      errors.push({ value: v, context: ctx, message: M_VALUES });
      continue;
    }
    if (v !== null && d.options.exceptValues && inValues(d.options.exceptValues, v) && d.options.exceptValues.length > 0) {
      errors.push({ value: v, context: ctx, message: M_EXCEPT });
      continue;
    }
    out[d.name] = v;
  }
  return { out, errors };
}

/** Compiles declarations into one io-ts codec; output keys are the declared names, in declaration order. */
export function schema<const D extends readonly Decl[]>(...decls: D): Schema<ParamsOf<D>> {
  const codec = new t.Type<ParamsOf<D>, unknown, unknown>(
    'Params',
    (u): u is ParamsOf<D> => isPlainObject(u),
    (u, c) => {
      const { out, errors } = validateDecls(decls, u, c);
      return errors.length > 0 ? t.failures(errors) : t.success(out as ParamsOf<D>);
    },
    (a) => a,
  );
  return Object.assign(codec, { decls, names: namesOf(decls) }) as Schema<ParamsOf<D>>;
}

/** Grape `type: Hash do ... end`: a nested params hash; nested names print as `outer[inner]`. */
export function HashOf<S extends AnySchema>(inner: S): ParamType<t.TypeOf<S>> {
  return new t.Type<t.TypeOf<S> | null, unknown, unknown>(
    'Hash',
    (u): u is t.TypeOf<S> => isPlainObject(u),
    (u, c) => {
      if (u === null) return t.success(null);
      if (!isPlainObject(u)) return t.failure(u, c, M_INVALID);
      const { out, errors } = validateDecls(inner.decls, u, c);
      return errors.length > 0 ? t.failures(errors) : t.success(out as t.TypeOf<S>);
    },
    (a) => a,
  );
}

/** Concatenates schemas (e.g. a route's own declarations and `paginationParams`). */
export function extend<A, B>(a: Schema<A>, b: Schema<B>): Schema<Simplify<A & B>> {
  // The declarations of both, in order, decode to both params objects together (TypeScript cannot infer it).
  return schema(...a.decls, ...b.decls) as unknown as Schema<Simplify<A & B>>;
}

// ---------------------------------------------------------------------------------------------------------------
// Reporter

/** The param name of an error: `a`, `a[b]`, `a[b][c]` (context keys below the root). */
function paramName(e: t.ValidationError): string {
  const keys = e.context.map((x) => x.key).filter((k) => k !== '');
  if (keys.length === 0) return '';
  return keys[0] + keys.slice(1).map((k) => `[${k}]`).join('');
}

/**
 * io-ts reporter producing Grape's text: messages grouped by parameter in first-seen order, each "<name> <msg>",
 * de-duplicated, joined with ", ".
 */
export function grapeMessages(errors: t.Errors): string[] {
  const groups = new Map<string, string[]>();
  for (const e of errors) {
    const name = paramName(e);
    const list = groups.get(name) ?? [];
    list.push(e.message ?? M_INVALID);
    groups.set(name, list);
  }
  const out: string[] = [];
  for (const [name, msgs] of groups) for (const m of msgs) out.push(name ? `${name} ${m}` : m);
  return [...new Set(out)];
}

/** Decodes raw params with a schema: `{ok: true, value}` or `{ok: false, message}` in Grape's words. */
export function decodeParams<P>(s: t.Decoder<unknown, P>, raw: unknown): { ok: true; value: P } | { ok: false; message: string } {
  const r = s.decode(raw);
  if (isLeft(r)) return { ok: false, message: grapeMessages(r.left).join(', ') };
  return { ok: true, value: r.right };
}

/** Grape pagination params (`use :pagination`): page (default 1), per_page (default 20, except 0). */
export const paginationParams = schema(
  optional('page', Integer, { default: 1 }),
  optional('per_page', Integer, { default: 20, exceptValues: [0] }),
);

/** A route's params with `use :pagination` after them. */
export const withPagination = <P>(s: Schema<P>): Schema<Simplify<P & { page: number; per_page: number }>> => extend(s, paginationParams);

/** RFC 7644 filters: parser and printer (round trip), error cases, and the compiled evaluator against a reference. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import {
  MAX_FILTER_DEPTH,
  MAX_FILTER_TOKENS,
  compileScimUserFilter,
  parseFilter,
  printFilter,
  type AttrPath,
  type CompValue,
  type Filter,
  type ScimIdentity,
  type ScimUserView,
  type User,
} from '@forgefold/core';
import { scimUserEntity } from '@forgefold/http-adapter';
import { evaluateReference } from './reference.js';

const parse = (text: string): Filter => {
  const result = parseFilter(text);
  if (E.isLeft(result)) throw new Error(`${text}: ${result.left.detail}`);
  return result.right;
};
const path = (attr: string, sub: string | null = null, uri: string | null = null): AttrPath => ({ uri, attr, sub });

describe('filter parser', () => {
  it('parses attribute expressions, case-insensitive operators, and keeps names as written', () => {
    expect(parse('userName eq "john"')).toEqual({ type: 'cmp', op: 'eq', path: path('userName'), value: 'john', where: null });
    expect(parse('Username EQ "john"')).toEqual({ type: 'cmp', op: 'eq', path: path('Username'), value: 'john', where: null });
    expect(parse('title pr')).toEqual({ type: 'pr', path: path('title'), where: null });
    expect(parse('name.familyName co "O\'Malley"')).toEqual({ type: 'cmp', op: 'co', path: path('name', 'familyName'), value: "O'Malley", where: null });
    expect(parse('urn:ietf:params:scim:schemas:core:2.0:User:userName sw "J"').type).toBe('cmp');
    expect((parse('urn:ietf:params:scim:schemas:core:2.0:User:name.givenName eq "x"') as { path: AttrPath }).path).toEqual(
      path('name', 'givenName', 'urn:ietf:params:scim:schemas:core:2.0:User'),
    );
  });

  it('reads JSON string literals: spaces, escaped quotes and backslashes, unicode escapes', () => {
    expect((parse('userName eq "John Smith"') as { value: CompValue }).value).toBe('John Smith');
    expect((parse('userName eq "say \\"hi\\" \\\\ now"') as { value: CompValue }).value).toBe('say "hi" \\ now');
    expect((parse('displayName eq "caf\\u00e9"') as { value: CompValue }).value).toBe('café');
  });

  it('reads literals and bare values leniently', () => {
    expect((parse('active eq true') as { value: CompValue }).value).toBe(true);
    expect((parse('active eq FALSE') as { value: CompValue }).value).toBe(false);
    expect((parse('title eq null') as { value: CompValue }).value).toBe(null);
    expect((parse('x gt 1.5e3') as { value: CompValue }).value).toBe(1500);
    expect((parse('externalId eq jyoung') as { value: CompValue }).value).toBe('jyoung');
    expect((parse('id eq a-b-c-d') as { value: CompValue }).value).toBe('a-b-c-d');
  });

  it('gives "and" precedence over "or", and honours parentheses and not', () => {
    const f = parse('a eq "1" or b eq "2" and c eq "3"');
    expect(f.type).toBe('or');
    expect((f as { right: Filter }).right.type).toBe('and');
    const g = parse('(a eq "1" or b eq "2") and not(c pr)');
    expect(g.type).toBe('and');
    expect((g as { left: Filter }).left.type).toBe('or');
    expect((g as { right: Filter }).right).toEqual({ type: 'not', filter: { type: 'pr', path: path('c'), where: null } });
  });

  it('parses value paths, with and without a sub-attribute', () => {
    expect(parse('emails[type eq "work" and value co "@example.com"]')).toMatchObject({ type: 'has', path: path('emails') });
    expect(parse('emails[type eq "work"].value eq "a@b.c"')).toEqual({
      type: 'cmp',
      op: 'eq',
      path: path('emails', 'value'),
      value: 'a@b.c',
      where: { type: 'cmp', op: 'eq', path: path('type'), value: 'work', where: null },
    });
  });

  it.each([
    '',
    'userName',
    'userName eq',
    'userName equals "x"',
    'userName eq "unterminated',
    '(userName eq "x"',
    'userName eq "x")',
    'userName eq "x" and',
    'emails[type eq "work"',
    'emails[type[x eq "y"] eq "z"]',
    '9lives eq "x"',
    'userName eq "x" userName eq "y"',
    'not userName eq "x"',
  ])('rejects %j', (text) => {
    expect(E.isLeft(parseFilter(text))).toBe(true);
  });

  it('refuses filters beyond its bounds, however deep or long, without overflowing the stack', () => {
    const nested = (depth: number, inner = 'userName eq "x"') => `${'('.repeat(depth)}${inner}${')'.repeat(depth)}`;
    // 2 tokens for "(… userName pr …)", 4 for each " and userName eq "x"".
    const long = (tokens: number) => `(userName pr${' and userName eq "x"'.repeat((tokens - 4) / 4)})`;
    const tooDeep = { _tag: 'InvalidFilter', detail: `Filter nested deeper than ${MAX_FILTER_DEPTH} levels`, tooComplex: true };
    const tooLong = { _tag: 'InvalidFilter', detail: `Filter longer than ${MAX_FILTER_TOKENS} tokens`, tooComplex: true };
    for (const [text, error] of [
      [nested(MAX_FILTER_DEPTH + 1), tooDeep],
      [nested(100_000), tooDeep],
      [`emails[${nested(MAX_FILTER_DEPTH)}]`, tooDeep],
      [`${'not ('.repeat(20_000)}userName pr${')'.repeat(20_000)}`, tooDeep],
      [`${long(MAX_FILTER_TOKENS)} and userName pr`, tooLong],
      [`${long(MAX_FILTER_TOKENS)})`, tooLong],
      [Array.from({ length: 100_000 }, () => 'userName eq "x"').join(' and '), tooLong],
      [`emails[${Array.from({ length: 20_000 }, () => 'type eq "work"').join(' or ')}]`, tooLong],
    ] as const) {
      expect(parseFilter(text)).toEqual(E.left(error));
    }
    // At the bounds: parsed, compiled, evaluated and printed.
    const view = { identity: { extern_uid: 'e', user_name: 'x', active: true }, user: { name: 'n', email: 'x@example.com' } } as unknown as ScimUserView;
    for (const text of [nested(MAX_FILTER_DEPTH), `emails[${nested(MAX_FILTER_DEPTH - 1, 'type pr')}]`, long(MAX_FILTER_TOKENS)]) {
      const filter = parse(text);
      const compiled = compileScimUserFilter(filter);
      if (E.isLeft(compiled)) throw new Error(compiled.left.detail);
      expect(compiled.right(view)).toBe(true);
      expect(parse(printFilter(filter))).toEqual(filter);
    }
  });
});

describe('filter compiler', () => {
  it.each(['nickName eq "x"', 'name eq "x"', 'emails.display eq "x"', 'active gt true', 'emails.primary co "t"', 'userName.x eq "y"', 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber eq "1"', 'name[givenName eq "x"].formatted[y eq "z"] pr'])(
    'rejects attributes we do not hold or comparisons we do not support: %j',
    (text) => {
      const parsed = parseFilter(text);
      if (E.isRight(parsed)) expect(E.isLeft(compileScimUserFilter(parsed.right))).toBe(true);
    },
  );
});

// ---------------------------------------------------------------------------------------------------------------
// Generators

const caseVariant = (word: string) =>
  fc.array(fc.boolean(), { minLength: word.length, maxLength: word.length }).map((flags) => [...word].map((ch, i) => (flags[i] ? ch.toUpperCase() : ch.toLowerCase())).join(''));

const URN = 'urn:ietf:params:scim:schemas:core:2.0:User';
const withUri = (p: fc.Arbitrary<AttrPath>) => fc.tuple(p, fc.boolean()).map(([attrPath, uri]) => (uri ? { ...attrPath, uri: URN } : attrPath));

const pool = ['alice', 'Alice', 'ALICE@example.com', 'alice@example.com', 'bob', 'b', 'work', 'Work', 'x y', 'say "hi"', '', 'User', '2026-01-01T00:00:00.000Z', '2026-06-01T12:00:00Z', '1'];
const stringValue: fc.Arbitrary<CompValue> = fc.oneof(fc.constantFrom(...pool), fc.string({ maxLength: 4 }), fc.integer({ min: -3, max: 3 }), fc.constant(null), fc.boolean());
const boolValue: fc.Arbitrary<CompValue> = fc.oneof(fc.boolean(), fc.constantFrom('true', 'False', 'TRUE', 'nope'), fc.constant(null));

const stringPaths: fc.Arbitrary<AttrPath> = fc.oneof(
  ...['id', 'externalId', 'userName', 'displayName', 'emails'].map((attr) => caseVariant(attr).map((a) => path(a))),
  ...[
    ['name', 'formatted'],
    ['name', 'givenName'],
    ['name', 'familyName'],
    ['emails', 'value'],
    ['emails', 'type'],
    ['meta', 'resourceType'],
    ['meta', 'created'],
    ['meta', 'lastModified'],
  ].map(([attr, sub]) => fc.tuple(caseVariant(attr!), caseVariant(sub!)).map(([a, s]) => path(a, s))),
);
const boolPaths: fc.Arbitrary<AttrPath> = fc.oneof(caseVariant('active').map((a) => path(a)), caseVariant('primary').map((s) => path('emails', s)));
const STRING_OPS = ['eq', 'ne', 'co', 'sw', 'ew', 'gt', 'ge', 'lt', 'le'] as const;

const emailInner: fc.Arbitrary<Filter> = fc.letrec<{ f: Filter }>((tie) => ({
  f: fc.oneof(
    { depthSize: 'small' },
    fc.record({ type: fc.constant('cmp' as const), op: fc.constantFrom(...STRING_OPS), path: fc.constantFrom(path('value'), path('type')), value: stringValue, where: fc.constant(null) }),
    fc.record({ type: fc.constant('cmp' as const), op: fc.constantFrom('eq' as const, 'ne' as const), path: fc.constant(path('primary')), value: boolValue, where: fc.constant(null) }),
    fc.record({ type: fc.constant('pr' as const), path: fc.constantFrom(path('value'), path('type'), path('primary')), where: fc.constant(null) }),
    fc.record({ type: fc.constantFrom('and' as const, 'or' as const), left: tie('f'), right: tie('f') }),
    fc.record({ type: fc.constant('not' as const), filter: tie('f') }),
  ),
})).f;

const filterArb: fc.Arbitrary<Filter> = fc.letrec<{ f: Filter }>((tie) => ({
  f: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({ type: fc.constant('cmp' as const), op: fc.constantFrom(...STRING_OPS), path: withUri(stringPaths), value: stringValue, where: fc.constant(null) }),
    fc.record({ type: fc.constant('cmp' as const), op: fc.constantFrom('eq' as const, 'ne' as const), path: withUri(boolPaths), value: boolValue, where: fc.constant(null) }),
    fc.record({ type: fc.constant('pr' as const), path: withUri(fc.oneof(stringPaths, boolPaths, fc.constantFrom(path('name'), path('meta')))), where: fc.constant(null) }),
    fc.record({ type: fc.constant('has' as const), path: fc.constant(path('emails')), filter: emailInner }),
    fc.record({ type: fc.constant('cmp' as const), op: fc.constantFrom(...STRING_OPS), path: fc.constant(path('emails', 'value')), value: stringValue, where: emailInner }),
    fc.record({ type: fc.constant('pr' as const), path: fc.constant(path('emails', 'value')), where: emailInner }),
    fc.record({ type: fc.constantFrom('and' as const, 'or' as const), left: tie('f'), right: tie('f') }),
    fc.record({ type: fc.constant('not' as const), filter: tie('f') }),
  ),
})).f;

/** Any syntactically valid filter (attributes not necessarily ours): for the parse/print round trip. */
const nameArb = fc.stringMatching(/^[A-Za-z][A-Za-z0-9_$-]{0,6}$/).filter((n) => !['and', 'or', 'not', 'pr'].includes(n.toLowerCase()));
const anyValue: fc.Arbitrary<CompValue> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Object.is(n, -0)),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
);
const anyPath = fc.record({ uri: fc.option(fc.constantFrom(URN, 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'), { nil: null }), attr: nameArb, sub: fc.option(nameArb, { nil: null }) });
const anyFilter: fc.Arbitrary<Filter> = fc.letrec<{ f: Filter; inner: Filter }>((tie) => ({
  inner: fc.oneof(
    { depthSize: 'small' },
    fc.record({ type: fc.constant('cmp' as const), op: fc.constantFrom(...STRING_OPS), path: fc.record({ uri: fc.constant(null), attr: nameArb, sub: fc.constant(null) }), value: anyValue, where: fc.constant(null) }),
    fc.record({ type: fc.constantFrom('and' as const, 'or' as const), left: tie('inner'), right: tie('inner') }),
    fc.record({ type: fc.constant('not' as const), filter: tie('inner') }),
  ),
  f: fc.oneof(
    { depthSize: 'small' },
    fc.record({ type: fc.constant('cmp' as const), op: fc.constantFrom(...STRING_OPS), path: anyPath, value: anyValue, where: fc.constant(null) }),
    fc.record({ type: fc.constant('pr' as const), path: anyPath, where: fc.constant(null) }),
    fc.record({ type: fc.constant('has' as const), path: fc.record({ uri: fc.constant(null), attr: nameArb, sub: fc.constant(null) }), filter: tie('inner') }),
    fc.record({ type: fc.constant('cmp' as const), op: fc.constantFrom(...STRING_OPS), path: fc.record({ uri: fc.constant(null), attr: nameArb, sub: nameArb }), value: anyValue, where: tie('inner') }),
    fc.record({ type: fc.constantFrom('and' as const, 'or' as const), left: tie('f'), right: tie('f') }),
    fc.record({ type: fc.constant('not' as const), filter: tie('f') }),
  ),
})).f;

const iso = fc.integer({ min: Date.parse('2025-06-01T00:00:00Z'), max: Date.parse('2026-12-31T00:00:00Z') }).map((t) => new Date(t).toISOString());
const viewArb: fc.Arbitrary<ScimUserView> = fc
  .record({
    extern_uid: fc.constantFrom('alice', 'Alice', 'ALICE@example.com', 'x y', '1', 'say "hi"'),
    user_name: fc.constantFrom('alice', 'ALICE@example.com', 'bob', 'b', 'x y'),
    given_name: fc.option(fc.constantFrom('Alice', 'b', 'work', ''), { nil: null }),
    family_name: fc.option(fc.constantFrom('Smith', 'User', 'alice'), { nil: null }),
    active: fc.boolean(),
    created_at: iso,
    updated_at: iso,
    email: fc.constantFrom('alice@example.com', 'ALICE@example.com', 'bob@x.org', 'b@b'),
    name: fc.constantFrom('Alice Smith', 'alice', 'Work', 'x y'),
  })
  .map(({ email, name, ...rest }) => {
    const identity: ScimIdentity = { id: 1, group_id: 2, user_id: 3, ...rest };
    const user = { id: 3, username: 'u', name, email } as unknown as User;
    return { identity, user };
  });

describe('filter properties', () => {
  it('print then parse gives back the same filter', () => {
    fc.assert(
      fc.property(anyFilter, (filter) => {
        expect(parse(printFilter(filter))).toEqual(filter);
      }),
      { numRuns: 1000 },
    );
  });

  it('parse then print is a fixed point on canonical text', () => {
    fc.assert(
      fc.property(anyFilter, (filter) => {
        const text = printFilter(filter);
        expect(printFilter(parse(text))).toBe(text);
      }),
      { numRuns: 300 },
    );
  });

  it('the compiled evaluator agrees with the reference evaluator on the rendered resource', () => {
    const outcomes = { true: 0, false: 0 };
    fc.assert(
      fc.property(filterArb, fc.array(viewArb, { minLength: 1, maxLength: 5 }), (filter, views) => {
        const compiled = compileScimUserFilter(parse(printFilter(filter)));
        if (E.isLeft(compiled)) throw new Error(`${printFilter(filter)}: ${compiled.left.detail}`);
        for (const view of views) {
          const rendered = JSON.parse(JSON.stringify(scimUserEntity(view, 'http://h/api/scim/v2/groups/g')));
          const expected = evaluateReference(filter, rendered);
          expect(compiled.right(view), printFilter(filter)).toBe(expected);
          outcomes[`${expected}`]++;
        }
      }),
      { numRuns: 2000 },
    );
    // Both outcomes are well represented, so agreement is not vacuous.
    expect(outcomes.true).toBeGreaterThan(1000);
    expect(outcomes.false).toBeGreaterThan(1000);
  });
});

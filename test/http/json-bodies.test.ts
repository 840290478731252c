/** JSON bodies, read cheaply: the checks read off the text (`jsonFault`) find what the walk over the parsed value (`paramsFault`) finds. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { jsonFault, jsonNestsDeeperThan, paramsFault } from '@forgefold/http-adapter';

/** JSON strings that JSON.parse turns into a NUL, a lone surrogate, a pair, or harmless text with brackets, quotes and backslashes. */
const STRINGS = ['"a"', '""', '"\\u0000"', '"x\\ud800"', '"\\udc00y"', '"\\ud83d\\ude00"', '"\\uDBFF"', '"\\u00e9"', '"\\\\u0000"', '"\\\\"', '"[{"', '"\\"]}"', '"\\\\\\ud800"'];

/** JSON text, written as text (so that the escapes are the ones above), nesting up to 7 deep; no key given twice. */
const jsonText: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(...STRINGS, '1', '-0.5e3', 'true', 'null'),
    fc.array(tie('value'), { maxLength: 3 }).map((items) => `[${items.join(',')}]`),
    fc
      .uniqueArray(fc.tuple(fc.constantFrom(...STRINGS), tie('value')), { maxLength: 3, selector: ([key]) => key })
      .map((pairs) => `{ ${pairs.map(([k, v]) => `${k}: ${v}`).join(', ')} }`),
  ),
})).value;

describe('the checks read off the text', () => {
  it('find the fault the walk finds, the same one, at any nesting limit', () => {
    fc.assert(
      fc.property(jsonText, fc.integer({ min: 0, max: 8 }), (text, maxDepth) => {
        const parsed: unknown = JSON.parse(text);
        expect(jsonFault(text, parsed, maxDepth)).toEqual(paramsFault(parsed, maxDepth));
      }),
      { numRuns: 2000 },
    );
  });

  it('count nesting by brackets outside strings', () => {
    const nested = (depth: number) => `{"x":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
    expect(jsonNestsDeeperThan(nested(100), 100)).toBe(false);
    expect(jsonNestsDeeperThan(nested(101), 100)).toBe(true);
    expect(jsonNestsDeeperThan(`{"${'['.repeat(200)}":"\\"${'{'.repeat(200)}"}`, 1)).toBe(false);
    expect(jsonNestsDeeperThan('[[]]', 1)).toBe(true);
  });

  it('count the nesting of the text, as the Ruby parser does: a key given twice is refused for its deeper value', () => {
    const deep = `{"x":${'['.repeat(100)}${']'.repeat(100)},"x":1}`;
    expect(paramsFault(JSON.parse(deep), 100)).toBeNull();
    expect(jsonFault(deep, JSON.parse(deep), 100)).toEqual({ kind: 'too_deep' });
    const deepAndSuspect = `{"x":${'['.repeat(100)}${']'.repeat(100)},"x":"\\ud83d\\ude00"}`;
    expect(jsonFault(deepAndSuspect, JSON.parse(deepAndSuspect), 100)).toEqual({ kind: 'too_deep' });
  });
});

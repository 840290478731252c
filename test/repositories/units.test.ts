/** Pure pieces of the repositories module. */
import { describe, expect, it } from 'vitest';
import { refPatternMatches } from '@forgefold/core';

describe('protected ref wildcards', () => {
  it('match as the platform: `*` is any run of characters, slashes included; everything else is literal', () => {
    expect(refPatternMatches('v*', 'v1.0')).toBe(true);
    expect(refPatternMatches('release/*', 'release/1/hotfix')).toBe(true);
    expect(refPatternMatches('*-stable', '14-0-stable')).toBe(true);
    expect(refPatternMatches('v1.*', 'v1x0')).toBe(false);
    expect(refPatternMatches('v1.0', 'v1.0')).toBe(true);
    expect(refPatternMatches('v1.0', 'v1.00')).toBe(false);
    expect(refPatternMatches('', '')).toBe(false);
  });
});

/**
 * A release link's file path against 14.7's own `Releases::Link::FILEPATH_REGEX`,
 * `\A\/[^\/](?!.*\/\/.*)[\-\.\w\/]+[\da-zA-Z]+\z`, which the decider checks without a regular expression (its two
 * adjacent `+` backtrack quadratically). Here the regex itself runs, ported to JavaScript: Ruby's `.` stops at a line
 * feed only (`[^\n]`), `\w` and `\d` are ASCII in both, `\A`/`\z` are `^`/`$` without the `m` flag, and the `u` flag
 * makes a character a code point, as Ruby counts them. Any disagreement on a non-blank path is a bug.
 */
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { forgefold, type ForgefoldEvent } from '@forgefold/core';
import { describe, expect, it } from 'vitest';
import { AT, memberAdded, projectCreated, stateOf, userCreated } from '../specs/spec.js';

const RUBY_FILEPATH_REGEX = /^\/[^/](?![^\n]*\/\/[^\n]*)[-.\w/]+[\da-zA-Z]+$/u;

const SHA = 'a'.repeat(40);
const given: ForgefoldEvent[] = [
  userCreated(2, 'dev'),
  projectCreated(1, 'app', 101, { kind: 'user' }),
  memberAdded(1, { project: 1 }, 2, 30),
  { type: 'BranchCreated', data: { project_id: 1, name: 'main', sha: SHA, via: 'api' } },
  { type: 'TagCreated', data: { project_id: 1, name: 'v1.0', target: SHA, commit_sha: SHA, committed_date: AT, message: '', tagger: null, via: 'api' } },
  {
    type: 'ReleaseCreated',
    data: {
      project_id: 1,
      id: 1,
      tag: 'v1.0',
      name: 'One',
      description: '',
      sha: SHA,
      author_id: 2,
      created_at: AT,
      released_at: AT,
      links: [{ id: 1, name: 'binary', url: 'https://example.com/app', filepath: null, link_type: 'other', created_at: AT }],
    },
  },
];
const state = stateOf(given);

/** Whether the decider finds the file path in an invalid format (a blank one is never checked). */
const refusedFormat = (filepath: string): boolean => {
  const decision = forgefold.decider.decide({ command: { type: 'UpdateReleaseLink', project_id: 1, tag: 'v1.0', link_id: 1, filepath }, actor: { userId: 2, origin: 'api' }, at: AT }, state);
  if (E.isRight(decision)) return false;
  const errors = (decision.left as { errors?: Record<string, string[]> }).errors ?? {};
  return (errors['filepath'] ?? []).includes('is in an invalid format');
};

/** Mostly the characters the regex is about, with the ones that trip ports of it: line breaks, non-ASCII, astral. */
const character = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom('/', 'a', 'Z', '0', '9', '_', '-', '.') },
  { weight: 2, arbitrary: fc.constantFrom('\n', '\r', ' ', '\t', '\u0085', '\ufeff', '\u3000', '?', '\\', 'é', 'ſ', '\u212a', '\u2028', '😀', '\u0000', '%') },
);
const path = fc.tuple(fc.constantFrom('/', '/', '/', '', ' /'), fc.array(character, { maxLength: 24 })).map(([head, rest]) => head + rest.join(''));
const blankish = fc.array(fc.constantFrom(' ', '\t', '\n', '\u0085', '\u00a0', '\u3000', '\ufeff'), { maxLength: 4 }).map((rest) => rest.join(''));

describe('a release link file path (`FILEPATH_REGEX`)', () => {
  it('is refused for its format exactly when the 14.7 regex does not match', () => {
    fc.assert(
      fc.property(fc.oneof(path, blankish), (filepath) => {
        // `allow_blank`: a blank one (ActiveSupport's `[[:space:]]*`) is never checked.
        const blank = /^[\t-\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*$/.test(filepath);
        expect(refusedFormat(filepath)).toBe(!blank && !RUBY_FILEPATH_REGEX.test(filepath));
      }),
      { numRuns: 3000 },
    );
  });

  it('agrees on the cases named in the regex\'s spec and its catastrophic-backtracking fix', () => {
    for (const [filepath, valid] of [
      ['/bin/app', true],
      ['/?b1', true],
      ['/a/b/c1', true],
      ['/ab', false],
      ['/bin/app-', false],
      ['/bin/app.', false],
      ['/bin//app', false],
      ['//bin/app', false],
      ['bin/app', false],
      ['/\n/bin', true],
      ['/\nbin', true],
      [`/${'a'.repeat(50)}//${'-'.repeat(50)}`, false],
    ] as const) {
      expect(RUBY_FILEPATH_REGEX.test(filepath), JSON.stringify(filepath)).toBe(valid);
      expect(refusedFormat(filepath), JSON.stringify(filepath)).toBe(!valid);
    }
  });
});

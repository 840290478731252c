/**
 * A merge request's draft title (`MergeRequest::DRAFT_REGEX` of 14.x, the union of `Gitlab::Regex.merge_request_wip`
 * and `merge_request_draft` behind `\A*`): which titles are drafts and what `wipless_title` leaves. The table is what
 * Ruby answers for that regex; when Ruby is installed the same regex is asked again, so the table cannot drift.
 */
import { spawnSync } from 'node:child_process';
import { draftlessTitle, isDraftTitle } from '@forgefold/core';
import { describe, expect, it } from 'vitest';

/** [title, draft?, draftless title] */
const TABLE: readonly (readonly [string, boolean, string])[] = [
  ['Fix WIP: x', true, 'Fix x'],
  ['[WIP] x', true, 'x'],
  ['x [WIP] y', true, 'x y'],
  ['WIP', true, ''],
  ['wip x', false, 'wip x'],
  ['draft x', false, 'draft x'],
  ['Draft: x', true, 'x'],
  ['draft', true, ''],
  [' Draft: x', false, ' Draft: x'],
  ['Draft - x', true, 'x'],
  ['[Draft][WIP] x', true, 'x'],
  ['Draft: Draft: x', true, 'Draft: x'],
  ['(draft) x', true, 'x'],
  ['x draft: y', false, 'x draft: y'],
  ['WIP: [WIP] x', true, 'x'],
  ['Draft:x', true, 'x'],
  ['x WIP', false, 'x WIP'],
  ['[draft]   spaced', true, 'spaced'],
  ['Ready', false, 'Ready'],
  // Ruby's `\\s` is ASCII whitespace alone: a no-break or em space after the prefix stays.
  ['WIP:\u00a0foo', true, '\u00a0foo'],
  ['Draft:\u2003x', true, '\u2003x'],
  ['Draft:\u00a0\u00a0WIP: y', true, '\u00a0\u00a0WIP: y'],
  ['[WIP]\u00a0x', true, '\u00a0x'],
];

const RUBY = `
require "json"
wip = /(?i)(\\[WIP\\]\\s*|WIP:\\s*|\\AWIP\\z)/
draft = /\\A(?i)(\\[draft\\]|\\(draft\\)|draft:|draft\\s\\-\\s|draft\\z)/
regex = /\\A*#{Regexp.union(wip, draft)}+\\s*/i
titles = JSON.parse(STDIN.read)
puts JSON.generate(titles.map { |t| [t, !!(t =~ regex), t.sub(regex, "")] })
`;

const hasRuby = spawnSync('ruby', ['-e', 'require "json"'], { stdio: 'ignore' }).status === 0;

describe('draft titles (MergeRequest::DRAFT_REGEX, 14.x)', () => {
  it.each(TABLE)('%j: draft %s, draftless %j', (title, draft, draftless) => {
    expect(isDraftTitle(title)).toBe(draft);
    expect(draftlessTitle(title)).toBe(draftless);
  });

  it.runIf(hasRuby)('the table is what Ruby answers for the platform regex', () => {
    const run = spawnSync('ruby', ['-e', RUBY], { input: JSON.stringify(TABLE.map(([title]) => title)), encoding: 'utf8' });
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(TABLE);
  });
});

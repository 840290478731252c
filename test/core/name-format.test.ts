/**
 * The Project and Group models' name formats (`Gitlab::Regex.project_name_regex` / `group_name_regex`, 14.x) and
 * HtmlSafetyValidator, as `isProjectNameFormat`, `isGroupNameFormat` and `isHtmlSafe`: a table of examples, the
 * regexes written out character class by character class, and, where `ruby` is installed, the real Onigmo regexes on
 * the table and on random strings (only where every character is assigned in both Ruby's and Node's Unicode versions,
 * which differ: Ruby 2.7 had Unicode 12.1, 3.1 has 13.0, Node 20 has 15).
 */
import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { isGroupNameFormat, isHtmlSafe, isProjectNameFormat } from '@forgefold/core';
import { describe, expect, it } from 'vitest';

const RUBY_PROJECT = String.raw`\A[\p{Alnum}\u{00A9}-\u{1f9ff}_][\p{Alnum}\p{Pd}\u{00A9}-\u{1f9ff}_\. ]*\z`;
const RUBY_GROUP = String.raw`\A[\p{Alnum}\u{00A9}-\u{1f9ff}_][\p{Alnum}\p{Pd}\u{00A9}-\u{1f9ff}_()\. ]*\z`;

/** [name, project format, group format] */
const TABLE: readonly (readonly [string, boolean, boolean])[] = [
  ['App', true, true],
  ['a.b-c d', true, true],
  ['Ünïcode', true, true],
  ['emoji 😀', true, true],
  ['😀', true, true],
  ['_x', true, true],
  ['9lives', true, true],
  ['日本語 プロジェクト', true, true],
  ['a—b', true, true], // U+2014 EM DASH (Pd, and in the U+00A9… range)
  ['a\u2010b', true, true], // HYPHEN (Pd)
  ['©', true, true],
  ['\u3000', true, true], // blank, but in the U+00A9… range
  ['\ufeff', true, true],
  ['x\u{1f9ff}', true, true],
  ['x\u{1fa70}', false, false], // past U+1F9FF, not Alnum
  ['x\u{20000}', true, true], // CJK Ext. B: Alphabetic
  ['٣', true, true], // ARABIC-INDIC DIGIT THREE (Nd)
  ['Ⅻ', true, true], // ROMAN NUMERAL TWELVE (Nl, Alphabetic; in the range anyway)
  ['x\u00a8', false, false], // DIAERESIS: Sk, below U+00A9
  ['x\u00b2', true, true], // SUPERSCRIPT TWO: not Alnum, but in the U+00A9… range
  ['a\u00aa', true, true], // FEMININE ORDINAL: Alphabetic (Lo)
  ['a\u00a0b', false, false], // NO-BREAK SPACE
  ['', false, false],
  [' ', false, false],
  [' a', false, false],
  ['-abc', false, false],
  ['.abc', false, false],
  ['abc.', true, true],
  ['a/b', false, false],
  ['<b>', false, false],
  ['a+b', false, false],
  ['a(b)', false, true],
  ['(a)', false, false],
  ['a&b', false, false],
  ["a'b", false, false],
  ['a:b', false, false],
  ['a\tb', false, false],
  ['a\nb', false, false],
  ['a\n', false, false],
  ['a#b', false, false],
  ['a,b', false, false],
];

/** The 14.x regexes written out: Onigmo's \p{Alnum} is Alphabetic or Nd. */
const alnum = (c: string): boolean => /\p{Alphabetic}/u.test(c) || /\p{Nd}/u.test(c);
const inRange = (c: string): boolean => c.codePointAt(0)! >= 0xa9 && c.codePointAt(0)! <= 0x1f9ff;
const referenceFormat = (name: string, extra: string): boolean => {
  const chars = [...name];
  if (chars.length === 0) return false;
  const [first, ...rest] = chars;
  return (alnum(first!) || inRange(first!) || first === '_') && rest.every((c) => alnum(c) || /\p{Pd}/u.test(c) || inRange(c) || `_. ${extra}`.includes(c));
};

const rubyAvailable = spawnSync('ruby', ['-e', 'exit 0']).status === 0;

/** Ruby's answers for each name: [project_name_regex matches, group_name_regex matches, every character assigned]. */
const inRuby = (names: readonly string[]): [boolean, boolean, boolean][] => {
  const script = `
    require 'json'
    project = /${RUBY_PROJECT}/
    group = /${RUBY_GROUP}/
    names = JSON.parse(STDIN.read)
    puts JSON.generate(names.map { |n| [project.match?(n), group.match?(n), !n.match?(/\\p{Cn}/)] })
  `;
  const run = spawnSync('ruby', ['-W0', '-e', script], { input: JSON.stringify(names), encoding: 'utf8' });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout) as [boolean, boolean, boolean][];
};

const anyChar = fc.oneof(
  fc.constantFrom('a', 'Z', '0', '_', '.', ' ', '-', '(', ')', '+', '/', '<', '&', '\u00a9', '\u00a8', '\u2014', '\u{1f9ff}', '\u{1fa00}', '\u3000', '\u00a0'),
  fc.integer({ min: 0, max: 0x2ffff }).filter((cp) => cp < 0xd800 || cp > 0xdfff).map((cp) => String.fromCodePoint(cp)),
);
const names = fc.array(anyChar, { maxLength: 6 }).map((chars) => chars.join(''));

describe('project and group name formats', () => {
  it('a table of examples', () => {
    for (const [name, project, group] of TABLE) {
      expect([name, isProjectNameFormat(name), isGroupNameFormat(name)]).toEqual([name, project, group]);
    }
  });

  it('the regexes agree with the classes written out', () => {
    fc.assert(
      fc.property(names, (name) => {
        expect(isProjectNameFormat(name)).toBe(referenceFormat(name, ''));
        expect(isGroupNameFormat(name)).toBe(referenceFormat(name, '()'));
      }),
      { numRuns: 2000 },
    );
  });

  it.skipIf(!rubyAvailable)('the table against the real Onigmo regexes', () => {
    const answers = inRuby(TABLE.map(([name]) => name));
    TABLE.forEach(([name, project, group], index) => expect([name, answers[index]![0], answers[index]![1]]).toEqual([name, project, group]));
  });

  it.skipIf(!rubyAvailable)('random strings against the real Onigmo regexes (characters assigned in both)', () => {
    const sample = fc.sample(names, 3000);
    const answers = inRuby(sample);
    let compared = 0;
    sample.forEach((name, index) => {
      const [project, group, assigned] = answers[index]!;
      if (!assigned || /\p{Cn}/u.test(name)) return;
      compared++;
      expect([name, isProjectNameFormat(name), isGroupNameFormat(name)]).toEqual([name, project, group]);
    });
    expect(compared).toBeGreaterThan(1000);
  });

  it("HtmlSafetyValidator: '<', '>', '\"' and \"'\" are unsafe, '&' is safe", () => {
    for (const name of ['<b>', 'a < b', 'a > b', 'a"b', "a'b"]) expect(isHtmlSafe(name)).toBe(false);
    for (const name of ['a & b', '&amp;', 'Acme (EU)', 'emoji 😀']) expect(isHtmlSafe(name)).toBe(true);
  });
});

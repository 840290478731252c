/** The git engine's pure parts: diff line numbering, line codes, ref search and ref name rules. */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isValidNewRefName, lineCode, parseDiffLines, searchRefNames } from '@forgefold/git';

describe('diff lines', () => {
  it('numbers old and new lines across hunks as the platform’s diff parser does', () => {
    const diff = ['@@ -1,2 +1,2 @@', ' a', '-b', '+B', '@@ -10,3 +10,4 @@ context', ' j', '+k', ' l', '-m', '\\ No newline at end of file', '+M', '\\ No newline at end of file', ''].join('\n');
    expect(parseDiffLines(diff).map((line) => [line.type, line.old_pos, line.new_pos, line.index])).toEqual([
      [null, 1, 1, 0],
      ['old', 2, 2, 1],
      ['new', 3, 2, 2],
      ['match', 10, 10, 3],
      [null, 10, 10, 4],
      ['new', 11, 11, 5],
      [null, 11, 12, 6],
      ['old', 12, 13, 7],
      ['old-nonewline', 13, 13, 8],
      ['new', 13, 13, 9],
      ['new-nonewline', 13, 14, 10],
    ]);
  });

  it('makes line codes from the sha1 of the path and both positions', () => {
    const sha1 = createHash('sha1').update('docs/guide.md').digest('hex');
    expect(lineCode('docs/guide.md', 2, 3)).toBe(`${sha1}_2_3`);
  });
});

describe('ref search', () => {
  const names = ['v1.0', 'V1.0-rc', 'release-v1.0', 'x1.0'];
  const search = (term: string) => searchRefNames(names, term, (name) => name);
  it('matches a prefix, a suffix, or a substring (the exact match first), ignoring case', () => {
    expect(search('^V1')).toEqual(['v1.0', 'V1.0-rc']);
    expect(search('1.0$')).toEqual(['v1.0', 'release-v1.0', 'x1.0']);
    expect(search('v1.0-RC')).toEqual(['V1.0-rc']);
    expect(search('V1.0')).toEqual(['v1.0', 'V1.0-rc', 'release-v1.0']);
    expect(search('release-V1.0')).toEqual(['release-v1.0']);
    expect(searchRefNames(['a1', 'b1', 'a'], 'A', (name) => name)).toEqual(['a', 'a1']);
    // `^…$` is a prefix that ends with a literal `$` (14.7 has no combined form).
    expect(search('^v1.0$')).toEqual([]);
    expect(search('')).toEqual(names);
  });
});

describe('new ref names', () => {
  it('refuses what the platform’s GitRefValidator refuses', () => {
    for (const name of ['refs/heads/x', 'refs/remotes/x', '-x', 'HEAD', 'a b', 'a..b', 'a.lock', '.a', 'a/', 'a~1', 'a^', 'a:b', 'a?', 'a*', 'a[', 'a\\b', 'a@{1}', '']) {
      expect(isValidNewRefName(name), name).toBe(false);
    }
    for (const name of ['main', 'feature/one', 'v1.0', 'release-1.2', 'a@b', 'refs', 'heads/x', 'ünïcode']) expect(isValidNewRefName(name), name).toBe(true);
  });
});

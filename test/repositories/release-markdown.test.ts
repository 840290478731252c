/**
 * `description_html` (releases' Markdown subset): the closing `#` run of a heading, and descriptions built to make
 * a regular expression backtrack (a fuzzer's find: 100,000 `[` held the event loop 4 s, quadratically more for the
 * 1,000,000 characters a description may hold). The inputs below are that long; they render at once now. Not a
 * timing assertion: the test's own time-out is the guard against the quadratic shape (minutes at this size).
 */
import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../packages/http-adapter/src/resources/releases/markdown.js';

const heading = (source: string): string => /<\/a>(.*)<\/h\d>/.exec(renderMarkdown(source))?.[1] ?? '';

describe('release description_html', () => {
  it('reads a heading’s text without its closing run of #, which a space must precede (CommonMark)', () => {
    expect(heading('## Changes')).toBe('Changes');
    expect(heading('# Title ##')).toBe('Title');
    expect(heading('#   spaced   ###   ')).toBe('spaced');
    expect(heading('# Title#')).toBe('Title#');
    expect(heading('## a # b')).toBe('a # b');
    expect(heading('# ###')).toBe('');
  });

  it('links a bracketed text, and renders descriptions of a million adversarial characters in linear time', { timeout: 20_000 }, () => {
    expect(renderMarkdown('[x](https://e.com) and [a[b](https://e.com)')).toBe(
      '<p data-sourcepos="1:1-1:43" dir="auto"><a href="https://e.com" rel="nofollow noreferrer noopener" target="_blank">x</a> and [a<a href="https://e.com" rel="nofollow noreferrer noopener" target="_blank">b</a></p>',
    );
    const million = 1_000_000;
    for (const source of [
      '['.repeat(million),
      `# a${' '.repeat(million)}x`,
      `# a${' '.repeat(million)}`,
      '**'.repeat(million / 2),
      '_a'.repeat(million / 2),
      '*a'.repeat(million / 2),
      `- ${' '.repeat(million)}x`,
      `[a](${'https://x'.repeat(million / 10)}`,
      '[a](http://'.repeat(million / 11),
      '[a](http://['.repeat(million / 12),
    ]) {
      expect(renderMarkdown(source).length).toBeGreaterThan(0);
    }
  });
});

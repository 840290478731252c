/**
 * `description_html`: a subset of the platform's Markdown rendering (CommonMark blocks with `data-sourcepos` and
 * `dir="auto"`, heading anchors as `user-content-<slug>`): ATX headings, bullet and ordered lists, paragraphs,
 * fenced code, inline code, strong and emphasis, links. Everything else is escaped text; raw HTML never passes.
 */
const escape = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const inline = (text: string): string => {
  // Code spans first (their content stays literal), then links, strong, emphasis on the escaped rest.
  const parts = text.split(/(`[^`]+`)/);
  return parts
    .map((part) => {
      if (/^`[^`]+`$/.test(part)) return `<code>${escape(part.slice(1, -1))}</code>`;
      return escape(part)
        // Neither the link text nor its URL runs past a bracket or a parenthesis: `[^\]]+` (then `[^\s)]+`) from each
        // of n unclosed links ran to the end of the line, n² steps (100,000 `[` held the event loop 4 s).
        .replace(/\[([^[\]]+)\]\((https?:\/\/[^\s()[\]]+)\)/g, '<a href="$2" rel="nofollow noreferrer noopener" target="_blank">$1</a>')
        .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
        .replace(/(^|[^*])\*([^*]+)\*/g, '$1<em>$2</em>')
        .replace(/(^|\W)_([^_]+)_(?=\W|$)/g, '$1<em>$2</em>');
    })
    .join('');
};

/**
 * An ATX heading's text: without its surrounding spaces and its closing run of `#` (one preceded by a space). By
 * hand: the regular expression it replaces (`(.*?)\s*#*\s*$`) backtracked over every long run of spaces, n² steps.
 */
const headingText = (rest: string): string => {
  const text = rest.trim();
  let end = text.length;
  while (end > 0 && text[end - 1] === '#') end--;
  if (end === 0) return '';
  if (end < text.length && /\s/.test(text[end - 1]!)) return text.slice(0, end).trimEnd();
  return text;
};

const slug = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .trim()
    .replace(/\s+/g, '-');

const pos = (startLine: number, endLine: number, endText: string): string => `data-sourcepos="${startLine}:1-${endLine}:${Math.max(1, endText.length)}"`;

export const renderMarkdown = (source: string | null): string => {
  if (!source) return '';
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  const out: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    const n = i + 1;
    if (line.trim() === '') {
      i++;
      continue;
    }
    const heading = /^(#{1,6})\s/.exec(line);
    if (heading) {
      const level = heading[1]!.length;
      const text = headingText(line.slice(level));
      out.push(`<h${level} ${pos(n, n, line)} dir="auto">\n<a id="user-content-${slug(text)}" class="anchor" href="#${slug(text)}" aria-hidden="true"></a>${inline(text)}</h${level}>`);
      i++;
      continue;
    }
    if (/^```/.test(line)) {
      const body: string[] = [];
      let j = i + 1;
      while (j < lines.length && !/^```/.test(lines[j]!)) body.push(lines[j++]!);
      const end = Math.min(j, lines.length - 1);
      out.push(`<pre ${pos(n, end + 1, lines[end]!)} class="code highlight js-syntax-highlight language-plaintext" lang="plaintext" v-pre="true"><code>${body.map((text) => `<span class="line" lang="plaintext">${escape(text)}</span>`).join('\n')}</code></pre>`);
      i = j + 1;
      continue;
    }
    const bullet = /^\s*([-*+]|\d+[.)])\s+/;
    if (bullet.test(line)) {
      const ordered = /^\s*\d/.test(line);
      const items: string[] = [];
      let j = i;
      while (j < lines.length && bullet.test(lines[j]!)) {
        items.push(`<li ${pos(j + 1, j + 1, lines[j]!)}>${inline(lines[j]!.replace(bullet, ''))}</li>`);
        j++;
      }
      const tag = ordered ? 'ol' : 'ul';
      out.push(`<${tag} ${pos(n, j, lines[j - 1]!)} dir="auto">\n${items.join('\n')}\n</${tag}>`);
      i = j;
      continue;
    }
    const paragraph: string[] = [];
    let j = i;
    while (j < lines.length && lines[j]!.trim() !== '' && !/^(#{1,6})\s/.test(lines[j]!) && !/^```/.test(lines[j]!) && !bullet.test(lines[j]!)) paragraph.push(lines[j++]!);
    out.push(`<p ${pos(n, j, lines[j - 1]!)} dir="auto">${paragraph.map(inline).join('\n')}</p>`);
    i = j;
  }
  return out.join('\n');
};

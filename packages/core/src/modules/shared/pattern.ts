/** `Gitlab::SQL::Pattern`: the platform's fuzzy search on one column (users, protected refs, issues' and epics' `full_search`). */

/** `Gitlab::SQL::Pattern::MIN_CHARS_FOR_PARTIAL_MATCHING`: shorter words are not matched partially. */
const MIN_CHARS_FOR_PARTIAL_MATCHING = 3;

/**
 * `Gitlab::SQL::Pattern#fuzzy_arel_match` on a column: the query's words (quoted phrases kept whole) of at least three
 * characters must each occur in the value (ILIKE %word%); with no such word, the whole query must equal the value,
 * case-insensitively (ILIKE without wildcards).
 */
export const fuzzyMatches = (value: string, query: string): boolean => {
  const squished = query.trim().replace(/\s+/g, ' ');
  if (squished === '') return false;
  // `REGEX_QUOTED_WORD`: a quoted phrase counts only standing alone, at the start or after a space and at the end or
  // before a space.
  const quoted = squished.match(/(?<=^| )"[^"]+"(?= |$)/g) ?? [];
  const rest = quoted.reduce((left, phrase) => left.replace(phrase, ''), squished);
  const words = [...rest.split(/\s+/).filter((word) => word !== ''), ...quoted.map((phrase) => phrase.slice(1, -1))].filter(
    (word) => [...word].length >= MIN_CHARS_FOR_PARTIAL_MATCHING,
  );
  const lower = value.toLowerCase();
  return words.length > 0 ? words.every((word) => lower.includes(word.toLowerCase())) : lower === squished.toLowerCase();
};

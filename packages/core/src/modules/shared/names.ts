/**
 * The name formats of the platform's Project and Group models (lib/gitlab/regex.rb, 14.x):
 *
 *   project_name_regex  \A[\p{Alnum}\u{00A9}-\u{1f9ff}_][\p{Alnum}\p{Pd}\u{00A9}-\u{1f9ff}_\. ]*\z
 *   group_name_regex    \A[\p{Alnum}\u{00A9}-\u{1f9ff}_][\p{Alnum}\p{Pd}\u{00A9}-\u{1f9ff}_()\. ]*\z
 *
 * Onigmo's `\p{Alnum}` on a Unicode string is Alphabetic plus Decimal_Number (its `Alpha` + `Digit`), written here as
 * `\p{Alphabetic}\p{Nd}`; `\p{Pd}` is the Dash_Punctuation category in both. Ruby's `\A…\z` is `^…$` without the `m`
 * flag. Both are matched code point by code point (the `u` flag).
 */
const PROJECT_NAME_FORMAT = /^[\p{Alphabetic}\p{Nd}\u{A9}-\u{1F9FF}_][\p{Alphabetic}\p{Nd}\p{Pd}\u{A9}-\u{1F9FF}_. ]*$/u;
const GROUP_NAME_FORMAT = /^[\p{Alphabetic}\p{Nd}\u{A9}-\u{1F9FF}_][\p{Alphabetic}\p{Nd}\p{Pd}\u{A9}-\u{1F9FF}_(). ]*$/u;

/** `Gitlab::Regex.project_name_regex_message` (14.x, before '+' was allowed). */
export const PROJECT_NAME_FORMAT_MESSAGE = "can contain only letters, digits, emojis, '_', '.', dash, space. It must start with letter, digit, emoji or '_'.";

/** `Gitlab::Regex.group_name_regex_message` (14.x). */
export const GROUP_NAME_FORMAT_MESSAGE = "can contain only letters, digits, emojis, '_', '.', dash, space, parenthesis. It must start with letter, digit, emoji or '_'.";

/** `HtmlSafetyValidator.error_message` (Group's `validates :name, html_safety: true`). */
export const HTML_SAFETY_MESSAGE = 'cannot contain HTML/XML tags, including any word between angle brackets (&lt;,&gt;).';

export const isProjectNameFormat = (name: string): boolean => PROJECT_NAME_FORMAT.test(name);

export const isGroupNameFormat = (name: string): boolean => GROUP_NAME_FORMAT.test(name);

/**
 * HtmlSafetyValidator's `safe_value?`: the name, its '&' pre-encoded, is unchanged by Rails' FullSanitizer (the text
 * of the parsed fragment, then `CGI.escapeHTML`). A tag or comment is dropped and '<', '>', '"' and "'" come back
 * escaped, so any of those four makes a name unsafe; '&' alone is safe. Blank names are not checked.
 */
export const isHtmlSafe = (name: string): boolean => !/[<>"']/.test(name);

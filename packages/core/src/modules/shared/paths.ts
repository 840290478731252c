/**
 * The platform's path rules for namespaces (usernames and groups) and projects: `Gitlab::PathRegex` (the format
 * regexes and the words reserved for its own routes) as `AbstractPathValidator` applies them: the format first,
 * and only a well-formed path is checked against the reserved words, on the record's whole full path
 * (`record.build_full_path`), with "%{value} is a reserved name".
 *
 * The lists are those of 14.x's `lib/gitlab/path_regex.rb` (see docs/decisions.md, "Reserved names").
 */

/** `TOP_LEVEL_ROUTES`: not the path of a user's namespace or of a top-level group. */
export const TOP_LEVEL_ROUTES: readonly string[] = [
  '-',
  '.well-known',
  '404.html',
  '422.html',
  '500.html',
  '502.html',
  '503.html',
  'admin',
  'api',
  'apple-touch-icon-precomposed.png',
  'apple-touch-icon.png',
  'assets',
  'dashboard',
  'deploy.html',
  'explore',
  'favicon.ico',
  'favicon.png',
  'files',
  'groups',
  'health_check',
  'help',
  'import',
  'jwt',
  'login',
  'oauth',
  'profile',
  'projects',
  'public',
  'robots.txt',
  's',
  'search',
  'sitemap',
  'sitemap.xml',
  'sitemap.xml.gz',
  'slash-command-logo.png',
  'snippets',
  'unsubscribes',
  'uploads',
  'users',
  'v2',
];

/** `PROJECT_WILDCARD_ROUTES`: words after `/*namespace_id/:project_id` in routes with a second wildcard. */
export const PROJECT_WILDCARD_ROUTES: readonly string[] = [
  '-',
  'badges',
  'blame',
  'blob',
  'builds',
  'commits',
  'create',
  'create_dir',
  'edit',
  'environments/folders',
  'files',
  'find_file',
  'gitlab-lfs/objects',
  'info/lfs/objects',
  'new',
  'preview',
  'raw',
  'refs',
  'tree',
  'update',
  'wikis',
];

/** `GROUP_ROUTES`. */
export const GROUP_ROUTES: readonly string[] = ['-'];

/** `ILLEGAL_GROUP_PATH_WORDS` (`PROJECT_WILDCARD_ROUTES | GROUP_ROUTES`): not the path of a subgroup. */
export const ILLEGAL_GROUP_PATH_WORDS: readonly string[] = [...new Set([...PROJECT_WILDCARD_ROUTES, ...GROUP_ROUTES])];

/** `ILLEGAL_PROJECT_PATH_WORDS`: not the path of a project. */
export const ILLEGAL_PROJECT_PATH_WORDS: readonly string[] = PROJECT_WILDCARD_ROUTES;

/** `Gitlab::PathRegex.namespace_format_message`. */
export const NAMESPACE_FORMAT_MESSAGE = "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'.";

/** `Gitlab::PathRegex.project_path_format_message` (no final full stop, as the platform's). */
export const PROJECT_PATH_FORMAT_MESSAGE = "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'";

/** `AbstractPathValidator#validate_each`'s message for a well-formed path its full path makes a route's. */
export const reservedName = (value: string): string => `${value} is a reserved name`;

/** `PATH_REGEX_STR` followed by `NO_SUFFIX_REGEX`: `PROJECT_PATH_FORMAT_REGEX`, anchored. */
const PROJECT_PATH_FORMAT = /^[a-zA-Z0-9_.][a-zA-Z0-9_.-]*$/;
const NO_SUFFIX = /\.(git|atom)$/;

/** `Gitlab::PathRegex.project_path_format_regex`: a project's path may end in '.' (a namespace's may not). */
export const isProjectPath = (value: string): boolean => PROJECT_PATH_FORMAT.test(value) && !NO_SUFFIX.test(value);

/**
 * `Gitlab::PathRegex.namespace_format_regex`: `NAMESPACE_FORMAT_REGEX_JS` (one of `[a-zA-Z0-9_]`, or a longer
 * path not ending in '.') without the `.git`/`.atom` suffixes.
 */
export const isNamespacePath = (value: string): boolean => isProjectPath(value) && !value.endsWith('.');

/** Lower-cased sets of each list, and the most path segments one of their words spans ("info/lfs/objects": 3). */
interface Words {
  readonly set: ReadonlySet<string>;
  readonly span: number;
}
const wordsOf = (list: readonly string[]): Words => ({ set: new Set(list.map((word) => word.toLowerCase())), span: Math.max(...list.map((word) => word.split('/').length)) });
const ROOT_WORDS = wordsOf(TOP_LEVEL_ROUTES);
const GROUP_WORDS = wordsOf(ILLEGAL_GROUP_PATH_WORDS);
const PROJECT_WORDS = wordsOf(ILLEGAL_PROJECT_PATH_WORDS);

/**
 * Whether a word of the full path's regex ends at its last segment: `(?!(words)/)` before a segment refuses the
 * path when the segments from there on begin with a word (a word with '/' spans segments: "environments/folders").
 * The words are compared as `Regexp::IGNORECASE` does (the segments being ASCII). `wordsAt(i)` are the words the
 * regex refuses at segment `i`.
 *
 * The platform matches the whole full path; only the words ending at the last segment (the name being made or
 * moved) are looked for here. With valid ancestors that is the same answer (no word can begin at the last segment
 * and end past it); an ancestor an old log holds under a name reserved since does not make its descendants invalid.
 */
const endsWithWord = (segments: readonly string[], wordsAt: (index: number) => Words): boolean => {
  const last = segments.length - 1;
  for (let index = last; index >= 0; index--) {
    const words = wordsAt(index);
    if (last - index + 1 > words.span) continue;
    if (words.set.has(segments.slice(index).join('/').toLowerCase())) return true;
  }
  return false;
};

/** `full_namespace_route_regex`'s words: TOP_LEVEL_ROUTES at the top, ILLEGAL_GROUP_PATH_WORDS below. */
const namespaceWordsAt = (index: number): Words => (index === 0 ? ROOT_WORDS : GROUP_WORDS);

/**
 * Whether `NamespacePathValidator.valid_path?(full_path)` (`"#{full_path}/" =~ full_namespace_path_regex`) refuses
 * the last segment of a namespace's full path (a username is a full path of one segment).
 */
export const namespacePathReserved = (fullPath: string): boolean => endsWithWord(fullPath.split('/'), namespaceWordsAt);

/**
 * Whether `ProjectPathValidator.valid_path?(full_path)` (`full_project_path_regex`: the namespace's words, then
 * ILLEGAL_PROJECT_PATH_WORDS at the project's segment) refuses a project's `path` in the namespace `namespaceFullPath`.
 */
export const projectPathReserved = (namespaceFullPath: string, path: string): boolean => {
  const segments = [...namespaceFullPath.split('/'), path];
  return endsWithWord(segments, (index) => (index === segments.length - 1 ? PROJECT_WORDS : namespaceWordsAt(index)));
};

/**
 * NamespacePathValidator's messages for `path` (a username, a group's path) whose full path is `fullPath`: the
 * format message, or, for a well-formed path, "… is a reserved name" when the full path is not a valid one.
 * A blank path has none here (the callers report "can't be blank").
 */
export const namespacePathErrors = (path: string, fullPath: string): string[] => {
  if (path === '') return [];
  const errors = !isNamespacePath(path) ? [NAMESPACE_FORMAT_MESSAGE] : namespacePathReserved(fullPath) ? [reservedName(path)] : [];
  return namespacePathTooShort(path) ? [...errors, NAMESPACE_PATH_TOO_SHORT] : errors;
};

/**
 * `validates :path, length: { minimum: 2 }, if: :path_changed?` (Namespace, after NamespacePathValidator): a group's
 * new path or a user's new username of one character. Only a path that changes is checked, so that the one-character
 * names made before the rule (and kept in old logs) keep their other updates. A blank path has "can't be blank" alone.
 */
export const namespacePathTooShort = (path: string): boolean => path !== '' && [...path].length < 2;

/** ActiveModel's message for `length: { minimum: 2 }`. */
export const NAMESPACE_PATH_TOO_SHORT = 'is too short (minimum is 2 characters)';

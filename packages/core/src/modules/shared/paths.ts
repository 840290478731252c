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
 * The negative lookahead `(?!(words)/)` at a segment: whether the segments from `from` on (the full path being
 * followed by '/') begin with one of the words, compared as `Regexp::IGNORECASE` does (the segments being ASCII).
 */
const beginsWithWord = (segments: readonly string[], from: number, words: Words): boolean => {
  for (let count = 1; count <= words.span && from + count <= segments.length; count++) {
    if (words.set.has(segments.slice(from, from + count).join('/').toLowerCase())) return true;
  }
  return false;
};

/**
 * `full_namespace_route_regex` over whole segments: the first `count` segments are namespace paths, the first no
 * `TOP_LEVEL_ROUTES` word, the others no `ILLEGAL_GROUP_PATH_WORDS` word. The lookahead reads on past the
 * namespace, so a word spanning segments ("environments/folders") may end in a project's path.
 */
const validNamespaceSegments = (segments: readonly string[], count: number): boolean => {
  if (count === 0) return false;
  for (let index = 0; index < count; index++) {
    if (!isNamespacePath(segments[index]!) || beginsWithWord(segments, index, index === 0 ? ROOT_WORDS : GROUP_WORDS)) return false;
  }
  return true;
};

/** `NamespacePathValidator.valid_path?(full_path)`: `"#{full_path}/" =~ Gitlab::PathRegex.full_namespace_path_regex`. */
export const validNamespaceFullPath = (fullPath: string): boolean => {
  const segments = fullPath.split('/');
  return validNamespaceSegments(segments, segments.length);
};

/**
 * `ProjectPathValidator.valid_path?(full_path)`: `full_project_path_regex`, the namespace's full path as above and
 * then a project path that is no `ILLEGAL_PROJECT_PATH_WORDS` word (the project's segment being the last, a word
 * spanning segments never matches there).
 */
export const validProjectFullPath = (namespaceFullPath: string, path: string): boolean => {
  const segments = [...namespaceFullPath.split('/'), path];
  return validNamespaceSegments(segments, segments.length - 1) && isProjectPath(path) && !beginsWithWord(segments, segments.length - 1, PROJECT_WORDS);
};

/**
 * NamespacePathValidator's messages for `path` (a username, a group's path) whose full path is `fullPath`: the
 * format message, or, for a well-formed path, "… is a reserved name" when the full path is not a valid one.
 * A blank path has none here (the callers report "can't be blank").
 */
export const namespacePathErrors = (path: string, fullPath: string): string[] => {
  if (path === '') return [];
  if (!isNamespacePath(path)) return [NAMESPACE_FORMAT_MESSAGE];
  return validNamespaceFullPath(fullPath) ? [] : [reservedName(path)];
};

/** ProjectPathValidator's messages for a project's `path` in the namespace whose full path is `namespaceFullPath`. */
export const projectPathErrors = (path: string, namespaceFullPath: string): string[] => {
  if (path === '') return [];
  if (!isProjectPath(path)) return [PROJECT_PATH_FORMAT_MESSAGE];
  return validProjectFullPath(namespaceFullPath, path) ? [] : [reservedName(path)];
};

/** Reads: commits, history, trees, files, diffs, comparisons, ancestry. Objects come through the batch reader. */
import { fail, pathNotFound } from './errors.js';
import { git, gitText } from './exec.js';
import { type RepoContext, readCommits, readObject, requireCommit } from './context.js';
import { diffFlags, parseDiffOutput, parseNumstat } from './diff.js';
import { EMPTY_TREE, asSha } from './objects.js';
import type {
  ArchiveQuery,
  BlameRange,
  Blob,
  Commit,
  CommitStats,
  CompareQuery,
  Comparison,
  ContainingRef,
  DiffFile,
  DiffOptions,
  LogQuery,
  Page,
  RawBlob,
  Sha,
  TreeEntry,
  TreeEntryType,
  TreeQuery,
} from './types.js';

/** Paths are literal everywhere (no glob or magic pathspecs from user input). */
const literal = { GIT_LITERAL_PATHSPECS: '1' } as const;

const page = <A>(items: readonly A[], offset = 0, limit?: number): Page<A> => ({
  items: items.slice(offset, limit === undefined ? undefined : offset + limit),
  total: items.length,
});

/** A directory path as given by a caller (`a/b/`, `/a`), normalised; `''` for the root. */
export const normalizeDirectory = (path: string | undefined): string => (path ?? '').replace(/^\/+|\/+$/g, '');

/**
 * Whether `path` is a pathspec git looks for inside the repository. An absolute path or one whose `..` climbs above
 * the root makes git exit 128 (naming the repository's directory), and a NUL cannot even be an argument: such a
 * path matches nothing. Within the root git normalises (`a/../b`, `./b`, `a//b`).
 */
export const isRepositoryPath = (path: string): boolean => {
  if (path.startsWith('/') || path.includes('\0')) return false;
  let depth = 0;
  for (const part of path.split('/')) {
    if (part === '..') depth -= 1;
    else if (part !== '' && part !== '.') depth += 1;
    if (depth < 0) return false;
  }
  return true;
};

// ---------------------------------------------------------------------------------------------------------
// Tree objects: `<mode> <name>\0<20-byte id>` repeated.

interface RawTreeEntry {
  readonly mode: string;
  readonly name: string;
  readonly id: Sha;
}

export const parseTree = (data: Buffer): RawTreeEntry[] => {
  const entries: RawTreeEntry[] = [];
  let at = 0;
  while (at < data.length) {
    const space = data.indexOf(0x20, at);
    const nul = data.indexOf(0x00, space);
    const mode = data.subarray(at, space).toString('latin1').padStart(6, '0');
    const name = data.subarray(space + 1, nul).toString('utf8');
    const id = asSha(data.subarray(nul + 1, nul + 21).toString('hex'));
    entries.push({ mode, name, id });
    at = nul + 21;
  }
  return entries;
};

const typeOfMode = (mode: string): TreeEntryType => (mode === '040000' ? 'tree' : mode === '160000' ? 'commit' : 'blob');

/**
 * The entry at `path` below the tree `root`, looked up by exact names through tree objects read by sha. Never
 * git's `<tree>:<path>`: cat-file resolves `./` and `../` against a working tree and, having none, exits. An empty,
 * `.` or `..` component names nothing, as no tree holds such a name.
 */
const entryAt = async (ctx: RepoContext, root: Sha, path: string): Promise<RawTreeEntry | null> => {
  let current: RawTreeEntry = { mode: '040000', name: '', id: root };
  for (const name of path.split('/')) {
    const tree = current.mode === '040000' ? await readObject(ctx, current.id) : null;
    const found = tree && tree.type === 'tree' ? parseTree(tree.data).find((entry) => entry.name === name) : undefined;
    if (!found) return null;
    current = found;
  }
  return current;
};

// ---------------------------------------------------------------------------------------------------------

export const findCommit = (ctx: RepoContext, revision: string): Promise<Commit> => requireCommit(ctx, revision);

export const commitStats = async (ctx: RepoContext, revision: string): Promise<CommitStats> => {
  const commit = await requireCommit(ctx, revision);
  const base = commit.parent_ids[0] ?? EMPTY_TREE;
  const { stdout } = await git(ctx.gitDir, ['diff', '--numstat', '-z', '-M', '--no-color', base, commit.id]);
  const { additions, deletions } = parseNumstat(stdout);
  return { additions, deletions, total: additions + deletions };
};

const epochOf = (iso: string, field: string): number => {
  const millis = Date.parse(iso);
  if (Number.isNaN(millis)) fail({ _tag: 'InvalidInput', message: `${field} is invalid` });
  return Math.floor(millis / 1000);
};

/** `rev-list` arguments shared by the page and its count. */
const logArgs = (query: LogQuery, head: Sha | null): string[] => {
  const args: string[] = [];
  if (query.firstParent) args.push('--first-parent');
  if (query.noMerges) args.push('--no-merges');
  if (query.order === 'topo') args.push('--topo-order');
  // `--max-age`/`--min-age` are `--since`/`--until` with the instant as seconds (no date parsing by git).
  if (query.since !== undefined) args.push(`--max-age=${epochOf(query.since, 'since')}`);
  if (query.until !== undefined) args.push(`--min-age=${epochOf(query.until, 'until')}`);
  args.push(head ?? '--all', '--');
  if (query.path !== undefined && query.path !== '') args.push(query.path);
  return args;
};

export const log = async (ctx: RepoContext, query: LogQuery): Promise<Page<Commit>> => {
  const head = query.all ? null : (await requireCommit(ctx, query.ref)).id;
  if (query.path !== undefined && !isRepositoryPath(query.path)) return { items: [], total: 0 };
  const offset = query.offset ?? 0;
  // `--reverse` applies after `--skip`/`--max-count`: the page is the newest commits, listed oldest first.
  const paging = [`--skip=${offset}`, ...(query.limit === undefined ? [] : [`--max-count=${query.limit}`]), ...(query.all ? ['--reverse'] : [])];
  const [listed, counted] = await Promise.all([
    gitText(ctx.gitDir, ['rev-list', ...paging, ...logArgs(query, head)], { env: literal }),
    query.counted === false ? null : gitText(ctx.gitDir, ['rev-list', '--count', ...logArgs(query, head)], { env: literal }),
  ]);
  const shas = listed === '' ? [] : listed.split('\n').map(asSha);
  return { items: await readCommits(ctx, shas), total: counted === null ? offset + shas.length : Number(counted) };
};

/** Entries of the tree at `path`, the platform's order: trees, then blobs, then submodules (each in git's order). */
export const tree = async (ctx: RepoContext, query: TreeQuery): Promise<Page<TreeEntry>> => {
  const commit = await requireCommit(ctx, query.ref);
  const given = normalizeDirectory(query.path);
  // Gitaly's tree entries take `.` for the root.
  const directory = given === '.' ? '' : given;
  const entry = directory === '' ? { mode: '040000', id: commit.tree_id } : await entryAt(ctx, commit.tree_id, directory);
  const root = entry && entry.mode === '040000' ? await readObject(ctx, entry.id) : null;
  if (!root || root.type !== 'tree') return fail(pathNotFound(directory, '404 Tree Not Found'));
  const entries: TreeEntry[] = [];
  const walk = async (data: Buffer, prefix: string): Promise<void> => {
    const raw = parseTree(data);
    const subtrees = query.recursive ? await ctx.objects.readAll(ctx.gitDir, raw.filter((entry) => entry.mode === '040000').map((entry) => entry.id)) : [];
    let next = 0;
    for (const entry of raw) {
      const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
      entries.push({ id: entry.id, name: entry.name, type: typeOfMode(entry.mode), path, mode: entry.mode });
      if (query.recursive && entry.mode === '040000') {
        const subtree = subtrees[next++];
        if (subtree) await walk(subtree.data, path);
      }
    }
  };
  await walk(root.data, directory);
  const ordered = [...entries.filter((e) => e.type === 'tree'), ...entries.filter((e) => e.type === 'blob'), ...entries.filter((e) => e.type === 'commit')];
  return page(ordered, query.offset, query.limit);
};

/** The last commit reachable from `head` that touched `path`. */
export const lastCommitFor = async (ctx: RepoContext, head: Sha, path: string): Promise<Sha | null> => {
  const sha = await gitText(ctx.gitDir, ['rev-list', '--max-count=1', head, '--', path], { env: literal });
  return sha === '' ? null : asSha(sha);
};

/**
 * `git archive` of a commit, as Gitaly's `GetArchive` makes it: every file under `prefix/`, `path` a literal
 * pathspec (a path that matches nothing is not found); bzip2 through the `bzip2` program, as git configures it.
 */
export const archive = async (ctx: RepoContext, query: ArchiveQuery): Promise<{ readonly commit: Sha; readonly content: Buffer }> => {
  const commit = await requireCommit(ctx, query.ref);
  if (query.path !== undefined && !isRepositoryPath(query.path)) return fail(pathNotFound(query.path, '404 File Not Found'));
  const config = query.format === 'tar.bz2' ? ['-c', 'tar.tar.bz2.command=bzip2 -c'] : [];
  const path = query.path !== undefined && query.path !== '' ? ['--', query.path] : [];
  const { code, stdout } = await git(ctx.gitDir, [...config, 'archive', `--format=${query.format}`, `--prefix=${query.prefix}/`, commit.id, ...path], {
    env: literal,
    okCodes: [0, 128],
  });
  if (code !== 0) return fail(pathNotFound(query.path ?? '', '404 File Not Found'));
  return { commit: commit.id, content: stdout };
};

/** A blob by its id, full or abbreviated (4+ hex digits); anything else, or an object of another type, is not found. */
export const rawBlob = async (ctx: RepoContext, id: string): Promise<RawBlob> => {
  const object = /^[0-9a-fA-F]{4,40}$/.test(id) ? await readObject(ctx, id) : null;
  if (!object || object.type !== 'blob') return fail(pathNotFound(id, '404 Blob Not Found'));
  return { id: object.sha, size: object.data.length, content: object.data };
};

/**
 * `git blame --porcelain` of a file in a commit (Gitaly's `RawBlame`), grouped as `Gitlab::Blame#groups` groups:
 * each run of consecutive lines of one commit. Lines are read as UTF-8. A path that is no file there is not found.
 */
export const blame = async (ctx: RepoContext, query: { ref: string; path: string }): Promise<BlameRange[]> => {
  const commit = await requireCommit(ctx, query.ref);
  const path = query.path.replace(/^\/+/, '');
  const entry = isRepositoryPath(path) ? await entryAt(ctx, commit.tree_id, path) : null;
  if (!entry || typeOfMode(entry.mode) !== 'blob') return fail(pathNotFound(path, '404 File Not Found'));
  const { stdout } = await git(ctx.gitDir, ['blame', '--porcelain', commit.id, '--', path], { env: literal });
  const runs: { sha: Sha; lines: string[] }[] = [];
  let current: Sha | null = null;
  for (const line of stdout.toString('utf8').split('\n')) {
    if (line.startsWith('\t')) {
      const last = runs[runs.length - 1];
      if (current === null) continue;
      if (last && last.sha === current) last.lines.push(line.slice(1));
      else runs.push({ sha: current, lines: [line.slice(1)] });
      continue;
    }
    const header = /^([0-9a-f]{40}) \d+ \d+/.exec(line);
    if (header) current = asSha(header[1]!);
  }
  const shas = [...new Set(runs.map((run) => run.sha))];
  const commits = new Map((await readCommits(ctx, shas)).map((found) => [found.id, found]));
  return runs.map((run) => ({ commit: commits.get(run.sha)!, lines: run.lines }));
};

/**
 * The trailers of each commit, parsed by git (`%(trailers:unfold,separator=%x00)`) and read as Gitaly's trailer
 * parser reads them: `Key: value` pairs, a repeated key keeping its last value.
 */
export const trailers = async (ctx: RepoContext, shas: readonly Sha[]): Promise<Map<Sha, Record<string, string>>> => {
  const found = new Map<Sha, Record<string, string>>();
  if (shas.length === 0) return found;
  const text = await gitText(ctx.gitDir, ['log', '--no-walk=unsorted', '--format=%H%x00%(trailers:unfold,separator=%x00)%x01', ...shas]);
  for (const record of text.split('\x01')) {
    const [sha, ...pairs] = record.replace(/^\n/, '').split('\x00');
    if (!sha || !/^[0-9a-f]{40}$/.test(sha)) continue;
    const parsed: Record<string, string> = {};
    for (const pair of pairs) {
      const colon = pair.indexOf(': ');
      if (colon > 0) parsed[pair.slice(0, colon)] = pair.slice(colon + 2);
    }
    found.set(asSha(sha), parsed);
  }
  return found;
};

/** A file at a ref. */
export const blob = async (ctx: RepoContext, query: { ref: string; path: string }): Promise<Blob> => {
  const commit = await requireCommit(ctx, query.ref);
  const path = query.path.replace(/^\/+/, '');
  const name = path.slice(path.lastIndexOf('/') + 1);
  const entry = await entryAt(ctx, commit.tree_id, path);
  if (!entry || typeOfMode(entry.mode) !== 'blob') return fail(pathNotFound(path, '404 File Not Found'));
  const [object, lastCommit] = await Promise.all([readObject(ctx, entry.id), lastCommitFor(ctx, commit.id, path)]);
  if (!object) return fail(pathNotFound(path, '404 File Not Found'));
  return {
    file_name: name,
    file_path: path,
    size: object.data.length,
    blob_id: entry.id,
    commit_id: commit.id,
    last_commit_id: lastCommit ?? commit.id,
    mode: entry.mode,
    content: object.data,
  };
};

export const diffTrees = async (ctx: RepoContext, from: Sha, to: Sha, options: DiffOptions = {}): Promise<DiffFile[]> => {
  const paths = (options.paths ?? []).filter(isRepositoryPath);
  // Only paths that match nothing: no files (without paths git would diff them all).
  if (paths.length === 0 && (options.paths ?? []).length > 0) return [];
  const { stdout } = await git(ctx.gitDir, ['diff', ...diffFlags, from, to, '--', ...paths], { env: literal });
  return parseDiffOutput(stdout, options.maxPatchBytes);
};

/** A commit's changes against its first parent (the empty tree for a root commit), as the platform shows them. */
export const commitDiff = async (ctx: RepoContext, revision: string, options: DiffOptions = {}): Promise<DiffFile[]> => {
  const commit = await requireCommit(ctx, revision);
  return diffTrees(ctx, commit.parent_ids[0] ?? EMPTY_TREE, commit.id, options);
};

/** `git merge-base a b …`: with more than two, the base of `a` and a hypothetical merge of the others (Gitaly's). */
export const mergeBase = async (ctx: RepoContext, a: string, b: string, ...more: readonly string[]): Promise<Sha | null> => {
  const commits = await Promise.all([a, b, ...more].map((revision) => requireCommit(ctx, revision)));
  const { code, stdout } = await git(ctx.gitDir, ['merge-base', ...commits.map((commit) => commit.id)], { okCodes: [0, 1] });
  return code === 0 ? asSha(stdout.toString('utf8').trim()) : null;
};

export const isAncestor = async (ctx: RepoContext, ancestor: string, descendant: string, env: Readonly<Record<string, string>> = {}): Promise<boolean> => {
  const { code } = await git(ctx.gitDir, ['merge-base', '--is-ancestor', ancestor, descendant], { okCodes: [0, 1], env });
  return code === 0;
};

/**
 * Commits reachable from `to` and not from `from` (any revision; null: all of `to`'s history), oldest first.
 * With `limit`, the newest `limit` of them; `total` counts all.
 */
export const commitsBetween = async (ctx: RepoContext, from: string | null, to: string, limit?: number): Promise<Page<Commit>> => {
  const head = await requireCommit(ctx, to);
  const base = from === null ? null : await requireCommit(ctx, from);
  const range = base === null ? [head.id] : [head.id, `^${base.id}`];
  const listed = await gitText(ctx.gitDir, ['rev-list', ...(limit === undefined ? [] : [`--max-count=${limit}`]), ...range]);
  const counted = limit === undefined ? null : await gitText(ctx.gitDir, ['rev-list', '--count', ...range]);
  const shas = listed === '' ? [] : listed.split('\n').map(asSha).reverse();
  return { items: await readCommits(ctx, shas), total: counted === null ? shas.length : Number(counted) };
};

export const compare = async (ctx: RepoContext, query: CompareQuery & DiffOptions): Promise<Comparison> => {
  const [from, to] = await Promise.all([requireCommit(ctx, query.from), requireCommit(ctx, query.to)]);
  const baseSha = query.straight ? from.id : await mergeBase(ctx, from.id, to.id);
  const [between, diffs] = await Promise.all([commitsBetween(ctx, from.id, to.id), diffTrees(ctx, baseSha ?? EMPTY_TREE, to.id, query)]);
  return { fromSha: from.id, toSha: to.id, baseSha, commits: between.items, diffs, sameRef: from.id === to.id };
};

/** Whether `source` merges into `target` cleanly: `merge-tree --write-tree` (its objects are unreferenced; no ref moves). */
export const mergeable = async (ctx: RepoContext, target: string, source: string): Promise<boolean> => {
  const [left, right] = await Promise.all([requireCommit(ctx, target), requireCommit(ctx, source)]);
  const { code } = await git(ctx.gitDir, ['merge-tree', '--write-tree', '--name-only', '-z', '--allow-unrelated-histories', left.id, right.id], { okCodes: [0, 1] });
  return code === 0;
};

/** Branches, then tags, whose history holds the commit (each sorted by name), as `…/commits/:sha/refs`. */
export const refsContaining = async (ctx: RepoContext, revision: string, type: 'branch' | 'tag' | 'all' = 'all'): Promise<ContainingRef[]> => {
  const commit = await requireCommit(ctx, revision);
  const patterns = type === 'branch' ? ['refs/heads/'] : type === 'tag' ? ['refs/tags/'] : ['refs/heads/', 'refs/tags/'];
  const listed = await gitText(ctx.gitDir, ['for-each-ref', `--contains=${commit.id}`, '--format=%(refname)', ...patterns]);
  const refs = listed === '' ? [] : listed.split('\n');
  const named = (prefix: string, kind: ContainingRef['type']) =>
    refs.filter((ref) => ref.startsWith(prefix)).map((ref): ContainingRef => ({ type: kind, name: ref.slice(prefix.length) }));
  return [...named('refs/heads/', 'branch'), ...named('refs/tags/', 'tag')];
};


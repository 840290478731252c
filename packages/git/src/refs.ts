/**
 * Branches and tags. A listing is two steps: one `for-each-ref` names every ref (with the peeled commit's date
 * when ordering by `updated`), the engine filters, orders and pages those names, and only the page is read in
 * full through the batch reader. A page of 20 tags among 10,000 reads 20 tag objects and 20 commits.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fail, refNotFound } from './errors.js';
import { gitText } from './exec.js';
import { type RepoContext, readObject } from './context.js';
import type { GitObject } from './object-reader.js';
import { asSha, parseCommit, parseTag } from './objects.js';
import { compareNames, isValidFullRefName, searchRefNames, sortByVersion } from './ref-names.js';
import type { Branch, Commit, Page, RefQuery, Sha, Tag } from './types.js';

interface ListedRef {
  readonly name: string;
  readonly sha: Sha;
  /** Committer date (seconds) of the commit the ref peels to; null when it peels to something else. */
  readonly updated: number | null;
}

const listNames = async (ctx: RepoContext, prefix: 'refs/heads/' | 'refs/tags/', withDates: boolean): Promise<ListedRef[]> => {
  // `committerdate` is set for a commit, `*committerdate` for an annotated tag of one.
  const format = withDates ? '%(objectname) %(committerdate:unix)%(*committerdate:unix) %(refname)' : '%(objectname) - %(refname)';
  const listed = await gitText(ctx.gitDir, ['for-each-ref', `--format=${format}`, prefix]);
  if (listed === '') return [];
  return listed.split('\n').map((line) => {
    const first = line.indexOf(' ');
    const second = line.indexOf(' ', first + 1);
    const date = line.slice(first + 1, second);
    return {
      sha: asSha(line.slice(0, first)),
      updated: withDates && date !== '' ? Number(date) : null,
      name: line.slice(second + 1 + prefix.length),
    };
  });
};

/**
 * Orders, filters by `search`, pages: the platform sorts first and searches the sorted list (a substring search
 * then moves the exact match to the front). Ties in every order fall back to the plain name order.
 */
const select = (refs: readonly ListedRef[], query: RefQuery): Page<ListedRef> => {
  const orderBy = query.orderBy ?? 'name';
  let ordered: ListedRef[];
  if (orderBy === 'version') ordered = sortByVersion(refs, (ref) => ref.name);
  // The platform sorts by the peeled commit's date, a ref without one last, and reverses the list for `desc`.
  else if (orderBy === 'updated') ordered = [...refs].sort((a, b) => (a.updated ?? Infinity) - (b.updated ?? Infinity) || compareNames(a.name, b.name));
  else ordered = [...refs].sort((a, b) => compareNames(a.name, b.name));
  if (query.sort === 'desc') ordered.reverse();
  const matches = searchRefNames(ordered, query.search, (ref) => ref.name);
  const offset = query.offset ?? 0;
  return { items: matches.slice(offset, query.limit === undefined ? undefined : offset + query.limit), total: matches.length };
};

/** Follows tag objects down to what they point at. */
const peel = async (ctx: RepoContext, object: GitObject | null): Promise<GitObject | null> => {
  let current = object;
  for (let depth = 0; current && current.type === 'tag' && depth < 16; depth++) current = await readObject(ctx, parseTag(current.data).object);
  return current;
};

const commitOf = (object: GitObject | null): Commit | null => (object && object.type === 'commit' ? parseCommit(object.sha, object.data) : null);

const toTag = async (ctx: RepoContext, name: string, object: GitObject): Promise<Tag> => {
  if (object.type !== 'tag') return { name, target: object.sha, message: '', annotated: false, tagger: null, commit: commitOf(object) };
  const tag = parseTag(object.data);
  return { name, target: object.sha, message: tag.message, annotated: true, tagger: tag.tagger, commit: commitOf(await peel(ctx, object)) };
};

const hydrateTags = async (ctx: RepoContext, refs: readonly ListedRef[]): Promise<Tag[]> => {
  const objects = await ctx.objects.readAll(ctx.gitDir, refs.map((ref) => ref.sha));
  return Promise.all(
    refs.map((ref, index) => {
      const object = objects[index];
      if (!object) throw new Error(`tag ${ref.name} points at a missing object`);
      return toTag(ctx, ref.name, object);
    }),
  );
};

export const listTags = async (ctx: RepoContext, query: RefQuery = {}): Promise<Page<Tag>> => {
  const selected = select(await listNames(ctx, 'refs/tags/', query.orderBy === 'updated'), query);
  return { items: await hydrateTags(ctx, selected.items), total: selected.total };
};

export const listBranches = async (ctx: RepoContext, query: RefQuery = {}): Promise<Page<Branch>> => {
  const selected = select(await listNames(ctx, 'refs/heads/', query.orderBy === 'updated'), query);
  const objects = await ctx.objects.readAll(ctx.gitDir, selected.items.map((ref) => ref.sha));
  const items = selected.items.map((ref, index): Branch => {
    const commit = commitOf(objects[index] ?? null);
    if (!commit) throw new Error(`branch ${ref.name} does not point at a commit`);
    return { name: ref.name, commit };
  });
  return { items, total: selected.total };
};

/** The object a full ref name points at, read through the batch reader (null when absent or not a valid name). */
export const readRef = async (ctx: RepoContext, ref: string): Promise<GitObject | null> =>
  isValidFullRefName(ref) ? readObject(ctx, ref) : Promise.resolve(null);

export const findTag = async (ctx: RepoContext, name: string): Promise<Tag> => {
  const object = await readRef(ctx, `refs/tags/${name}`);
  return object ? toTag(ctx, name, object) : fail(refNotFound(`refs/tags/${name}`, '404 Tag Not Found'));
};

export const findBranch = async (ctx: RepoContext, name: string): Promise<Branch> => {
  const commit = commitOf(await readRef(ctx, `refs/heads/${name}`));
  return commit ? { name, commit } : fail(refNotFound(`refs/heads/${name}`, '404 Branch Not Found'));
};

/** Every ref with the object it points at (`forgefold verify` compares them with the projection). */
export const allRefs = async (ctx: RepoContext): Promise<Record<string, Sha>> => {
  const listed = await gitText(ctx.gitDir, ['for-each-ref', '--format=%(objectname) %(refname)']);
  const refs: Record<string, Sha> = {};
  for (const line of listed === '' ? [] : listed.split('\n')) refs[line.slice(41)] = asSha(line.slice(0, 40));
  return refs;
};

/** The current value of full ref names (null when absent), read fresh from git (not the batch reader). */
export const currentValues = async (ctx: RepoContext, refs: readonly string[]): Promise<Map<string, Sha | null>> =>
  (await readRefFiles(ctx.gitDir, refs)) ?? listValues(ctx, refs);

/**
 * The refs' values read from the files git keeps them in (a loose ref, else `packed-refs`), without a process;
 * null when anything is unusual (a symbolic ref, a name that is no ref name), and git is asked instead.
 */
const readRefFiles = async (gitDir: string, refs: readonly string[]): Promise<Map<string, Sha | null> | null> => {
  const values = new Map<string, Sha | null>();
  let packed: Map<string, string> | null = null;
  for (const ref of refs) {
    if (!isValidFullRefName(ref)) return null;
    let text: string | null = null;
    try {
      text = await readFile(join(gitDir, ref), 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // Absent, or a directory of refs (`a/b` exists, so `a` does not).
      if (code !== 'ENOENT' && code !== 'ENOTDIR' && code !== 'EISDIR') return null;
    }
    if (text !== null) {
      const sha = /^([0-9a-f]{40})\n?$/.exec(text);
      if (!sha) return null;
      values.set(ref, asSha(sha[1]!));
      continue;
    }
    packed ??= await readPackedRefs(gitDir);
    if (packed === null) return null;
    const value = packed.get(ref);
    values.set(ref, value === undefined ? null : asSha(value));
  }
  return values;
};

const readPackedRefs = async (gitDir: string): Promise<Map<string, string> | null> => {
  let text: string;
  try {
    text = await readFile(join(gitDir, 'packed-refs'), 'utf8');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? new Map() : null;
  }
  const refs = new Map<string, string>();
  for (const line of text.split('\n')) {
    // `# pack-refs with: …` and `^<peeled>` lines say nothing of a ref's own value.
    if (line === '' || line.startsWith('#') || line.startsWith('^')) continue;
    if (!/^[0-9a-f]{40} /.test(line)) return null;
    refs.set(line.slice(41), line.slice(0, 40));
  }
  return refs;
};

const listValues = async (ctx: RepoContext, refs: readonly string[]): Promise<Map<string, Sha | null>> => {
  const values = new Map<string, Sha | null>(refs.map((ref) => [ref, null]));
  if (refs.length === 0) return values;
  const listed = await gitText(ctx.gitDir, ['for-each-ref', '--format=%(objectname) %(refname)', ...refs]);
  for (const line of listed === '' ? [] : listed.split('\n')) {
    const ref = line.slice(41);
    // for-each-ref patterns also match refs below a name; only exact names count.
    if (values.has(ref)) values.set(ref, asSha(line.slice(0, 40)));
  }
  return values;
};

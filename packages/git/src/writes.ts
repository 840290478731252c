/**
 * Writes. Blobs and trees of API commits are written in-process (object-writer.ts) from the base tree read through the batch reader; commits,
 * tags and merges by plumbing (`commit-tree`, `mktag`, `merge-tree --write-tree`), never in a work tree, and
 * refs move by compare-and-swap
 * (`update-ref --stdin` with the old value) under the repository's lock. Dates and identities come from the
 * caller, so the same inputs make the same shas.
 */
import {
  GitCommandError,
  GitErrorThrown,
  commitRefused,
  fail,
  indexError,
  invalidInput,
  invalidRefName,
  mergeConflict,
  notFastForward,
  recordFailed,
  refChanged,
  refExists,
  refNotFound,
  revisionNotFound,
} from './errors.js';
import { git, gitText } from './exec.js';
import { type RepoContext, findCommitObject, readCommits, requireCommit } from './context.js';
import { ZERO_SHA, asSha, formatTag, gitDateFromIso } from './objects.js';
import { isValidFullRefName, isValidNewRefName } from './ref-names.js';
import { currentValues, findTag } from './refs.js';
import { isAncestor, isRepositoryPath, lastCommitFor, mergeBase } from './reads.js';
import { writeObject, writeTrees } from './object-writer.js';
import type {
  Branch,
  Commit,
  CommitAction,
  CommitFilesInput,
  CommitFilesResult,
  CommitStats,
  CreateBranchInput,
  CreateTagInput,
  MergeInput,
  MergeResult,
  RefChange,
  Sha,
  Signature,
  Tag,
  WriteOptions,
} from './types.js';

// ---------------------------------------------------------------------------------------------------------
// Identities and refs

/** `Name <email> <seconds> <offset>` parts, refused when git would refuse or rewrite them. */
const gitIdentity = (signature: Signature, role: string): { name: string; email: string; date: string } => {
  const date = gitDateFromIso(signature.at);
  if (date === null) return fail(invalidInput(`${role} date is invalid`));
  if (signature.name.trim() === '' || /[<>\n\0]/.test(signature.name)) return fail(invalidInput(`${role} name is invalid`));
  if (/[<>\n\0]/.test(signature.email)) return fail(invalidInput(`${role} email is invalid`));
  return { name: signature.name, email: signature.email, date };
};

const commitEnv = (author: Signature, committer: Signature): Record<string, string> => {
  const a = gitIdentity(author, 'author');
  const c = gitIdentity(committer, 'committer');
  return {
    GIT_AUTHOR_NAME: a.name,
    GIT_AUTHOR_EMAIL: a.email,
    GIT_AUTHOR_DATE: a.date,
    GIT_COMMITTER_NAME: c.name,
    GIT_COMMITTER_EMAIL: c.email,
    GIT_COMMITTER_DATE: c.date,
  };
};

/** Moves refs in one transaction, each only if it still has its `oldSha` (absent when null). */
export const updateRefs = async (ctx: RepoContext, changes: readonly RefChange[], env: Readonly<Record<string, string>> = {}): Promise<void> => {
  if (changes.length === 0) return;
  // Names reach update-ref's stdin protocol: nothing but a valid ref name may (a newline would be a command).
  const invalid = changes.find((change) => !isValidFullRefName(change.ref));
  if (invalid) fail(invalidRefName(invalid.ref, `Invalid reference name: ${invalid.ref}`));
  const commands = changes.map((change) => `update ${change.ref} ${change.newSha ?? ZERO_SHA} ${change.oldSha ?? ZERO_SHA}\n`).join('');
  try {
    // The repository's running `update-ref --stdin` (ref-updater.ts); a one-off process for another environment.
    if (Object.keys(env).length === 0) await ctx.refUpdates.transaction(ctx.gitDir, commands);
    else await git(ctx.gitDir, ['update-ref', '--stdin'], { input: `start\n${commands}prepare\ncommit\n`, env });
  } catch (error) {
    if (error instanceof GitCommandError) {
      // A ref cannot be both a name and a directory of names (`a` and `a/b`).
      const clash = /'([^']+)' exists; cannot create '([^']+)'/.exec(error.stderr);
      if (clash) fail(refExists(clash[2]!, `Cannot create ${clash[2]}: ${clash[1]} exists`));
      const lost = changes.find((change) => error.stderr.includes(`'${change.ref}'`)) ?? changes[0]!;
      fail(refChanged(lost.ref, lost.oldSha));
    }
    throw error;
  }
};

/** Runs a write under the repository's lock; `record` runs before the lock is freed (and undoes the write if it fails). */
export const locked = <A extends { changes: readonly RefChange[] }>(ctx: RepoContext, options: WriteOptions | undefined, write: () => Promise<A>): Promise<A> =>
  ctx.lock.run(ctx.gitDir, () => recorded(ctx, options, write));

/**
 * As `locked`, for a write that moves `ref` alone: under that ref's lock and the repository's shared lock
 * (lock.ts), so writes to other branches run meanwhile; its `record` still runs after its ref moved.
 */
const lockedRef = <A extends { changes: readonly RefChange[] }>(ctx: RepoContext, ref: string, options: WriteOptions | undefined, write: () => Promise<A>): Promise<A> =>
  ctx.lock.runBranch(ctx.gitDir, ref, () => recorded(ctx, options, write));

const recorded = async <A extends { changes: readonly RefChange[] }>(ctx: RepoContext, options: WriteOptions | undefined, write: () => Promise<A>): Promise<A> => {
  const result = await write();
  if (options?.record && result.changes.length > 0) {
    try {
      await options.record(result.changes);
    } catch (cause) {
      const undo = [...result.changes].reverse().map((change): RefChange => ({ ref: change.ref, oldSha: change.newSha, newSha: change.oldSha }));
      await updateRefs(ctx, undo);
      return fail(recordFailed(cause));
    }
  }
  return result;
};

// ---------------------------------------------------------------------------------------------------------
// Commits with actions

interface IndexEntry {
  readonly mode: string;
  /** A sha, or the index of the action whose content becomes the blob. */
  readonly blob: Sha | { readonly action: number };
}

/** The platform's path rule (Gitaly's `validatePath`): relative, already clean, nothing git refuses in an index. */
const checkPath = (path: string): void => {
  if (path === '') fail(indexError('empty_path', path));
  const parts = path.split('/');
  if (path.startsWith('/') || parts.some((part) => part === '' || part === '.' || part === '..')) fail(indexError('directory_traversal', path));
  if (path.includes('\0') || parts.some((part) => part.toLowerCase() === '.git')) fail(indexError('invalid_path', path));
};

const base64Pattern = /^[A-Za-z0-9+/\r\n]*={0,2}[\r\n]*$/;

const decodeContent = (action: CommitAction): Buffer => {
  const content = action.content ?? '';
  if (action.encoding !== 'base64') return Buffer.from(content, 'utf8');
  if (!base64Pattern.test(content)) return fail(invalidInput(`content of ${action.file_path} is not valid base64`));
  return Buffer.from(content, 'base64');
};

/** The index as a map, with the checks the platform's commit service makes for each action, in order. */
class TreeEdit {
  constructor(private readonly entries: Map<string, IndexEntry>) {}

  /** The deepest existing file that is a proper ancestor directory of `path` (a file where a directory must go). */
  private fileAbove(path: string): string | null {
    for (let slash = path.indexOf('/'); slash !== -1; slash = path.indexOf('/', slash + 1)) {
      if (this.entries.has(path.slice(0, slash))) return path.slice(0, slash);
    }
    return null;
  }

  private isDirectory(path: string): boolean {
    const prefix = `${path}/`;
    for (const key of this.entries.keys()) if (key.startsWith(prefix)) return true;
    return false;
  }

  private requireFile(path: string): IndexEntry {
    return this.entries.get(path) ?? fail(indexError('file_not_found', path));
  }

  private requireFree(path: string): void {
    if (this.entries.has(path)) fail(indexError('file_exists', path));
    if (this.isDirectory(path)) fail(indexError('directory_exists', path));
    const file = this.fileAbove(path);
    if (file !== null) fail(indexError('file_exists', file));
  }

  apply(action: CommitAction, index: number): void {
    checkPath(action.file_path);
    const path = action.file_path;
    switch (action.action) {
      case 'create':
        this.requireFree(path);
        this.entries.set(path, { mode: action.execute_filemode ? '100755' : '100644', blob: { action: index } });
        return;
      case 'update':
        this.entries.set(path, { mode: this.requireFile(path).mode, blob: { action: index } });
        return;
      case 'delete':
        this.requireFile(path);
        this.entries.delete(path);
        return;
      case 'chmod': {
        const entry = this.requireFile(path);
        this.entries.set(path, { mode: action.execute_filemode ? '100755' : '100644', blob: entry.blob });
        return;
      }
      case 'move': {
        const previous = action.previous_path ?? '';
        checkPath(previous);
        const moved = this.requireFile(previous);
        this.entries.delete(previous);
        this.requireFree(path);
        // No content: the file keeps its content (the platform's `infer_content`).
        this.entries.set(path, { mode: moved.mode, blob: action.content === undefined ? moved.blob : { action: index } });
        return;
      }
      default:
        fail(invalidInput(`Unknown action '${String((action as { action: unknown }).action)}'`));
    }
  }

  /** The files after the edit (path → mode and sha), and the paths added, removed or changed since `before`. */
  result(before: ReadonlyMap<string, IndexEntry>, blobs: ReadonlyMap<number, Sha>): { files: Map<string, { mode: string; sha: Sha }>; changed: string[] } {
    const shaOf = (entry: IndexEntry): Sha => (typeof entry.blob === 'string' ? entry.blob : blobs.get(entry.blob.action)!);
    const files = new Map<string, { mode: string; sha: Sha }>();
    const changed: string[] = [];
    for (const path of before.keys()) if (!this.entries.has(path)) changed.push(path);
    for (const [path, entry] of this.entries) {
      const old = before.get(path);
      const sha = shaOf(entry);
      files.set(path, { mode: entry.mode, sha });
      if (old === undefined || old.mode !== entry.mode || shaOf(old) !== sha) changed.push(path);
    }
    return { files, changed };
  }
}

/** git's canonical mode of a tree entry (`canon_mode`), as `ls-tree` prints it: odd file modes become 100644/100755. */
const canonicalMode = (octal: number): string => {
  const type = octal & 0o170000;
  if (type === 0o040000) return '040000';
  if (type === 0o120000) return '120000';
  if (type === 0o160000) return '160000';
  return octal & 0o111 ? '100755' : '100644';
};

/**
 * The files of a tree (path → mode and blob) and its directories (path → tree sha), read through the batch
 * reader one level at a time (no process: a commit through the API used to start an `ls-tree -r` for this).
 */
const readTree = async (ctx: RepoContext, tree: Sha | null): Promise<{ files: Map<string, IndexEntry>; trees: Map<string, Sha> }> => {
  const files = new Map<string, IndexEntry>();
  const trees = new Map<string, Sha>();
  let level: { path: string; sha: Sha }[] = tree === null ? [] : [{ path: '', sha: tree }];
  while (level.length > 0) {
    const objects = await ctx.objects.readAll(
      ctx.gitDir,
      level.map((entry) => entry.sha),
    );
    const next: { path: string; sha: Sha }[] = [];
    objects.forEach((object, index) => {
      const { path: prefix, sha: treeSha } = level[index]!;
      if (!object || object.type !== 'tree') throw new Error(`tree ${treeSha} is missing`);
      const data = object.data;
      // `<octal mode> SP <name> NUL <20-byte sha>` per entry.
      for (let at = 0; at < data.length; ) {
        const space = data.indexOf(0x20, at);
        const nul = data.indexOf(0, space + 1);
        if (space === -1 || nul === -1 || nul + 21 > data.length) throw new Error(`tree ${treeSha} is malformed`);
        const mode = canonicalMode(parseInt(data.toString('latin1', at, space), 8));
        const name = data.toString('utf8', space + 1, nul);
        const sha = asSha(data.toString('hex', nul + 1, nul + 21));
        const path = prefix === '' ? name : `${prefix}/${name}`;
        if (mode === '040000') {
          trees.set(path, sha);
          next.push({ path, sha });
        } else files.set(path, { mode, blob: sha });
        at = nul + 21;
      }
    });
    level = next;
  }
  return { files, trees };
};

/**
 * A tree: `base` (a commit's tree, or empty) with the actions applied. The base is listed once; blobs and the
 * trees along the changed paths are written here (object-writer.ts), the other directories keep their trees.
 */
const buildTree = async (ctx: RepoContext, base: Sha | null, actions: readonly CommitAction[]): Promise<Sha> => {
  const { files: before, trees } = await readTree(ctx, base);
  const edit = new TreeEdit(new Map(before));
  actions.forEach((action, index) => edit.apply(action, index));
  const blobs = new Map<number, Sha>();
  await Promise.all(
    actions.map(async (action, index) => {
      const writes = action.action === 'create' || action.action === 'update' || (action.action === 'move' && action.content !== undefined);
      if (writes) blobs.set(index, await writeObject(ctx.gitDir, 'blob', decodeContent(action)));
    }),
  );
  const { files, changed } = edit.result(before, blobs);
  return writeTrees(ctx.gitDir, files, trees, changed);
};

/** Git's `crud`: what `fmt_ident` strips from both ends of a name and an e-mail address. */
const isCrud = (code: number) => code <= 32 || '.,:;<>"\\\''.includes(String.fromCharCode(code));

/** `strbuf_addstr_without_crud`: crud off both ends, and `<`, `>` and newlines out of the middle. */
const withoutCrud = (value: string): string => {
  let start = 0;
  let end = value.length;
  while (start < end && isCrud(value.charCodeAt(start))) start++;
  while (end > start && isCrud(value.charCodeAt(end - 1))) end--;
  return value.slice(start, end).replace(/[<>\n]/g, '');
};

/** The `author`/`committer` line's value as `commit-tree` writes it; null when only git itself can say. */
const identLine = (signature: Signature, role: string): string | null => {
  const { name, email, date } = gitIdentity(signature, role);
  // git reads `<seconds> <zone>` as seconds only from 100000000 on (1973); older dates are left to git.
  if (!/^\d{9,} [+-]\d{4}$/.test(date) || Number(date.split(' ')[0]) < 100_000_000) return null;
  const cleanName = withoutCrud(name);
  if (cleanName === '') return fail(invalidInput(`${role} name is invalid`));
  return `${cleanName} <${withoutCrud(email)}> ${date}`;
};

/**
 * A commit object, written in-process as `commit-tree` would write it (the same bytes, so the same sha: tested
 * against git); `commit-tree` itself for the dates it reads differently.
 */
const commitTree = async (ctx: RepoContext, tree: Sha, parents: readonly Sha[], message: string, author: Signature, committer: Signature): Promise<Sha> => {
  const authorLine = identLine(author, 'author');
  const committerLine = identLine(committer, 'committer');
  if (authorLine === null || committerLine === null) {
    const args = ['commit-tree', tree, ...parents.flatMap((parent) => ['-p', parent])];
    return asSha(await gitText(ctx.gitDir, args, { input: message, env: commitEnv(author, committer) }));
  }
  const headers = [`tree ${tree}`, ...parents.map((parent) => `parent ${parent}`), `author ${authorLine}`, `committer ${committerLine}`];
  return writeObject(ctx.gitDir, 'commit', Buffer.from(`${headers.join('\n')}\n\n${message}`, 'utf8'));
};

const branchRef = (name: string) => `refs/heads/${name}`;

/** A compare-and-swap lost to a writer outside this process is tried again this many times, from the new value. */
const CAS_ATTEMPTS = 3;

/**
 * `POST /projects/:id/repository/commits`, with the checks of the platform's commit service. A commit to an
 * existing branch holds that branch's lock only (commits to other branches proceed); one that creates a
 * branch holds the repository's (whether the repository is empty decides what it may do).
 */
export const commitFiles = async (ctx: RepoContext, input: CommitFilesInput, options?: WriteOptions): Promise<CommitFilesResult> => {
  const ref = branchRef(input.branch);
  const exists = isValidFullRefName(ref) && ((await currentValues(ctx, [ref])).get(ref) ?? null) !== null;
  for (let attempt = 1; ; attempt++) {
    try {
      const write = () => commitFilesUnlocked(ctx, input);
      return await (exists ? lockedRef(ctx, ref, options, write) : locked(ctx, options, write));
    } catch (error) {
      const lost = error instanceof GitErrorThrown && error.error._tag === 'RefChanged' && attempt < CAS_ATTEMPTS;
      if (!lost) throw error;
    }
  }
};

const commitFilesUnlocked = async (ctx: RepoContext, input: CommitFilesInput): Promise<CommitFilesResult> => {
  // No actions is an empty commit on the base's tree: the platform made one from `actions: []` (go-gitlab #1123,
  // 2021); refusing it unless `allow_empty` came much later.
  // The API defaults `start_branch` to `branch`.
  const startBranch = input.start_sha === undefined ? (input.start_branch ?? input.branch) : input.start_branch;
  if (input.start_sha !== undefined && input.start_branch !== undefined) fail(commitRefused("You can't pass both start_branch and start_sha"));
  const ref = branchRef(input.branch);
  const values = await currentValues(ctx, [ref, ...(startBranch === undefined ? [] : [branchRef(startBranch)])]);
  const target = values.get(ref) ?? null;
  // An empty repository (no branch at all) takes a first commit on any branch.
  const empty = target === null && (await gitText(ctx.gitDir, ['for-each-ref', '--count=1', '--format=x', 'refs/heads/'])) === '';

  let parent: Sha | null;
  if (input.start_sha !== undefined) {
    if (!/^[0-9a-fA-F]{7,40}$/.test(input.start_sha)) fail(commitRefused(`Invalid start_sha '${input.start_sha}'`));
    parent = (await findCommitObject(ctx, input.start_sha))?.id ?? fail(commitRefused(`Cannot find start_sha '${input.start_sha}'`));
  } else {
    parent = values.get(branchRef(startBranch!)) ?? null;
    if (parent === null && !empty) fail(commitRefused('You can only create or edit files when you are on a branch'));
  }
  const differentBranch = startBranch !== input.branch || input.start_sha !== undefined;
  if (!empty && differentBranch && target !== null && !input.force) {
    fail(commitRefused(`A branch called '${input.branch}' already exists. Switch to that branch in order to make changes`));
  }
  if (target === null && !isValidNewRefName(input.branch)) {
    fail(commitRefused(`Something went wrong when we tried to create '${input.branch}' for you: Branch name is invalid`));
  }

  // `last_commit_id`: the file must not have changed since the caller read it.
  if (parent !== null) {
    for (const action of input.actions) {
      if (action.last_commit_id === undefined || !['update', 'move', 'delete'].includes(action.action)) continue;
      const path = action.previous_path ?? action.file_path;
      // No file lies outside the repository to have changed: the action's own checks answer for such a path (git
      // refuses the pathspec, which was a 500).
      if (!isRepositoryPath(path)) continue;
      const last = await lastCommitFor(ctx, parent, path);
      if (last !== null && last !== action.last_commit_id) fail(commitRefused(`The file has changed since you started editing it: ${path}`));
    }
  }

  const base = parent === null ? null : (await requireCommit(ctx, parent)).tree_id;
  const tree = await buildTree(ctx, base, input.actions);
  const sha = await commitTree(ctx, tree, parent === null ? [] : [parent], input.commit_message, input.author, input.committer);
  // The ref moves from what it is now: the parent, or (with `force`, or on a new branch) its current value.
  const change: RefChange = { ref, oldSha: target, newSha: sha };
  await updateRefs(ctx, [change]);
  const [commit] = await readCommits(ctx, [sha]);
  const stats = createdStats(input.actions);
  return { commit: commit!, branchCreated: target === null, changes: [change], ...(stats !== null ? { stats } : {}) };
};

/** git's binary test (`buffer_is_binary`): a NUL among the first 8000 bytes. */
const isBinary = (content: Buffer) => content.subarray(0, 8000).includes(0);

/** Lines as xdiff counts them: newlines, and a last line without one. */
const lineCount = (content: Buffer) => {
  let lines = 0;
  for (let at = content.indexOf(0x0a); at !== -1; at = content.indexOf(0x0a, at + 1)) lines++;
  return content.length > 0 && content[content.length - 1] !== 0x0a ? lines + 1 : lines;
};

/**
 * `diff --numstat -M` of a commit whose actions all create files: every line of each new (text) file is an
 * addition, nothing is deleted, and with nothing deleted there is no rename to find. Null otherwise (git says).
 */
const createdStats = (actions: readonly CommitAction[]): CommitStats | null => {
  if (!actions.every((action) => action.action === 'create')) return null;
  let additions = 0;
  for (const action of actions) {
    const content = decodeContent(action);
    if (!isBinary(content)) additions += lineCount(content);
  }
  return { additions, deletions: 0, total: additions };
};

// ---------------------------------------------------------------------------------------------------------
// Branches and tags

export const createBranch = (ctx: RepoContext, input: CreateBranchInput, options?: WriteOptions): Promise<{ branch: Branch; changes: readonly RefChange[] }> =>
  locked(ctx, options, async () => {
    if (!isValidNewRefName(input.branch)) fail(invalidRefName(input.branch, 'Branch name is invalid'));
    const ref = branchRef(input.branch);
    if ((await currentValues(ctx, [ref])).get(ref)) fail(refExists(ref, 'Branch already exists'));
    const commit = (await findCommitObject(ctx, input.ref)) ?? fail(revisionNotFound(input.ref, `Invalid reference name: ${input.ref}`));
    const change: RefChange = { ref, oldSha: null, newSha: commit.id };
    await updateRefs(ctx, [change]);
    return { branch: { name: input.branch, commit }, changes: [change] };
  });

export const deleteBranch = (ctx: RepoContext, input: { branch: string; expectedSha?: Sha }, options?: WriteOptions): Promise<{ changes: readonly RefChange[] }> =>
  locked(ctx, options, async () => {
    const ref = branchRef(input.branch);
    const current = (await currentValues(ctx, [ref])).get(ref) ?? null;
    if (current === null) return fail(refNotFound(ref, 'No such branch'));
    if (input.expectedSha !== undefined && input.expectedSha !== current) fail(refChanged(ref, input.expectedSha));
    const change: RefChange = { ref, oldSha: current, newSha: null };
    await updateRefs(ctx, [change]);
    return { changes: [change] };
  });

/** `POST …/repository/tags`: lightweight, or annotated when the (stripped) message is not blank. */
export const createTag = (ctx: RepoContext, input: CreateTagInput, options?: WriteOptions): Promise<{ tag: Tag; changes: readonly RefChange[] }> =>
  locked(ctx, options, async () => {
    if (!isValidNewRefName(input.tag_name)) fail(invalidRefName(input.tag_name, 'Tag name invalid'));
    const ref = `refs/tags/${input.tag_name}`;
    if ((await currentValues(ctx, [ref])).get(ref)) fail(refExists(ref, `Tag ${input.tag_name} already exists`));
    const commit = (await findCommitObject(ctx, input.ref)) ?? fail(revisionNotFound(input.ref, `Target ${input.ref} is invalid`));
    const message = input.message?.trim() ?? '';
    let target: Sha = commit.id;
    if (message !== '') {
      if (input.tagger === undefined) return fail(invalidInput('An annotated tag needs a tagger'));
      const tagger = gitIdentity(input.tagger, 'tagger');
      const object = formatTag({ object: commit.id, type: 'commit', name: input.tag_name, tagger: `${tagger.name} <${tagger.email}> ${tagger.date}`, message: `${message}\n` });
      target = asSha(await gitText(ctx.gitDir, ['mktag'], { input: object }));
    }
    const change: RefChange = { ref, oldSha: null, newSha: target };
    await updateRefs(ctx, [change]);
    return { tag: await findTag(ctx, input.tag_name), changes: [change] };
  });

export const deleteTag = (ctx: RepoContext, input: { tag_name: string; expectedSha?: Sha }, options?: WriteOptions): Promise<{ changes: readonly RefChange[] }> =>
  locked(ctx, options, async () => {
    const ref = `refs/tags/${input.tag_name}`;
    const current = (await currentValues(ctx, [ref])).get(ref) ?? null;
    if (current === null) return fail(refNotFound(ref, 'No such tag'));
    if (input.expectedSha !== undefined && input.expectedSha !== current) fail(refChanged(ref, input.expectedSha));
    const change: RefChange = { ref, oldSha: current, newSha: null };
    await updateRefs(ctx, [change]);
    return { changes: [change] };
  });

// ---------------------------------------------------------------------------------------------------------
// Merges

const conflictedPaths = (output: Buffer): string[] => {
  // `merge-tree --write-tree -z --name-only`: the tree id, then conflicted paths, then an empty record.
  const records = output.toString('utf8').split('\0');
  const paths: string[] = [];
  for (const record of records.slice(1)) {
    if (record === '') break;
    if (!paths.includes(record)) paths.push(record);
  }
  return paths;
};

/**
 * The squash commit: the source's tree on the merge base of target and source, authored by `squash.author`. A
 * source that adds a single commit with the same message is its own squash.
 */
const squash = async (ctx: RepoContext, target: Sha, source: Commit, input: NonNullable<MergeInput['squash']>, committer: Signature): Promise<Sha> => {
  const base = await mergeBase(ctx, target, source.id);
  const added = Number(await gitText(ctx.gitDir, ['rev-list', '--count', base === null ? source.id : `${base}..${source.id}`]));
  if (added === 0) return source.id;
  if (added === 1 && source.message === input.message) return source.id;
  return commitTree(ctx, source.tree_id, base === null ? [] : [base], input.message, input.author, committer);
};

export const merge = (ctx: RepoContext, input: MergeInput, options?: WriteOptions): Promise<MergeResult> =>
  locked(ctx, options, async () => {
    const ref = branchRef(input.target_branch);
    const target = (await currentValues(ctx, [ref])).get(ref) ?? fail(refNotFound(ref, 'Target branch does not exist'));
    if (input.expected_target_sha !== undefined && input.expected_target_sha !== target) fail(refChanged(ref, asSha(input.expected_target_sha)));
    const source = await requireCommit(ctx, input.source_sha, 'Invalid merge source');
    const merged = input.squash === undefined ? source.id : await squash(ctx, target, source, input.squash, input.committer);
    const fastForward = input.mode !== 'merge_commit' && (await isAncestor(ctx, target, merged));
    if (input.mode === 'fast_forward' && !fastForward) fail(notFastForward());
    let sha: Sha = merged;
    if (!fastForward) {
      const result = await git(ctx.gitDir, ['merge-tree', '--write-tree', '-z', '--name-only', '--allow-unrelated-histories', target, merged], { okCodes: [0, 1] });
      if (result.code === 1) fail(mergeConflict(conflictedPaths(result.stdout)));
      const tree = asSha(result.stdout.toString('utf8').split('\0')[0]!.trim());
      sha = await commitTree(ctx, tree, [target, merged], input.message, input.author, input.committer);
    }
    const change: RefChange = { ref, oldSha: target, newSha: sha };
    await updateRefs(ctx, [change]);
    const [commit] = await readCommits(ctx, [sha]);
    return { commit: commit!, fastForward, squashSha: input.squash === undefined ? null : merged, changes: [change] };
  });

/**
 * The port the core's `repositories` module will depend on: storage of one bare repository per project, and
 * reads and writes on one of them. Everything answers `GitResult` (a Promise of an fp-ts Either); nothing throws
 * for an expected failure, and no git object leaves the engine.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SmartHttpRequest } from './smart-http.js';
import type {
  ArchiveQuery,
  Blob,
  Branch,
  BundleResult,
  Commit,
  CommitFilesInput,
  CommitFilesResult,
  CommitStats,
  CompareQuery,
  Comparison,
  ContainingRef,
  CreateBranchInput,
  CreateRepositoryInput,
  CreateTagInput,
  CreatedRepository,
  DiffFile,
  DiffOptions,
  GitResult,
  LogQuery,
  MergeInput,
  MergeResult,
  Page,
  RawBlob,
  BlameRange,
  RefChange,
  RefQuery,
  Sha,
  Tag,
  TreeEntry,
  TreeQuery,
  WriteOptions,
} from './types.js';

/** A project's id; its repository lives at `@hashed/<2>/<2>/<sha256 of the id>.git` below the root. */
export type ProjectKey = number | string;

export interface Repositories {
  /** The directory of a project's repository (whether or not it exists). */
  pathOf(project: ProjectKey): string;
  exists(project: ProjectKey): Promise<boolean>;
  /** A bare repository with HEAD on `default_branch`, and a first commit when `readme` is given. */
  create(project: ProjectKey, input?: CreateRepositoryInput, options?: WriteOptions): GitResult<CreatedRepository>;
  /** Removes the repository (the caller does so after recording the project's deletion). */
  remove(project: ProjectKey): GitResult<void>;
  /** The repository of a project; its operations answer `RepositoryNotFound` while it does not exist. */
  open(project: ProjectKey): Repository;
  /** Writes a bundle of every ref to `file` (`git bundle create --all`); nothing for a repository without refs. */
  exportBundle(project: ProjectKey, file: string): GitResult<BundleResult>;
  /**
   * A fork's repository: every branch and tag of `source` copied into `target` (existing, without refs), under
   * `target`'s lock; `options.record` records the changes (and undoes them when it fails).
   */
  copyRefs(target: ProjectKey, source: ProjectKey, options?: WriteOptions): GitResult<readonly RefChange[]>;
  /** Creates the repository from a bundle (or empty, for `null`), HEAD on `default_branch`. */
  importBundle(project: ProjectKey, file: string | null, input?: { readonly default_branch?: string }): GitResult<Readonly<Record<string, Sha>>>;
  /**
   * Serves `git clone/fetch/push` over smart HTTP for one project's repository (the caller resolved the project
   * and does the authentication; `request.authorize` and `request.push` carry its decisions).
   */
  serveHttp(project: ProjectKey, req: IncomingMessage, res: ServerResponse, request: SmartHttpRequest): Promise<void>;
  /**
   * Removes every repository directory below the root that belongs to none of `keep` (a project deleted while the
   * server was down), and staging leftovers of interrupted creations and removals. Answers the paths removed.
   * `keep` may be a test of a repository's path, asked when the sweep reaches it (under that path's lock), for a
   * sweep that runs while repositories are being created.
   */
  sweep(keep: readonly ProjectKey[] | ((path: string) => boolean)): GitResult<readonly string[]>;
  /** Stops the batch readers and the push gateway. */
  close(): Promise<void>;
}

export interface Repository {
  // Refs
  findBranch(name: string): GitResult<Branch>;
  listBranches(query?: RefQuery): GitResult<Page<Branch>>;
  findTag(name: string): GitResult<Tag>;
  listTags(query?: RefQuery): GitResult<Page<Tag>>;
  /** The branch HEAD points at (the default branch), whether or not it exists yet. */
  headBranch(): GitResult<string>;
  /** True while no branch exists. */
  isEmpty(): GitResult<boolean>;
  /** Every ref and the object it points at. */
  refs(): GitResult<Readonly<Record<string, Sha>>>;

  // Commits and history
  /** A commit by sha (full or abbreviated), branch, tag, or `rev~n`. */
  findCommit(revision: string): GitResult<Commit>;
  commitStats(revision: string): GitResult<CommitStats>;
  log(query: LogQuery): GitResult<Page<Commit>>;
  /** Commits reachable from `to` and not from `from` (null: none excluded), oldest first; `limit` keeps the newest. */
  commitsBetween(from: string | null, to: string, limit?: number): GitResult<Page<Commit>>;
  /** The best common ancestor (`git merge-base`; more than two revisions as git takes them), null for none. */
  mergeBase(a: string, b: string, ...more: readonly string[]): GitResult<Sha | null>;
  isAncestor(ancestor: string, descendant: string): GitResult<boolean>;
  refsContaining(revision: string, type?: 'branch' | 'tag' | 'all'): GitResult<readonly ContainingRef[]>;
  /** Whether `source` merges into `target` without conflicts (`merge-tree`; nothing moves). */
  mergeable(target: string, source: string): GitResult<boolean>;

  // Files and diffs
  tree(query: TreeQuery): GitResult<Page<TreeEntry>>;
  blob(query: { readonly ref: string; readonly path: string }): GitResult<Blob>;
  rawBlob(id: string): GitResult<RawBlob>;
  /** Each commit's git trailers, as Gitaly's `trailers: true` gives them (`%(trailers:unfold)`; a repeated key, the last). */
  trailers(shas: readonly Sha[]): GitResult<ReadonlyMap<Sha, Readonly<Record<string, string>>>>;
  /** `git blame` of the file at `path` in commit `ref`: consecutive lines of one commit grouped (an empty file: none). */
  blame(query: { readonly ref: string; readonly path: string }): GitResult<readonly BlameRange[]>;
  /** The commit `ref` names and its archive (`git archive`), held in memory. */
  archive(query: ArchiveQuery): GitResult<{ readonly commit: Sha; readonly content: Buffer }>;
  commitDiff(revision: string, options?: DiffOptions): GitResult<readonly DiffFile[]>;
  compare(query: CompareQuery & DiffOptions): GitResult<Comparison>;

  // Writes: each answers the ref changes it made
  commitFiles(input: CommitFilesInput, options?: WriteOptions): GitResult<CommitFilesResult>;
  createBranch(input: CreateBranchInput, options?: WriteOptions): GitResult<{ readonly branch: Branch; readonly changes: readonly RefChange[] }>;
  deleteBranch(input: { readonly branch: string; readonly expectedSha?: Sha }, options?: WriteOptions): GitResult<{ readonly changes: readonly RefChange[] }>;
  createTag(input: CreateTagInput, options?: WriteOptions): GitResult<{ readonly tag: Tag; readonly changes: readonly RefChange[] }>;
  deleteTag(input: { readonly tag_name: string; readonly expectedSha?: Sha }, options?: WriteOptions): GitResult<{ readonly changes: readonly RefChange[] }>;
  merge(input: MergeInput, options?: WriteOptions): GitResult<MergeResult>;
  /**
   * Points HEAD at another branch (the project's `default_branch`); moves no ref. `heldLock`: called from a write's
   * record step, which holds the repository's lock (git's own `HEAD.lock` keeps the change atomic).
   */
  setHeadBranch(name: string, options?: { readonly heldLock?: boolean }): GitResult<void>;
  /**
   * Makes the refs exactly `wanted` (refs not named are deleted), compare-and-swap from their current values,
   * under the repository's lock; answers the moves made (none when they agree). The objects must exist.
   */
  alignRefs(wanted: Readonly<Record<string, Sha>>): GitResult<readonly RefChange[]>;
  /** Packs loose refs (a repository with many tags lists faster). */
  packRefs(): GitResult<void>;
}

/**
 * The repository port: plain data in and out. Shapes that the platform exposes (commits, tags, tree entries,
 * diffs, commit actions) keep the platform's field names, so an adapter can pass them through; the engine's own
 * notions (ref changes, queries, options) use the TypeScript names of the rest of the code base.
 */
import type { Either } from 'fp-ts/lib/Either.js';
import type { GitError } from './errors.js';

declare const shaBrand: unique symbol;
/** A full 40-hex object id (SHA-1). Made only by `asSha`/`parseSha` or read from git. */
export type Sha = string & { readonly [shaBrand]: true };

/** Every operation answers a value: the error or the result. Wrap in `() => …` for an fp-ts TaskEither. */
export type GitResult<A> = Promise<Either<GitError, A>>;

/** A ref moved by a write or a push. `null` stands for "absent": created when `oldSha` is null, deleted when `newSha` is. */
export interface RefChange {
  /** Full name: `refs/heads/main`, `refs/tags/v1.0`. */
  readonly ref: string;
  readonly oldSha: Sha | null;
  readonly newSha: Sha | null;
}

export interface Identity {
  readonly name: string;
  readonly email: string;
}

/** Who did it and when. `at` is an ISO 8601 instant from the caller's clock (`Z` or an explicit offset, kept as given). */
export interface Signature extends Identity {
  readonly at: string;
}

/** A commit as the platform shows it (`Entities::Commit`). Dates keep the commit's own offset: `2021-05-01T10:00:00.000+02:00`. */
export interface Commit {
  readonly id: Sha;
  /** The first 8 characters of `id`. */
  readonly short_id: string;
  /** The first line of the message (untruncated; the platform's entity shortens titles of 100+ characters). */
  readonly title: string;
  readonly message: string;
  readonly parent_ids: readonly Sha[];
  readonly author_name: string;
  readonly author_email: string;
  readonly authored_date: string;
  readonly committer_name: string;
  readonly committer_email: string;
  readonly committed_date: string;
  readonly tree_id: Sha;
}

/** `stats` of `Entities::CommitDetail`: lines added and removed against the first parent (binary files count 0). */
export interface CommitStats {
  readonly additions: number;
  readonly deletions: number;
  readonly total: number;
}

export interface Branch {
  readonly name: string;
  readonly commit: Commit;
}

export interface Tagger extends Identity {
  /** ISO 8601 with the tagger's offset. */
  readonly date: string;
}

export interface Tag {
  readonly name: string;
  /** The tag object's id for an annotated tag, the commit's id for a lightweight one (the platform's `target`). */
  readonly target: Sha;
  /** The annotation, without the trailing newline git stores; `''` for a lightweight tag. */
  readonly message: string;
  readonly annotated: boolean;
  readonly tagger: Tagger | null;
  /** The commit the tag peels to; `null` when it points at a tree or a blob. */
  readonly commit: Commit | null;
}

/** The engine's ref orders. The platform's 14.7 `order_by=name` sorts like `version` (VersionSorter); later releases sort `name` plainly. */
export type RefOrder = 'name' | 'version' | 'updated';

export interface RefQuery {
  /** `^prefix`, `suffix$`, or a substring (an exact match first); case-insensitive. */
  readonly search?: string;
  /** Default `name`. `updated` orders by the committer date of the commit the ref peels to. */
  readonly orderBy?: RefOrder;
  /** Default `asc`. */
  readonly sort?: 'asc' | 'desc';
  readonly offset?: number;
  /** Default: all. */
  readonly limit?: number;
}

export interface Page<A> {
  readonly items: readonly A[];
  /** How many matched before paging (for `X-Total`). */
  readonly total: number;
}

export interface LogQuery {
  /** Branch, tag or commit; the caller picks the default branch when the platform's `ref_name` is absent. */
  readonly ref: string;
  /** ISO 8601; commits with a committer date on or after. */
  readonly since?: string;
  /** ISO 8601; commits with a committer date on or before. */
  readonly until?: string;
  readonly path?: string;
  readonly firstParent?: boolean;
  /** `default` is git's reverse chronological order; `topo` as `git log --topo-order`. */
  readonly order?: 'default' | 'topo';
  /** Every ref instead of `ref` (the API's `all`): Gitaly's `--all --reverse`, so a page comes oldest first. */
  readonly all?: boolean;
  /** Leaves merge commits out (`--no-merges`, the platform's `skip_merges`). */
  readonly noMerges?: boolean;
  readonly offset?: number;
  readonly limit?: number;
  /**
   * Default true. False skips counting the whole history (`rev-list --count`, a walk of every commit): the page's
   * `total` is then only what was skipped plus what was listed (the commits API shows no total).
   */
  readonly counted?: boolean;
}

export type TreeEntryType = 'tree' | 'blob' | 'commit';

/** `Entities::TreeObject`. */
export interface TreeEntry {
  readonly id: Sha;
  readonly name: string;
  readonly type: TreeEntryType;
  readonly path: string;
  /** Octal, as git prints it: `100644`, `100755`, `040000`, `120000`, `160000`. */
  readonly mode: string;
}

export interface TreeQuery {
  readonly ref: string;
  /** A directory; the root when absent or empty. */
  readonly path?: string;
  readonly recursive?: boolean;
  readonly offset?: number;
  readonly limit?: number;
}

/** A file at a ref (`GET …/files/:file_path`). */
export interface Blob {
  readonly file_name: string;
  readonly file_path: string;
  readonly size: number;
  readonly blob_id: Sha;
  /** The commit the ref resolved to. */
  readonly commit_id: Sha;
  /** The last commit that touched the path, reachable from `commit_id`. */
  readonly last_commit_id: Sha;
  readonly mode: string;
  readonly content: Buffer;
}

/** `GET …/repository/archive`: the tree of `ref` (optionally only `path`) under `prefix/`. */
export interface ArchiveQuery {
  readonly ref: string;
  readonly format: 'tar' | 'tar.gz' | 'tar.bz2' | 'zip';
  readonly prefix: string;
  readonly path?: string;
}

/** A run of consecutive lines of a file last changed by one commit (`Gitlab::Blame#groups`). */
export interface BlameRange {
  readonly commit: Commit;
  /** The lines' text, without their line ends. */
  readonly lines: readonly string[];
}

/** A blob by its id (`GET …/repository/blobs/:sha`). */
export interface RawBlob {
  readonly id: Sha;
  readonly size: number;
  readonly content: Buffer;
}

/**
 * One file of a diff (`Entities::Diff`). `diff` is the platform's text: the hunks from the first `@@` on, no
 * `diff --git`/`---`/`+++` header; `''` for binary files, mode-only changes and patches over the size limit
 * (then `too_large`). Hunk headers keep the old and new line numbers, so `parseDiffLines` recovers the positions
 * that diff notes' `line_code`s need.
 */
export interface DiffFile {
  readonly old_path: string;
  readonly new_path: string;
  /** Octal mode before (`0` for a new file) and after (`0` for a deleted one), as the platform renders them. */
  readonly a_mode: string;
  readonly b_mode: string;
  readonly new_file: boolean;
  readonly renamed_file: boolean;
  readonly deleted_file: boolean;
  readonly diff: string;
  readonly too_large: boolean;
  readonly binary: boolean;
  readonly old_blob_id: Sha | null;
  readonly new_blob_id: Sha | null;
}

export interface DiffOptions {
  /** A patch of this many bytes or more is dropped (`too_large`). Default 200 KiB, the platform's `diff_max_patch_bytes`. */
  readonly maxPatchBytes?: number;
  /** Only these paths. */
  readonly paths?: readonly string[];
}

export interface CompareQuery {
  readonly from: string;
  readonly to: string;
  /** `true`: diff `from`..`to` directly; default: from their merge base (`from...to`). */
  readonly straight?: boolean;
}

export interface Comparison {
  readonly fromSha: Sha;
  readonly toSha: Sha;
  /** The base the diffs are taken from: the merge base, or `fromSha` when straight. Null for unrelated histories. */
  readonly baseSha: Sha | null;
  /** Commits reachable from `to` and not from `from`, oldest first (`git log --reverse from..to`). */
  readonly commits: readonly Commit[];
  readonly diffs: readonly DiffFile[];
  /** `from` and `to` resolve to the same commit (`compare_same_ref`). */
  readonly sameRef: boolean;
}

export interface ContainingRef {
  readonly type: 'branch' | 'tag';
  readonly name: string;
}

// ---------------------------------------------------------------------------------------------------------
// Writes

/** One action of `POST /projects/:id/repository/commits`, with the platform's names. */
export interface CommitAction {
  readonly action: 'create' | 'update' | 'delete' | 'move' | 'chmod';
  readonly file_path: string;
  /** `move`: the file to move. */
  readonly previous_path?: string;
  /** `create`/`update`; `move` with content replaces it (absent keeps the moved file's content). */
  readonly content?: string;
  /** Default `text`. */
  readonly encoding?: 'text' | 'base64';
  /** `create`/`chmod`: executable (`100755`) or not. */
  readonly execute_filemode?: boolean;
  /** `update`/`move`/`delete`: refused when the last commit that touched the file is another. */
  readonly last_commit_id?: string;
}

export interface CommitFilesInput {
  /** The branch to commit into; created when it does not exist and a start point is given. */
  readonly branch: string;
  readonly commit_message: string;
  readonly actions: readonly CommitAction[];
  /** Where a new branch starts. The platform's API defaults it to `branch`, and so does the engine. */
  readonly start_branch?: string;
  readonly start_sha?: string;
  /** Commit into an existing `branch` from another start point, replacing its history (the platform's `force`). */
  readonly force?: boolean;
  readonly author: Signature;
  readonly committer: Signature;
}

export interface CommitFilesResult {
  readonly commit: Commit;
  readonly branchCreated: boolean;
  readonly changes: readonly RefChange[];
  /** `diff --numstat` against the parent, when known without git (every action creates a file); else ask `commitStats`. */
  readonly stats?: CommitStats;
}

export interface CreateBranchInput {
  readonly branch: string;
  /** A branch, tag or commit. */
  readonly ref: string;
}

export interface CreateTagInput {
  readonly tag_name: string;
  readonly ref: string;
  /** Makes an annotated tag; stripped as the platform does. Absent or blank: a lightweight tag. */
  readonly message?: string;
  /** Required with `message`: who tagged and when (the caller's clock). */
  readonly tagger?: Signature;
}

export type MergeMode =
  /** Always a merge commit, as the platform's `merge` method. */
  | 'merge_commit'
  /** Refused unless the target is an ancestor of the source; then the target moves to the source. */
  | 'fast_forward'
  /** A fast-forward when possible, a merge commit otherwise. */
  | 'fast_forward_or_merge';

export interface MergeInput {
  /** The branch that moves. */
  readonly target_branch: string;
  /** The commit merged in (a sha; the caller resolves the source branch, so the merged head is the one it saw). */
  readonly source_sha: string;
  /** Refuse when the target branch is no longer at this commit. */
  readonly expected_target_sha?: string;
  readonly mode: MergeMode;
  readonly message: string;
  readonly author: Signature;
  readonly committer: Signature;
  /**
   * Squash first (the platform's SquashService): one commit with the source's tree on the merge base, merged in
   * place of the source. Skipped when the source adds one commit that already has this message.
   */
  readonly squash?: { readonly message: string; readonly author: Signature };
}

export interface MergeResult {
  readonly commit: Commit;
  readonly fastForward: boolean;
  /** The commit merged in place of the source when squashing (the source itself when the squash was skipped). */
  readonly squashSha: Sha | null;
  readonly changes: readonly RefChange[];
}

export interface WriteOptions {
  /**
   * Runs under the repository's lock right after the refs moved, so that the caller records its events in the
   * order git applied the changes. When it rejects, the refs are moved back (compare-and-swap) and the write
   * answers `RecordFailed`.
   */
  readonly record?: (changes: readonly RefChange[]) => Promise<void>;
}

export interface ReadmeInput {
  readonly author: Signature;
  readonly committer: Signature;
  /** Default `Initial commit`. */
  readonly message?: string;
  /** Default `# <project name>\n`… the caller knows the project's name; the engine writes what it is given. */
  readonly content: string;
  /** Default `README.md`. */
  readonly file_path?: string;
}

export interface CreateRepositoryInput {
  /** Where HEAD points; default `main`. */
  readonly default_branch?: string;
  /** `initialize_with_readme`: one commit on the default branch. */
  readonly readme?: ReadmeInput;
}

export interface CreatedRepository {
  readonly path: string;
  /** The initial commit, when a README was asked for. */
  readonly commit: Commit | null;
  readonly changes: readonly RefChange[];
}

export interface BundleResult {
  /** False for a repository without refs (git cannot bundle nothing; nothing is written). */
  readonly written: boolean;
  readonly refs: number;
}

/**
 * Every way a git operation can fail, as data. `message` is the platform's text where it has one (the API
 * renders most of them as `400 {"message": …}`), so an adapter passes it through.
 */
import * as E from 'fp-ts/lib/Either.js';
import type { Sha } from './types.js';

/** The index errors of the platform's commit service (Gitaly's `IndexError`). */
export type IndexErrorKind = 'file_exists' | 'file_not_found' | 'directory_exists' | 'directory_traversal' | 'empty_path' | 'invalid_path';

export type GitError =
  | { readonly _tag: 'RepositoryNotFound'; readonly message: string }
  | { readonly _tag: 'RepositoryExists'; readonly message: string }
  /** A branch, tag or commit that does not resolve (to a commit, where one is needed). */
  | { readonly _tag: 'RevisionNotFound'; readonly revision: string; readonly message: string }
  | { readonly _tag: 'PathNotFound'; readonly path: string; readonly message: string }
  | { readonly _tag: 'InvalidRefName'; readonly name: string; readonly message: string }
  | { readonly _tag: 'RefExists'; readonly ref: string; readonly message: string }
  | { readonly _tag: 'RefNotFound'; readonly ref: string; readonly message: string }
  /** Compare-and-swap lost: the ref was not at the expected commit. Nothing moved. */
  | { readonly _tag: 'RefChanged'; readonly ref: string; readonly expected: Sha | null; readonly message: string }
  | { readonly _tag: 'IndexError'; readonly kind: IndexErrorKind; readonly path: string; readonly message: string }
  /** A commit the platform's commit service refuses before touching git (start branch, existing branch, changed file). */
  | { readonly _tag: 'CommitRefused'; readonly message: string }
  | { readonly _tag: 'MergeConflict'; readonly paths: readonly string[]; readonly message: string }
  | { readonly _tag: 'NotFastForward'; readonly message: string }
  | { readonly _tag: 'InvalidInput'; readonly message: string }
  /** The caller's `record` rejected; the refs were moved back. */
  | { readonly _tag: 'RecordFailed'; readonly cause: unknown; readonly message: string }
  /** git itself failed in a way the engine does not expect: a bug or a broken repository. */
  | { readonly _tag: 'GitFailed'; readonly command: string; readonly exitCode: number | null; readonly stderr: string; readonly message: string };

export type GitErrorTag = GitError['_tag'];

export const repositoryNotFound = (): GitError => ({ _tag: 'RepositoryNotFound', message: 'Repository not found' });
export const repositoryExists = (): GitError => ({ _tag: 'RepositoryExists', message: 'There is already a repository with that name on disk' });
export const revisionNotFound = (revision: string, message = `Revision ${revision} not found`): GitError => ({
  _tag: 'RevisionNotFound',
  revision,
  message,
});
export const pathNotFound = (path: string, message = `Path ${path} not found`): GitError => ({ _tag: 'PathNotFound', path, message });
export const invalidRefName = (name: string, message: string): GitError => ({ _tag: 'InvalidRefName', name, message });
export const refExists = (ref: string, message: string): GitError => ({ _tag: 'RefExists', ref, message });
export const refNotFound = (ref: string, message: string): GitError => ({ _tag: 'RefNotFound', ref, message });
export const refChanged = (ref: string, expected: Sha | null): GitError => ({
  _tag: 'RefChanged',
  ref,
  expected,
  message: `Could not update ${ref}. Please refresh and try again.`,
});
export const commitRefused = (message: string): GitError => ({ _tag: 'CommitRefused', message });
export const invalidInput = (message: string): GitError => ({ _tag: 'InvalidInput', message });
export const mergeConflict = (paths: readonly string[]): GitError => ({ _tag: 'MergeConflict', paths, message: 'Merge conflict' });
export const notFastForward = (): GitError => ({ _tag: 'NotFastForward', message: 'Failed to merge: the target branch is not an ancestor of the source' });
export const recordFailed = (cause: unknown): GitError => ({
  _tag: 'RecordFailed',
  cause,
  message: `Recording the change failed: ${cause instanceof Error ? cause.message : String(cause)}`,
});

const indexMessages: Record<IndexErrorKind, (path: string) => string> = {
  file_exists: () => 'A file with this name already exists',
  file_not_found: () => "A file with this name doesn't exist",
  directory_exists: () => 'A directory with this name already exists',
  directory_traversal: () => 'Path cannot include directory traversal',
  empty_path: () => 'You must provide a file path',
  invalid_path: (path) => `invalid path: '${path}'`,
};
export const indexError = (kind: IndexErrorKind, path: string): GitError => ({ _tag: 'IndexError', kind, path, message: indexMessages[kind](path) });

/** An unexpected git failure, thrown inside the engine and turned into a value at its edge. */
export class GitCommandError extends Error {
  constructor(
    readonly command: string,
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super(`git ${command} failed (${exitCode ?? 'signal'}): ${stderr.trim().slice(0, 500)}`);
    this.name = 'GitCommandError';
  }
}

/** Thrown by engine internals to leave a pipeline with an expected error; `guard` turns it back into a value. */
export class GitErrorThrown extends Error {
  constructor(readonly error: GitError) {
    super(error.message);
    this.name = 'GitErrorThrown';
  }
}

export const fail = (error: GitError): never => {
  throw new GitErrorThrown(error);
};

/** Runs engine code that may throw `GitErrorThrown` (expected) or anything else (a git failure) and answers a value. */
export const guard = async <A>(run: () => Promise<A>): Promise<E.Either<GitError, A>> => {
  try {
    return E.right(await run());
  } catch (error) {
    if (error instanceof GitErrorThrown) return E.left(error.error);
    if (error instanceof GitCommandError) {
      return E.left({ _tag: 'GitFailed', command: error.command, exitCode: error.exitCode, stderr: error.stderr, message: error.message });
    }
    const message = error instanceof Error ? error.message : String(error);
    return E.left({ _tag: 'GitFailed', command: '', exitCode: null, stderr: '', message });
  }
};

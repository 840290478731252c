/** What the engine's read and write functions share about one repository. */
import { fail, revisionNotFound } from './errors.js';
import type { KeyedLock } from './lock.js';
import type { GitObject, ObjectReaderPool } from './object-reader.js';
import type { RefUpdaterPool } from './ref-updater.js';
import { parseCommit } from './objects.js';
import { isSafeRevision } from './ref-names.js';
import type { Commit, Sha } from './types.js';

export interface RepoContext {
  readonly gitDir: string;
  readonly objects: ObjectReaderPool;
  readonly lock: KeyedLock;
  /** Ref transactions (`update-ref --stdin`, kept running per repository). */
  readonly refUpdates: RefUpdaterPool;
}

export const readObject = (ctx: RepoContext, name: string): Promise<GitObject | null> => ctx.objects.read(ctx.gitDir, name);

/** The commit a revision names (branch, tag, sha, `main~2`), or null. Unsafe revisions never reach git. */
export const findCommitObject = async (ctx: RepoContext, revision: string): Promise<Commit | null> => {
  if (!isSafeRevision(revision)) return null;
  const object = await readObject(ctx, `${revision}^{commit}`);
  return object && object.type === 'commit' ? parseCommit(object.sha, object.data) : null;
};

/** As `findCommitObject`, leaving with `RevisionNotFound` (with `message`, when given) when there is none. */
export const requireCommit = async (ctx: RepoContext, revision: string, message?: string): Promise<Commit> =>
  (await findCommitObject(ctx, revision)) ?? fail(revisionNotFound(revision, message));

/** Commits by sha, in the order asked, through one batch of reads. */
export const readCommits = async (ctx: RepoContext, shas: readonly Sha[]): Promise<Commit[]> => {
  const objects = await ctx.objects.readAll(ctx.gitDir, shas);
  return objects.map((object, index) => {
    if (!object || object.type !== 'commit') throw new Error(`commit ${shas[index]} is missing`);
    return parseCommit(object.sha, object.data);
  });
};

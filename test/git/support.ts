/** Helpers for the git engine's tests: a storage root in a temp directory, signatures, Either unwrapping, the git client. */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import * as E from 'fp-ts/lib/Either.js';
import { GitRepositories, type GitError, type GitResult, type Signature } from '@forgefold/git';

export const run = promisify(execFile);

/** A signature at a fixed instant (the caller's clock, never the machine's). */
export const signature = (at = '2024-01-02T03:04:05.000Z', name = 'Ada Lovelace', email = 'ada@example.com'): Signature => ({ name, email, at });

export const ok = async <A>(result: GitResult<A>): Promise<A> => {
  const answer = await result;
  if (E.isLeft(answer)) throw new Error(`expected success, got ${answer.left._tag}: ${answer.left.message}`);
  return answer.right;
};

export const failure = async <A>(result: GitResult<A>): Promise<GitError> => {
  const answer = await result;
  if (E.isRight(answer)) throw new Error(`expected a failure, got ${JSON.stringify(answer.right).slice(0, 300)}`);
  return answer.left;
};

export interface Storage {
  readonly root: string;
  readonly repositories: GitRepositories;
  dispose(): Promise<void>;
}

export const storage = async (): Promise<Storage> => {
  const root = await mkdtemp(join(tmpdir(), 'forgefold-git-'));
  const repositories = new GitRepositories({ root });
  return {
    root,
    repositories,
    dispose: async () => {
      await repositories.close();
      await rm(root, { recursive: true, force: true });
    },
  };
};

/** The git client as a user runs it: no system or user configuration, a fixed identity, no prompts. */
export const clientEnv = (home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: home,
  LANG: 'C',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_TERMINAL_PROMPT: '0',
  GIT_AUTHOR_NAME: 'Client User',
  GIT_AUTHOR_EMAIL: 'client@example.com',
  GIT_AUTHOR_DATE: '1700000000 +0000',
  GIT_COMMITTER_NAME: 'Client User',
  GIT_COMMITTER_EMAIL: 'client@example.com',
  GIT_COMMITTER_DATE: '1700000000 +0000',
  ...extra,
});

/** Runs the git client; resolves with its output whatever the exit code. */
export const client = async (cwd: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> => {
  try {
    const { stdout, stderr } = await run('git', [...args], { cwd, env, maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
};

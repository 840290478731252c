/**
 * Running the git CLI. Every git process gets the same clean environment: no system or user configuration
 * (a `commit.gpgSign` or `init.defaultBranch` on the machine must not change a sha), no prompts, no inherited
 * `GIT_*` variables (a test run from inside a git hook would otherwise act on the wrong repository).
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { GitCommandError } from './errors.js';

const inherited = ['PATH', 'HOME', 'TMPDIR', 'SYSTEMROOT'] as const;

/** The environment of every git process; `extra` adds to (or overrides) it. */
export const gitEnv = (extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = {};
  for (const name of inherited) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return {
    ...env,
    LANG: 'C',
    LC_ALL: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ATTR_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_NO_REPLACE_OBJECTS: '1',
    ...extra,
  };
};

export interface RunOptions {
  readonly input?: string | Buffer;
  readonly env?: Readonly<Record<string, string>>;
  /** Exit codes that are answers rather than failures (e.g. 1 for `merge-base --is-ancestor`). Default [0]. */
  readonly okCodes?: readonly number[];
  readonly cwd?: string;
}

export interface RunResult {
  readonly code: number;
  readonly stdout: Buffer;
  readonly stderr: string;
}

/** `git --git-dir=<gitDir> <args…>`; rejects with GitCommandError on an exit code outside `okCodes`. */
export const git = (gitDir: string | null, args: readonly string[], options: RunOptions = {}): Promise<RunResult> => {
  const argv = gitDir === null ? [...args] : [`--git-dir=${gitDir}`, ...args];
  return new Promise((resolve, reject) => {
    const child = spawn('git', argv, { env: gitEnv(options.env), cwd: options.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    // git may exit before reading all its input (e.g. a failed `update-ref`): that is its answer, not ours.
    child.stdin.on('error', () => undefined);
    child.on('close', (code) => {
      const stdout = Buffer.concat(out);
      const stderr = Buffer.concat(err).toString('utf8');
      const okCodes = options.okCodes ?? [0];
      if (code !== null && okCodes.includes(code)) resolve({ code, stdout, stderr });
      else reject(new GitCommandError(args[0] ?? '', code, stderr));
    });
    child.stdin.end(options.input ?? '');
  });
};

/** stdout as text, without the final newline. */
export const gitText = async (gitDir: string | null, args: readonly string[], options: RunOptions = {}): Promise<string> =>
  (await git(gitDir, args, options)).stdout.toString('utf8').replace(/\n$/, '');

/** A long-running git process whose streams the caller owns (upload-pack, receive-pack, cat-file). */
export const spawnGit = (gitDir: string | null, args: readonly string[], env: Readonly<Record<string, string>> = {}, options: SpawnOptions = {}): ChildProcess =>
  spawn('git', gitDir === null ? [...args] : [`--git-dir=${gitDir}`, ...args], { env: gitEnv(env), stdio: ['pipe', 'pipe', 'pipe'], ...options });

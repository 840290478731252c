/** What the git benchmarks share: git's environment, a runner for the git CLI, and a history built by fast-import. */
import { execFile } from 'node:child_process';
import { tmpDir } from './lib.js';

/** No system or user configuration, no prompts: the baselines run git as the engine does. */
export const gitEnv = {
  PATH: process.env.PATH ?? '',
  HOME: tmpDir,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  LANG: 'C',
  GIT_TERMINAL_PROMPT: '0',
};

/** Runs git (in `cwd` when given) with `input` on stdin; resolves with stdout, rejects with stderr in the message. */
export const git = (cwd: string | null, args: string[], input?: string) =>
  new Promise<string>((resolve, reject) => {
    const child = execFile('git', args, { env: gitEnv, cwd: cwd ?? undefined, maxBuffer: 256 * 1024 * 1024 }, (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)));
    child.stdin!.on('error', () => undefined);
    child.stdin!.end(input ?? '');
  });

/** A fast-import stream: `commits` commits on main (one file each changes), and `tags` tags spread over them (half annotated). */
export const history = (commits: number, tags: number, fileBytes: number): string => {
  const parts: string[] = [];
  const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}\n`;
  for (let i = 1; i <= commits; i++) {
    const stamp = 1_600_000_000 + i * 3_600;
    const content = `${`file ${i % 50} revision ${i}\n`.repeat(Math.max(1, Math.floor(fileBytes / 24)))}`;
    parts.push(`commit refs/heads/main\nmark :${i}\nauthor Bench <bench@example.com> ${stamp} +0000\ncommitter Bench <bench@example.com> ${stamp} +0000\n`);
    parts.push(data(`Commit ${i}`), `M 100644 inline src/file-${i % 50}.txt\n`, data(content));
  }
  for (let t = 0; t < tags; t++) {
    const mark = 1 + Math.floor((t * commits) / Math.max(1, tags));
    const name = `v${t % 7}.${Math.floor(t / 7) % 40}.${Math.floor(t / 280)}`;
    if (t % 2 === 0) parts.push(`tag ${name}\nfrom :${mark}\ntagger Bench <bench@example.com> ${1_700_000_000 + t} +0000\n`, data(`Release ${name}`));
    else parts.push(`reset refs/tags/${name}\nfrom :${mark}\n`);
  }
  return parts.join('');
};

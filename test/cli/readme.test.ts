/**
 * The README's shell examples, run. Every ```sh block of README.md is pasted, in order, into one bash script
 * that runs against a fresh server (`forgefold serve` as `pnpm start` runs it, on 127.0.0.1 and a random port,
 * over a temporary data directory, from a directory where `data/` is that data directory): every command must
 * succeed, and every curl must answer the status its `# → NNN` note says. The quick start's install lines
 * cannot run here (they install pnpm globally); they are checked against package.json instead.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN } from './fixtures.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/**
 * The fenced ```sh blocks, in order. The PostgreSQL examples are fenced ```bash and not run here: they need a database
 * server and start long-running nodes; test/cli/cli-postgres.test.ts covers migrate and the moves between stores.
 */
const shellBlocks = (markdown: string): string[] => [...markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);

const isInstallBlock = (block: string): boolean => /npm install -g pnpm@/.test(block);

/** The statuses the README promises, in order: `# → 201` after (or on the line of) each curl. */
const promisedStatuses = (script: string): number[] => [...script.matchAll(/# → (\d{3})\b/g)].map((match) => Number(match[1]));

/** The answers the README shows in full (`# → 200 {"added":3,…}` without an ellipsis), in order. */
const promisedBodies = (script: string): unknown[] =>
  [...script.matchAll(/# → \d{3} ([[{].*)$/gm)].flatMap((match) => {
    if (match[1]!.includes('…')) return [];
    try {
      return [JSON.parse(match[1]!)];
    } catch {
      return [];
    }
  });

/** The JSON documents curl printed (one per line). */
const printedDocuments = (stdout: string): unknown[] =>
  stdout.split('\n').flatMap((line) => {
    try {
      return /^[[{]/.test(line) ? [JSON.parse(line)] : [];
    } catch {
      return [];
    }
  });

/** curl invocations outside comments. */
const curlCalls = (script: string): number =>
  script
    .split('\n')
    .map((line) => line.replace(/(^|\s)#.*$/, ''))
    .reduce((count, line) => count + [...line.matchAll(/(^|[\s(|;&])curl\s/g)].length, 0);

/**
 * Runs before the README's lines: `pnpm forgefold` is the compiled command (what `pnpm forgefold` runs after
 * its `tsc -b`, which `pnpm test` has done), and curl records each answer's status for the test to compare.
 * Without curl on the machine (or with FORGEFOLD_README_CURL_SHIM=1), a fetch-based stand-in for the options
 * the README uses takes its place.
 */
const CURL_SHIM = fileURLToPath(new URL('../support/curl-shim.mjs', import.meta.url));
const PREAMBLE = `set -euo pipefail
if [ -z "\${FORGEFOLD_README_CURL_SHIM:-}" ] && command -v curl >/dev/null 2>&1; then real_curl() { command curl "$@"; }; else real_curl() { node "$CURL_SHIM" "$@"; }; fi
pnpm() {
  if [ "$1" = forgefold ]; then shift; node "$FORGEFOLD_BIN" "$@"; else echo "README test: unexpected pnpm $*" >&2; return 127; fi
}
curl() {
  local body code
  body=$(mktemp)
  code=$(real_curl --silent --show-error --output "$body" --write-out '%{http_code}' "$@") || { rm -f "$body"; return 1; }
  cat "$body"; echo; rm -f "$body"
  echo "$code" >> "$README_STATUS_LOG"
}
`;

interface Server {
  readonly child: ChildProcess;
  readonly port: number;
  output(): string;
}

const children: ChildProcess[] = [];
const dirs: string[] = [];

/** `forgefold serve` as a process, from `cwd`, with `./data` as its data directory. */
const startServer = async (cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Server> => {
  const base = { ...process.env };
  for (const name of Object.keys(base)) if (name.startsWith('FORGEFOLD_') || name === 'PORT' || name === 'HOST') delete base[name];
  const child = spawn(process.execPath, [BIN, 'serve'], { cwd, env: { ...base, PORT: '0', FORGEFOLD_ACCESS_LOG: 'false', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line: ${output}`)), 30_000);
    const check = () => {
      const match = /Forgefold listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    };
    child.stdout!.on('data', check);
    child.on('exit', (code) => reject(new Error(`server exited ${code}: ${output}`)));
  });
  return { child, port, output: () => output };
};

const stopServer = async (server: Server): Promise<void> => {
  if (server.child.exitCode !== null) return;
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGTERM');
  await exited;
};

const runScript = async (script: string, cwd: string, port: number, env: NodeJS.ProcessEnv = {}) => {
  const statusLog = join(cwd, '.statuses');
  writeFileSync(statusLog, '');
  const file = join(cwd, 'readme.sh');
  // The README talks to the default port; the test's server listens on a random one.
  writeFileSync(file, PREAMBLE + script.replaceAll('127.0.0.1:8080', `127.0.0.1:${port}`));
  const base = { ...process.env };
  for (const name of Object.keys(base)) if (name.startsWith('FORGEFOLD_') && name !== 'FORGEFOLD_README_CURL_SHIM') delete base[name];
  const child = spawn('bash', [file], { cwd, env: { ...base, FORGEFOLD_BIN: BIN, CURL_SHIM, README_STATUS_LOG: statusLog, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const statuses = readFileSync(statusLog, 'utf8').split('\n').filter(Boolean).map(Number);
  return { status, stdout, stderr, statuses };
};

const workDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'forgefold-readme-'));
  dirs.push(dir);
  return dir;
};

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('README', () => {
  const blocks = shellBlocks(README);
  const runnable = blocks.filter((block) => !isInstallBlock(block));
  const script = runnable.join('\n');

  it('has shell examples, and a status note for every curl', () => {
    expect(blocks.filter(isInstallBlock)).toHaveLength(2);
    expect(runnable.length).toBeGreaterThanOrEqual(5);
    expect(promisedStatuses(script)).toHaveLength(curlCalls(script));
    expect(script).toContain('/api/scim/v2/groups/acme');
    expect(script).toContain('$SCIM/Users');
    expect(script).toContain('/audit/');
  });

  it("the quick start's install lines match package.json", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { packageManager: string; scripts: Record<string, string> };
    for (const block of blocks.filter(isInstallBlock)) {
      const command = block.split('\n').find((line) => line.startsWith('npm install'))!;
      expect(command).toMatch(new RegExp(`^npm install -g ${pkg.packageManager.replace(/[.]/g, '\\.')} && pnpm install && pnpm (start|test)$`));
      const script = /pnpm (start|test)$/.exec(command)![1]!;
      expect(pkg.scripts[script]).toBeDefined();
    }
    // The node flag: a young generation of 16 MB per semi-space, scavenged on one thread by serve itself (see decisions.md,
    // "Scavenges on one thread").
    expect(pkg.scripts['start']).toBe('tsc -b && node --max-semi-space-size=16 packages/cli/bin/forgefold.js serve');
  });

  // A few dozen processes (curl, node, the CLI) one after the other: slow on a loaded machine.
  it('runs every shell example against a fresh server: each command succeeds, each curl answers as noted', { timeout: 240_000 }, async () => {
    const cwd = workDir();
    const server = await startServer(cwd);
    try {
      expect(server.output()).toContain(`Forgefold root token written to ${join(cwd, 'data', 'initial_root_token')}`);
      const run = await runScript(script, cwd, server.port);
      const context = `stdout:\n${run.stdout}\nstderr:\n${run.stderr}\nserver:\n${server.output()}`;
      if (process.env["FORGEFOLD_README_OUT"]) writeFileSync(process.env["FORGEFOLD_README_OUT"], context);
      expect(run.status, context).toBe(0);
      expect(run.statuses, context).toEqual(promisedStatuses(script));
      const printed = printedDocuments(run.stdout);
      expect(promisedBodies(script).length).toBeGreaterThan(0);
      for (const body of promisedBodies(script)) expect(printed, context).toContainEqual(body);
    } finally {
      await stopServer(server);
    }
    expect(server.output()).toContain('Forgefold stopped');
  });

  it('its token line also works with FORGEFOLD_ROOT_TOKEN set', async () => {
    const cwd = workDir();
    const token = 'glpat-readme-test-token-1';
    const server = await startServer(cwd, { FORGEFOLD_ROOT_TOKEN: token });
    try {
      const first = runnable[0]!;
      const run = await runScript(first, cwd, server.port, { FORGEFOLD_ROOT_TOKEN: token });
      expect(run.status, run.stderr).toBe(0);
      expect(run.statuses).toEqual(promisedStatuses(first));
      expect(run.stdout).toContain('"username":"root"');
    } finally {
      await stopServer(server);
    }
  });
});

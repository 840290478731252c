/** Data directories filled through the real stack (Application + SQLite store), and a way to run the CLI. */
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { Application, forgefold, systemActor, type Actor, type ForgefoldCommand, type State } from '@forgefold/core';
import { openSqliteStore } from '@forgefold/sqlite-store';
import { closeStore, dataPaths, loadCoreDomain, openSqlite, runCli } from '@forgefold/cli';

export const BIN = fileURLToPath(new URL('../../packages/cli/bin/forgefold.js', import.meta.url));

export interface CliRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `forgefold …` as a child process; stdout and stderr are pipes (not TTYs). */
export const cli = (args: readonly string[], options: { readonly input?: string; readonly env?: NodeJS.ProcessEnv; readonly cwd?: string } = {}): CliRun => {
  const env = { ...process.env, ...options.env };
  if (!options.env || !('FORGEFOLD_DATA' in options.env)) delete env['FORGEFOLD_DATA'];
  const result = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    input: options.input ?? '',
    env,
    cwd: options.cwd,
    timeout: 30_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
};

/** The same, without blocking: several runs can proceed in parallel. */
export const cliAsync = (args: readonly string[], options: { readonly input?: string; readonly env?: NodeJS.ProcessEnv; readonly cwd?: string } = {}): Promise<CliRun> =>
  new Promise((resolve, reject) => {
    const env = { ...process.env, ...options.env };
    if (!options.env || !('FORGEFOLD_DATA' in options.env)) delete env['FORGEFOLD_DATA'];
    const child = spawn(process.execPath, [BIN, ...args], { env, cwd: options.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });

/** Runs the CLI in this process (same code path as bin/forgefold.js, minus process start-up). */
export const cliInProcess = async (args: readonly string[], options: { readonly input?: string; readonly env?: NodeJS.ProcessEnv; readonly cwd?: string } = {}): Promise<CliRun> => {
  let stdout = '';
  let stderr = '';
  const sink = (append: (text: string) => void) =>
    new Writable({
      write(chunk: Buffer | string, _encoding, callback) {
        append(chunk.toString());
        callback();
      },
    });
  const status = await runCli(args, {
    stdout: sink((text) => (stdout += text)),
    stderr: sink((text) => (stderr += text)),
    stdin: Readable.from(options.input ? [options.input] : []),
    env: options.env ?? {},
    cwd: options.cwd ?? process.cwd(),
    loadDomain: loadCoreDomain,
    openStore: openSqlite,
  });
  return { status, stdout, stderr };
};

export const tempDir = (prefix = 'forgefold-cli-'): { readonly path: string; readonly cleanup: () => void } => {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
};

export interface Step {
  /** The log's head after the command. */
  readonly position: number;
  /** recordedAt of the command's events. */
  readonly at: string;
  readonly users: number;
}

export const START = '2026-03-01T00:00:00.000Z';
export const STEP_MS = 60_000;

/**
 * Fills `<dir>/forgefold.db` through the Application: `users` users (the first an administrator), then a
 * group and a project owned by the administrator; one command per minute from START. Optionally takes a
 * snapshot after `snapshotAfter` commands.
 */
export const seed = async (dir: string, options: { readonly users: number; readonly snapshotAfter?: number; readonly startIndex?: number }): Promise<Step[]> => {
  mkdirSync(dir, { recursive: true });
  const store = openSqliteStore({ path: dataPaths(dir).database, synchronous: 'OFF' });
  let tick = options.startIndex ?? 0;
  const app = await Application.start<ForgefoldCommand, State>({
    ...forgefold,
    store: store.events,
    snapshots: store.snapshots,
    clock: { now: () => new Date(Date.parse(START) + tick * STEP_MS).toISOString() },
    ids: { eventId: () => randomUUID() },
  });
  const steps: Step[] = [];
  // On an empty store the system creates the first user, an administrator (id 1); user 1 does the rest.
  const fresh = app.position === 0;
  const run = async (actor: Actor, command: ForgefoldCommand) => {
    const result = await app.execute(actor, command);
    if (result._tag === 'Left') throw new Error(`${command.type} failed: ${JSON.stringify(result.left)}`);
    steps.push({ position: app.position, at: result.right.events[0]!.recordedAt, users: app.state.users.count });
    tick++;
    if (options.snapshotAfter !== undefined && steps.length === options.snapshotAfter) await app.snapshot();
  };
  try {
    const base = options.startIndex ?? 0;
    for (let i = 0; i < options.users; i++) {
      const name = `user${base + i}`;
      const first = fresh && i === 0;
      await run(first ? systemActor : { userId: 1, origin: 'api' }, {
        type: 'CreateUser',
        username: name,
        name: `User ${base + i}`,
        email: `${name}@example.com`,
        password_digest: null,
        is_admin: first,
      });
    }
    await run({ userId: 1, origin: 'api' }, { type: 'CreateGroup', name: `Group ${base}`, path: `group-${base}` });
    return steps;
  } finally {
    await closeStore(store);
  }
};

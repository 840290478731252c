/** Data directories filled through the real stack (Application + SQLite store), and a way to run the CLI. */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Application, forgefold, systemActor, type Actor, type ForgefoldCommand, type State } from '@forgefold/core';
import { openSqliteStore } from '@forgefold/sqlite-store';
import { closeStore, dataPaths } from '@forgefold/cli';

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
      await run(i === 0 && base === 0 ? systemActor : { userId: 1, origin: 'api' }, {
        type: 'CreateUser',
        username: name,
        name: `User ${base + i}`,
        email: `${name}@example.com`,
        password_digest: null,
        is_admin: i === 0 && base === 0,
      });
    }
    await run({ userId: 1, origin: 'api' }, { type: 'CreateGroup', name: `Group ${base}`, path: `group-${base}` });
    return steps;
  } finally {
    await closeStore(store);
  }
};

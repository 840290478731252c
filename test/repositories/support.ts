/**
 * Helpers for the repository tests: a real server (the one `forgefold serve` runs) over a data directory the test
 * owns (so it can restart on it), JSON calls, the events it commits, and the git client.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tableEntries, tableIds, type RecordedEvent, type Table } from '@forgefold/core';
import { startForgefold, type RunningForgefold } from '@forgefold/cli';

export const ROOT_TOKEN = 'glpat-repositories-root-0000';

export interface Running extends RunningForgefold {
  readonly dataDir: string;
  /** Every event committed since start, in order. */
  readonly events: RecordedEvent[];
  call(method: string, path: string, body?: unknown, token?: string | null): Promise<{ status: number; body: any; headers: Headers }>;
  /** The clock's latest reading (what it last handed the server), to bound the times a request records. */
  lastClockReading(): string;
}

export const newDataDir = (): string => mkdtempSync(join(tmpdir(), 'forgefold-repo-'));
export const removeDir = (dir: string): void => rmSync(dir, { recursive: true, force: true });

export const start = async (dataDir: string, options: { now?: () => string } = {}): Promise<Running> => {
  let tick = Date.parse('2026-02-01T10:00:00.000Z');
  const now = options.now ?? (() => new Date((tick += 1_000)).toISOString());
  let last = new Date(tick).toISOString();
  const server = await startForgefold(
    { port: 0, host: '127.0.0.1', dataDir, rootToken: ROOT_TOKEN, synchronous: 'NORMAL', impersonationEnabled: true, snapshotEvery: 0, accessLog: false },
    {
      // A clock that moves a second per reading: commits made through the API get distinct, ordered dates.
      clock: {
        now: () => {
          last = now();
          return last;
        },
      },
      say: () => undefined,
      freezeState: true,
      log: process.env['FORGEFOLD_TEST_LOG'] ? (entry) => process.stderr.write(`${JSON.stringify(entry)}\n`) : () => undefined,
    },
  );
  const events: RecordedEvent[] = [];
  server.app.onCommitted((committed) => events.push(...committed));
  const call: Running['call'] = async (method, path, body, token = ROOT_TOKEN) => {
    const response = await fetch(`${server.url}/api/v4${path}`, {
      method,
      headers: { ...(token ? { 'PRIVATE-TOKEN': token } : {}), ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? null : JSON.parse(text);
    } catch {
      // not JSON
    }
    return { status: response.status, body: parsed, headers: response.headers };
  };
  return { ...server, dataDir, events, call, lastClockReading: () => last };
};

/**
 * Turns the instance's default branch protection off (`default_branch_protection` 0), for tests where Developers
 * commit to the default branch; the protection itself is tested in `default-branch-protection.test.ts`.
 */
export const unprotectDefaultBranches = async (server: Running): Promise<void> => {
  const answer = await server.call('PUT', '/application/settings', { default_branch_protection: 0 });
  if (answer.status !== 200) throw new Error(`settings: ${JSON.stringify(answer.body)}`);
};

/** Waits until `check` holds (for work the server does after answering, such as removing a repository). */
export const eventually = async (check: () => boolean | Promise<boolean>, ms = 5_000): Promise<void> => {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

/** A user with an `api` token (and a password), optionally a member of a project at a level; answers id and token. */
export const member = async (server: Running, username: string, project?: { id: number; level: number }): Promise<{ id: number; token: string }> => {
  const user = await server.call('POST', '/users', { username, name: username.toUpperCase(), email: `${username}@example.com`, password: 'password-123', skip_confirmation: true });
  if (user.status !== 201) throw new Error(`user ${username}: ${JSON.stringify(user.body)}`);
  const token = await server.call('POST', `/users/${user.body.id}/personal_access_tokens`, { name: 'test', scopes: ['api'] });
  if (project) await server.call('POST', `/projects/${project.id}/members`, { user_id: user.body.id, access_level: project.level });
  return { id: user.body.id, token: token.body.token };
};

/**
 * A server on a fresh data directory for the file, with an unmodified `@gitbeaker/rest` client as root; the
 * client is read through the returned getter once `beforeAll` has run.
 */
export const gitbeakerAsRoot = (): (() => InstanceType<typeof Gitlab>) => {
  let server: Running;
  let dataDir: string;
  let api: InstanceType<typeof Gitlab>;
  beforeAll(async () => {
    dataDir = newDataDir();
    server = await start(dataDir);
    api = new Gitlab({ host: server.url, token: ROOT_TOKEN });
  });
  afterAll(async () => {
    await server.close();
    removeDir(dataDir);
  });
  return () => api;
};

/** Every (user, record) pair an index kept as a table of tables holds (e.g. the author and assignee indexes). */
export function* indexPairs(index: Table<Table<unknown>>): Generator<[number, number]> {
  for (const [user, ids] of tableEntries(index)) for (const id of tableIds(ids)) yield [Number(user), id];
}

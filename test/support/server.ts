/**
 * End-to-end harness: the same server `forgefold serve` runs (SQLite in a temp directory, root bootstrap),
 * on 127.0.0.1 and a random port, with a clock the test can move (and the scheduler of the modules' processes
 * with it).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startForgefold, type RunningForgefold, type ServeConfig } from '@forgefold/cli';
import { manualScheduler, type ManualScheduler } from './scheduler.js';

export interface TestServer extends RunningForgefold {
  readonly baseUrl: string;
  readonly rootToken: string;
  readonly dataDir: string;
  /**
   * Moves the server's clock forward, and its scheduler: the processes that fall due run (membership expiry).
   * `{ tick: false }` moves the clock alone (the scheduler is then `processes`, to tick by hand).
   */
  advance(ms: number, options?: { readonly tick?: boolean }): void;
  readonly processes: ManualScheduler;
  /** Raw request helper: JSON body in, status, headers and parsed body out. */
  request(method: string, path: string, options?: { token?: string | null; body?: unknown; headers?: Record<string, string> }): Promise<{ status: number; headers: Headers; body: any; text: string }>;
}

export const startServer = async (
  options: { readonly start?: string; readonly config?: Partial<ServeConfig>; readonly rootToken?: string } = {},
): Promise<TestServer> => {
  const dataDir = await mkdtemp(join(tmpdir(), 'forgefold-e2e-'));
  let now = options.start === undefined ? Date.now() : Date.parse(options.start);
  const processes = manualScheduler();
  const rootToken = options.rootToken ?? `glpat-root-${Math.random().toString(36).slice(2)}`;
  const server = await startForgefold(
    {
      port: 0,
      host: '127.0.0.1',
      dataDir,
      rootToken,
      synchronous: 'NORMAL',
      impersonationEnabled: true,
      snapshotEvery: 0,
      accessLog: false,
      ...options.config,
    },
    {
      clock: { now: () => new Date(now).toISOString() },
      scheduler: processes.scheduler,
      say: () => undefined,
      // Committed states frozen: a route that mutates one throws here instead of corrupting it.
      freezeState: true,
      // FORGEFOLD_TEST_LOG=1 shows the server's access and error log while debugging a test.
      log: process.env['FORGEFOLD_TEST_LOG'] ? (entry) => process.stderr.write(`${JSON.stringify(entry)}\n`) : () => undefined,
    },
  );
  const request: TestServer['request'] = async (method, path, { token = rootToken, body, headers = {} } = {}) => {
    // What the last `advance` set running has finished before the next request, as it would have by then.
    await processes.settled();
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: {
        ...(token ? { 'PRIVATE-TOKEN': token } : {}),
        ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? null : JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, headers: response.headers, body: parsed, text };
  };
  return {
    ...server,
    baseUrl: server.url,
    rootToken,
    dataDir,
    advance: (ms, { tick = true } = {}) => {
      now += ms;
      if (tick) processes.tick(ms);
    },
    processes,
    request,
    close: async () => {
      await server.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
};

/**
 * `forgefold serve` as a separate process (the built CLI), for tests that need two servers or a SIGKILL: started
 * with an environment, ready once it prints `Forgefold listening on …`.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { resolve } from 'node:path';

export const BIN = resolve(__dirname, '../../packages/cli/bin/forgefold.js');

export interface ServeProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** Everything the process printed so far. */
  output(): string;
  /** SIGTERM and wait for the exit (SIGKILL after `graceMs`, default 15 s). */
  stop(graceMs?: number): Promise<void>;
  /** SIGKILL and wait for the exit. */
  kill(): Promise<void>;
}

export const freePort = (): Promise<number> =>
  new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
  });

export const startServeProcess = (env: Record<string, string>, timeoutMs = 30_000): Promise<ServeProcess> =>
  new Promise((resolveStart, reject) => {
    const child = spawn(process.execPath, [BIN, 'serve'], { env: { ...process.env, PORT: '0', FORGEFOLD_ACCESS_LOG: 'false', FORGEFOLD_SYNCHRONOUS: 'NORMAL', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    const timer = setTimeout(() => reject(new Error(`no listening line after ${timeoutMs} ms:\n${output}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /Forgefold listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolveStart({
          url: match[1]!,
          child,
          output: () => output,
          stop: async (graceMs = 15_000) => {
            if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
            const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
            await exited;
            clearTimeout(timer);
          },
          kill: async () => {
            if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
            await exited;
          },
        });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`forgefold serve exited (${code}) before listening:\n${output}`));
    });
  });

/** Runs a CLI command to its end. */
export const runCli = (args: readonly string[], env: Record<string, string> = {}): { status: number | null; stdout: string; stderr: string } => {
  const result = spawnSync(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
};

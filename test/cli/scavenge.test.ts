/**
 * `forgefold serve` scavenges on the event loop's thread alone unless node is told otherwise (see scavengeOnOneThread):
 * V8's own trace counts the scavenger tasks of each scavenge made while the server answers requests.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN } from './fixtures.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * The scavenger tasks of each of the main isolate's scavenges, in order. V8 prints its traces through C's stdio, which
 * buffers them apart from node's own writes to the same pipe, so they are read as a sequence of their own rather than
 * against the listening line: each `Scavenge` summary follows the task lines of its scavenge.
 */
const tasksPerScavenge = (output: string): number[] => {
  const byIsolate = new Map<string, { tasks: number; scavenges: number[] }>();
  for (const line of output.split('\n')) {
    const isolate = /^\[\d+:(0x[0-9a-f]+)\]/.exec(line)?.[1];
    if (isolate === undefined) continue;
    const trace = byIsolate.get(isolate) ?? { tasks: 0, scavenges: [] };
    byIsolate.set(isolate, trace);
    if (/ scavenge\[0x[0-9a-f]+\]:/.test(line)) trace.tasks++;
    else if (/: Scavenge /.test(line)) {
      trace.scavenges.push(trace.tasks);
      trace.tasks = 0;
    }
  }
  // The main isolate scavenges most (the workers' isolates hardly allocate).
  return [...byIsolate.values()].reduce((most, trace) => (trace.scavenges.length > most.length ? trace.scavenges : most), [] as number[]);
};

/** Serves with V8's scavenge traces on, reads pages a while, stops the server, and answers its main isolate's tasks per scavenge. */
const traceScavenges = (nodeFlags: readonly string[]) =>
  new Promise<number[]>((resolve, reject) => {
    const dir = mkdtempSync(join(tmpdir(), 'forgefold-scavenge-'));
    dirs.push(dir);
    // A 1 MB young generation fills within a few pages, and is large enough for V8 to use two tasks when it may.
    const child = spawn(process.execPath, ['--max-semi-space-size=1', '--trace-gc', '--trace-parallel-scavenge', ...nodeFlags, BIN, 'serve'], {
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', FORGEFOLD_DATA: join(dir, 'data'), FORGEFOLD_ROOT_TOKEN: 'glpat-scavenge-test-0000', FORGEFOLD_ACCESS_LOG: 'false' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    let served = false;
    // About forty scavenges after start-up (which makes about forty of its own).
    const load = async (url: string) => {
      for (let round = 0; round < 120; round++) {
        await Promise.all(Array.from({ length: 20 }, () => fetch(`${url}/api/v4/projects?per_page=100`, { headers: { 'PRIVATE-TOKEN': 'glpat-scavenge-test-0000' } }).then((answer) => answer.text())));
      }
      child.kill('SIGTERM');
    };
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      const listening = /Forgefold listening on (http:\/\/\S+)/.exec(output);
      if (listening && !served) {
        served = true;
        load(listening[1]!).catch(reject);
      }
    });
    child.on('error', reject);
    child.on('close', () => (served ? resolve(tasksPerScavenge(output)) : reject(new Error(`the server did not start:\n${output}`))));
  });

describe('the served process scavenges on one thread', () => {
  // The last twenty scavenges are those of the load (about forty) and the shutdown, long after serve set the flag.
  it('one scavenger task per scavenge by default', { timeout: 60_000 }, async () => {
    const last = (await traceScavenges([])).slice(-20);
    expect(last).toHaveLength(20);
    expect(last).toEqual(last.map(() => 1));
  });

  it('node told --parallel-scavenge keeps it (the control: the trace shows several tasks then)', { timeout: 60_000 }, async () => {
    const last = (await traceScavenges(['--parallel-scavenge'])).slice(-20);
    expect(last).toHaveLength(20);
    expect(last.some((tasks) => tasks > 1)).toBe(true);
  });
});

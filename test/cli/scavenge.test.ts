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

/** Serves with V8's scavenge traces on, reads pages until `scavenges` scavenges were traced, and counts them and their tasks. */
const traceScavenges = (nodeFlags: readonly string[], scavenges = 4) =>
  new Promise<{ readonly scavenges: number; readonly tasks: number }>((resolve, reject) => {
    const dir = mkdtempSync(join(tmpdir(), 'forgefold-scavenge-'));
    dirs.push(dir);
    // A 1 MB young generation fills within a few pages, and is large enough for V8 to use two tasks when it may.
    const child = spawn(process.execPath, ['--max-semi-space-size=1', '--trace-gc', '--trace-parallel-scavenge', ...nodeFlags, BIN, 'serve'], {
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', FORGEFOLD_DATA: join(dir, 'data'), FORGEFOLD_ROOT_TOKEN: 'glpat-scavenge-test-0000', FORGEFOLD_ACCESS_LOG: 'false' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    let served: string | null = null;
    const counts = () => {
      const after = output.slice(output.indexOf('Forgefold listening'));
      return { scavenges: after.match(/: Scavenge /g)?.length ?? 0, tasks: after.match(/ scavenge\[0x[0-9a-f]+\]/g)?.length ?? 0 };
    };
    const load = async (url: string) => {
      while (counts().scavenges < scavenges) {
        const answers = Array.from({ length: 20 }, () => fetch(`${url}/api/v4/projects?per_page=100`, { headers: { 'PRIVATE-TOKEN': 'glpat-scavenge-test-0000' } }).then((answer) => answer.text()));
        await Promise.all(answers);
      }
      child.kill('SIGTERM');
    };
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      const listening = /Forgefold listening on (http:\/\/\S+)/.exec(output);
      if (listening && served === null) {
        served = listening[1]!;
        load(served).catch(reject);
      }
    });
    child.on('error', reject);
    child.on('close', () => (served === null ? reject(new Error(`the server did not start:\n${output}`)) : resolve(counts())));
  });

describe('the served process scavenges on one thread', () => {
  it('one scavenger task per scavenge by default', { timeout: 60_000 }, async () => {
    const { scavenges, tasks } = await traceScavenges([]);
    expect(scavenges).toBeGreaterThanOrEqual(4);
    expect(tasks).toBe(scavenges);
  });

  it('node told --parallel-scavenge keeps it (the control: the trace shows several tasks then)', { timeout: 60_000 }, async () => {
    const { scavenges, tasks } = await traceScavenges(['--parallel-scavenge']);
    expect(scavenges).toBeGreaterThanOrEqual(4);
    expect(tasks).toBeGreaterThan(scavenges);
  });
});

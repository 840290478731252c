/**
 * Two processes append to one SQLite file at the same time through their own Application: stale commits
 * are refused (StaleWriter), each application catches up and retries, and nothing is lost or duplicated.
 */
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openSqliteStore } from '@forgefold/sqlite-store';
import { tempDir } from '../store/helpers.js';
import { logProblems } from '../store/contract.js';
import { startTriple } from './triple.js';

const here = dirname(fileURLToPath(import.meta.url));
const COMMANDS = 400;

const runWriter = (path: string, id: string, ready: () => void, go: Promise<void>) =>
  new Promise<{ acks: string[]; done: string }>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(here, 'writer.ts'), path, id, String(COMMANDS)], {
      cwd: join(here, '..', '..'),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    void go.then(() => child.stdin.write('go\n'));
    const acks: string[] = [];
    let done = '';
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += String(chunk)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line.startsWith('ack ')) acks.push(line.slice(4));
      if (line.startsWith('done ')) done = line;
      if (line === 'ready') ready();
    });
    child.on('close', (code) => (code === 0 ? resolve({ acks, done }) : reject(new Error(`writer ${id} exited ${code}: ${stderr}`))));
  });

describe('two processes on one file', () => {
  it('interleave their commits without losing or duplicating events', async () => {
    const temp = tempDir('forgefold-two-');
    try {
      const path = temp.file();
      // Create the schema first so that both start on an existing file.
      await openSqliteStore({ path }).close();
      let readyCount = 0;
      let start!: () => void;
      const go = new Promise<void>((resolve) => (start = resolve));
      const ready = () => {
        if (++readyCount === 2) start();
      };
      const [a, b] = await Promise.all([runWriter(path, 'a', ready, go), runWriter(path, 'b', ready, go)]);
      expect(a.acks.length).toBe(COMMANDS);
      expect(b.acks.length).toBe(COMMANDS);
      const store = openSqliteStore({ path, readonly: true });
      try {
        const events = await store.events.readAll(0, Number.MAX_SAFE_INTEGER);
        expect(logProblems(events)).toEqual([]);
        expect(events.length).toBe(2 * COMMANDS * 3);
        const perCommand = new Map<string, number>();
        for (const event of events) {
          const id = (event.data as { commandId: string }).commandId;
          perCommand.set(id, (perCommand.get(id) ?? 0) + 1);
        }
        expect([...perCommand.values()].every((count) => count === 3)).toBe(true);
        expect(new Set(perCommand.keys())).toEqual(new Set([...a.acks, ...b.acks]));
        // The writers really did interleave: each saw the other's commits.
        const firstB = events.findIndex((e) => (e.data as { commandId: string }).commandId.startsWith('b-'));
        const lastA = events.findLastIndex((e) => (e.data as { commandId: string }).commandId.startsWith('a-'));
        expect(firstB).toBeLessThan(lastA);
        const replayed = await startTriple(store.events, store.snapshots);
        const scratch = await startTriple(store.events);
        expect(JSON.parse(JSON.stringify(replayed.state))).toEqual(JSON.parse(JSON.stringify(scratch.state)));
        expect(scratch.state.steps).toBe(events.length);
        // "done <stale commits> <commands rejected after ten retries> <position>"
        const staleCommits = Number(a.done.split(' ')[1]) + Number(b.done.split(' ')[1]);
        expect(staleCommits).toBeGreaterThan(0);
        console.log(`two writers: ${a.done} / ${b.done} (stale commits caught up and retried, commands reissued, final position)`);
      } finally {
        await store.close();
      }
    } finally {
      temp.remove();
    }
  });
});

/**
 * Files holding secrets are created 0600 and the data directory 0700: the database and its -wal/-shm files
 * (password and token digests), the root token file, export files. Files and directories older versions
 * left open to others are tightened when that is safe.
 */
import { chmodSync, existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startForgefold, type ServeConfig } from '@forgefold/cli';
import { cliAsync, seed, tempDir } from './fixtures.js';

const modeOf = (path: string): string => (statSync(path).mode & 0o777).toString(8).padStart(3, '0');

let root: ReturnType<typeof tempDir>;
const config = (dataDir: string): ServeConfig => ({ port: 0, host: '127.0.0.1', dataDir, synchronous: 'NORMAL', impersonationEnabled: true, snapshotEvery: 0, accessLog: false });

/** Starts a server, makes one write (so that the WAL and its index exist), checks modes while it runs. */
const serveAndWrite = async (dataDir: string, inspect: (said: string[]) => void): Promise<void> => {
  const said: string[] = [];
  const server = await startForgefold(config(dataDir), { say: (line) => said.push(line), log: () => undefined });
  try {
    const token = said.some((line) => line.includes('initial_root_token')) ? (await import('node:fs')).readFileSync(join(dataDir, 'initial_root_token'), 'utf8').trim() : undefined;
    if (token) {
      const response = await fetch(`${server.url}/api/v4/groups`, { method: 'POST', headers: { 'PRIVATE-TOKEN': token, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'Acme', path: 'acme' }) });
      expect(response.status).toBe(201);
    }
    inspect(said);
  } finally {
    await server.close();
  }
};

beforeAll(() => {
  root = tempDir();
  // What a usual shell has; the modes below must not depend on a restrictive umask.
  try {
    process.umask(0o022);
  } catch {
    // worker threads cannot set it; the usual 022 is then what the process already has
  }
});
afterAll(() => root.cleanup());

describe('file modes of a data directory', () => {
  it('serve creates the directory 0700, the database, its -wal and -shm and the root token 0600', async () => {
    const data = join(root.path, 'fresh', 'data');
    await serveAndWrite(data, (said) => {
      expect(said.join('\n')).toContain('initial_root_token');
      expect(modeOf(data)).toBe('700');
      for (const name of ['forgefold.db', 'forgefold.db-wal', 'forgefold.db-shm', 'initial_root_token']) {
        expect(existsSync(join(data, name)), name).toBe(true);
        expect(modeOf(join(data, name)), name).toBe('600');
      }
    });
    expect(modeOf(join(data, 'forgefold.db'))).toBe('600');
  });

  it('tightens a data directory an older version left open (0755, database 0644) when it holds only Forgefold files', async () => {
    const data = join(root.path, 'old');
    await seed(data, { users: 2 });
    chmodSync(data, 0o755);
    chmodSync(join(data, 'forgefold.db'), 0o644);
    await serveAndWrite(data, (said) => {
      expect(said.filter((line) => line.includes('warning'))).toEqual([]);
      expect(modeOf(data)).toBe('700');
      expect(modeOf(join(data, 'forgefold.db'))).toBe('600');
    });
  });

  it('leaves a shared directory alone but says so, and still keeps the database 0600', async () => {
    const data = join(root.path, 'shared');
    mkdirSync(data, { mode: 0o755 });
    chmodSync(data, 0o755);
    writeFileSync(join(data, 'notes.txt'), 'not ours\n');
    await serveAndWrite(data, (said) => {
      expect(said.some((line) => line.startsWith('Forgefold warning: data directory') && line.includes('mode 0755'))).toBe(true);
      expect(modeOf(data)).toBe('755');
      expect(modeOf(join(data, 'forgefold.db'))).toBe('600');
    });
  });

  it('export --out writes a 0600 file, also over an existing 0644 one; import creates its directory 0700', async () => {
    const data = join(root.path, 'export-source');
    await seed(data, { users: 3 });
    const out = join(root.path, 'log.ndjson');
    writeFileSync(out, '');
    chmodSync(out, 0o644);
    const exported = await cliAsync(['export', '--data', data, '--out', out]);
    expect(exported.status).toBe(0);
    expect(modeOf(out)).toBe('600');
    const fresh = join(root.path, 'export-fresh.ndjson');
    expect((await cliAsync(['export', '--data', data, '--out', fresh])).status).toBe(0);
    expect(modeOf(fresh)).toBe('600');

    const copy = join(root.path, 'copy', 'data');
    const imported = await cliAsync(['import', '--data', copy, '--in', out]);
    expect(imported.stderr).toBe('');
    expect(imported.status).toBe(0);
    expect(modeOf(copy)).toBe('700');
    expect(modeOf(join(copy, 'forgefold.db'))).toBe('600');
  });
});

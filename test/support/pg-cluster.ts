/**
 * A PostgreSQL cluster of a test's own (for tests that stop the server: the shared test database must stay up).
 * Debian's binaries (FORGEFOLD_TEST_PG_BIN, set by scripts/with-postgres.sh), run as the `postgres` user as
 * initdb requires; data in a temporary directory, loopback only, socket in /tmp.
 */
import { spawnSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { PG_BIN } from './postgres.js';

export interface Cluster {
  readonly url: string;
  start(): void;
  /** `pg_ctl stop -m immediate`: the server dies without a checkpoint, as in a crash. */
  stopImmediately(): void;
  destroy(): void;
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

const uidOf = (user: string): number | null => {
  const result = spawnSync('id', ['-u', user], { encoding: 'utf8' });
  return result.status === 0 ? Number(result.stdout.trim()) : null;
};

export const canStartClusters = (): boolean => PG_BIN !== '' && (process.getuid?.() !== 0 || uidOf('postgres') !== null);

export const startCluster = async (): Promise<Cluster> => {
  const root = process.getuid?.() === 0;
  const dir = mkdtempSync('/tmp/forgefold-pgc-');
  const postgresUid = root ? uidOf('postgres') : null;
  if (postgresUid !== null) chownSync(dir, postgresUid, -1);
  const data = join(dir, 'data');
  const run = (program: string, args: readonly string[]) => {
    const command = root ? ['runuser', ['-u', 'postgres', '--', join(PG_BIN, program), ...args]] as const : [join(PG_BIN, program), args] as const;
    const result = spawnSync(command[0], [...command[1]], { encoding: 'utf8', timeout: 60_000 });
    if (result.status !== 0) throw new Error(`${program} failed (${result.status}): ${result.stderr}${result.stdout}`);
  };
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-locale']);
  const port = await freePort();
  const start = () => run('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-w', '-o', `-p ${port} -k /tmp -c listen_addresses=127.0.0.1`, 'start']);
  start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start,
    stopImmediately: () => run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']),
    destroy: () => {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        /* not running */
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
};

/**
 * The forgefold command on PostgreSQL: migrate (idempotent), and an instance moved SQLite → PostgreSQL → SQLite
 * by export and import with identical logs and equal state hashes; verify, snapshot and replay work there too.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliAsync, seed, tempDir } from './fixtures.js';
import { dropTestSchema, freshSchema, hasPostgres, urlWithSchema } from '../support/postgres.js';

describe.skipIf(!hasPostgres)('forgefold on PostgreSQL', () => {
  let root: ReturnType<typeof tempDir>;
  const schemas: string[] = [];
  const database = () => {
    const schema = freshSchema('cli');
    schemas.push(schema);
    return urlWithSchema(schema);
  };

  beforeAll(() => {
    root = tempDir();
  });
  afterAll(async () => {
    root.cleanup();
    for (const schema of schemas) await dropTestSchema(schema);
  });

  it('migrate creates the schema once; a second run changes nothing; a bad URL is a usage error', async () => {
    const url = database();
    const first = await cliAsync(['migrate', '--database-url', url]);
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    expect(first.stdout).toMatch(/applied 1\n {2}1 {2}events, head, snapshots and the commit function/);
    const again = await cliAsync(['migrate'], { env: { FORGEFOLD_DATABASE_URL: url } });
    expect(again.status).toBe(0);
    expect(again.stdout).toContain('up to date');
    const bad = await cliAsync(['migrate', '--database-url', 'mysql://somewhere/db']);
    expect(bad.status).toBe(64);
    expect(bad.stderr).toContain('must start with postgres://');
    // The SQLite file of a data directory too.
    const local = await cliAsync(['migrate', '--data', join(root.path, 'fresh')]);
    expect(local.status).toBe(0);
    expect(local.stdout).toContain('schema version 4');
  });

  it('moves an instance SQLite → PostgreSQL → SQLite with identical logs and equal hashes', async () => {
    const source = join(root.path, 'source');
    await seed(source, { users: 25, snapshotAfter: 10 });
    const exported = await cliAsync(['export', '--data', source]);
    expect(exported.status).toBe(0);
    const url = database();
    const toPostgres = await cliAsync(['import', '--database-url', url], { input: exported.stdout });
    expect(toPostgres.stderr).toBe('');
    expect(toPostgres.status).toBe(0);
    expect(toPostgres.stdout).toMatch(/^imported (\d+) events \(positions 1\.\.\1\)/);
    // A second import into the now non-empty database is refused, as for SQLite.
    expect((await cliAsync(['import', '--database-url', url], { input: exported.stdout })).status).toBe(1);
    const fromPostgres = await cliAsync(['export', '--database-url', url]);
    expect(fromPostgres.status).toBe(0);
    expect(fromPostgres.stdout).toBe(exported.stdout);
    const back = join(root.path, 'back');
    const toSqlite = await cliAsync(['import', '--data', back], { input: fromPostgres.stdout });
    expect(toSqlite.status).toBe(0);
    expect((await cliAsync(['export', '--data', back])).stdout).toBe(exported.stdout);
    const hash = async (args: string[]) => {
      const run = await cliAsync(['replay', '--json', ...args]);
      expect(run.status).toBe(0);
      return (JSON.parse(run.stdout) as { stateHash: string; position: number }).stateHash;
    };
    const [sourceHash, postgresHash, backHash] = await Promise.all([hash(['--data', source]), hash(['--database-url', url]), hash(['--data', back])]);
    expect(postgresHash).toBe(sourceHash);
    expect(backHash).toBe(sourceHash);
    // snapshot and verify on PostgreSQL
    const noSnapshot = await cliAsync(['verify', '--database-url', url]);
    expect(noSnapshot.status).toBe(2);
    const snapshot = await cliAsync(['snapshot', '--database-url', url]);
    expect(snapshot.status).toBe(0);
    expect(snapshot.stdout).toContain(`state hash ${sourceHash}`);
    const verified = await cliAsync(['verify', '--database-url', url]);
    expect(verified.stdout).toContain('OK: the snapshot matches a full refold of the log');
    expect(verified.status).toBe(0);
  });

  it('read commands on a schema without tables fail clearly and create nothing', async () => {
    const url = database();
    const run = await cliAsync(['export', '--database-url', url]);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/no Forgefold tables \(run `forgefold migrate`\)/);
  });
});

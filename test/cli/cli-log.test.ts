/** The forgefold command as a child process: export/import round trips, import validation, snapshot and verify. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '@forgefold/sqlite-store';
import { forgefold, tableGet, type State, type User } from '@forgefold/core';
import { closeStore, dataPaths } from '@forgefold/cli';
import { cliAsync, seed, tempDir, type Step } from './fixtures.js';

let root: ReturnType<typeof tempDir>;
let source: string;
let steps: Step[];
let exported: string;
const dir = (name: string) => join(root.path, name);
const head = () => steps[steps.length - 1]!.position;

const readHead = async (data: string): Promise<number> => {
  const store = openSqliteStore({ path: dataPaths(data).database, readonly: true });
  try {
    return await store.events.headPosition();
  } finally {
    await closeStore(store);
  }
};

beforeAll(async () => {
  root = tempDir();
  source = dir('source');
  // 30 users and a group; a snapshot after the 10th command, then 21 more commands on top of it.
  steps = await seed(source, { users: 30, snapshotAfter: 10 });
  const run = await cliAsync(['export', '--data', source]);
  expect(run.status).toBe(0);
  expect(run.stderr).toBe('');
  exported = run.stdout;
});

afterAll(() => root.cleanup());

describe('forgefold export / import', () => {
  it('exports one recorded envelope per line, in log order', () => {
    const lines = exported.trimEnd().split('\n').map((line) => JSON.parse(line));
    expect(lines).toHaveLength(head());
    expect(lines.map((line) => line.globalPosition)).toEqual(Array.from({ length: head() }, (_, i) => i + 1));
    expect(Object.keys(lines[0])).toEqual(['globalPosition', 'streamId', 'streamVersion', 'eventId', 'type', 'schemaVersion', 'recordedAt', 'metadata', 'data']);
    expect(lines[0]).toMatchObject({ type: 'UserCreated', schemaVersion: 1, metadata: { origin: 'system', actorId: null } });
  });

  it('round-trips: export → import (file and stdin) → export gives the identical log', async () => {
    const file = join(root.path, 'log.ndjson');
    const [toFile] = await Promise.all([cliAsync(['export', '--data', source, '--out', file])]);
    expect(toFile.status).toBe(0);
    expect(toFile.stdout).toContain(`exported ${head()} events`);
    expect(readFileSync(file, 'utf8')).toBe(exported);
    const [fromFile, fromStdin] = await Promise.all([
      cliAsync(['import', '--data', dir('copy-file'), '--in', file]),
      cliAsync(['import', '--data', dir('copy-stdin')], { input: exported }),
    ]);
    for (const run of [fromFile, fromStdin]) {
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      expect(run.stdout).toContain(`imported ${head()} events (positions 1..${head()})`);
    }
    const [again1, again2, replayed, original] = await Promise.all([
      cliAsync(['export', '--data', dir('copy-file')]),
      cliAsync(['export', '--data', dir('copy-stdin')]),
      cliAsync(['replay', '--json', '--data', dir('copy-file')]),
      cliAsync(['replay', '--json', '--data', source]),
    ]);
    expect(again1.stdout).toBe(exported);
    expect(again2.stdout).toBe(exported);
    expect(JSON.parse(replayed.stdout).stateHash).toBe(JSON.parse(original.stdout).stateHash);
  });

  it('refuses a non-empty target unless --append; --append skips events already present', async () => {
    const target = dir('non-empty');
    await seed(target, { users: 2, startIndex: 100 });
    const before = await readHead(target);
    const refused = await cliAsync(['import', '--data', target], { input: exported });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(`the target store is not empty (head at position ${before}); use --append`);
    expect(await readHead(target)).toBe(before);
    const dryRun = await cliAsync(['import', '--data', target, '--dry-run'], { input: exported });
    expect(dryRun.status).toBe(0);
    expect(dryRun.stdout).toContain(`<stdin>: ${head()} valid events; nothing written (dry run); the target is not empty (head at position ${before}): a real import needs --append`);

    const appended = await cliAsync(['import', '--data', target, '--append'], { input: exported });
    expect(appended.stderr).toBe('');
    expect(appended.status).toBe(0);
    expect(appended.stdout).toContain(`imported ${head()} events (positions ${before + 1}..${before + head()})`);
    const twice = await cliAsync(['import', '--data', target, '--append'], { input: exported });
    expect(twice.stderr).toBe('');
    expect(twice.status).toBe(0);
    expect(twice.stdout).toContain(`imported 0 events from <stdin>; ${head()} already present, skipped`);
    expect(await readHead(target)).toBe(before + head());
  });

  it('rejects a corrupt file: names every bad line with the decode error, and imports nothing', async () => {
    const lines = exported.trimEnd().split('\n');
    lines[2] = '{"globalPosition": 3, "streamId": ';
    const fifth = JSON.parse(lines[4]!);
    fifth.data.username = 42;
    lines[4] = JSON.stringify(fifth);
    const seventh = JSON.parse(lines[6]!);
    delete seventh.eventId;
    seventh.metadata.origin = 'cron';
    lines[6] = JSON.stringify(seventh);
    const ninth = JSON.parse(lines[8]!);
    ninth.type = 'UserTeleported';
    lines[8] = JSON.stringify(ninth);
    const file = join(root.path, 'corrupt.ndjson');
    writeFileSync(file, `${lines.join('\n')}\n`);

    const target = dir('corrupt-target');
    const run = await cliAsync(['import', '--data', target, '--in', file]);
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    const errors = run.stderr.trimEnd().split('\n');
    expect(errors[0]).toMatch(new RegExp(`^${file}:3: invalid JSON`));
    expect(errors[1]).toBe(`${file}:5: Cannot decode UserCreated at position 5 of stream ${fifth.streamId}: invalid data (data.username)`);
    expect(errors[2]).toBe(`${file}:7: invalid envelope: eventId must be a non-empty string; metadata.origin must be 'api', 'scim' or 'system'`);
    expect(errors[3]).toMatch(new RegExp(`^${file}:9: Cannot decode UserTeleported at position 9 .*unknown event type`));
    expect(errors[4]).toBe(`import aborted: 4 bad line(s) in ${file}; nothing was imported`);
    // Nothing imported: not even an empty database was created.
    expect(existsSync(dataPaths(target).database)).toBe(false);

    // Into an existing store with --append: still all or nothing.
    const existing = dir('corrupt-existing');
    await seed(existing, { users: 1, startIndex: 200 });
    const before = await readHead(existing);
    const appended = await cliAsync(['import', '--data', existing, '--append'], { input: readFileSync(file, 'utf8') });
    expect(appended.status).toBe(1);
    expect(appended.stderr).toContain('<stdin>:5: Cannot decode UserCreated');
    expect(await readHead(existing)).toBe(before);
  });

  it('rejects a file whose positions do not run 1, 2, 3… into an empty store (a partial export must be appended)', async () => {
    const tail = exported.trimEnd().split('\n').slice(3).join('\n');
    const run = await cliAsync(['import', '--data', dir('gap')], { input: tail });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('<stdin>:1: globalPosition 4 leaves a gap after 0');
  });
});

describe('forgefold snapshot / verify', () => {
  it('verifies an intact store: compares at the snapshot position and, folded forward, at the head (exit 0)', async () => {
    const run = await cliAsync(['verify', '--data', source]);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const snapshotAt = steps[9]!.position;
    expect(run.stdout).toContain(`snapshot            position ${snapshotAt}`);
    expect(run.stdout).toContain(`at position ${snapshotAt}:`);
    expect(run.stdout).toContain(`at position ${head()}:`);
    const hashes = [...run.stdout.matchAll(/ ([0-9a-f]{64})/g)].map((match) => match[1]);
    expect(hashes).toHaveLength(4);
    expect(hashes[0]).toBe(hashes[1]);
    expect(hashes[2]).toBe(hashes[3]);
    expect(run.stdout).toContain('OK: the snapshot matches a full refold of the log');
  });

  it('says so and exits 2 when there is no snapshot; `snapshot` takes one, after which verify exits 0', async () => {
    const target = dir('no-snapshot');
    const imported = await cliAsync(['import', '--data', target], { input: exported });
    expect(imported.status).toBe(0);
    const none = await cliAsync(['verify', '--data', target]);
    expect(none.status).toBe(2);
    expect(none.stdout).toContain(`no snapshot of projection version ${forgefold.projectionVersion} to verify`);
    const taken = await cliAsync(['snapshot', '--data', target]);
    expect(taken.stderr).toBe('');
    expect(taken.status).toBe(0);
    expect(taken.stdout).toMatch(new RegExp(`^snapshot taken at position ${head()} \\(projection version ${forgefold.projectionVersion}, state hash [0-9a-f]{64}\\)`));
    const verified = await cliAsync(['verify', '--data', target, '--json']);
    expect(verified.status).toBe(0);
    const result = JSON.parse(verified.stdout);
    expect(result).toMatchObject({ status: 'match', head: head(), snapshotPosition: head() });
    expect(result.comparisons).toHaveLength(1);
  });

  it('exits 1 and prints both hashes after the snapshot was tampered with', async () => {
    const target = dir('tampered');
    expect((await cliAsync(['import', '--data', target], { input: exported })).status).toBe(0);
    expect((await cliAsync(['snapshot', '--data', target])).status).toBe(0);
    // Rename a user inside the newest snapshot, keeping its position.
    const store = openSqliteStore({ path: dataPaths(target).database });
    try {
      const snapshot = (await store.snapshots.load(forgefold.projectionVersion))!;
      const state = snapshot.state as State;
      const user = tableGet(state.users.byId, 2) as User;
      (user as { name: string }).name = 'Mallory';
      await store.snapshots.save({ ...snapshot, state });
    } finally {
      await closeStore(store);
    }
    const run = await cliAsync(['verify', '--data', target]);
    expect(run.status).toBe(1);
    const hashes = [...run.stdout.matchAll(/ ([0-9a-f]{64})/g)].map((match) => match[1]);
    expect(hashes).toHaveLength(2);
    expect(hashes[0]).not.toBe(hashes[1]);
    expect(run.stdout).toContain('MISMATCH');
  });
});

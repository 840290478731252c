/**
 * Start-up from a lazy snapshot of the real domain (issue 16): an application started from a snapshot (its tables'
 * nodes read on demand from SQLite) and then given commands, some on what the snapshot holds, is the state a full
 * replay of the log gives; so is the state loaded from the snapshots it then takes (written from its unread nodes'
 * bytes), however many it takes.
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Application, forgefold, stateHash, systemActor, type ForgefoldCommand, type State } from '@forgefold/core';
import { openSqliteStore, snapshotsPathOf, uuidv7Generator, type SqliteStore } from '@forgefold/sqlite-store';
import { tempDir } from '../store/helpers.js';
import { spyOnSerialisedNodes } from './serialised-nodes.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const start = (store: SqliteStore, withSnapshots: boolean, freeze: boolean) =>
  Application.start<ForgefoldCommand, State>({
    ...forgefold,
    store: store.events,
    ...(withSnapshots ? { snapshots: store.snapshots } : {}),
    clock: { now: () => '2026-11-26T00:00:00.000Z' },
    ids: { eventId: uuidv7Generator() },
    freeze,
  });

/** Users, groups, projects and memberships: enough entities that every table has many nodes. */
const populate = async (app: Application<ForgefoldCommand, State>, rounds: number) => {
  const id = async (command: ForgefoldCommand): Promise<number> => {
    const result = await app.execute(systemActor, command);
    if (result._tag === 'Left') throw new Error(`${command.type}: ${JSON.stringify(result.left)}`);
    return (result.right.events[0]?.data as { id: number }).id;
  };
  const users: number[] = [];
  const groups: number[] = [];
  const projects: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const user = await id({ type: 'CreateUser', username: `user${r}`, name: `User ${r}`, email: `user${r}@example.com`, password_digest: null });
    const group = await id({ type: 'CreateGroup', name: `Group ${r}`, path: `group-${r}`, visibility: r % 2 === 0 ? 'public' : 'private' });
    projects.push(await id({ type: 'CreateProject', path: `project-${r}`, namespace_id: group }));
    await app.execute(systemActor, { type: 'AddMember', source_type: 'Namespace', source_id: group, user_id: user, access_level: 30 });
    users.push(user);
    groups.push(group);
  }
  return { users, groups, projects };
};

type Step = { kind: 'rename' | 'member' | 'unmember' | 'delete' | 'create'; a: number; b: number };
const stepArb: fc.Arbitrary<Step> = fc.record({ kind: fc.constantFrom('rename', 'member', 'unmember', 'delete', 'create'), a: fc.nat(), b: fc.nat() });

const commandOf = (step: Step, made: { users: number[]; groups: number[]; projects: number[] }, n: number): ForgefoldCommand => {
  const user = made.users[step.a % made.users.length]!;
  const group = made.groups[step.b % made.groups.length]!;
  switch (step.kind) {
    case 'rename':
      return { type: 'UpdateGroup', id: group, name: `Renamed ${n}` };
    case 'member':
      return { type: 'AddMember', source_type: 'Namespace', source_id: group, user_id: user, access_level: 20 };
    case 'unmember':
      return { type: 'RemoveMember', source_type: 'Namespace', source_id: group, user_id: user };
    case 'delete':
      return { type: 'DeleteProject', id: made.projects[step.a % made.projects.length]! };
    case 'create':
      return { type: 'CreateUser', username: `late${n}`, name: `Late ${n}`, email: `late${n}@example.com`, password_digest: null };
  }
};

describe('start-up from a lazy snapshot of the real state', () => {
  it('then commands, then snapshots: each state is the full replay’s (property)', async () => {
    const temp = tempDir('forgefold-lazy-');
    cleanups.push(() => temp.remove());
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 25 }), fc.boolean(), async (steps, freeze) => {
        const path = temp.file(`lazy${n++}.db`);
        let store = openSqliteStore({ path });
        const first = await start(store, true, freeze);
        const made = await populate(first, 150);
        await first.snapshot();
        await store.close();

        store = openSqliteStore({ path });
        try {
          const loaded = await start(store, true, freeze);
          expect(stateHash(loaded.state)).toBe(stateHash(first.state));
          // A write to what the snapshot holds (its node is decoded into the new state), then the steps.
          expect((await loaded.execute(systemActor, { type: 'UpdateGroup', id: made.groups[0]!, name: 'Renamed first' }))._tag).toBe('Right');
          let i = 0;
          for (const step of steps) await loaded.execute(systemActor, commandOf(step, made, i++));
          // More snapshots than the store keeps: the one the state's unread nodes are in stays readable.
          for (let s = 0; s < 4; s++) {
            await loaded.execute(systemActor, { type: 'CreateGroup', name: `After ${s}`, path: `after-${s}` });
            await loaded.snapshot();
          }
          const replayed = await start(store, false, freeze);
          expect(stateHash(loaded.state)).toBe(stateHash(replayed.state));
          const reloaded = await start(store, true, freeze);
          expect(reloaded.position).toBe(replayed.position);
          expect(stateHash(reloaded.state)).toBe(stateHash(replayed.state));
        } finally {
          await store.close();
        }
      }),
      { numRuns: 6 },
    );
  });

  it('keeps the snapshot a running process reads on demand when another process takes and prunes snapshots', async () => {
    const temp = tempDir('forgefold-lazy-');
    cleanups.push(() => temp.remove());
    const path = temp.file('readers.db');
    let store = openSqliteStore({ path });
    const first = await start(store, true, false);
    const made = await populate(first, 150);
    await first.snapshot();
    await store.close();

    store = openSqliteStore({ path });
    cleanups.push(() => store.close());
    const server = await start(store, true, false);
    // Another process (as `forgefold snapshot` beside a server) takes more snapshots than the file keeps: each
    // prune runs there, where this process's own pin is unknown but its row in snapshot_readers is seen.
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const other = `
      const Database = require(${JSON.stringify(driver)});
      const db = new Database(${JSON.stringify(snapshotsPathOf(path))});
      const pinned = db.prepare('SELECT snapshot_id FROM snapshot_readers').pluck().all();
      const doomed = db.prepare("SELECT id FROM shared_snapshots WHERE pieces >= 0 AND id NOT IN (SELECT snapshot_id FROM snapshot_readers)").pluck().all();
      console.log(JSON.stringify({ pinned, doomed }));
    `;
    const seen = JSON.parse(execFileSync(process.execPath, ['-e', other], { encoding: 'utf8' })) as { pinned: number[]; doomed: number[] };
    expect(seen.pinned).toHaveLength(1);
    expect(seen.doomed).not.toContain(seen.pinned[0]);
    // Four more snapshots from a second store on the file: the pinned one survives them, and every node reads.
    const second = openSqliteStore({ path });
    const writer = await start(second, true, false);
    for (let s = 0; s < 4; s++) {
      await writer.execute(systemActor, { type: 'CreateGroup', name: `Other ${s}`, path: `other-${s}` });
      await writer.snapshot();
    }
    await second.close();
    expect(execFileSync(process.execPath, ['-e', other], { encoding: 'utf8' })).toContain(`"pinned":[${seen.pinned[0]}]`);
    for (const group of made.groups) expect((await server.execute(systemActor, { type: 'UpdateGroup', id: group, name: `Still ${group}` }))._tag).toBe('Right');
  });

  it('a running server’s snapshots serialise what changed since its previous one; a crash between or during them loses nothing', async () => {
    const temp = tempDir('forgefold-lazy-');
    cleanups.push(() => temp.remove());
    const path = temp.file('incremental.db');
    const store = openSqliteStore({ path });
    cleanups.push(() => store.close());
    // Started by a full replay: every node is an object of this process, none lazy.
    const server = await start(store, true, false);
    const made = await populate(server, 300);
    const serialised = spyOnSerialisedNodes();
    cleanups.push(() => serialised.restore());
    const nodes = () => serialised.count();
    await server.snapshot();
    const whole = nodes();
    expect(whole).toBeGreaterThan(50);
    for (let round = 0; round < 3; round++) {
      await server.execute(systemActor, { type: 'UpdateGroup', id: made.groups[round * 7]!, name: `Incremental ${round}` });
      await server.execute(systemActor, { type: 'AddMember', source_type: 'Namespace', source_id: made.groups[round]!, user_id: made.users[round + 1]!, access_level: 20 });
      serialised.clear();
      await server.snapshot();
      // The nodes on the changed paths (a few per table written), not the state's.
      expect(nodes()).toBeLessThan(whole / 4);
    }
    serialised.restore();
    // A crash after those snapshots (the store not closed), and one while the next is written (never completed):
    // a restarted process loads the newest complete one, whose copied nodes are its own bytes, and the log's tail.
    await server.execute(systemActor, { type: 'CreateGroup', name: 'After the snapshots', path: 'after-the-snapshots' });
    const writing = server.snapshot();
    const restarted = openSqliteStore({ path });
    try {
      const loaded = await start(restarted, true, false);
      const replayed = await start(restarted, false, false);
      expect(loaded.position).toBe(server.position);
      expect(stateHash(loaded.state)).toBe(stateHash(replayed.state));
      expect(stateHash(loaded.state)).toBe(stateHash(server.state));
    } finally {
      await writing;
      await restarted.close();
    }
    const again = openSqliteStore({ path });
    try {
      const loaded = await start(again, true, false);
      expect(stateHash(loaded.state)).toBe(stateHash(server.state));
    } finally {
      await again.close();
    }
  });
});

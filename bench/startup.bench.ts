/**
 * Start-up and snapshots of the real application's state (issue 16): BENCH_REAL_COMMANDS (default 200,000; the
 * issue asks for 1e6: set it, or extrapolate linearly) real commands through the application with group commit
 * (users, groups, projects in them, memberships, SCIM identities of a SAML group), on SQLite. Then:
 *  - start-up by full replay of the log, and from a snapshot (target < 1.5 s), beside the former format's load
 *    (`v8.deserialize` of the whole state);
 *  - the snapshot's size;
 *  - the longest event-loop pause while a snapshot is taken under load (commands keep arriving; target < 20 ms),
 *    beside the former in-thread snapshot (one `v8.serialize` of the whole state and one blob insert).
 */
import v8 from 'node:v8';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Application, forgefold, systemActor, type Actor, type ForgefoldCommand, type State } from '@forgefold/core';
import { openSqliteStore, uuidv7Generator, type SqliteStore } from '@forgefold/sqlite-store';
import { envInt, log, removeDb, Report, scratchPath, timed } from './lib.js';

const COMMANDS = envInt('BENCH_REAL_COMMANDS', 200_000);
const FINGERPRINT = '9a:3b:5c:7d:1e:2f:40:51:62:73:84:95:a6:b7:c8:d9:ea:fb:0c:1d';
const scim: Actor = { userId: null, origin: 'scim' };

const start = (store: SqliteStore, withSnapshots: boolean) =>
  Application.start<ForgefoldCommand, State>({
    ...forgefold,
    store: store.events,
    ...(withSnapshots ? { snapshots: store.snapshots } : {}),
    clock: { now: () => new Date().toISOString() },
    ids: { eventId: uuidv7Generator() },
    freeze: false,
  });

/**
 * One round of 10 commands: 2 users and 2 groups, then a project in each group, 3 memberships of the new users in
 * the new groups and 1 SCIM identity. Many rounds run at once, so that their commands group-commit together.
 */
const round = async (app: Application<ForgefoldCommand, State>, r: number, samlGroup: number): Promise<void> => {
  const must = async (actor: Actor, c: ForgefoldCommand): Promise<number> => {
    const result = await app.execute(actor, c);
    if (result._tag === 'Left') throw new Error(`${c.type}: ${JSON.stringify(result.left)}`);
    return (result.right.events[0]?.data as { id?: number } | undefined)?.id ?? 0;
  };
  const user = (n: number) => must(systemActor, { type: 'CreateUser', username: `user${r}-${n}`, name: `User ${r} ${n}`, email: `user${r}-${n}@example.com`, password_digest: null });
  const group = (n: number) => must(systemActor, { type: 'CreateGroup', name: `Group ${r} ${n}`, path: `group-${r}-${n}`, visibility: (r + n) % 3 === 0 ? 'public' : 'private' });
  const [u1, u2, g1, g2] = await Promise.all([user(1), user(2), group(1), group(2)]);
  await Promise.all([
    must(systemActor, { type: 'CreateProject', path: `project-${r}-1`, namespace_id: g1 }),
    must(systemActor, { type: 'CreateProject', path: `project-${r}-2`, namespace_id: g2 }),
    must(systemActor, { type: 'AddMember', source_type: 'Namespace', source_id: g1, user_id: u1, access_level: 30 }),
    must(systemActor, { type: 'AddMember', source_type: 'Namespace', source_id: g2, user_id: u2, access_level: 40 }),
    must(systemActor, { type: 'AddMember', source_type: 'Namespace', source_id: g2, user_id: u1, access_level: 20 }),
    must(scim, { type: 'ProvisionScimIdentity', group_id: samlGroup, extern_uid: `ext-${r}`, user_name: `scim${r}@idp.example`, email: `scim${r}@example.com`, name: `Scim ${r}`, given_name: 'Scim', family_name: String(r), active: true }),
  ]);
};

const build = async (app: Application<ForgefoldCommand, State>): Promise<void> => {
  const first = await app.execute(systemActor, { type: 'CreateGroup', name: 'SAML', path: 'saml' });
  if (first._tag === 'Left') throw new Error(JSON.stringify(first.left));
  const samlGroup = (first.right.events[0]!.data as { id: number }).id;
  await app.execute(systemActor, { type: 'ConfigureSamlProvider', group_id: samlGroup, sso_url: 'https://idp.example.com/sso', certificate_fingerprint: FINGERPRINT, default_membership_role: 30 });
  const rounds = Math.ceil(COMMANDS / 10);
  for (let begin = 0; begin < rounds; begin += 200) {
    const running: Promise<void>[] = [];
    for (let r = begin; r < Math.min(rounds, begin + 200); r++) running.push(round(app, r, samlGroup));
    await Promise.all(running);
    if (begin % 5_000 === 0 && begin > 0) log(`  ${begin * 10} commands…`);
  }
};

export default async function startupBench(): Promise<void> {
  const path = scratchPath('startup.db');
  const report = new Report(`Start-up and snapshots of the real state (${COMMANDS} commands; figures scale about linearly to 1e6)`);
  try {
    log(`building the state with ${COMMANDS} real commands…`);
    let store = openSqliteStore({ path, synchronous: 'OFF' });
    const built = await timed(async () => build(await start(store, false)));
    await store.close();
    store = openSqliteStore({ path, synchronous: 'NORMAL' });
    const events = await store.events.headPosition();
    log(`  ${events} events in ${(built.ms / 1000).toFixed(0)} s`);

    // No snapshot exists yet: this replays the whole log (and gives the application its snapshot store).
    const replay = await timed(() => start(store, true));
    const app = replay.value;
    report.add('start-up by full replay', replay.ms, 'ms', { note: `${events} events` });

    // The former snapshot: one v8.serialize on the event loop (and the blob it makes).
    const whole = await timed(() => v8.serialize(app.state));
    const oldLoad = await timed(() => v8.deserialize(whole.value));
    report.add('former snapshot: v8.serialize of the state (one pause)', whole.ms, 'ms', { note: `${(whole.value.length / 1e6).toFixed(0)} MB` });

    // A snapshot under load: commands keep arriving while it is written; the longest pause of the event loop.
    const delay = monitorEventLoopDelay({ resolution: 1 });
    let loading = true;
    let executed = 0;
    const load = (async () => {
      for (let i = 0; loading; i++) {
        await app.execute(systemActor, { type: 'CreateUser', username: `load${i}`, name: `Load ${i}`, email: `load${i}@example.com`, password_digest: null });
        executed++;
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 200));
    delay.enable();
    const taken = await timed(() => app.snapshot());
    delay.disable();
    loading = false;
    await load;
    report.add('snapshot under load: longest event-loop pause', delay.max / 1e6, 'ms', {
      baseline: 'former snapshot: v8.serialize of the state (one pause)',
      note: `target < 20 ms; taken in ${(taken.ms / 1000).toFixed(1)} s while ${executed} commands ran`,
    });
    await store.close();

    store = openSqliteStore({ path, synchronous: 'NORMAL' });
    const fromSnapshot = await timed(() => start(store, true));
    report.add('former start-up from a snapshot (v8.deserialize of the state)', oldLoad.ms, 'ms');
    report.add('start-up from a snapshot', fromSnapshot.ms, 'ms', { baseline: 'start-up by full replay', note: 'target < 1.5 s' });
    await store.close();
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(path, { readonly: true });
    const snapshotSize = db.prepare<[], number>('SELECT coalesce(sum(length(bytes)), 0) FROM snapshot_pieces WHERE snapshot_id = (SELECT max(id) FROM snapshots WHERE pieces >= 0)').pluck().get() ?? 0;
    db.close();
    report.add('snapshot size (MB)', snapshotSize / 1e6, 'ms', { note: `former format ${(whole.value.length / 1e6).toFixed(0)} MB (the unit column says ms: read MB)` });
  } finally {
    removeDb(path);
  }
  report.print();
}

/**
 * Embedding the Forgefold domain in a host service, without HTTP and without SQLite.
 *
 *   node --import tsx examples/embedding.ts
 *
 * 1. Start an Application over an event store (here the in-memory one; a durable host would pass
 *    `openSqliteStore({ path }).events` and `.snapshots` from @forgefold/sqlite-store).
 * 2. Execute commands as an actor: each resolves to Either<DomainError, { events, state }>; nothing is
 *    written when a command is refused.
 * 3. Query the committed projections (`app.state` / `app.query`) with the module queries.
 * 4. Replay the same log into a fresh Application and check that it rebuilds identical projections
 *    (`stateHash`): the log is the source of truth, the state is derived.
 *
 * A host outside this repository imports from '@forgefold/core'; the relative path below lets the example
 * run from the repository root, which is not a workspace package.
 */
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import {
  Application,
  InMemoryEventStore,
  findGroupByFullPath,
  findProjectByFullPath,
  findUserByUsername,
  forgefold,
  membersOfSource,
  stateHash,
  summarize,
  systemActor,
  type Actor,
  type CommandResult,
  type DomainError,
  type ForgefoldCommand,
  type State,
} from '../packages/core/src/index.js';

export interface EmbeddingResult {
  readonly position: number;
  readonly users: readonly string[];
  readonly group: { readonly id: number; readonly full_path: string; readonly members: number } | null;
  readonly project: { readonly id: number; readonly path_with_namespace: string } | null;
  /** The refused command's error: a duplicate username is a conflict, and writes nothing. */
  readonly refused: DomainError | null;
  readonly summary: Record<string, number>;
  readonly liveHash: string;
  readonly replayedHash: string;
  readonly replayedPosition: number;
}

/** A deterministic clock: one second per command, from a fixed start. */
const steppingClock = (start: string) => {
  let now = Date.parse(start);
  return { now: () => new Date((now += 1_000)).toISOString() };
};

export const main = async (): Promise<EmbeddingResult> => {
  const store = new InMemoryEventStore();
  const app = await Application.start<ForgefoldCommand, State>({
    ...forgefold,
    store,
    clock: steppingClock('2026-11-22T12:00:00.000Z'),
    ids: { eventId: () => randomUUID() },
  });

  const run = async (actor: Actor, command: ForgefoldCommand): Promise<CommandResult<State>> => {
    const result = await app.execute(actor, command);
    if (result._tag === 'Left') throw new Error(`${command.type} was refused: ${JSON.stringify(result.left)}`);
    return result.right;
  };

  // The system actor bootstraps the first administrator; from then on, users act as themselves.
  await run(systemActor, { type: 'CreateUser', username: 'root', name: 'Administrator', email: 'root@example.com', password_digest: null, is_admin: true });
  const root = findUserByUsername(app.state.users, 'root')!;
  const asRoot: Actor = { userId: root.id, origin: 'api', requestId: 'req-1' };
  await run(asRoot, { type: 'CreateUser', username: 'alice', name: 'Alice', email: 'alice@example.com', password_digest: null });
  await run(asRoot, { type: 'CreateGroup', name: 'Platform', path: 'platform', visibility: 'internal' });
  const platform = findGroupByFullPath(app.state.groups, 'platform');
  if (platform) await run(asRoot, { type: 'CreateProject', name: 'Gateway', path: 'gateway', namespace_id: platform.id });

  // A refused command: the decision is an error value, and the log does not change.
  const before = app.position;
  const refusal = await app.execute(asRoot, { type: 'CreateUser', username: 'alice', name: 'Alice again', email: 'alice2@example.com', password_digest: null });
  if (app.position !== before) throw new Error('a refused command must not write');

  // Queries run against the committed projections.
  const users = app.query((state) => ['root', 'alice'].filter((name) => findUserByUsername(state.users, name) !== undefined));
  const project = findProjectByFullPath(app.state.projects, 'platform/gateway');
  const liveHash = stateHash(app.state);

  // Replay: a fresh application over the same log rebuilds the same projections.
  const replayed = await Application.start<ForgefoldCommand, State>({
    ...forgefold,
    store,
    clock: steppingClock('2030-01-01T00:00:00.000Z'),
    ids: { eventId: () => randomUUID() },
  });

  return {
    position: app.position,
    users,
    group: platform ? { id: platform.id, full_path: 'platform', members: [...membersOfSource(app.state.members, 'Namespace', platform.id)].length } : null,
    project: project ? { id: project.id, path_with_namespace: 'platform/gateway' } : null,
    refused: refusal._tag === 'Left' ? refusal.left : null,
    summary: summarize(app.state),
    liveHash,
    replayedHash: stateHash(replayed.state),
    replayedPosition: replayed.position,
  };
};

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await main();
  console.log(JSON.stringify(result, null, 2));
  console.log(result.liveHash === result.replayedHash ? 'replayed projections are identical' : 'replayed projections DIFFER');
  if (result.liveHash !== result.replayedHash) process.exitCode = 1;
}

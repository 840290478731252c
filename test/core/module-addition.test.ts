/**
 * Adding a module needs no change to the composition: the product's module list plus a throw-away `notes` module
 * (one command, one event, one route), defined here, decides, folds, replays from the log and serves its route
 * beside the whole API. The real files of a module are listed in docs/architecture.md ("Adding a module").
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GitRepositories } from '@forgefold/git';
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Application,
  badRequest,
  composeForgefold,
  defineEvents,
  defineModule,
  forgefold,
  InMemoryEventStore,
  moduleList,
  systemActor,
  unauthorized,
  type DomainError,
  type ForgefoldCommand,
  type Issued,
  type State,
} from '@forgefold/core';
import { apiResources, created, createForgefoldApi, RepositoryHost, requires, route, schema, T, tokenDigest, type ApiResource, type ApiServer } from '@forgefold/http-adapter';

// --- The module, as its folder would hold it: commands, events, projection, decider, evolve, descriptor.

interface AddNote {
  readonly type: 'AddNote';
  readonly body: string;
}

const noteEvents = defineEvents({
  NoteAdded: { version: 1, stream: (data: { id: number }) => `note-${data.id}`, codec: t.type({ id: t.number, author_id: t.number, body: t.string, created_at: t.string }) },
});

interface Note {
  readonly id: number;
  readonly author_id: number;
  readonly body: string;
  readonly created_at: string;
}
interface NotesSlice {
  readonly count: number;
  readonly byId: Readonly<Record<number, Note>>;
}
type NotesState = { readonly notes: NotesSlice };

const decide = (issued: Issued<AddNote>, state: NotesState): E.Either<DomainError, { type: 'NoteAdded'; data: Note }[]> => {
  const author = issued.actor.userId;
  if (author === null) return E.left(unauthorized);
  if (issued.command.body.trim() === '') return E.left(badRequest("body can't be blank"));
  return E.right([{ type: 'NoteAdded', data: { id: state.notes.count + 1, author_id: author, body: issued.command.body, created_at: issued.at } }]);
};

const notesModule = defineModule<'notes', NotesState, NotesState, { notes: { count: number; byId: Record<number, Note> } }, AddNote, typeof noteEvents>({
  name: 'notes',
  version: 1,
  initial: () => ({ notes: { count: 0, byId: {} } }),
  events: noteEvents,
  commands: ['AddNote'],
  decide,
  evolve: (draft, event) => {
    draft.notes.byId[event.data.id] = event.data;
    draft.notes.count = Math.max(draft.notes.count, event.data.id);
  },
});

// --- The composition: the product's list and one more entry.

type Composed = State & NotesState;
type ComposedCommand = ForgefoldCommand | AddNote;
const composition = composeForgefold<ComposedCommand, Composed>([...moduleList, notesModule]);

const clock = { now: () => '2026-05-04T10:00:00.000Z' };
const ids = { eventId: () => randomUUID() };
const start = (store: InMemoryEventStore) => Application.start<ComposedCommand, Composed>({ ...composition, store, clock, ids });

// --- The resource, as its folder would hold it: one route.

const noteRoutes =
  (app: Application<ComposedCommand, Composed>): ApiResource =>
  () => [
    route({
      method: 'POST',
      path: '/notes',
      params: schema(requires('body', T.String)),
      handler: async (ctx) => {
        const result = await app.execute(ctx.actor, { type: 'AddNote', body: ctx.params.body ?? '' });
        if (E.isLeft(result)) return result.left;
        return created(result.right.state.notes.byId[result.right.state.notes.count]);
      },
    }),
  ];

describe('adding a module', () => {
  const store = new InMemoryEventStore();
  let app: Application<ComposedCommand, Composed>;
  let api: ApiServer;
  let base: string;
  const token = 'glpat-module-addition-test';
  let gitRoot = '';

  beforeAll(async () => {
    app = await start(store);
    const root = await app.execute(systemActor, { type: 'CreateUser', username: 'root', name: 'Administrator', email: 'admin@example.com', password_digest: null, is_admin: true });
    if (E.isLeft(root)) throw new Error(JSON.stringify(root.left));
    const rootId = root.right.state.users.count;
    const issued = await app.execute(systemActor, { type: 'CreatePersonalAccessToken', user_id: rootId, name: 'test', scopes: ['api'], expires_at: null, token_digest: tokenDigest(token), impersonation: false });
    if (E.isLeft(issued)) throw new Error(JSON.stringify(issued.left));
    gitRoot = mkdtempSync(join(tmpdir(), 'forgefold-module-addition-'));
    const repositories = new RepositoryHost(app, clock, new GitRepositories({ root: gitRoot }));
    api = createForgefoldApi({ app, clock, repositories, resources: [...apiResources, noteRoutes(app)] });
    const address = await api.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${address.port}/api/v4`;
  });
  afterAll(async () => {
    rmSync(gitRoot, { recursive: true, force: true });
    await api.close();
  });

  it('derives dispatch, registry, slices and projection version from the longer list', () => {
    expect(composition.registry.streamOf({ type: 'NoteAdded', data: { id: 7, author_id: 1, body: 'x', created_at: clock.now() } })).toBe('note-7');
    expect(composition.decider.initialState().notes).toEqual({ count: 0, byId: {} });
    expect(composition.projectionVersion).not.toBe(forgefold.projectionVersion);
  });

  it('decides (and refuses) through the composition, with the guard of every command', () => {
    const state = app.state;
    const decided = composition.decider.decide({ command: { type: 'AddNote', body: 'hello' }, actor: { userId: 1, origin: 'api' }, at: clock.now() }, state);
    expect(decided).toEqual(E.right([{ type: 'NoteAdded', data: { id: 1, author_id: 1, body: 'hello', created_at: clock.now() } }]));
    expect(E.isLeft(composition.decider.decide({ command: { type: 'AddNote', body: ' ' }, actor: { userId: 1, origin: 'api' }, at: clock.now() }, state))).toBe(true);
    // The composition's guard: an actor who does not exist acts in no module, this one included.
    expect(composition.decider.decide({ command: { type: 'AddNote', body: 'x' }, actor: { userId: 99, origin: 'api' }, at: clock.now() }, state)).toEqual(E.left(unauthorized));
  });

  it('serves its route beside the whole API, folds its event, and replays it from the log', async () => {
    const headers = { 'PRIVATE-TOKEN': token, 'Content-Type': 'application/json' };
    const posted = await fetch(`${base}/notes`, { method: 'POST', headers, body: JSON.stringify({ body: 'first note' }) });
    expect(posted.status).toBe(201);
    expect(await posted.json()).toEqual({ id: 1, author_id: 1, body: 'first note', created_at: clock.now() });
    const missing = await fetch(`${base}/notes`, { method: 'POST', headers, body: '{}' });
    expect([missing.status, await missing.json()]).toEqual([400, { error: 'body is missing' }]);
    const anonymous = await fetch(`${base}/notes`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ body: 'x' }) });
    expect(anonymous.status).toBe(401);
    // The rest of the API is unchanged beside it.
    const user = await fetch(`${base}/user`, { headers });
    expect(((await user.json()) as { username: string }).username).toBe('root');

    expect(app.state.notes.byId[1]).toEqual({ id: 1, author_id: 1, body: 'first note', created_at: clock.now() });
    const log = await store.readAll(0, 100);
    expect(log.filter((event) => event.type === 'NoteAdded').map((event) => [event.streamId, event.metadata.actorId])).toEqual([['note-1', 1]]);
    const replayed = await start(store);
    expect(replayed.state.notes).toEqual(app.state.notes);
    expect(replayed.state.users.count).toBe(app.state.users.count);
  });
});

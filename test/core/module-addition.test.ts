/**
 * Adding a module needs no change to the composition: the product's module list plus a throw-away `remarks` module (the product has its own notes)
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

interface AddRemark {
  readonly type: 'AddRemark';
  readonly body: string;
}

const remarkEvents = defineEvents({
  RemarkAdded: { version: 1, stream: (data: { id: number }) => `remark-${data.id}`, codec: t.type({ id: t.number, author_id: t.number, body: t.string, created_at: t.string }) },
});

interface Remark {
  readonly id: number;
  readonly author_id: number;
  readonly body: string;
  readonly created_at: string;
}
interface RemarksSlice {
  readonly count: number;
  readonly byId: Readonly<Record<number, Remark>>;
}
type RemarksState = { readonly remarks: RemarksSlice };

const decide = (issued: Issued<AddRemark>, state: RemarksState): E.Either<DomainError, { type: 'RemarkAdded'; data: Remark }[]> => {
  const author = issued.actor.userId;
  if (author === null) return E.left(unauthorized);
  if (issued.command.body.trim() === '') return E.left(badRequest("body can't be blank"));
  return E.right([{ type: 'RemarkAdded', data: { id: state.remarks.count + 1, author_id: author, body: issued.command.body, created_at: issued.at } }]);
};

const remarksModule = defineModule<'remarks', RemarksState, RemarksState, { remarks: { count: number; byId: Record<number, Remark> } }, AddRemark, typeof remarkEvents>({
  name: 'remarks',
  version: 1,
  initial: () => ({ remarks: { count: 0, byId: {} } }),
  events: remarkEvents,
  commands: ['AddRemark'],
  decide,
  evolve: (draft, event) => {
    draft.remarks.byId[event.data.id] = event.data;
    draft.remarks.count = Math.max(draft.remarks.count, event.data.id);
  },
});

// --- The composition: the product's list and one more entry.

type Composed = State & RemarksState;
type ComposedCommand = ForgefoldCommand | AddRemark;
const composition = composeForgefold<ComposedCommand, Composed>([...moduleList, remarksModule]);

const clock = { now: () => '2026-05-04T10:00:00.000Z' };
const ids = { eventId: () => randomUUID() };
const start = (store: InMemoryEventStore) => Application.start<ComposedCommand, Composed>({ ...composition, store, clock, ids });

// --- The resource, as its folder would hold it: one route.

const remarkRoutes =
  (app: Application<ComposedCommand, Composed>): ApiResource =>
  () => [
    route({
      method: 'POST',
      path: '/remarks',
      params: schema(requires('body', T.String)),
      handler: async (ctx) => {
        const result = await app.execute(ctx.actor, { type: 'AddRemark', body: ctx.params.body ?? '' });
        if (E.isLeft(result)) return result.left;
        return created(result.right.state.remarks.byId[result.right.state.remarks.count]);
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
    api = createForgefoldApi({ app, clock, repositories, resources: [...apiResources, remarkRoutes(app)] });
    const address = await api.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${address.port}/api/v4`;
  });
  afterAll(async () => {
    rmSync(gitRoot, { recursive: true, force: true });
    await api.close();
  });

  it('derives dispatch, registry, slices and projection version from the longer list', () => {
    expect(composition.registry.streamOf({ type: 'RemarkAdded', data: { id: 7, author_id: 1, body: 'x', created_at: clock.now() } })).toBe('remark-7');
    expect(composition.decider.initialState().remarks).toEqual({ count: 0, byId: {} });
    expect(composition.projectionVersion).not.toBe(forgefold.projectionVersion);
  });

  it('decides (and refuses) through the composition, with the guard of every command', () => {
    const state = app.state;
    const decided = composition.decider.decide({ command: { type: 'AddRemark', body: 'hello' }, actor: { userId: 1, origin: 'api' }, at: clock.now() }, state);
    expect(decided).toEqual(E.right([{ type: 'RemarkAdded', data: { id: 1, author_id: 1, body: 'hello', created_at: clock.now() } }]));
    expect(E.isLeft(composition.decider.decide({ command: { type: 'AddRemark', body: ' ' }, actor: { userId: 1, origin: 'api' }, at: clock.now() }, state))).toBe(true);
    // The composition's guard: an actor who does not exist acts in no module, this one included.
    expect(composition.decider.decide({ command: { type: 'AddRemark', body: 'x' }, actor: { userId: 99, origin: 'api' }, at: clock.now() }, state)).toEqual(E.left(unauthorized));
  });

  it('serves its route beside the whole API, folds its event, and replays it from the log', async () => {
    const headers = { 'PRIVATE-TOKEN': token, 'Content-Type': 'application/json' };
    const posted = await fetch(`${base}/remarks`, { method: 'POST', headers, body: JSON.stringify({ body: 'first remark' }) });
    expect(posted.status).toBe(201);
    expect(await posted.json()).toEqual({ id: 1, author_id: 1, body: 'first remark', created_at: clock.now() });
    const missing = await fetch(`${base}/remarks`, { method: 'POST', headers, body: '{}' });
    expect([missing.status, await missing.json()]).toEqual([400, { error: 'body is missing' }]);
    const anonymous = await fetch(`${base}/remarks`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ body: 'x' }) });
    expect(anonymous.status).toBe(401);
    // The rest of the API is unchanged beside it.
    const user = await fetch(`${base}/user`, { headers });
    expect(((await user.json()) as { username: string }).username).toBe('root');

    expect(app.state.remarks.byId[1]).toEqual({ id: 1, author_id: 1, body: 'first remark', created_at: clock.now() });
    const log = await store.readAll(0, 100);
    expect(log.filter((event) => event.type === 'RemarkAdded').map((event) => [event.streamId, event.metadata.actorId])).toEqual([['remark-1', 1]]);
    const replayed = await start(store);
    expect(replayed.state.remarks).toEqual(app.state.remarks);
    expect(replayed.state.users.count).toBe(app.state.users.count);
  });
});

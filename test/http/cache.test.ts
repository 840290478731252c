/** The response cache: reads are served from it until the version changes, per caller, never for routes that authenticate themselves. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiServer, mount, route, type ApiServer, type AuthBackend } from '@forgefold/http-adapter';

let server: ApiServer;
let url: string;
let version = 1;
let calls = 0;

const backend: AuthBackend = {
  authenticate: (token) =>
    token === 'alice' || token === 'bob'
      ? { kind: 'ok', userId: token === 'alice' ? 1 : 2, isAdmin: false, scopes: ['api'], tokenKind: 'personal' }
      : { kind: 'unknown' },
  findUser: () => null,
};

beforeAll(async () => {
  server = createApiServer({
    routes: [
      mount('/api/v4', [
        route({ method: 'GET', path: '/counter', handler: (ctx) => ({ calls: ++calls, user: ctx.principal?.userId ?? null }) }),
        route({ method: 'GET', path: '/uncached', cache: false, handler: () => ({ calls: ++calls }) }),
        route({ method: 'GET', path: '/self-authenticated', auth: 'none', handler: (ctx) => ({ calls: ++calls, token: ctx.token }) }),
      ]),
    ],
    authBackend: backend,
    log: () => undefined,
    responseCache: { version: () => String(version) },
  });
  url = (await server.listen(0, '127.0.0.1')).url;
});
afterAll(async () => {
  await server.close();
});

const get = async (path: string, token?: string, headers: Record<string, string> = {}) => {
  const response = await fetch(`${url}/api/v4${path}`, { headers: { ...(token ? { 'PRIVATE-TOKEN': token } : {}), ...headers } });
  return { status: response.status, etag: response.headers.get('etag'), body: response.status === 200 ? ((await response.json()) as { calls: number; user?: number }) : null };
};

describe('response cache', () => {
  it('serves a repeated read from the cache until the version changes', async () => {
    const first = await get('/counter', 'alice');
    const second = await get('/counter', 'alice');
    expect(second.body).toEqual(first.body);
    expect(second.etag).toBe(first.etag);
    version++;
    expect((await get('/counter', 'alice')).body!.calls).toBe(first.body!.calls + 1);
  });

  it('keeps callers apart, answers 304 from the cache, and still authenticates every request', async () => {
    const alice = await get('/counter', 'alice');
    const bob = await get('/counter', 'bob');
    expect(bob.body!.user).toBe(2);
    expect(alice.body!.user).toBe(1);
    expect((await get('/counter', 'alice', { 'If-None-Match': alice.etag! })).status).toBe(304);
    expect((await get('/counter', 'mallory')).status).toBe(401);
  });

  it('never caches routes that opt out or check their own credential', async () => {
    const a = await get('/uncached', 'alice');
    expect((await get('/uncached', 'alice')).body!.calls).toBe(a.body!.calls + 1);
    const b = await get('/self-authenticated', 'alice');
    expect((await get('/self-authenticated', 'bob')).body!.calls).toBe(b.body!.calls + 1);
  });
});

describe('a read with a body', () => {
  it('is never answered from the cache: its body params count (a GET with a JSON body got the reply of the bare GET)', async () => {
    const counter = async (body?: string) => {
      const { request } = await import('node:http');
      const target = new URL(`${url}/api/v4/counter`);
      return new Promise<number>((resolve, reject) => {
        const headers: Record<string, string> = { 'PRIVATE-TOKEN': 'alice', ...(body ? { 'Content-Type': 'application/json', 'Content-Length': String(body.length) } : {}) };
        const r = request({ host: target.hostname, port: target.port, path: target.pathname, method: 'GET', headers }, (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve((JSON.parse(text) as { calls: number }).calls));
        });
        r.on('error', reject);
        r.end(body);
      });
    };
    version++;
    const bare = await counter();
    expect(await counter()).toBe(bare);
    expect(await counter('{"x":1}')).toBe(bare + 1);
    expect(await counter('{"x":1}')).toBe(bare + 2);
  });
});

describe('one keep-alive connection', () => {
  it('tells its requests apart by target and credentials: the exchange key is worked out again when any of them changes', async () => {
    const { Agent, request } = await import('node:http');
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const target = new URL(url);
    const ports = new Set<number>();
    const ask = (path: string, headers: Record<string, string>) =>
      new Promise<{ status: number; body: { calls: number; user: number | null } | null }>((resolve, reject) => {
        const r = request({ host: target.hostname, port: target.port, path: `/api/v4${path}`, agent, headers }, (res) => {
          ports.add(res.socket.localPort!);
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode!, body: res.statusCode === 200 ? (JSON.parse(text) as { calls: number; user: number | null }) : null }));
        });
        r.on('error', reject);
        r.end();
      });
    try {
      version++;
      const alice = await ask('/counter', { 'PRIVATE-TOKEN': 'alice' });
      expect(alice.body!.user).toBe(1);
      expect(await ask('/counter', { 'PRIVATE-TOKEN': 'alice' })).toEqual(alice);
      const bob = await ask('/counter', { 'PRIVATE-TOKEN': 'bob' });
      expect(bob.body).toEqual({ calls: alice.body!.calls + 1, user: 2 });
      expect(await ask('/counter', { 'PRIVATE-TOKEN': 'alice' })).toEqual(alice);
      expect((await ask('/counter', { 'PRIVATE-TOKEN': 'mallory' })).status).toBe(401);
      expect((await ask('/counter', {})).status).toBe(401);
      // Another target, then another Host: each a reply of its own.
      expect((await ask('/counter?x=1', { 'PRIVATE-TOKEN': 'alice' })).body!.calls).toBe(alice.body!.calls + 2);
      expect((await ask('/counter', { 'PRIVATE-TOKEN': 'alice', Host: 'other.example' })).body!.calls).toBe(alice.body!.calls + 3);
      expect(await ask('/counter', { 'PRIVATE-TOKEN': 'alice' })).toEqual(alice);
      expect(ports.size).toBe(1);
    } finally {
      agent.destroy();
    }
  });
});

describe('ResponseCache', () => {
  it('evicts the least recently used entry, a read repeated or stored again counting as a use', async () => {
    const { ResponseCache } = await import('@forgefold/http-adapter');
    const reply = (text: string) => ({ status: 200, headerList: [], payload: Buffer.from(text), etag: null });
    const cache = new ResponseCache({ version: () => 'v', maxEntries: 3 });
    for (const key of ['a', 'b', 'c']) cache.set(key, reply(key), 'v');
    expect(cache.get('a')).toBeDefined();
    expect(cache.get('a')).toBeDefined();
    cache.set('d', reply('d'), 'v'); // b is the least recently used
    expect(cache.get('b')).toBeUndefined();
    cache.set('c', reply('c2'), 'v'); // c stored again: now the newest; a is the least recently used
    cache.set('e', reply('e'), 'v');
    expect(cache.get('a')).toBeUndefined();
    expect(['c', 'd', 'e'].map((key) => cache.get(key)?.payload?.toString())).toEqual(['c2', 'd', 'e']);
    expect(cache.size).toBe(3);
  });
});

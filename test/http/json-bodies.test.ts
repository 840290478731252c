/**
 * JSON bodies, read cheaply: the checks read off the text (`jsonFault`) find what the walk over the parsed value
 * (`paramsFault`) finds, and a body parsed in the worker thread is answered as one parsed on the event loop, of
 * the names the route reads (its schema's, the credentials', pagination's).
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  createApiServer,
  jsonFault,
  jsonNestsDeeperThan,
  mount,
  optional,
  paramsFault,
  route,
  schema,
  T,
  type ApiServer,
  type AuthBackend,
} from '@forgefold/http-adapter';

/** JSON strings that JSON.parse turns into a NUL, a lone surrogate, a pair, or harmless text with brackets, quotes and backslashes. */
const STRINGS = ['"a"', '""', '"\\u0000"', '"x\\ud800"', '"\\udc00y"', '"\\ud83d\\ude00"', '"\\uDBFF"', '"\\u00e9"', '"\\\\u0000"', '"\\\\"', '"[{"', '"\\"]}"', '"\\\\\\ud800"'];

/** JSON text, written as text (so that the escapes are the ones above), nesting up to 7 deep; no key given twice. */
const jsonText: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(...STRINGS, '1', '-0.5e3', 'true', 'null'),
    fc.array(tie('value'), { maxLength: 3 }).map((items) => `[${items.join(',')}]`),
    fc
      .uniqueArray(fc.tuple(fc.constantFrom(...STRINGS), tie('value')), { maxLength: 3, selector: ([key]) => key })
      .map((pairs) => `{ ${pairs.map(([k, v]) => `${k}: ${v}`).join(', ')} }`),
  ),
})).value;

describe('the checks read off the text', () => {
  it('find the fault the walk finds, the same one, at any nesting limit', () => {
    fc.assert(
      fc.property(jsonText, fc.integer({ min: 0, max: 8 }), (text, maxDepth) => {
        const parsed: unknown = JSON.parse(text);
        expect(jsonFault(text, parsed, maxDepth)).toEqual(paramsFault(parsed, maxDepth));
      }),
      { numRuns: 2000 },
    );
  });

  it('count nesting by brackets outside strings', () => {
    const nested = (depth: number) => `{"x":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
    expect(jsonNestsDeeperThan(nested(100), 100)).toBe(false);
    expect(jsonNestsDeeperThan(nested(101), 100)).toBe(true);
    expect(jsonNestsDeeperThan(`{"${'['.repeat(200)}":"\\"${'{'.repeat(200)}"}`, 1)).toBe(false);
    expect(jsonNestsDeeperThan('[[]]', 1)).toBe(true);
  });

  it('count the nesting of the text, as the Ruby parser does: a key given twice is refused for its deeper value', () => {
    const deep = `{"x":${'['.repeat(100)}${']'.repeat(100)},"x":1}`;
    expect(paramsFault(JSON.parse(deep), 100)).toBeNull();
    expect(jsonFault(deep, JSON.parse(deep), 100)).toEqual({ kind: 'too_deep' });
    const deepAndSuspect = `{"x":${'['.repeat(100)}${']'.repeat(100)},"x":"\\ud83d\\ude00"}`;
    expect(jsonFault(deepAndSuspect, JSON.parse(deepAndSuspect), 100)).toEqual({ kind: 'too_deep' });
  });
});

const backend: AuthBackend = {
  authenticate: (token) => (token === 'ok' ? { kind: 'ok', userId: 1, isAdmin: false, scopes: ['api'], tokenKind: 'personal' } : { kind: 'unknown' }),
  findUser: () => null,
};
const routes = [
  mount('/api/v4', [
    route({
      method: 'POST',
      path: '/things/:id',
      auth: 'optional',
      params: schema(optional('a', T.JSON), optional('b', T.String), optional('id', T.String), optional('n', T.Integer)),
      handler: (ctx) => ({ params: ctx.params, raw: ctx.raw, user: ctx.principal?.userId ?? null }),
    }),
  ]),
];

/** The names the route above reads of a body parsed in the worker. */
const READ = ['a', 'b', 'id', 'n', 'private_token', 'access_token', 'sudo', 'page', 'per_page', 'pagination', 'order_by', 'sort', 'id_after', 'id_before'];

let onLoop: ApiServer;
let inWorker: ApiServer;
const ports = { onLoop: 0, inWorker: 0 };

beforeAll(async () => {
  onLoop = createApiServer({ routes, authBackend: backend, limits: { parseInWorkerBytes: Number.POSITIVE_INFINITY }, log: () => {} });
  inWorker = createApiServer({ routes, authBackend: backend, limits: { parseInWorkerBytes: 1 }, log: () => {} });
  ports.onLoop = (await onLoop.listen(0)).port;
  ports.inWorker = (await inWorker.listen(0)).port;
});
afterAll(async () => {
  await Promise.all([onLoop.close(), inWorker.close()]);
});

const post = (port: number, path: string, body: Buffer, contentType = 'application/json'): Promise<{ status: number; text: string }> =>
  new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path, headers: { 'Content-Type': contentType, 'Content-Length': String(body.length) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(body);
  });

/** The credentials, which the route reads of a body parsed in the worker only when they are text (or a number). */
const CREDENTIALS = ['private_token', 'access_token', 'sudo'];

/** An answer with `raw` cut down to the names the route reads. */
const asRead = ({ status, text }: { status: number; text: string }): unknown => {
  if (status !== 201) return { status, text };
  const { raw, ...rest } = JSON.parse(text) as { raw: Record<string, unknown> };
  const read = ([name, value]: [string, unknown]) => READ.includes(name) && (!CREDENTIALS.includes(name) || typeof value === 'string' || typeof value === 'number');
  return { status, ...rest, raw: Object.fromEntries(Object.entries(raw).filter(read)) };
};

/** Bodies: objects of read and unread names, other JSON values, text that is no JSON, bytes that are no UTF-8. */
const body = fc.oneof(
  fc
    .dictionary(fc.oneof({ arbitrary: fc.constantFrom('a', 'b', 'n', 'id', 'x', '__proto__', 'private_token', 'sudo', 'page'), weight: 12 }, { arbitrary: fc.constant('\\ud800'), weight: 1 }), jsonText, { maxKeys: 5 })
    .map((fields) => Buffer.from(`{${Object.entries(fields).map(([k, v]) => `"${k}":${v}`).join(',')}}`)),
  jsonText.map((text) => Buffer.from(text)),
  fc.constantFrom('', ' ', '{', '{"a":1,}', 'nul', '{"a":1} x', `{"a":${'['.repeat(100)}${']'.repeat(100)}}`, `{"a":${'['.repeat(99)}${']'.repeat(99)}}`).map((text) => Buffer.from(text)),
  fc.constantFrom(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d]), Buffer.from([0x7b, 0xff, 0x7d])),
);

describe('a JSON body parsed in the worker', () => {
  it('is answered as on the event loop: the same refusals, the same params and the same values of the names the route reads', async () => {
    await fc.assert(
      fc.asyncProperty(body, fc.constantFrom('/api/v4/things/7', '/api/v4/things/7?b=q&x=1'), async (bytes, path) => {
        const [loop, worker] = await Promise.all([post(ports.onLoop, path, bytes), post(ports.inWorker, path, bytes)]);
        expect(asRead(worker)).toEqual(asRead(loop));
      }),
      { numRuns: 300 },
    );
  });

  it('takes a token and sudo from the body, and route params win over it', async () => {
    const answer = await post(ports.inWorker, '/api/v4/things/7?n=1', Buffer.from(JSON.stringify({ private_token: 'ok', id: 'body', b: 'x', unread: 1 })));
    expect(JSON.parse(answer.text)).toEqual({ params: { a: undefined, b: 'x', id: '7', n: 1 }, raw: { n: '1', private_token: 'ok', id: '7', b: 'x' }, user: 1 });
  });
});

/**
 * The server's connections under clients that send slowly or stop early: an early reply on a closing
 * connection reaches a client that is still sending its body; time-outs end connections that hold the server.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiServer, mount, route, type ApiServer, type AuthBackend, type Timeouts } from '@forgefold/http-adapter';

const backend: AuthBackend = {
  authenticate: (token) => (token === 'ok' ? { kind: 'ok', userId: 1, isAdmin: false, scopes: ['api'], tokenKind: 'personal' } : { kind: 'unknown' }),
  findUser: () => null,
};
const routes = [
  mount('/api/v4', [
    route({ method: 'GET', path: '/things', auth: 'none', handler: () => [] }),
    route({ method: 'POST', path: '/private', handler: () => ({ ok: true }) }),
  ]),
];

let api: ApiServer;
let port = 0;
const BODY_LIMIT = 1024 * 1024;

beforeAll(async () => {
  api = createApiServer({ routes, authBackend: backend, limits: { maxBodyBytes: BODY_LIMIT }, log: () => {} });
  port = (await api.listen(0)).port;
});
afterAll(async () => {
  await api.close();
});

interface RawReply {
  readonly status: number;
  readonly complete: boolean;
  readonly text: string;
}

/**
 * A client like curl or python-requests: it writes its whole body, in pieces and with pauses, before it reads
 * anything; then it reads until the server closes. The reply counts only when its whole body arrived.
 */
function sendSlowly(head: string, bodyBytes: number, piece = 64 * 1024): Promise<RawReply> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.pause();
    const chunks: Buffer[] = [];
    let failed = false;
    const read = () => {
      socket.on('data', (c: Buffer) => chunks.push(c));
      socket.resume();
    };
    const finish = () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const [headers = '', body = ''] = text.split('\r\n\r\n', 2);
      const length = /\r\ncontent-length: (\d+)/i.exec(headers);
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(headers)?.[1] ?? 0);
      const expected = status === 204 ? 0 : length === null ? -1 : Number(length[1]);
      resolve({ status, complete: Buffer.byteLength(body, 'latin1') === expected, text });
    };
    socket.on('error', () => {
      failed = true;
    });
    socket.on('close', finish);
    socket.on('connect', async () => {
      socket.write(head);
      const chunk = Buffer.alloc(piece, 0x61);
      for (let sent = 0; sent < bodyBytes && !failed; sent += piece) {
        socket.write(sent + piece <= bodyBytes ? chunk : chunk.subarray(0, bodyBytes - sent));
        await new Promise((r) => setTimeout(r, 1));
      }
      read();
    });
  });
}

const post = (path: string, length: number, extra = '', method = 'POST') =>
  `${method} ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\nContent-Length: ${length}\r\n${extra}Connection: close\r\n\r\n`;

describe('an early reply on a connection the client closes', () => {
  const cases: Array<[string, string, number, number]> = [
    ['404 unknown route', post('/api/v4/nowhere', 900_000), 900_000, 404],
    ['405 wrong method', post('/api/v4/things', 900_000), 900_000, 405],
    ['400 malformed path', post('/api/v4/%ZZ', 900_000), 900_000, 400],
    ['413 declared too large', post('/api/v4/private', 1_500_000, 'PRIVATE-TOKEN: ok\r\n'), 1_500_000, 413],
    // Found by the fuzz property: a reply without a body finished (and node closed) before the stage returned.
    ['204 OPTIONS', post('/api/v4/things', 900_000, '', 'OPTIONS'), 900_000, 204],
    // Read whole first, then answered: the ordinary close.
    ['401 after the body', post('/api/v4/private', 900_000), 900_000, 401],
  ];
  for (const [name, head, size, status] of cases) {
    it(`${name}: read whole by a client still sending its body, 20 times in 20`, async () => {
      const replies: RawReply[] = [];
      for (let i = 0; i < 20; i++) replies.push(await sendSlowly(head, size));
      expect(replies.map((r) => `${r.status}${r.complete ? '' : ' (cut)'}`)).toEqual(Array(20).fill(String(status)));
    });
  }
});

describe('a lingering connection at shutdown', () => {
  // A guard: node counts a connection whose reply is sent as idle, and close() drops it.
  it('does not hold close() up: its reply was sent', async () => {
    const s = createApiServer({ routes, authBackend: backend, log: () => {} });
    const { port: p } = await s.listen(0);
    const socket = net.connect(p, '127.0.0.1', () => socket.write(post('/api/v4/nowhere', 10_000_000)));
    socket.on('error', () => undefined);
    let reply = '';
    socket.on('data', (c: Buffer) => (reply += c.toString('latin1')));
    // The client keeps sending a little, so the linger would last its full 30 s.
    const trickle = setInterval(() => socket.writable && socket.write(Buffer.alloc(1024, 0x61)), 50);
    try {
      while (!reply.includes('404 Not Found')) await new Promise((r) => setTimeout(r, 20));
      const started = Date.now();
      await s.close();
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      clearInterval(trickle);
      socket.destroy();
    }
  });
});

describe('time-outs (small values here; production defaults in docs/decisions.md)', () => {
  const withServer = async (timeouts: Partial<Timeouts>, run: (server: ApiServer, p: number) => Promise<void>) => {
    const big = Buffer.alloc(8 * 1024 * 1024, 0x62).toString('latin1');
    const s = createApiServer({
      routes: [mount('/api/v4', [...routes[0]!.routes, route({ method: 'GET', path: '/big', auth: 'none', handler: () => ({ big }) })])],
      authBackend: backend,
      log: () => {},
      timeouts,
    });
    const { port: p } = await s.listen(0);
    try {
      await run(s, p);
    } finally {
      s.server.closeAllConnections();
      await s.close();
    }
  };
  /** Opens a connection, writes `data`, and resolves with what came back and after how long the server closed. */
  const hold = (p: number, data: string): Promise<{ text: string; ms: number }> =>
    new Promise((resolve) => {
      const started = Date.now();
      const socket = net.connect(p, '127.0.0.1', () => socket.write(data));
      let text = '';
      socket.on('data', (c: Buffer) => (text += c.toString('latin1')));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve({ text, ms: Date.now() - started }));
      // The test's own bound: far beyond the configured time-outs, far below the old 60 s.
      setTimeout(() => socket.destroy(), 8_000).unref();
    });
  const connections = (s: ApiServer) => new Promise<number>((resolve, reject) => s.server.getConnections((e, n) => (e ? reject(e) : resolve(n))));

  it('a client holding half its headers gets 408 and the connection closes (headers time-out)', async () => {
    await withServer({ headersMs: 300, requestMs: 1_000 }, async (_s, p) => {
      const slow = await hold(p, 'GET /api/v4/things HTTP/1.1\r\nHost: x\r\nX-Half: ');
      expect(slow.text.split('\r\n')[0]).toBe('HTTP/1.1 408 Request Timeout');
      expect(slow.text).toContain('{"error":"408 Request Timeout"}');
      expect(slow.ms).toBeLessThan(3_000);
    });
  });

  it('a body that does not arrive ends the connection (request time-out)', async () => {
    await withServer({ headersMs: 300, requestMs: 600 }, async (_s, p) => {
      const slow = await hold(p, 'POST /api/v4/private HTTP/1.1\r\nHost: x\r\nPRIVATE-TOKEN: ok\r\nContent-Length: 1000\r\n\r\nonly a little');
      expect(slow.ms).toBeLessThan(3_000);
    });
  });

  it('an idle keep-alive connection closes after the keep-alive time-out', async () => {
    await withServer({ keepAliveMs: 200 }, async (_s, p) => {
      const idle = await hold(p, 'GET /api/v4/things HTTP/1.1\r\nHost: x\r\n\r\n');
      expect(idle.text).toMatch(/^HTTP\/1\.1 200 /);
      expect(idle.ms).toBeLessThan(2_000);
    });
  });

  it('a client that stops reading a reply is dropped after the idle time-out', async () => {
    await withServer({ idleMs: 300 }, async (s, p) => {
      // Never reads: the 8 MiB reply fills the socket buffers and the server's writes stall.
      const stalled = net.connect(p, '127.0.0.1', () => stalled.write('GET /api/v4/big HTTP/1.1\r\nHost: x\r\n\r\n'));
      stalled.pause();
      stalled.on('error', () => undefined);
      await new Promise((r) => setTimeout(r, 100));
      expect(await connections(s)).toBe(1);
      const deadline = Date.now() + 4_000;
      while ((await connections(s)) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(await connections(s)).toBe(0);
      stalled.destroy();
    });
  });
});

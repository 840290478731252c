/**
 * The hardening issue's bad input against the real server: strings that have no UTF-8 form (an unpaired
 * surrogate from a JSON escape), NULs and deeply nested JSON are refused with 400 and change nothing; no list
 * answers 500 because of them.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startServer({ start: '2026-05-01T00:00:00.000Z' });
  await server.request('POST', '/api/v4/groups', { body: { name: 'First', path: 'first' } });
  await server.request('POST', '/api/v4/groups', { body: { name: 'Second', path: 'second', visibility: 'public' } });
  await server.request('POST', '/api/v4/projects', { body: { name: 'one', visibility: 'public' } });
  await server.request('POST', '/api/v4/projects', { body: { name: 'two', visibility: 'public' } });
});
afterAll(async () => {
  await server.close();
});

/** Sends `body` verbatim (a JSON text with `\ud800` escapes, or bytes), with a Content-Length, on any method. */
const raw = (method: string, path: string, body: string, token: string | null): Promise<{ status: number; text: string }> =>
  new Promise((resolve, reject) => {
    const url = new URL(server.baseUrl);
    const headers: Record<string, string> = { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) };
    if (token) headers['PRIVATE-TOKEN'] = token;
    const req = httpRequest({ host: url.hostname, port: url.port, method, path, headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });

describe('an unpaired surrogate in a JSON body', () => {
  it('is refused with 400 and not stored', async () => {
    const before = server.app.position;
    for (const [path, body] of [
      ['/api/v4/groups', '{"name":"G\\ud800","path":"g-surrogate"}'],
      ['/api/v4/groups', '{"name":"G","path":"g-surrogate","description":"\\udc00"}'],
      ['/api/v4/users', '{"name":"U\\ud800","username":"u-surrogate","email":"u@example.com","password":"secret-password-1"}'],
      ['/api/v4/projects', '{"name":"p\\ud800"}'],
    ] as const) {
      const r = await raw('POST', path, body, server.rootToken);
      expect([path, r.status]).toEqual([path, 400]);
      expect(JSON.parse(r.text)).toEqual({ error: expect.stringMatching(/^Malformed string in parameter '(name|description)'/) });
    }
    expect(server.app.position).toBe(before);
  });

  it('never makes a paginated list answer 500 (it was echoed into the Link header)', async () => {
    for (const [path, token] of [
      ['/api/v4/projects?per_page=1', null],
      ['/api/v4/users?per_page=1', server.rootToken],
      ['/api/v4/groups?per_page=1', server.rootToken],
      ['/api/v4/groups?per_page=1', null],
    ] as const) {
      const r = await raw('GET', path, '{"x":"\\ud800"}', token);
      expect([path, token !== null, r.status]).toEqual([path, token !== null, 400]);
    }
  });
});

describe('deeply nested JSON', () => {
  it('is a 400 on a list, not a 500 from a stack overflow while writing its links', async () => {
    const deep = `{"x":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    for (const path of ['/api/v4/groups?per_page=1', '/api/v4/projects?per_page=1']) {
      const r = await raw('GET', path, deep, server.rootToken);
      expect([path, r.status, r.text]).toEqual([path, 400, '{"error":"message body does not match declared format"}']);
    }
    const before = server.app.position;
    expect((await raw('POST', '/api/v4/groups', `{"name":"Deep","path":"deep","x":${'['.repeat(200)}${']'.repeat(200)}}`, server.rootToken)).status).toBe(400);
    expect(server.app.position).toBe(before);
  });
});

/** The request limits are server configuration: a longer URL answers 414, a larger body 413, and nothing changes. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startServer({ config: { maxUrlBytes: 200, maxBodyBytes: 256 } });
});
afterAll(async () => {
  await server.close();
});

describe('configured limits', () => {
  it('answers 414 and 413 as configured', async () => {
    const longUrl = await server.request('GET', `/api/v4/groups?search=${'x'.repeat(300)}`);
    expect(longUrl.status).toBe(414);
    const before = server.app.position;
    const bigBody = await server.request('POST', '/api/v4/groups', { body: { name: 'Big', path: 'big', description: 'y'.repeat(400) } });
    expect(bigBody.status).toBe(413);
    expect(server.app.position).toBe(before);
    expect((await server.request('POST', '/api/v4/groups', { body: { name: 'Small', path: 'small' } })).status).toBe(201);
  });
});

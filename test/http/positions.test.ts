/**
 * Store outages and log positions at the HTTP edge, on the default SQLite node: StoreUnavailable is a 503 with
 * Retry-After and the platform's body; every reply names its log position; X-Forgefold-Min-Position waits.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { StoreUnavailable } from '@forgefold/core';
import { errorToResponse } from '@forgefold/http-adapter';
import { startServer, type TestServer } from '../support/server.js';

describe('StoreUnavailable', () => {
  it('renders as 503 {"message":"503 Service Unavailable"} with Retry-After: 1, not as a logged 500', () => {
    expect(errorToResponse(new StoreUnavailable('PostgreSQL is unavailable: connect ECONNREFUSED'))).toEqual({
      status: 503,
      body: { message: '503 Service Unavailable' },
      headers: { 'Retry-After': '1' },
      internal: false,
    });
  });
});

describe('log positions in replies', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ config: { positionWaitMs: 300 } });
  });
  afterAll(() => server.close());

  it('every reply carries X-Forgefold-Position; a write moves it; a reached minimum is answered at once', async () => {
    const before = await server.request('GET', '/api/v4/groups');
    const at = Number(before.headers.get('x-forgefold-position'));
    expect(at).toBeGreaterThan(0);
    const created = await server.request('POST', '/api/v4/groups', { body: { name: 'pos', path: 'pos' } });
    expect(Number(created.headers.get('x-forgefold-position'))).toBeGreaterThan(at);
    const read = await server.request('GET', '/api/v4/groups/pos', { headers: { 'X-Forgefold-Min-Position': created.headers.get('x-forgefold-position')! } });
    expect(read.status).toBe(200);
    const missing = await server.request('GET', '/api/v4/nothing-here');
    expect(missing.headers.get('x-forgefold-position')).not.toBeNull();
  });

  it('a position beyond the log is a 503 after the wait; a malformed one a 400', async () => {
    const started = performance.now();
    const far = await server.request('GET', '/api/v4/groups', { headers: { 'X-Forgefold-Min-Position': '1000000' } });
    expect(far.status).toBe(503);
    expect(far.headers.get('retry-after')).toBe('1');
    expect(performance.now() - started).toBeGreaterThanOrEqual(250);
    for (const value of ['-1', 'abc', '1.5', '99999999999999999999']) {
      const bad = await server.request('GET', '/api/v4/groups', { headers: { 'X-Forgefold-Min-Position': value } });
      expect(bad.status).toBe(400);
      expect(bad.body).toEqual({ error: 'X-Forgefold-Min-Position must be a log position (a non-negative integer)' });
    }
  });

  it('a write that meets an unavailable store answers 503 and changes nothing', async () => {
    const spy = vi.spyOn(server.app, 'execute').mockRejectedValueOnce(new StoreUnavailable('down'));
    try {
      const reply = await server.request('POST', '/api/v4/groups', { body: { name: 'down', path: 'down' } });
      expect(reply.status).toBe(503);
      expect(reply.body).toEqual({ message: '503 Service Unavailable' });
    } finally {
      spy.mockRestore();
    }
    expect((await server.request('GET', '/api/v4/groups/down')).status).toBe(404);
  });
});

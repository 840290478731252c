/**
 * The one read-only middleware, for both reasons (a Geo secondary, maintenance mode): the platform's allow-lists per
 * reason (EE Gitlab::Middleware::ReadOnly::Controller), then, through a real server in maintenance mode, the answers
 * that changed when the settings gate's check and the secondary's were folded into it: the middleware runs first,
 * before routing, throttles and git's own checks.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SettingsSlice } from '@forgefold/core';
import { readOnlyGate, type ReadOnlyRequest } from '@forgefold/http-adapter';
import { startServer, type TestServer } from '../support/server.js';
import { createPerson, type Person } from '../members/support.js';

const MESSAGE = 'You cannot perform write operations on a read-only instance';
const slice = (maintenance: boolean): SettingsSlice => ({ values: { maintenance_mode: maintenance } as unknown as SettingsSlice['values'], updated_at: null });
const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' };

const ask = (gate: ReturnType<typeof readOnlyGate>, method: string, path: string, options: { query?: string; headers?: ReadOnlyRequest['headers'] } = {}) => {
  const reply = gate.admit({ method, path, query: options.query ?? '', headers: options.headers ?? JSON_HEADERS, baseUrl: 'http://forge.test' });
  return reply === null ? 'passes' : { status: reply.status, body: reply.body, headers: reply.headers };
};

describe('the allow-lists per reason', () => {
  const primary = readOnlyGate(false, () => slice(false));
  const maintenance = readOnlyGate(false, () => slice(true));
  const secondary = readOnlyGate(true, () => slice(false));
  const secondaryInMaintenance = readOnlyGate(true, () => slice(true));
  const all = { maintenance, secondary, secondaryInMaintenance };

  it('a writable primary lets everything through', () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) expect(ask(primary, method, '/api/v4/projects')).toBe('passes');
  });

  it('reads pass for every reason; writes are refused: 403 and the message for JSON, else 301 back', () => {
    for (const gate of Object.values(all)) {
      for (const method of ['GET', 'HEAD', 'OPTIONS']) expect(ask(gate, method, '/api/v4/projects')).toBe('passes');
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
        expect(ask(gate, method, '/api/v4/projects/1')).toMatchObject({ status: 403, body: { message: MESSAGE } });
        expect(ask(gate, method, '/api/v4/projects/1', { headers: { 'content-type': 'application/vnd.git-lfs+json' } })).toMatchObject({ status: 403 });
        expect(ask(gate, method, '/api/v4/projects/1', { headers: {} })).toMatchObject({ status: 301, headers: { Location: 'http://forge.test/' } });
        expect(ask(gate, method, '/api/v4/projects/1', { headers: { 'content-type': 'application/x-www-form-urlencoded', referer: 'http://forge.test/x' } })).toMatchObject({
          status: 301,
          headers: { Location: 'http://forge.test/x' },
        });
      }
    }
  });

  it('allowed for either reason: git fetch, the internal API, GraphQL queries, Sidekiq, Geo replication and status reports', () => {
    for (const gate of Object.values(all)) {
      expect(ask(gate, 'POST', '/team/app.git/git-upload-pack')).toBe('passes');
      expect(ask(gate, 'POST', '/api/v4/internal/allowed')).toBe('passes');
      expect(ask(gate, 'POST', '/api/v3/internal/allowed')).toBe('passes');
      expect(ask(gate, 'POST', '/api/graphql')).toBe('passes');
      expect(ask(gate, 'POST', '/admin/sidekiq/queues')).toBe('passes');
      expect(ask(gate, 'POST', '/api/v4/geo/status')).toBe('passes');
      expect(ask(gate, 'POST', '/api/v4/geo/graphql')).toBe('passes');
      expect(ask(gate, 'PUT', '/api/v4/geo_replication/designs/1/resync')).toBe('passes');
      // Only the POST of GraphQL is a query; other Geo API writes are refused.
      expect(ask(gate, 'DELETE', '/api/graphql')).toMatchObject({ status: 403 });
      expect(ask(gate, 'POST', '/api/v4/geo_nodes')).toMatchObject({ status: 403 });
    }
  });

  it('the settings stay writable in maintenance mode, not on a secondary', () => {
    expect(ask(maintenance, 'PUT', '/api/v4/application/settings')).toBe('passes');
    expect(ask(maintenance, 'POST', '/admin/application_settings/general')).toBe('passes');
    expect(ask(secondary, 'PUT', '/api/v4/application/settings')).toMatchObject({ status: 403, body: { message: MESSAGE } });
    expect(ask(secondaryInMaintenance, 'PUT', '/api/v4/application/settings')).toMatchObject({ status: 403 });
  });

  it('sign-in (the OAuth token grant) in maintenance mode on a primary; never on a secondary, whose log is a replica', () => {
    expect(ask(maintenance, 'POST', '/oauth/token')).toBe('passes');
    expect(ask(maintenance, 'POST', '/oauth/token/')).toBe('passes');
    expect(ask(maintenance, 'POST', '/oauth/revoke')).toMatchObject({ status: 403 });
    expect(ask(secondary, 'POST', '/oauth/token')).toMatchObject({ status: 403 });
    expect(ask(secondaryInMaintenance, 'POST', '/oauth/token')).toMatchObject({ status: 403 });
  });

  it('pushes: a secondary refuses both legs with 403 (it does not proxy them); maintenance mode leaves the advertisement to git’s own check', () => {
    for (const gate of [secondary, secondaryInMaintenance]) {
      expect(ask(gate, 'GET', '/team/app.git/info/refs', { query: 'service=git-receive-pack', headers: {} })).toMatchObject({ status: 403, body: { message: MESSAGE } });
      expect(ask(gate, 'POST', '/team/app.git/git-receive-pack', { headers: { 'content-type': 'application/x-git-receive-pack-request' } })).toMatchObject({ status: 403 });
      expect(ask(gate, 'GET', '/team/app.git/info/refs', { query: 'service=git-upload-pack', headers: {} })).toBe('passes');
    }
    expect(ask(maintenance, 'GET', '/team/app.git/info/refs', { query: 'service=git-receive-pack', headers: {} })).toBe('passes');
    // The upload itself is a write the platform's middleware sends back (not JSON).
    expect(ask(maintenance, 'POST', '/team/app.git/git-receive-pack', { headers: { 'content-type': 'application/x-git-receive-pack-request' } })).toMatchObject({ status: 301 });
  });
});

describe('maintenance mode through the server: answers that changed', () => {
  let server: TestServer;
  let alice: Person;
  let project: { id: number; path_with_namespace: string };

  beforeAll(async () => {
    server = await startServer({ start: '2026-05-01T00:00:00.000Z' });
    alice = await createPerson(server, 'alice');
    project = (await server.request('POST', '/api/v4/projects', { token: alice.token, body: { name: 'ro' } })).body;
    expect((await server.request('PUT', '/api/v4/application/settings', { body: { maintenance_mode: true } })).status).toBe(200);
  });
  afterEach(async () => {
    expect((await server.request('PUT', '/api/v4/application/settings', { body: { throttle_unauthenticated_enabled: false } })).status).toBe(200);
  });
  afterAll(async () => {
    await server.close();
  });

  it('a write to a route that does not exist is refused as any other (the middleware runs before the router)', async () => {
    expect(await server.request('POST', '/api/v4/no-such-thing', { token: alice.token, body: {} })).toMatchObject({ status: 403, body: { message: MESSAGE } });
    // A read of it is still the router's 404.
    expect((await server.request('GET', '/api/v4/no-such-thing', { token: alice.token })).status).toBe(404);
  });

  it('refused writes are not counted by the throttles (Rack::Attack sits behind the middleware)', async () => {
    await server.request('PUT', '/api/v4/application/settings', {
      body: { throttle_unauthenticated_enabled: true, throttle_unauthenticated_requests_per_period: 1, throttle_unauthenticated_period_in_seconds: 3600 },
    });
    for (let i = 0; i < 3; i++) expect((await server.request('POST', '/api/v4/groups', { token: null, body: { name: 'N', path: 'n' } })).status).toBe(403);
    // The throttle's one request is still there for a read.
    expect((await server.request('GET', '/api/v4/projects', { token: null })).status).toBe(200);
    expect((await server.request('GET', '/api/v4/projects', { token: null })).status).toBe(429);
  });

  it('git’s upload of a push is sent back by the middleware; the ref advertisement gets git’s maintenance message', async () => {
    const before = server.app.position;
    const basic = `Basic ${Buffer.from(`root:${server.rootToken}`).toString('base64')}`;
    const upload = await fetch(`${server.url}/${project.path_with_namespace}.git/git-receive-pack`, {
      method: 'POST',
      redirect: 'manual',
      headers: { Authorization: basic, 'Content-Type': 'application/x-git-receive-pack-request' },
      body: '0000',
    });
    expect(upload.status).toBe(301);
    expect(upload.headers.get('location')).toBe(`${server.url}/`);
    const advertisement = await fetch(`${server.url}/${project.path_with_namespace}.git/info/refs?service=git-receive-pack`, { headers: { Authorization: basic } });
    expect(advertisement.status).toBe(403);
    expect(await advertisement.text()).toContain('Git push is not allowed because this GitLab instance is currently in (read-only) maintenance mode.');
    expect(server.app.position).toBe(before);
  });

  it('what stays allowed still reaches its route: sign-in, and a Geo status report (404 on a primary without a Geo secret)', async () => {
    const token = await server.request('POST', '/oauth/token', { token: null, body: { grant_type: 'password', username: 'alice', password: 'wrong-password' } });
    expect(token.status).not.toBe(403);
    expect(token.status).not.toBe(301);
    expect((await server.request('POST', '/api/v4/geo/status', { token: null, body: {} })).status).toBe(404);
  });
});

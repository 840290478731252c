/** The Geo nodes API against the real server (reference §3): statuses, messages, normalisation, entity, status. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';

describe('Geo nodes API', () => {
  let server: TestServer;
  let userToken: string;
  const HERE = 'http://primary.example.com';

  beforeAll(async () => {
    server = await startServer({ config: { externalUrl: HERE } });
    const user = await server.request('POST', '/api/v4/users', { body: { username: 'alice', name: 'Alice', email: 'alice@example.com', password: 'Secret-pass-1234' } });
    const token = await server.request('POST', `/api/v4/users/${user.body.id}/personal_access_tokens`, { body: { name: 't', scopes: ['api'] } });
    userToken = token.body.token;
  });
  afterAll(async () => {
    await server?.close();
  });

  it('is for administrators only, checked before the parameters', async () => {
    expect(await server.request('POST', '/api/v4/geo_nodes', { token: null })).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    expect(await server.request('POST', '/api/v4/geo_nodes', { token: userToken })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await server.request('GET', '/api/v4/geo_nodes/status', { token: userToken })).toMatchObject({ status: 403 });
    expect(await server.request('POST', '/api/v4/geo_nodes', { body: {} })).toMatchObject({ status: 400, body: { error: 'name is missing, url is missing' } });
  });

  it('creates the primary (the current node: its name is the external URL with a slash) and a secondary', async () => {
    const primary = await server.request('POST', '/api/v4/geo_nodes', { body: { primary: true, name: HERE, url: HERE } });
    expect(primary.status).toBe(201);
    expect(primary.body).toEqual({
      id: 1,
      name: `${HERE}/`,
      url: `${HERE}/`,
      internal_url: `${HERE}/`,
      primary: true,
      enabled: true,
      files_max_capacity: 10,
      repos_max_capacity: 25,
      verification_max_capacity: 100,
      container_repositories_max_capacity: 10,
      selective_sync_type: null,
      selective_sync_shards: [],
      selective_sync_namespace_ids: [],
      minimum_reverification_interval: 7,
      clone_protocol: 'http',
      web_edit_url: `${HERE}/admin/geo/nodes/1/edit`,
      _links: { self: `${HERE}/api/v4/geo_nodes/1`, status: `${HERE}/api/v4/geo_nodes/1/status`, repair: `${HERE}/api/v4/geo_nodes/1/repair` },
      current: true,
    });
    expect(Object.keys(primary.body)).toEqual([
      'id', 'name', 'url', 'internal_url', 'primary', 'enabled', 'files_max_capacity', 'repos_max_capacity', 'verification_max_capacity',
      'container_repositories_max_capacity', 'selective_sync_type', 'selective_sync_shards', 'selective_sync_namespace_ids',
      'minimum_reverification_interval', 'clone_protocol', 'web_edit_url', '_links', 'current',
    ]);
    const secondary = await server.request('POST', '/api/v4/geo_nodes', { body: { name: 'tokyo', url: 'https://tokyo.example.com', internal_url: 'https://tokyo.internal' } });
    expect(secondary.status).toBe(201);
    expect(secondary.body).toMatchObject({ id: 2, url: 'https://tokyo.example.com/', internal_url: 'https://tokyo.internal/', primary: false, sync_object_storage: false, web_geo_projects_url: 'https://tokyo.example.com/admin/geo/replication/projects', current: false });
    const taken = await server.request('POST', '/api/v4/geo_nodes', { body: { name: 'TOKYO', url: 'ftp://x' } });
    expect(taken).toMatchObject({ status: 400, body: { message: { name: ['has already been taken'], url: ['is blocked: Only allowed schemes are http, https'] } } });
    const locking = await server.request('POST', '/api/v4/geo_nodes', { body: { name: `${HERE}/`, url: 'https://x.example.com' } });
    expect(locking).toMatchObject({ status: 400, body: { message: { name: ['has already been taken'], base: ['Current node must be the primary node or you will be locking yourself out'] } } });
    expect((await server.request('POST', '/api/v4/geo_nodes', { body: { name: 'x', url: 'https://x.example.com', files_max_capacity: 'many' } })).body).toEqual({ error: 'files_max_capacity is invalid' });
  });

  it('lists, reads, updates and deletes', async () => {
    const list = await server.request('GET', '/api/v4/geo_nodes');
    expect(list.status).toBe(200);
    expect(list.body.map((node: { id: number }) => node.id)).toEqual([1, 2]);
    expect(list.headers.get('x-total')).toBe('2');
    expect(await server.request('GET', '/api/v4/geo_nodes/abc')).toMatchObject({ status: 400, body: { error: 'id is invalid' } });
    expect(await server.request('GET', '/api/v4/geo_nodes/99')).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect(await server.request('PUT', '/api/v4/geo_nodes/2', { body: {} })).toMatchObject({ status: 200, body: { id: 2, name: 'tokyo' } });
    expect(await server.request('PUT', '/api/v4/geo_nodes/1', { body: { enabled: false } })).toMatchObject({ status: 400, body: { message: { enabled: ['Geo primary node cannot be disabled'] } } });
    // `primary` is not a parameter of PUT: it is ignored.
    expect(await server.request('PUT', '/api/v4/geo_nodes/2', { body: { primary: true, repos_max_capacity: 5, internal_url: 'https://tokyo.example.com' } })).toMatchObject({
      status: 200,
      body: { primary: false, repos_max_capacity: 5, internal_url: 'https://tokyo.example.com/' },
    });
    const extra = await server.request('POST', '/api/v4/geo_nodes', { body: { name: 'gone', url: 'https://gone.example.com' } });
    const deleted = await server.request('DELETE', `/api/v4/geo_nodes/${extra.body.id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await server.request('GET', `/api/v4/geo_nodes/${extra.body.id}`)).status).toBe(404);
  });

  it('statuses: the current node from its live positions, others only once they reported', async () => {
    const status = await server.request('GET', '/api/v4/geo_nodes/1/status');
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({ geo_node_id: 1, healthy: true, health: 'Healthy', health_status: 'Healthy', missing_oauth_application: false, cursor_last_event_id: null, cursor_last_event_timestamp: 0 });
    expect(status.body.last_event_id).toBe(Number(status.headers.get('x-forgefold-position')));
    expect(status.body.last_event_timestamp).toBeGreaterThan(0);
    expect(status.body._links).toEqual({ self: `${HERE}/api/v4/geo_nodes/1/status`, node: `${HERE}/api/v4/geo_nodes/1` });
    expect(await server.request('GET', '/api/v4/geo_nodes/2/status')).toMatchObject({ status: 404, body: { message: '404 Status for Geo node not found Not Found' } });
    const all = await server.request('GET', '/api/v4/geo_nodes/status');
    expect(all.body.map((row: { geo_node_id: number }) => row.geo_node_id)).toEqual([1]);
    const repair = await server.request('POST', '/api/v4/geo_nodes/1/repair');
    expect(repair).toMatchObject({ status: 200, body: { geo_node_id: 1 } });
    expect(await server.request('POST', '/api/v4/geo_nodes/2/repair')).toMatchObject({ status: 200, body: null });
  });

  it('failures are for secondaries', async () => {
    expect(await server.request('GET', '/api/v4/geo_nodes/current/failures')).toMatchObject({ status: 403, body: { message: '403 Forbidden - Failures can only be requested from a secondary node' } });
    expect(await server.request('GET', '/api/v4/geo_nodes/current/failures?type=x')).toMatchObject({ status: 400, body: { error: 'type does not have a valid value' } });
    await server.request('DELETE', '/api/v4/geo_nodes/1');
    expect(await server.request('GET', '/api/v4/geo_nodes/current/failures')).toMatchObject({ status: 404, body: { message: '404 Geo node not found Not Found' } });
  });
});

/**
 * Fidelity audit of the Geo nodes API (issue 16, branch `fid-admin`): `selective_sync_namespace_ids` names any
 * namespace, as the platform's `namespace_ids=` writer finds Namespace records (groups and personal namespaces).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';

describe('Geo nodes: selective sync by namespaces', () => {
  let server: TestServer;
  const HERE = 'http://primary.example.com';

  beforeAll(async () => {
    server = await startServer({ config: { externalUrl: HERE } });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('accepts a personal namespace as well as a group, and the status lists both', async () => {
    const user = await server.request('POST', '/api/v4/users', { body: { username: 'bob', name: 'Bob', email: 'bob@example.com', password: 'Secret-pass-1234' } });
    const project = await server.request('POST', `/api/v4/projects/user/${user.body.id}`, { body: { name: 'notes' } });
    expect(project.body.namespace).toMatchObject({ kind: 'user', path: 'bob' });
    const namespaceId: number = project.body.namespace.id;
    const group = await server.request('POST', '/api/v4/groups', { body: { name: 'Sync', path: 'sync' } });
    const ids = `${group.body.id},${namespaceId}`;
    const primary = await server.request('POST', '/api/v4/geo_nodes', { body: { primary: true, name: HERE, url: HERE, selective_sync_type: 'namespaces', selective_sync_namespace_ids: ids } });
    expect(primary).toMatchObject({ status: 201, body: { selective_sync_namespace_ids: [group.body.id, namespaceId] } });
    const secondary = await server.request('POST', '/api/v4/geo_nodes', { body: { name: 'tokyo', url: 'https://tokyo.example.com', selective_sync_namespace_ids: [namespaceId] } });
    expect(secondary).toMatchObject({ status: 201, body: { selective_sync_namespace_ids: [namespaceId] } });
    expect(await server.request('POST', '/api/v4/geo_nodes', { body: { name: 'osaka', url: 'https://osaka.example.com', selective_sync_namespace_ids: [9999] } })).toMatchObject({
      status: 404,
      body: { message: '404 Not found' },
    });
    const status = await server.request('GET', '/api/v4/geo_nodes/1/status');
    expect(status.status).toBe(200);
    expect(status.body.namespaces).toEqual([
      { id: group.body.id, name: 'Sync', path: 'sync', kind: 'group', full_path: 'sync', parent_id: null, avatar_url: null, web_url: `${HERE}/groups/sync` },
      { id: namespaceId, name: 'Bob', path: 'bob', kind: 'user', full_path: 'bob', parent_id: null, avatar_url: null, web_url: `${HERE}/bob` },
    ]);
  });
});

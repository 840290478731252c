/**
 * Project clusters over HTTP (lib/api/project_clusters.rb, 14.7; reference §4), and the rule that a cluster's token
 * (and certificate) never appear in clear: not in any answer, not in any event, not in the database file.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { member, newDataDir, removeDir, start, type Running } from '../repositories/support.js';

let server: Running;
let dataDir: string;
let project: { id: number; namespace: { id: number } };
let maintainer: { id: number; token: string };
let developer: { id: number; token: string };
const bodies: string[] = [];

const TOKEN = 'k8s-token-SECRET-9f2c4e1a7b';
const TOKEN2 = 'k8s-token-ROTATED-55aa01';
const base = () => `/projects/${project.id}`;
const call = async (method: string, path: string, body?: unknown, token?: string | null) => {
  const answer = await server.call(method, path, body, token);
  bodies.push(JSON.stringify(answer.body));
  return answer;
};
const cluster = (extra: object = {}, platform: object = {}) => ({
  name: 'prod-cluster',
  platform_kubernetes_attributes: { api_url: 'https://k8s.example.com', token: TOKEN, namespace: 'shipping', ...platform },
  ...extra,
});

const certificate = (): string => CERT;

beforeAll(async () => {
  dataDir = newDataDir();
  server = await start(dataDir);
  project = (await server.call('POST', '/projects', { name: 'Clustered' })).body;
  maintainer = await member(server, 'maint', { id: project.id, level: 40 });
  developer = await member(server, 'devel', { id: project.id, level: 30 });
});
afterAll(async () => {
  await server.close();
  removeDir(dataDir);
});

describe('project clusters', () => {
  it('adds a cluster (201, ClusterProject), lists, gets, edits and deletes it', async () => {
    const added = await call('POST', `${base()}/clusters/user`, cluster({ domain: 'apps.example.com', ca_cert: undefined }, { ca_cert: certificate() }), maintainer.token);
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({
      name: 'prod-cluster',
      domain: 'apps.example.com',
      enabled: true,
      managed: true,
      provider_type: 'user',
      platform_type: 'kubernetes',
      environment_scope: '*',
      cluster_type: 'project_type',
      namespace_per_environment: true,
      user: { id: maintainer.id, username: 'maint' },
      platform_kubernetes: { api_url: 'https://k8s.example.com', namespace: 'shipping', authorization_type: 'rbac', ca_cert: null },
      provider_gcp: null,
      management_project: null,
      project: { id: project.id, name: 'Clustered' },
    });
    expect(added.body.platform_kubernetes.token).toBeUndefined();
    const id = added.body.id;
    const list = await call('GET', `${base()}/clusters`, undefined, maintainer.token);
    expect(list.body).toHaveLength(1);
    expect(list.body[0].project).toBeUndefined();
    expect((await call('GET', `${base()}/clusters/${id}`, undefined, maintainer.token)).body.project.id).toBe(project.id);

    const edited = await call('PUT', `${base()}/clusters/${id}`, { name: 'renamed', platform_kubernetes_attributes: { token: TOKEN2, namespace: 'other-ns' } }, maintainer.token);
    expect(edited).toMatchObject({ status: 200, body: { name: 'renamed', platform_kubernetes: { namespace: 'other-ns' } } });
    const update = server.events.find((event) => event.type === 'ClusterUpdated')!;
    expect((update.data as { changed: string[] }).changed).toEqual(['name', 'platform_kubernetes.token', 'platform_kubernetes.namespace']);

    const second = await call('POST', `${base()}/clusters/user`, cluster({ name: 'staging', environment_scope: 'staging/*' }), maintainer.token);
    expect(second.status).toBe(201);
    expect(await call('DELETE', `${base()}/clusters/${second.body.id}`, undefined, maintainer.token)).toMatchObject({ status: 204 });
    expect(await call('GET', `${base()}/clusters/${second.body.id}`, undefined, maintainer.token)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect(server.events.map((event) => event.type)).toEqual(expect.arrayContaining(['ClusterAdded', 'ClusterUpdated', 'ClusterRemoved']));
  });

  it('validates with the platform dotted keys, scope uniqueness and management project rules', async () => {
    const clusterEvents = () => server.events.filter((event) => event.type.startsWith('Cluster')).length;
    const before = clusterEvents();
    const add = (body: object, token = maintainer.token) => call('POST', `${base()}/clusters/user`, body, token);
    expect(await add(cluster())).toMatchObject({ status: 400, body: { message: { environment_scope: ['cannot add duplicated environment scope'] } } });
    expect(await add(cluster({ environment_scope: 'x' }, { namespace: 'invalid_namespace' }))).toMatchObject({
      status: 400,
      body: { message: { 'platform_kubernetes.namespace': [expect.stringMatching(/^can contain only lowercase letters/)] } },
    });
    expect(await add(cluster({ environment_scope: 'x' }, { api_url: 'invalid_api_url' }))).toMatchObject({ status: 400, body: { message: { 'platform_kubernetes.api_url': ['is blocked: Only allowed schemes are http, https'] } } });
    expect(await add(cluster({ environment_scope: 'x' }, { ca_cert: 'not a certificate' }))).toMatchObject({ status: 400, body: { message: { 'platform_kubernetes.ca_cert': ['must be a valid PEM certificate'] } } });
    expect(await add(cluster({ environment_scope: 'x', domain: 'bad_domain!' }))).toMatchObject({ status: 400, body: { message: { domain: ['contains invalid characters (valid characters: [a-z0-9\\-])'] } } });
    expect(await add(cluster({ environment_scope: 'x', management_project_id: 99999 }))).toMatchObject({
      status: 400,
      body: { message: { management_project_id: ["Project does not exist or you don't have permission to perform this action"] } },
    });
    expect(await add({ platform_kubernetes_attributes: { api_url: 'https://k8s.example.com', token: TOKEN } })).toMatchObject({ status: 400, body: { error: 'name is missing' } });
    expect(await add({ name: 'n', platform_kubernetes_attributes: { api_url: 'https://k8s.example.com' } })).toMatchObject({ status: 400, body: { error: 'platform_kubernetes_attributes[token] is missing' } });
    expect(await add({ name: 'n', platform_kubernetes_attributes: { api_url: '', token: TOKEN } })).toMatchObject({ status: 400, body: { error: 'platform_kubernetes_attributes[api_url] is empty' } });
    expect(await add(cluster({ environment_scope: 'dev' }), developer.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await call('GET', `${base()}/clusters`, undefined, developer.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await call('GET', `${base()}/clusters`, undefined, null)).toMatchObject({ status: 401 });
    expect(clusterEvents()).toBe(before);

    // A management project of the same namespace on which the caller is a Maintainer is accepted.
    const sibling = (await server.call('POST', '/projects', { name: 'Manager' })).body;
    // The maintainer of this project is no member of the other: refused.
    expect((await add(cluster({ environment_scope: 'review/*', management_project_id: sibling.id }))).status).toBe(400);
    const root = await call('POST', `${base()}/clusters/user`, cluster({ environment_scope: 'review/*', management_project_id: sibling.id }));
    expect(root).toMatchObject({ status: 201, body: { management_project: { id: sibling.id, name: 'Manager' } } });
  });

  it('never shows a token or certificate in clear: answers, events, the database', async () => {
    const events = JSON.stringify(server.events);
    for (const secret of [TOKEN, TOKEN2, 'BEGIN CERTIFICATE']) {
      expect(bodies.some((body) => body.includes(secret))).toBe(false);
      expect(events.includes(secret)).toBe(false);
    }
    const added = server.events.find((event) => event.type === 'ClusterAdded')!;
    expect((added.data as { platform_kubernetes: { token_encrypted: string } }).platform_kubernetes.token_encrypted).toMatch(/^v1:/);
    const files = readdirSync(dataDir).filter((name) => statSync(join(dataDir, name)).isFile());
    for (const name of files) expect(readFileSync(join(dataDir, name)).includes(TOKEN)).toBe(false);
    expect(statSync(join(dataDir, 'secret_key')).mode & 0o777).toBe(0o600);
  });
});

// A self-signed P-256 certificate (its key was thrown away): what `ca_cert` holds for a cluster with its own CA.
const CERT = `-----BEGIN CERTIFICATE-----
MIIBdjCCAR2gAwIBAgIUNLgEEDoBnv/F9MHG/FS9C1DF9gEwCgYIKoZIzj0EAwIw
ETEPMA0GA1UEAwwGazhzLWNhMB4XDTI2MTEyNTIwMjk0OVoXDTM2MTEyMjIwMjk0
OVowETEPMA0GA1UEAwwGazhzLWNhMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE
OLPSzFCDuY254KouGm5WcpJFnDRr58LektWzKg/QSdLXZIIszBae1PX5CYCATJyK
i/KLtEHIvnd/ZYdMt4/IC6NTMFEwHQYDVR0OBBYEFGJYxmXD+WmFYEdxpW3wuvkM
HqgwMB8GA1UdIwQYMBaAFGJYxmXD+WmFYEdxpW3wuvkMHqgwMA8GA1UdEwEB/wQF
MAMBAf8wCgYIKoZIzj0EAwIDRwAwRAIgRIRN/cBH6T0WOO0leh42BFBqHtjHXvcC
pv7It6Dh8kACIG/qX6CCzngIXx3q0B8BBsOw7qgTiHyLD4ZDcNVD+WdT
-----END CERTIFICATE-----
`;

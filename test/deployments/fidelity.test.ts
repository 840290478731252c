/**
 * Fidelity with the platform's 14.7 deployments, environments and clusters APIs (issue 16's audit, branch
 * `fid-cicd`): who reads on public and internal projects (ProjectPolicy's `public_access` enables
 * `read_environment` and `read_deployment`), and the order of lookups and checks (lib/api/deployments.rb,
 * project_clusters.rb: the record is found, 404, before the ability on it is checked, 403).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { api, member } from '../pipelines/support.js';

let server: TestServer;
let open: { id: number };
let internal: { id: number };
let closed: { id: number };
let stranger: { id: number; token: string };
let reporter: { id: number; token: string };
let developer: { id: number; token: string };
let deployment: { id: number; environment: { id: number } };
let internalDeployment: { id: number };

const deploy = async (projectId: number) => {
  const sha = (await api(server, 'GET', `/projects/${projectId}/repository/branches/main`)).body.commit.id;
  return (await api(server, 'POST', `/projects/${projectId}/deployments`, { environment: 'production', sha, ref: 'main', tag: false, status: 'success' })).body;
};

beforeAll(async () => {
  server = await startServer({ start: '2026-03-02T10:00:30.000Z' });
  open = (await api(server, 'POST', '/projects', { name: 'Open', initialize_with_readme: true, visibility: 'public' })).body;
  internal = (await api(server, 'POST', '/projects', { name: 'Inside', initialize_with_readme: true, visibility: 'internal' })).body;
  closed = (await api(server, 'POST', '/projects', { name: 'Closed', initialize_with_readme: true })).body;
  stranger = await member(server, 'stranger');
  reporter = await member(server, 'reporter', { id: closed.id, level: 20 });
  developer = await member(server, 'developer', { id: closed.id, level: 30 });
  deployment = await deploy(open.id);
  internalDeployment = await deploy(internal.id);
  await deploy(closed.id);
});
afterAll(async () => server?.close());

describe('environments and deployments of a public or internal project, read by a signed-in non-member (public_access)', () => {
  it('lists and gets environments and deployments: 200', async () => {
    const P = `/projects/${open.id}`;
    const environments = await api(server, 'GET', `${P}/environments`, undefined, stranger.token);
    expect(environments.status).toBe(200);
    expect(environments.body.map((environment: { name: string }) => environment.name)).toEqual(['production']);
    expect(await api(server, 'GET', `${P}/environments/${deployment.environment.id}`, undefined, stranger.token)).toMatchObject({
      status: 200,
      body: { name: 'production', state: 'available', last_deployment: { id: deployment.id } },
    });
    const deployments = await api(server, 'GET', `${P}/deployments`, undefined, stranger.token);
    expect(deployments.status).toBe(200);
    expect(deployments.body.map((row: { id: number }) => row.id)).toEqual([deployment.id]);
    expect(await api(server, 'GET', `${P}/deployments/${deployment.id}`, undefined, stranger.token)).toMatchObject({ status: 200, body: { id: deployment.id, status: 'success' } });
    expect(await api(server, 'GET', `${P}/deployments/${deployment.id}/merge_requests`, undefined, stranger.token)).toMatchObject({ status: 200, body: [] });
    expect(await api(server, 'GET', `/projects/${internal.id}/deployments/${internalDeployment.id}`, undefined, stranger.token)).toMatchObject({ status: 200, body: { id: internalDeployment.id } });
    expect((await api(server, 'GET', `/projects/${internal.id}/environments`, undefined, stranger.token)).status).toBe(200);
  });

  it('still may not write: 403 on create, update and delete; stop answers 200 and changes nothing', async () => {
    const P = `/projects/${open.id}`;
    expect(await api(server, 'POST', `${P}/environments`, { name: 'staging' }, stranger.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await api(server, 'PUT', `${P}/deployments/${deployment.id}`, { status: 'failed' }, stranger.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await api(server, 'DELETE', `${P}/environments/${deployment.environment.id}`, undefined, stranger.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await api(server, 'POST', `${P}/environments/${deployment.environment.id}/stop`, undefined, stranger.token)).toMatchObject({ status: 200, body: { state: 'available' } });
    expect((await api(server, 'GET', `${P}/environments/${deployment.environment.id}`)).body.state).toBe('available');
  });

  it('anonymous callers are still 401 (authenticate!) and private projects still 404', async () => {
    expect(await api(server, 'GET', `/projects/${open.id}/deployments`, undefined, null)).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    expect(await api(server, 'GET', `/projects/${closed.id}/environments`, undefined, stranger.token)).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
  });
});

describe('the record is found before the ability on it is checked', () => {
  it('PUT /deployments/:id by a Reporter: 404 for an unknown deployment (read, find, then update_deployment)', async () => {
    expect(await api(server, 'PUT', `/projects/${closed.id}/deployments/999`, { status: 'success' }, reporter.token)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
  });

  it('GET /deployments/:id/merge_requests of an unknown deployment: 200 [] (MergeRequestsFinder filters by deployment_id)', async () => {
    const answer = await api(server, 'GET', `/projects/${closed.id}/deployments/999/merge_requests`, undefined, reporter.token);
    expect(answer).toMatchObject({ status: 200, body: [] });
    expect(answer.headers.get('x-total')).toBe('0');
  });

  it('clusters by a Developer: 404 for an unknown cluster, 403 for an existing one', async () => {
    const C = `/projects/${closed.id}/clusters`;
    const cluster = (await api(server, 'POST', `${C}/user`, { name: 'c1', platform_kubernetes_attributes: { api_url: 'https://k8s.example.com', token: 't' } })).body;
    for (const [method, body] of [['GET', undefined], ['PUT', { name: 'x' }], ['DELETE', undefined]] as const) {
      expect(await api(server, method, `${C}/999`, body, developer.token)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
      expect(await api(server, method, `${C}/${cluster.id}`, body, developer.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    }
  });
});

describe('environment validation (Environment: name presence, uniqueness, length, then format)', () => {
  it('an empty name is blank and out of format: both messages, as the model adds them', async () => {
    const format = "can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', and spaces, but it cannot start or end with '/'";
    expect(await api(server, 'POST', `/projects/${closed.id}/environments`, { name: '' })).toMatchObject({ status: 400, body: { message: { name: ["can't be blank", format] } } });
    const sha = (await api(server, 'GET', `/projects/${closed.id}/repository/branches/main`)).body.commit.id;
    expect(await api(server, 'POST', `/projects/${closed.id}/deployments`, { environment: '', sha, ref: 'main', tag: false, status: 'running' })).toMatchObject({
      status: 400,
      body: { message: { name: ["can't be blank", format] } },
    });
  });
});

describe('cluster edits (Clusters::UpdateService)', () => {
  it('a blank token is dropped, not validated: the cluster keeps its token (200), where the add still needs one', async () => {
    const C = `/projects/${closed.id}/clusters`;
    const cluster = (await api(server, 'POST', `${C}/user`, { name: 'keeps-token', environment_scope: 'review/*', platform_kubernetes_attributes: { api_url: 'https://k8s.example.com', token: 't' } })).body;
    for (const token of ['', '   ']) {
      const edited = await api(server, 'PUT', `${C}/${cluster.id}`, { name: 'kept', platform_kubernetes_attributes: { token } });
      expect(edited).toMatchObject({ status: 200, body: { id: cluster.id, name: 'kept', platform_kubernetes: { api_url: 'https://k8s.example.com' } } });
    }
    expect(await api(server, 'POST', `${C}/user`, { name: 'no-token', environment_scope: 'other', platform_kubernetes_attributes: { api_url: 'https://k8s.example.com', token: '' } })).toMatchObject({
      status: 400,
      body: { message: { 'platform_kubernetes.token': ["can't be blank"] } },
    });
  });
});

describe('URL validation: AddressableUrlValidator and UrlBlocker (blank is "must be a valid URL", anything else UrlBlocker\'s reason)', () => {
  it("an environment's external_url: blank is no URL (nil), a value is stripped, and a bad one gets UrlBlocker's reason", async () => {
    const E = `/projects/${closed.id}/environments`;
    const blocked = (reason: string) => ({ status: 400, body: { message: { external_url: [`is blocked: ${reason}`] } } });
    expect(await api(server, 'POST', E, { name: 'url-1', external_url: 'example.com' })).toMatchObject(blocked('Only allowed schemes are http, https'));
    expect(await api(server, 'POST', E, { name: 'url-1', external_url: 'not a url' })).toMatchObject(blocked('Only allowed schemes are http, https'));
    expect(await api(server, 'POST', E, { name: 'url-1', external_url: 'https://exa mple.com' })).toMatchObject(blocked('URI is invalid'));
    expect(await api(server, 'POST', E, { name: 'url-1', external_url: 'https://example.com:80a' })).toMatchObject(blocked('URI is invalid'));
    expect(await api(server, 'POST', E, { name: 'url-1', external_url: 'https://-example.com' })).toMatchObject(blocked('Hostname or IP address invalid'));
    expect(await api(server, 'POST', E, { name: 'url-1', external_url: '   ' })).toMatchObject({ status: 201, body: { name: 'url-1', external_url: null } });
    const stripped = await api(server, 'POST', E, { name: 'url-2', external_url: '  https://review.example.com/app  ' });
    expect(stripped).toMatchObject({ status: 201, body: { external_url: 'https://review.example.com/app' } });
    expect(await api(server, 'PUT', `${E}/${stripped.body.id}`, { external_url: 'ftp://files.example.com' })).toMatchObject(blocked('Only allowed schemes are http, https'));
    expect(await api(server, 'PUT', `${E}/${stripped.body.id}`, { external_url: ' ' })).toMatchObject({ status: 200, body: { external_url: null } });
  });

  it("a cluster's api_url: blank on an edit gets the URL message and then presence's; a bad one UrlBlocker's reason", async () => {
    const C = `/projects/${closed.id}/clusters`;
    const cluster = (await api(server, 'POST', `${C}/user`, { name: 'urls', environment_scope: 'urls/*', platform_kubernetes_attributes: { api_url: '  https://k8s.example.com  ', token: 't' } })).body;
    expect(cluster.platform_kubernetes.api_url).toBe('https://k8s.example.com');
    expect(await api(server, 'PUT', `${C}/${cluster.id}`, { platform_kubernetes_attributes: { api_url: '' } })).toMatchObject({
      status: 400,
      body: { message: { 'platform_kubernetes.api_url': ['must be a valid URL', "can't be blank"] } },
    });
    expect(await api(server, 'PUT', `${C}/${cluster.id}`, { platform_kubernetes_attributes: { api_url: 'https://k8s .example.com' } })).toMatchObject({
      status: 400,
      body: { message: { 'platform_kubernetes.api_url': ['is blocked: URI is invalid'] } },
    });
    expect(await api(server, 'PUT', `${C}/${cluster.id}`, { platform_kubernetes_attributes: { api_url: 'https://[::1]:6443' } })).toMatchObject({
      status: 400,
      body: { message: { 'platform_kubernetes.api_url': ['is blocked: Requests to localhost are not allowed'] } },
    });
  });
});

describe('POST …/environments/:id/stop declares only the id (14.7)', () => {
  it('ignores `force` (a 15.x parameter), whatever its value', async () => {
    const E = `/projects/${closed.id}/environments`;
    const environment = (await api(server, 'POST', E, { name: 'to-stop' })).body;
    expect(await api(server, 'POST', `${E}/${environment.id}/stop`, { force: 'maybe' })).toMatchObject({ status: 200, body: { id: environment.id, state: 'stopped' } });
  });
});

/**
 * Settings that take effect, each through the routes it governs and restored afterwards: default visibilities,
 * restricted levels, project creation level, default branch name, token prefix, throttles, maintenance mode.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { createGroup, createPerson, type Person } from '../members/support.js';

let server: TestServer;
let alice: Person;
let bob: Person;

beforeAll(async () => {
  server = await startServer({ start: '2026-05-01T00:00:00.000Z' });
  alice = await createPerson(server, 'alice');
  bob = await createPerson(server, 'bob');
});
afterAll(async () => {
  await server.close();
});

const put = async (body: Record<string, unknown>) => {
  const answer = await server.request('PUT', '/api/v4/application/settings', { body });
  expect(answer.status).toBe(200);
  return answer.body;
};

/** What each test changes, put back after it. */
let restore: Record<string, unknown> = {};
const change = async (body: Record<string, unknown>) => {
  const before = (await server.request('GET', '/api/v4/application/settings')).body as Record<string, unknown>;
  for (const key of Object.keys(body)) if (!(key in restore)) restore[key] = before[key];
  return put(body);
};
afterEach(async () => {
  if (Object.keys(restore).length > 0) await put(restore);
  restore = {};
});

describe('visibility settings', () => {
  it('default_project_visibility and default_group_visibility give new projects and groups their level', async () => {
    await change({ default_project_visibility: 'internal', default_group_visibility: 'public' });
    const project = await server.request('POST', '/api/v4/projects', { token: alice.token, body: { name: 'vis-p' } });
    expect(project).toMatchObject({ status: 201, body: { visibility: 'internal' } });
    const group = await server.request('POST', '/api/v4/groups', { token: alice.token, body: { name: 'Vis', path: 'vis' } });
    expect(group).toMatchObject({ status: 201, body: { visibility: 'public' } });
    // Under a private parent, the default is capped by the parent's level.
    const parent = await createGroup(server, alice, 'PrivParent');
    const sub = await server.request('POST', '/api/v4/groups', { token: alice.token, body: { name: 'Sub', path: 'sub', parent_id: parent.id } });
    expect(sub).toMatchObject({ status: 201, body: { visibility: 'private' } });
    const asked = await server.request('POST', '/api/v4/projects', { token: alice.token, body: { name: 'vis-q', visibility: 'private' } });
    expect(asked.body.visibility).toBe('private');
  });

  it('restricted_visibility_levels: others than administrators are refused the level, in the platform’s words', async () => {
    await change({ restricted_visibility_levels: ['public'] });
    const before = server.app.position;
    expect(await server.request('POST', '/api/v4/projects', { token: alice.token, body: { name: 'pub', visibility: 'public' } })).toMatchObject({
      status: 400,
      body: { message: { visibility_level: ['public has been restricted by your GitLab administrator'] } },
    });
    expect(await server.request('POST', '/api/v4/groups', { token: alice.token, body: { name: 'Pub', path: 'pub', visibility: 'public' } })).toMatchObject({
      status: 400,
      body: { message: 'Failed to save group {:visibility_level=>["public has been restricted by your GitLab administrator"]}' },
    });
    expect(server.app.position).toBe(before);
    const mine = await server.request('POST', '/api/v4/projects', { token: alice.token, body: { name: 'mine', visibility: 'internal' } });
    expect(mine.status).toBe(201);
    expect(await server.request('PUT', `/api/v4/projects/${mine.body.id}`, { token: alice.token, body: { visibility: 'public' } })).toMatchObject({
      status: 400,
      body: { message: { visibility_level: ['public has been restricted by your GitLab administrator'] } },
    });
    // Administrators may use any level.
    expect(await server.request('POST', '/api/v4/projects', { body: { name: 'rootpub', visibility: 'public' } })).toMatchObject({ status: 201, body: { visibility: 'public' } });
  });

  it('default_project_creation: new groups take the level; developers are then refused', async () => {
    await change({ default_project_creation: 1 });
    const group = await createGroup(server, alice, 'Makers');
    expect((await server.request('GET', `/api/v4/groups/${group.id}`)).body.project_creation_level).toBe('maintainer');
    expect((await server.request('POST', `/api/v4/groups/${group.id}/members`, { token: alice.token, body: { user_id: bob.id, access_level: 30 } })).status).toBe(201);
    expect(await server.request('POST', '/api/v4/projects', { token: bob.token, body: { name: 'x', namespace_id: group.id } })).toMatchObject({ status: 400, body: { message: { namespace: ['is not valid'] } } });
    expect((await server.request('POST', '/api/v4/projects', { token: alice.token, body: { name: 'x', namespace_id: group.id } })).status).toBe(201);
  });
});

describe('new users', () => {
  it('default_projects_limit and user_default_external give new accounts their settings, and the limit holds', async () => {
    await change({ default_projects_limit: 1, user_default_external: true, user_default_internal_regex: '@inside\\.example$' });
    const carol = await createPerson(server, 'carol');
    const dave = await createPerson(server, 'dave', { email: 'dave@inside.example' });
    // External: `ensure_user_rights_and_limits` leaves no personal project and no group, whatever the defaults.
    expect((await server.request('GET', `/api/v4/users/${carol.id}`)).body).toMatchObject({ projects_limit: 0, external: true, can_create_group: false });
    expect((await server.request('GET', `/api/v4/users/${dave.id}`)).body).toMatchObject({ projects_limit: 1, external: false });
    // Accounts made before keep theirs.
    expect((await server.request('GET', `/api/v4/users/${alice.id}`)).body).toMatchObject({ projects_limit: 100000, external: false });
    expect((await server.request('POST', '/api/v4/projects', { token: dave.token, body: { name: 'first' } })).status).toBe(201);
    const before = server.app.position;
    expect(await server.request('POST', '/api/v4/projects', { token: dave.token, body: { name: 'second' } })).toMatchObject({
      status: 403,
      body: { message: ['Your project limit is 1 projects! Please contact your administrator to increase it'] },
    });
    expect(server.app.position).toBe(before);
    // An administrator may set the account's own values.
    const erin = await createPerson(server, 'erin', { projects_limit: 0, can_create_group: false, external: false });
    expect((await server.request('GET', `/api/v4/users/${erin.id}`)).body).toMatchObject({ projects_limit: 0, can_create_group: false, external: false });
    expect(await server.request('POST', '/api/v4/projects', { token: erin.token, body: { name: 'none' } })).toMatchObject({
      status: 403,
      body: { message: ['Personal project creation is not allowed. Please contact your administrator with questions'] },
    });
    expect((await server.request('PUT', `/api/v4/users/${erin.id}`, { body: { projects_limit: 5 } })).body.projects_limit).toBe(5);
    expect((await server.request('POST', '/api/v4/projects', { token: erin.token, body: { name: 'some' } })).status).toBe(201);
  });
});

describe('repositories and tokens', () => {
  it('default_branch_name names the initial branch of new repositories', async () => {
    await change({ default_branch_name: 'trunk' });
    const project = await server.request('POST', '/api/v4/projects', { token: alice.token, body: { name: 'branchy', initialize_with_readme: true } });
    expect(project).toMatchObject({ status: 201, body: { default_branch: 'trunk' } });
    const branches = await server.request('GET', `/api/v4/projects/${project.body.id}/repository/branches`, { token: alice.token });
    expect(branches.body.map((branch: { name: string }) => branch.name)).toEqual(['trunk']);
    const named = await server.request('POST', '/api/v4/projects', { token: alice.token, body: { name: 'named', initialize_with_readme: true, default_branch: 'dev' } });
    expect(named.body.default_branch).toBe('dev');
    // A name git refuses is stored as the platform stores it, and passed over: the project still gets its repository.
    await change({ default_branch_name: 'a..b' });
    const passed = await server.request('POST', '/api/v4/projects', { token: alice.token, body: { name: 'passed-over', initialize_with_readme: true } });
    expect(passed.status).toBe(201);
    expect(passed.body.default_branch).not.toBe('a..b');
    const readme = await server.request('GET', `/api/v4/projects/${passed.body.id}/repository/files/README.md?ref=${passed.body.default_branch}`, { token: alice.token });
    expect(readme.status).toBe(200);
    expect((await server.request('GET', `/api/v4/projects/${passed.body.id}/repository/tree`, { token: alice.token })).status).toBe(200);
    await change({ default_branch_name: '' });
  });

  it('diff_max_patch_bytes: a larger patch shows once the limit is raised', async () => {
    const project = await server.request('POST', '/api/v4/projects', { token: alice.token, body: { name: 'diffs', initialize_with_readme: true } });
    const content = Array.from({ length: 6000 }, (_, i) => `line ${i} ${'x'.repeat(40)}`).join('\n');
    const file = await server.request('POST', `/api/v4/projects/${project.body.id}/repository/files/big.txt`, { token: alice.token, body: { branch: 'main', content, commit_message: 'Big' } });
    expect(file.status).toBe(201);
    const commit = (await server.request('GET', `/api/v4/projects/${project.body.id}/repository/commits/main`, { token: alice.token })).body.id as string;
    const before = await server.request('GET', `/api/v4/projects/${project.body.id}/repository/commits/${commit}/diff`, { token: alice.token });
    // Over the limit, the patch is left out (`too_large`, shown as an empty diff).
    expect(before.body[0]).toMatchObject({ new_path: 'big.txt', diff: '' });
    await change({ diff_max_patch_bytes: 512000 });
    const after = await server.request('GET', `/api/v4/projects/${project.body.id}/repository/commits/${commit}/diff`, { token: alice.token });
    expect(after.body[0].new_path).toBe('big.txt');
    expect(after.body[0].diff.length).toBeGreaterThan(204800);
  });

  it('snippet_size_limit refuses longer snippet contents with the platform message, and nothing is stored', async () => {
    const project = await server.request('POST', '/api/v4/projects', { token: alice.token, body: { name: 'snips' } });
    await change({ snippet_size_limit: 1536 });
    const snippets = `/api/v4/projects/${project.body.id}/snippets`;
    const refused = await server.request('POST', snippets, { token: alice.token, body: { title: 'Big', file_name: 'a.txt', content: 'x'.repeat(2048), visibility: 'private' } });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ message: { content: ['is too long (2 KB). The maximum size is 1.5 KB.'] } });
    expect((await server.request('GET', snippets, { token: alice.token })).body).toEqual([]);
    const fits = await server.request('POST', snippets, { token: alice.token, body: { title: 'Small', file_name: 'a.txt', content: 'x'.repeat(1536), visibility: 'private' } });
    expect(fits.status).toBe(201);
    const grown = await server.request('PUT', `${snippets}/${fits.body.id}`, { token: alice.token, body: { content: 'y'.repeat(1537) } });
    expect(grown.body).toEqual({ message: { content: ['is too long (1.5 KB). The maximum size is 1.5 KB.'] } });
  });

  it('personal_access_token_prefix starts new tokens, which work', async () => {
    await change({ personal_access_token_prefix: 'ff-' });
    const token = await server.request('POST', `/api/v4/users/${alice.id}/personal_access_tokens`, { body: { name: 'p', scopes: ['api'] } });
    expect(token.body.token).toMatch(/^ff-/);
    expect((await server.request('GET', '/api/v4/user', { token: token.body.token })).body.username).toBe('alice');
  });
});

describe('rate limits', () => {
  it('throttle_unauthenticated: per IP, 429 with the response text, Retry-After and RateLimit-*', async () => {
    await change({ throttle_unauthenticated_enabled: true, throttle_unauthenticated_requests_per_period: 2, throttle_unauthenticated_period_in_seconds: 60, rate_limiting_response_text: 'Slow down' });
    // The test clock stands still between requests: all of them fall in one window.
    expect((await server.request('GET', '/api/v4/projects', { token: null })).status).toBe(200);
    expect((await server.request('GET', '/api/v4/projects', { token: null })).status).toBe(200);
    const refused = await server.request('GET', '/api/v4/projects', { token: null });
    expect(refused.status).toBe(429);
    expect(refused.text).toBe('Slow down\n');
    expect(refused.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(refused.headers.get('ratelimit-name')).toBe('throttle_unauthenticated');
    expect(refused.headers.get('ratelimit-limit')).toBe('2');
    expect(refused.headers.get('ratelimit-observed')).toBe('3');
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(Number(refused.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
    expect(refused.headers.get('ratelimit-resettime')).toMatch(/GMT$/);
    // Authenticated requests are not counted against the IP.
    expect((await server.request('GET', '/api/v4/projects', { token: alice.token })).status).toBe(200);
    // A new window.
    server.advance(retryAfter * 1000, { tick: false });
    expect((await server.request('GET', '/api/v4/projects', { token: null })).status).toBe(200);
  });

  it('throttle_authenticated_api: per user', async () => {
    await change({ throttle_authenticated_api_enabled: true, throttle_authenticated_api_requests_per_period: 2, throttle_authenticated_api_period_in_seconds: 3600 });
    for (let i = 0; i < 2; i++) expect((await server.request('GET', '/api/v4/user', { token: bob.token })).status).toBe(200);
    const refused = await server.request('GET', '/api/v4/user', { token: bob.token });
    expect(refused).toMatchObject({ status: 429, text: 'Retry later\n' });
    expect(refused.headers.get('ratelimit-name')).toBe('throttle_authenticated_api');
    expect(refused.headers.get('ratelimit-limit')).toBe('1');
    expect((await server.request('GET', '/api/v4/user', { token: alice.token })).status).toBe(200);
    // The administrator turns it off again (their own count is separate).
    await put({ throttle_authenticated_api_enabled: false });
    expect((await server.request('GET', '/api/v4/user', { token: bob.token })).status).toBe(200);
  });
});

describe('maintenance mode', () => {
  it('refuses writes to everyone, lets reads and the settings through', async () => {
    await change({ maintenance_mode: true, maintenance_mode_message: 'Back soon' });
    const before = server.app.position;
    expect(await server.request('POST', '/api/v4/projects', { token: alice.token, body: { name: 'nope' } })).toMatchObject({
      status: 403,
      body: { message: 'You cannot perform write operations on a read-only instance' },
    });
    expect(await server.request('POST', '/api/v4/groups', { body: { name: 'N', path: 'n' } })).toMatchObject({ status: 403 });
    // A write that is not JSON is sent back where it came from.
    const form = await fetch(`${server.baseUrl}/api/v4/projects`, { method: 'POST', redirect: 'manual', headers: { 'PRIVATE-TOKEN': alice.token, 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'name=x' });
    expect(form.status).toBe(301);
    expect(form.headers.get('location')).toBe(`${server.baseUrl}/`);
    expect(server.app.position).toBe(before);
    expect((await server.request('GET', '/api/v4/projects', { token: alice.token })).status).toBe(200);
    const settings = await server.request('GET', '/api/v4/application/settings');
    expect(settings.body).toMatchObject({ maintenance_mode: true, maintenance_mode_message: 'Back soon' });
  });
});

/**
 * Reserved names (issue 16; branch `reserved`): usernames, group paths and project paths that collide with the
 * platform's own routes (`Gitlab::PathRegex`: TOP_LEVEL_ROUTES for users' namespaces and top-level groups,
 * ILLEGAL_GROUP_PATH_WORDS for subgroups, ILLEGAL_PROJECT_PATH_WORDS for projects) are refused with
 * AbstractPathValidator's "%{value} is a reserved name", after the format rules, wherever a name is created or
 * changed; SCIM derives the next free username instead.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { createGroup, createPerson, type Person } from '../members/support.js';
import { scimClient, setupScimGroup, user } from '../scim/support.js';

let server: TestServer;
let alice: Person;
let acme: { id: number; full_path: string };

beforeAll(async () => {
  server = await startServer({ start: '2026-05-01T00:00:00.000Z' });
  alice = await createPerson(server, 'alice');
  acme = await createGroup(server, null, 'Acme');
});
afterAll(async () => {
  await server.close();
});

/** A request that must be refused with exactly this answer and record nothing. */
const refused = async (method: string, path: string, body: unknown, status: number, answer: unknown, token: string = server.rootToken) => {
  const before = server.app.position;
  const response = await server.request(method, path, { token, body });
  expect({ status: response.status, body: response.body }).toEqual({ status, body: answer });
  expect(server.app.position).toBe(before);
};

const person = (username: string) => ({ username, name: 'N', email: `${username.toLowerCase()}-${Math.random().toString(36).slice(2)}@example.com`, password: 'password123' });

describe('usernames (TOP_LEVEL_ROUTES through the personal namespace: User#set_username_errors)', () => {
  it('POST /users refuses a reserved username, whatever its case, with the model error on username', async () => {
    await refused('POST', '/api/v4/users', person('admin'), 400, { message: { username: ['admin is a reserved name'] } });
    await refused('POST', '/api/v4/users', person('Help'), 400, { message: { username: ['Help is a reserved name'] } });
    await refused('POST', '/api/v4/users', person('robots.txt'), 400, { message: { username: ['robots.txt is a reserved name'] } });
    // A format error comes alone (AbstractPathValidator returns after it).
    await refused('POST', '/api/v4/users', person('admin.'), 400, { message: { username: ["can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'."] } });
    // Only the whole name is reserved, and a project word is no top-level one.
    expect((await server.request('POST', '/api/v4/users', { body: person('admins') })).status).toBe(201);
    expect((await server.request('POST', '/api/v4/users', { body: person('edit') })).status).toBe(201);
  });

  it('PUT /users/:id refuses a reserved username; a taken one is still 409 first', async () => {
    await refused('PUT', `/api/v4/users/${alice.id}`, { username: 'api' }, 400, { message: { username: ['api is a reserved name'] } });
    await refused('PUT', `/api/v4/users/${alice.id}`, { username: 'V2', name: '' }, 400, { message: { name: ["can't be blank"], username: ['V2 is a reserved name'] } });
    await refused('PUT', `/api/v4/users/${alice.id}`, { username: 'root' }, 409, { message: 'Username has already been taken' });
  });
});

describe('group paths (TOP_LEVEL_ROUTES at the top, ILLEGAL_GROUP_PATH_WORDS below)', () => {
  it('POST /groups refuses a reserved top-level path ("Failed to save group {…}")', async () => {
    await refused('POST', '/api/v4/groups', { name: 'Admin', path: 'admin' }, 400, { message: 'Failed to save group {:path=>["admin is a reserved name"]}' });
    await refused('POST', '/api/v4/groups', { name: 'Groups', path: 'Groups' }, 400, { message: 'Failed to save group {:path=>["Groups is a reserved name"]}' });
    // A subgroup may be called `admin`, not `edit` (a project route word).
    expect((await server.request('POST', '/api/v4/groups', { body: { name: 'Admin', path: 'admin', parent_id: acme.id } })).status).toBe(201);
    await refused('POST', '/api/v4/groups', { name: 'Edit', path: 'edit', parent_id: acme.id }, 400, { message: 'Failed to save group {:path=>["edit is a reserved name"]}' });
    // A word spanning two segments: `environments/folders`.
    const environments = await createGroup(server, null, 'Environments', acme.id);
    await refused('POST', '/api/v4/groups', { name: 'Folders', path: 'folders', parent_id: environments.id }, 400, { message: 'Failed to save group {:path=>["folders is a reserved name"]}' });
    expect((await server.request('POST', '/api/v4/groups', { body: { name: 'Folders', path: 'folders', parent_id: acme.id } })).status).toBe(201);
  });

  it('PUT /groups/:id refuses a reserved path with the model error', async () => {
    const top = await createGroup(server, null, 'Renamed');
    await refused('PUT', `/api/v4/groups/${top.id}`, { path: 'api' }, 400, { message: { path: ['api is a reserved name'] } });
    const sub = await createGroup(server, null, 'Sub', acme.id);
    await refused('PUT', `/api/v4/groups/${sub.id}`, { path: 'tree' }, 400, { message: { path: ['tree is a reserved name'] } });
    expect((await server.request('PUT', `/api/v4/groups/${sub.id}`, { body: { path: 'api' } })).status).toBe(200);
  });

  it('a transfer refuses a path the new place reserves (the save! of Groups::TransferService)', async () => {
    const admin = (await server.request('GET', `/api/v4/groups/${encodeURIComponent('acme/admin')}`)).body;
    await refused('POST', `/api/v4/groups/${admin.id}/transfer`, {}, 400, { message: 'Transfer failed: Validation failed: Path admin is a reserved name' });
    const badges = await createGroup(server, null, 'Badges');
    await refused('POST', `/api/v4/groups/${badges.id}/transfer`, { group_id: acme.id }, 400, { message: 'Transfer failed: Validation failed: Path badges is a reserved name' });
  });
});

describe('project paths (ILLEGAL_PROJECT_PATH_WORDS)', () => {
  it('POST /projects refuses a reserved path, given or derived from the name', async () => {
    await refused('POST', '/api/v4/projects', { name: 'Edit', path: 'edit', namespace_id: acme.id }, 400, { message: { path: ['edit is a reserved name'] } });
    await refused('POST', '/api/v4/projects', { name: 'New' }, 400, { message: { path: ['new is a reserved name'] } });
    await refused('POST', '/api/v4/projects', { name: 'x', path: 'Blob' }, 400, { message: { path: ['Blob is a reserved name'] } });
    // Top-level words are no project words.
    expect((await server.request('POST', '/api/v4/projects', { body: { name: 'Admin', path: 'admin', namespace_id: acme.id } })).status).toBe(201);
  });

  it("a project path may end in '.' (project_path_format_regex), not in '.git'", async () => {
    const created = await server.request('POST', '/api/v4/projects', { body: { name: 'Dot', path: 'dot.', namespace_id: acme.id } });
    expect({ status: created.status, path: created.body.path, path_with_namespace: created.body.path_with_namespace }).toEqual({ status: 201, path: 'dot.', path_with_namespace: 'acme/dot.' });
    expect((await server.request('GET', `/api/v4/projects/${encodeURIComponent('acme/dot.')}`)).body.id).toBe(created.body.id);
    await refused('POST', '/api/v4/projects', { name: 'Git', path: 'dot.git', namespace_id: acme.id }, 400, { message: { path: ["can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'"] } });
  });

  it('POST /projects/user/:user_id refuses a reserved path', async () => {
    await refused('POST', `/api/v4/projects/user/${alice.id}`, { name: 'Raw', path: 'raw' }, 400, { message: { path: ['raw is a reserved name'] } });
  });

  it('PUT /projects/:id refuses a reserved path', async () => {
    const project = (await server.request('POST', '/api/v4/projects', { body: { name: 'Web', path: 'web', namespace_id: acme.id } })).body;
    await refused('PUT', `/api/v4/projects/${project.id}`, { path: 'wikis' }, 400, { message: { path: ['wikis is a reserved name'] } });
  });

  it('a fork with a reserved path is the fork route\'s 409 with the model error', async () => {
    const project = (await server.request('POST', '/api/v4/projects', { body: { name: 'Lib', path: 'lib', namespace_id: acme.id } })).body;
    await refused('POST', `/api/v4/projects/${project.id}/fork`, { path: 'tree', name: 'Lib fork' }, 409, { message: { path: ['tree is a reserved name'] } });
  });
});

describe('SCIM provisioning (EE ProvisioningService#valid_username: Uniquify while not NamespacePathValidator.valid_path?)', () => {
  it('a userName that cleans to a reserved name gets the next valid one', async () => {
    const group = await setupScimGroup(server, 'scimco');
    const scim = scimClient(group);
    const created = await scim('POST', '/Users', { body: user('ext-1', 'admin@example.com', 'someone@example.com') });
    expect(created.status).toBe(201);
    const found = await server.request('GET', '/api/v4/users?username=admin1');
    expect(found.body.map((u: { email: string }) => u.email)).toEqual(['someone@example.com']);
    expect((await server.request('GET', '/api/v4/users?username=admin')).body).toEqual([]);
    // PATCH of the userName: the username follows only when the cleaned name is itself usable.
    const patch = (value: string) => scim('PATCH', '/Users/ext-1', { body: { schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [{ op: 'replace', path: 'userName', value }] } });
    expect((await patch('help@example.com')).status).toBe(204);
    expect((await server.request('GET', '/api/v4/users?username=admin1')).body).toHaveLength(1);
    expect((await patch('provisioned@example.com')).status).toBe(204);
    expect((await server.request('GET', '/api/v4/users?username=provisioned')).body.map((u: { email: string }) => u.email)).toEqual(['someone@example.com']);
  });
});

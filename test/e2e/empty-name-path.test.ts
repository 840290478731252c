/**
 * A given empty or blank `name` / `path` reaches the model on PUT /projects/:id, POST /projects and POST
 * /projects/:id/fork (`declared_params(include_missing: false)`), as on PUT /groups/:id (test/e2e/ruby-blank.test.ts):
 * Project's `validates :name, presence, length, format` and `validates :path, presence, project_path, length`, in
 * that order; Projects::CreateService#set_project_name_from_path (`present?`) fills a blank one from the other, for
 * forks too (ForkService's `@params[:name] || @project.name` passes the empty string on). Absent or null: not given.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { createPerson, type Person } from '../members/support.js';

let server: TestServer;
let alice: Person;
let app: { id: number; name: string; path: string };

const NAME_FORMAT = "can contain only letters, digits, emojis, '_', '.', dash, space. It must start with letter, digit, emoji or '_'.";
const PATH_FORMAT = "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'";

beforeAll(async () => {
  server = await startServer({ start: '2026-05-01T00:00:00.000Z' });
  alice = await createPerson(server, 'alice');
  app = (await server.request('POST', '/api/v4/projects', { token: alice.token, body: { name: 'App' } })).body;
});
afterAll(async () => {
  await server.close();
});

describe('PUT /projects/:id', () => {
  it('name "": 400 with presence and format; path "": presence and format; nothing changed', async () => {
    const before = server.app.position;
    const name = await server.request('PUT', `/api/v4/projects/${app.id}`, { token: alice.token, body: { name: '' } });
    expect({ status: name.status, body: name.body }).toEqual({ status: 400, body: { message: { name: ["can't be blank", NAME_FORMAT] } } });
    const path = await server.request('PUT', `/api/v4/projects/${app.id}`, { token: alice.token, body: { path: '' } });
    expect({ status: path.status, body: path.body }).toEqual({ status: 400, body: { message: { path: ["can't be blank", PATH_FORMAT] } } });
    expect(server.app.position).toBe(before);
  });

  it('name "\u3000" is blank but matches the format (presence alone); null name and path are not given', async () => {
    const wide = await server.request('PUT', `/api/v4/projects/${app.id}`, { token: alice.token, body: { name: '\u3000' } });
    expect({ status: wide.status, body: wide.body }).toEqual({ status: 400, body: { message: { name: ["can't be blank"] } } });
    const nulls = await server.request('PUT', `/api/v4/projects/${app.id}`, { token: alice.token, body: { name: null, path: null } });
    expect(nulls.status).toBe(200);
    expect({ name: nulls.body.name, path: nulls.body.path }).toEqual({ name: app.name, path: app.path });
  });
});

describe('POST /projects', () => {
  it('a blank name with a path is named by the path; a path "" with a name takes the path from the name', async () => {
    const byPath = await server.request('POST', '/api/v4/projects', { token: alice.token, body: { name: '', path: 'from-path' } });
    expect({ status: byPath.status, name: byPath.body.name, path: byPath.body.path }).toEqual({ status: 201, name: 'from-path', path: 'from-path' });
    const byName = await server.request('POST', '/api/v4/projects', { token: alice.token, body: { name: 'From Name', path: '  ' } });
    expect({ status: byName.status, name: byName.body.name, path: byName.body.path }).toEqual({ status: 201, name: 'From Name', path: 'from-name' });
  });

  it('name "" and path "": 400 with both fields\' messages; a name "" alone too', async () => {
    const before = server.app.position;
    const both = await server.request('POST', '/api/v4/projects', { token: alice.token, body: { name: '', path: '' } });
    expect(both.status).toBe(400);
    expect(both.body.message).toEqual({ name: ["can't be blank", NAME_FORMAT], path: ["can't be blank", PATH_FORMAT] });
    const alone = await server.request('POST', '/api/v4/projects', { token: alice.token, body: { name: '' } });
    expect(alone.status).toBe(400);
    expect(alone.body.message).toEqual({ name: ["can't be blank", NAME_FORMAT], path: ["can't be blank", PATH_FORMAT] });
    expect(server.app.position).toBe(before);
  });
});

describe('POST /projects/:id/fork', () => {
  it('name "" takes the (source\'s) path as the name; name "" and path "" is 409 with the messages', async () => {
    const bob = await createPerson(server, 'bob');
    await server.request('PUT', `/api/v4/projects/${app.id}`, { token: alice.token, body: { visibility: 'public' } });
    const fork = await server.request('POST', `/api/v4/projects/${app.id}/fork`, { token: bob.token, body: { name: '' } });
    expect({ status: fork.status, name: fork.body.name, path: fork.body.path }).toEqual({ status: 201, name: app.path, path: app.path });
    const carol = await createPerson(server, 'carol');
    const both = await server.request('POST', `/api/v4/projects/${app.id}/fork`, { token: carol.token, body: { name: '', path: '' } });
    expect({ status: both.status, body: both.body }).toEqual({ status: 409, body: { message: { name: ["can't be blank", NAME_FORMAT], path: ["can't be blank", PATH_FORMAT] } } });
  });
});

describe('visibility ""', () => {
  it("is Grape's `values:` refusal on every route that takes it, before anything is decided", async () => {
    const before = server.app.position;
    const group = (await server.request('POST', '/api/v4/groups', { token: alice.token, body: { name: 'Vis', path: 'vis' } })).body;
    const after = server.app.position;
    const calls: Array<[string, string, Record<string, unknown>]> = [
      ['PUT', `/api/v4/groups/${group.id}`, { visibility: '' }],
      ['POST', '/api/v4/groups', { name: 'Vis2', path: 'vis2', visibility: '' }],
      ['PUT', `/api/v4/projects/${app.id}`, { visibility: '' }],
      ['POST', '/api/v4/projects', { name: 'Vis3', visibility: '' }],
      ['POST', `/api/v4/projects/${app.id}/fork`, { visibility: '' }],
    ];
    for (const [method, url, body] of calls) {
      const res = await server.request(method, url, { token: alice.token, body });
      expect({ url, status: res.status, body: res.body }).toEqual({ url, status: 400, body: { error: 'visibility does not have a valid value' } });
    }
    expect(after).toBeGreaterThan(before);
    expect(server.app.position).toBe(after);
  });
});

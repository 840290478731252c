/**
 * Name formats through the API (GitLab 14.7): Project's `validates :name, format: project_name_regex` on POST
 * /projects, PUT /projects/:id and forks; Group's `validates :name, html_safety: true, format: group_name_regex,
 * if: :name_changed?` on POST /groups and PUT /groups/:id. The regexes themselves: test/core/name-format.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { createGroup, createPerson, type Person } from '../members/support.js';

const PROJECT_NAME_FORMAT = "can contain only letters, digits, emojis, '_', '.', dash, space. It must start with letter, digit, emoji or '_'.";
const GROUP_NAME_FORMAT = "can contain only letters, digits, emojis, '_', '.', dash, space, parenthesis. It must start with letter, digit, emoji or '_'.";
const HTML_SAFETY = 'cannot contain HTML/XML tags, including any word between angle brackets (&lt;,&gt;).';
const ACCEPTED = ['Ünïcode', 'a.b-c d', 'emoji 😀'];

let server: TestServer;
let alice: Person;
let app: { id: number; name: string; path: string };
let acme: { id: number; full_path: string };

beforeAll(async () => {
  server = await startServer({ start: '2026-05-01T00:00:00.000Z' });
  alice = await createPerson(server, 'alice');
  app = (await server.request('POST', '/api/v4/projects', { token: alice.token, body: { name: 'App', visibility: 'public' } })).body;
  acme = await createGroup(server, alice, 'Acme');
});
afterAll(async () => {
  await server.close();
});

let counter = 0;
const fresh = () => `p${++counter}`;

describe('projects', () => {
  it('POST /projects: "-abc", "a/b", "<b>" and "a+b" are 400 with the format message, nothing recorded', async () => {
    const before = server.app.position;
    for (const name of ['-abc', 'a/b', '<b>', 'a+b']) {
      const res = await server.request('POST', '/api/v4/projects', { token: alice.token, body: { name, path: fresh() } });
      expect({ name, status: res.status, body: res.body }).toEqual({ name, status: 400, body: { message: { name: [PROJECT_NAME_FORMAT] } } });
    }
    expect(server.app.position).toBe(before);
  });

  it('POST /projects: letters of any script, dots, dashes, spaces and emoji are accepted', async () => {
    for (const name of ACCEPTED) {
      const res = await server.request('POST', '/api/v4/projects', { token: alice.token, body: { name, path: fresh() } });
      expect({ status: res.status, name: res.body.name }).toEqual({ status: 201, name });
    }
  });

  it('PUT /projects/:id: a refused name is 400 and changes nothing; accepted ones rename', async () => {
    const before = server.app.position;
    for (const name of ['-abc', 'a/b', '<b>']) {
      const res = await server.request('PUT', `/api/v4/projects/${app.id}`, { token: alice.token, body: { name } });
      expect({ name, status: res.status, body: res.body }).toEqual({ name, status: 400, body: { message: { name: [PROJECT_NAME_FORMAT] } } });
    }
    expect(server.app.position).toBe(before);
    for (const name of ACCEPTED) {
      const res = await server.request('PUT', `/api/v4/projects/${app.id}`, { token: alice.token, body: { name } });
      expect({ status: res.status, name: res.body.name }).toEqual({ status: 200, name });
    }
  });

  it('POST /projects/:id/fork: a refused name is 409 with the format message', async () => {
    const bob = await createPerson(server, 'bob');
    const res = await server.request('POST', `/api/v4/projects/${app.id}/fork`, { token: bob.token, body: { name: 'a/b', path: 'app-fork' } });
    expect({ status: res.status, body: res.body }).toEqual({ status: 409, body: { message: { name: [PROJECT_NAME_FORMAT] } } });
    const ok = await server.request('POST', `/api/v4/projects/${app.id}/fork`, { token: bob.token, body: { name: 'emoji 😀 fork', path: 'app-fork' } });
    expect({ status: ok.status, name: ok.body.name }).toEqual({ status: 201, name: 'emoji 😀 fork' });
  });
});

describe('groups', () => {
  it('POST /groups: "-abc" and "a/b" fail the format, "<b>" HtmlSafetyValidator too; 400, nothing recorded', async () => {
    const before = server.app.position;
    const cases: Array<[string, string[]]> = [
      ['-abc', [GROUP_NAME_FORMAT]],
      ['a/b', [GROUP_NAME_FORMAT]],
      ['<b>', [HTML_SAFETY, GROUP_NAME_FORMAT]],
    ];
    for (const [name, messages] of cases) {
      const res = await server.request('POST', '/api/v4/groups', { token: alice.token, body: { name, path: fresh() } });
      const inspected = `{:name=>[${messages.map((m) => JSON.stringify(m)).join(', ')}]}`;
      expect({ name, status: res.status, body: res.body }).toEqual({ name, status: 400, body: { message: `Failed to save group ${inspected}` } });
    }
    expect(server.app.position).toBe(before);
  });

  it('POST /groups: accepted names, parentheses too', async () => {
    for (const name of [...ACCEPTED, 'Acme (EU)']) {
      const res = await server.request('POST', '/api/v4/groups', { token: alice.token, body: { name, path: fresh() } });
      expect({ status: res.status, name: res.body.name }).toEqual({ status: 201, name });
    }
  });

  it('PUT /groups/:id: a refused name is 400 and changes nothing; accepted ones rename', async () => {
    const before = server.app.position;
    for (const [name, messages] of [['-abc', [GROUP_NAME_FORMAT]], ['a/b', [GROUP_NAME_FORMAT]], ['<b>', [HTML_SAFETY, GROUP_NAME_FORMAT]]] as const) {
      const res = await server.request('PUT', `/api/v4/groups/${acme.id}`, { token: alice.token, body: { name } });
      expect({ name, status: res.status, body: res.body }).toEqual({ name, status: 400, body: { message: { name: messages } } });
    }
    expect(server.app.position).toBe(before);
    for (const name of [...ACCEPTED, 'Acme (EU)']) {
      const res = await server.request('PUT', `/api/v4/groups/${acme.id}`, { token: alice.token, body: { name } });
      expect({ status: res.status, name: res.body.name }).toEqual({ status: 200, name });
    }
  });
});

/**
 * Blank as the platform has it (`String#blank?`, `[[:space:]]*`): a value of U+0085 only is blank, one of U+FEFF only
 * is not (JavaScript's `trim` has it the other way round), through model presence (a group's and a user's name).
 * Grape's `allow_blank` is covered by test/core/ruby-blank.test.ts. A given empty name or path on PUT /groups/:id (once
 * dropped by the route, answered 200 changing nothing) reaches the model too; projects: test/e2e/empty-name-path.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { createGroup, createPerson, type Person } from '../members/support.js';

/** The Group model's name format (`group_name_regex`), which a blank name fails too (test/e2e/name-format.test.ts). */
const GROUP_NAME_FORMAT = "can contain only letters, digits, emojis, '_', '.', dash, space, parenthesis. It must start with letter, digit, emoji or '_'.";

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

const path = () => `g${Math.random().toString(36).slice(2, 8)}`;

describe('blank is [[:space:]]* (U+0085 yes, U+FEFF no)', () => {
  it("POST /groups: a name of U+0085 only is the model's can't be blank; one of U+FEFF only is a name", async () => {
    const before = server.app.position;
    const blank = await server.request('POST', '/api/v4/groups', { body: { name: '\u0085', path: path() } });
    expect({ status: blank.status, body: blank.body }).toEqual({ status: 400, body: { message: `Failed to save group {:name=>["can't be blank", "${GROUP_NAME_FORMAT}"]}` } });
    expect(server.app.position).toBe(before);
    const bom = await server.request('POST', '/api/v4/groups', { body: { name: '\ufeff', path: path() } });
    expect(bom.status).toBe(201);
    expect(bom.body.name).toBe('\ufeff');
  });

  it('PUT /groups/:id and PUT /users/:id: U+0085 is blank, U+FEFF is not', async () => {
    const group = await server.request('PUT', `/api/v4/groups/${acme.id}`, { body: { name: '\u0085' } });
    expect({ status: group.status, body: group.body }).toEqual({ status: 400, body: { message: { name: ["can't be blank", GROUP_NAME_FORMAT] } } });
    const user = await server.request('PUT', `/api/v4/users/${alice.id}`, { body: { name: '\u0085' } });
    expect({ status: user.status, body: user.body }).toEqual({ status: 400, body: { message: { name: ["can't be blank"] } } });
    expect((await server.request('PUT', `/api/v4/groups/${acme.id}`, { body: { name: '\ufeff' } })).status).toBe(200);
    expect((await server.request('PUT', `/api/v4/users/${alice.id}`, { body: { name: '\ufeff' } })).status).toBe(200);
  });
});

describe('PUT /groups/:id: a given empty or blank name or path reaches the model', () => {
  const FORMAT = "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'.";

  it('name "" and "  ": 400 with the presence and the name format messages, nothing changed', async () => {
    const before = server.app.position;
    for (const name of ['', '  ']) {
      const res = await server.request('PUT', `/api/v4/groups/${acme.id}`, { body: { name } });
      expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { message: { name: ["can't be blank", GROUP_NAME_FORMAT] } } });
    }
    expect(server.app.position).toBe(before);
  });

  it('path "": presence, then NamespacePathValidator\'s format, then the minimum length (the model\'s order)', async () => {
    const before = server.app.position;
    const res = await server.request('PUT', `/api/v4/groups/${acme.id}`, { body: { path: '' } });
    expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { message: { path: ["can't be blank", FORMAT, 'is too short (minimum is 2 characters)'] } } });
    const both = await server.request('PUT', `/api/v4/groups/${acme.id}`, { body: { name: '', path: '' } });
    expect(both.status).toBe(400);
    expect(Object.keys(both.body.message)).toEqual(['name', 'path']);
    expect(server.app.position).toBe(before);
  });

  it('path "  ": presence then the format (two characters are long enough)', async () => {
    const res = await server.request('PUT', `/api/v4/groups/${acme.id}`, { body: { path: '  ' } });
    expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { message: { path: ["can't be blank", FORMAT] } } });
  });

  it('POST /groups with path "": the same messages, rendered by "Failed to save group"', async () => {
    const res = await server.request('POST', '/api/v4/groups', { body: { name: 'Empty', path: '' } });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain(`:path=>["can't be blank", `);
    expect(res.body.message).toContain('"is too short (minimum is 2 characters)"]');
  });

  it('absent or null name and path change nothing and answer 200', async () => {
    const before = (await server.request('GET', `/api/v4/groups/${acme.id}`)).body;
    const res = await server.request('PUT', `/api/v4/groups/${acme.id}`, { body: { name: null, path: null, description: 'kept' } });
    expect(res.status).toBe(200);
    expect({ name: res.body.name, path: res.body.path }).toEqual({ name: before.name, path: before.path });
  });
});

/**
 * Blank as the platform has it (`String#blank?`, `[[:space:]]*`): a value of U+0085 only is blank, one of U+FEFF only
 * is not (JavaScript's `trim` has it the other way round), through model presence (a group's and a user's name).
 * Grape's `allow_blank` is covered by test/core/ruby-blank.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { createGroup, createPerson, type Person } from '../members/support.js';

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
    expect({ status: blank.status, body: blank.body }).toEqual({ status: 400, body: { message: 'Failed to save group {:name=>["can\'t be blank"]}' } });
    expect(server.app.position).toBe(before);
    const bom = await server.request('POST', '/api/v4/groups', { body: { name: '\ufeff', path: path() } });
    expect(bom.status).toBe(201);
    expect(bom.body.name).toBe('\ufeff');
  });

  it('PUT /groups/:id and PUT /users/:id: U+0085 is blank, U+FEFF is not', async () => {
    const group = await server.request('PUT', `/api/v4/groups/${acme.id}`, { body: { name: '\u0085' } });
    expect({ status: group.status, body: group.body }).toEqual({ status: 400, body: { message: { name: ["can't be blank"] } } });
    const user = await server.request('PUT', `/api/v4/users/${alice.id}`, { body: { name: '\u0085' } });
    expect({ status: user.status, body: user.body }).toEqual({ status: 400, body: { message: { name: ["can't be blank"] } } });
    expect((await server.request('PUT', `/api/v4/groups/${acme.id}`, { body: { name: '\ufeff' } })).status).toBe(200);
    expect((await server.request('PUT', `/api/v4/users/${alice.id}`, { body: { name: '\ufeff' } })).status).toBe(200);
  });
});

/**
 * Who may do what to threads, as a generated matrix (role × action → status) on a private project: read, comment
 * (Guest+ on issues; merge requests need Reporter+ to be seen), edit or delete someone else's note (Maintainer+),
 * resolve a merge request thread (Developer+), and anonymous callers (401).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { member, newDataDir, removeDir, start, type Running } from '../repositories/support.js';

let server: Running;
let dataDir: string;
const ROLES = ['anonymous', 'outsider', 'guest', 'reporter', 'developer', 'maintainer', 'admin'] as const;
type Role = (typeof ROLES)[number];
const tokens: Partial<Record<Role, string | null>> = {};
let base = '';
let mrBase = '';
let authorToken = '';

beforeAll(async () => {
  dataDir = newDataDir();
  server = await start(dataDir);
  const project = (await server.call('POST', '/projects', { name: 'Matrix', initialize_with_readme: true })).body;
  base = `/projects/${project.id}/issues/1`;
  mrBase = `/projects/${project.id}/merge_requests/1`;
  tokens.anonymous = null;
  tokens.admin = undefined;
  tokens.outsider = (await member(server, 'outsider')).token;
  for (const [role, level] of [['guest', 10], ['reporter', 20], ['developer', 30], ['maintainer', 40]] as const) tokens[role] = (await member(server, role, { id: project.id, level })).token;
  authorToken = (await member(server, 'author', { id: project.id, level: 30 })).token;
  await server.call('POST', `/projects/${project.id}/issues`, { title: 'Matrix' }, authorToken);
  await server.call('POST', `/projects/${project.id}/repository/commits`, { branch: 'feature', start_branch: 'main', commit_message: 'x', actions: [{ action: 'create', file_path: 'x', content: 'x' }] });
  await server.call('POST', `/projects/${project.id}/merge_requests`, { title: 'X', source_branch: 'feature', target_branch: 'main' }, authorToken);
});
afterAll(async () => {
  await server.close();
  removeDir(dataDir);
});

type Action = (token: string | null | undefined) => Promise<number>;

/** Each action on fresh notes by `author`, so that every role meets the same situation. */
const ACTIONS: Record<string, Action> = {
  'list issue threads': async (token) => (await server.call('GET', `${base}/discussions`, undefined, token)).status,
  'start an issue thread': async (token) => (await server.call('POST', `${base}/discussions`, { body: 'hi' }, token)).status,
  'reply on an issue': async (token) => {
    const thread = (await server.call('POST', `${base}/discussions`, { body: 'x' }, authorToken)).body;
    return (await server.call('POST', `${base}/discussions/${thread.id}/notes`, { body: 're' }, token)).status;
  },
  "edit someone else's note": async (token) => {
    const thread = (await server.call('POST', `${base}/discussions`, { body: 'x' }, authorToken)).body;
    return (await server.call('PUT', `${base}/discussions/${thread.id}/notes/${thread.notes[0].id}`, { body: 'edited' }, token)).status;
  },
  "delete someone else's note": async (token) => {
    const thread = (await server.call('POST', `${base}/discussions`, { body: 'x' }, authorToken)).body;
    return (await server.call('DELETE', `${base}/discussions/${thread.id}/notes/${thread.notes[0].id}`, undefined, token)).status;
  },
  'read merge request threads': async (token) => (await server.call('GET', `${mrBase}/discussions`, undefined, token)).status,
  'resolve a merge request thread': async (token) => {
    const thread = (await server.call('POST', `${mrBase}/discussions`, { body: 'x' }, tokens.maintainer!)).body;
    return (await server.call('PUT', `${mrBase}/discussions/${thread.id}`, { resolved: true }, token)).status;
  },
};

const EXPECTED: Record<string, Record<Role, number>> = {
  'list issue threads': { anonymous: 401, outsider: 404, guest: 200, reporter: 200, developer: 200, maintainer: 200, admin: 200 },
  'start an issue thread': { anonymous: 401, outsider: 404, guest: 201, reporter: 201, developer: 201, maintainer: 201, admin: 201 },
  'reply on an issue': { anonymous: 401, outsider: 404, guest: 201, reporter: 201, developer: 201, maintainer: 201, admin: 201 },
  "edit someone else's note": { anonymous: 401, outsider: 404, guest: 403, reporter: 403, developer: 403, maintainer: 200, admin: 200 },
  "delete someone else's note": { anonymous: 401, outsider: 404, guest: 403, reporter: 403, developer: 403, maintainer: 204, admin: 204 },
  'read merge request threads': { anonymous: 401, outsider: 404, guest: 404, reporter: 200, developer: 200, maintainer: 200, admin: 200 },
  'resolve a merge request thread': { anonymous: 401, outsider: 404, guest: 404, reporter: 403, developer: 200, maintainer: 200, admin: 200 },
};

describe('discussion permissions', () => {
  it('every action × role answers the platform status', async () => {
    const actual: Record<string, Record<string, number>> = {};
    for (const [name, action] of Object.entries(ACTIONS)) {
      actual[name] = {};
      // `undefined` is the root token (the server's administrator), `null` no token at all.
      for (const role of ROLES) actual[name]![role] = await action(role === 'admin' ? undefined : tokens[role]);
    }
    expect(actual).toEqual(EXPECTED);
  }, 120_000);
});

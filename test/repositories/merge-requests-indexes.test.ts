/**
 * `GET /merge_requests` with `scope=created_by_me` (its default) and `assigned_to_me` reads the author and assignee
 * indexes of the repositories module: they follow every change of author, assignees, access, deletion and project
 * deletion, and a restart rebuilds them from the log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexPairs, member, newDataDir, removeDir, start, unprotectDefaultBranches, type Running } from './support.js';

let server: Running;
let dataDir: string;
let app: { id: number };
let lib: { id: number };
let author: { id: number; token: string };
let other: { id: number; token: string };

const titles = async (scope: string, token: string) => {
  const answer = await server.call('GET', `/merge_requests?scope=${scope}`, undefined, token);
  expect(answer.status).toBe(200);
  return (answer.body as { title: string }[]).map((mr) => mr.title);
};

const branch = async (project: { id: number }, name: string) => {
  const answer = await server.call('POST', `/projects/${project.id}/repository/commits`, {
    branch: name,
    start_branch: 'main',
    commit_message: name,
    actions: [{ action: 'create', file_path: `${name}.txt`, content: name }],
  });
  if (answer.status !== 201) throw new Error(`branch ${name}: ${JSON.stringify(answer.body)}`);
};

const open = async (project: { id: number }, title: string, source: string, token: string, assignees: number[] = []) => {
  const answer = await server.call('POST', `/projects/${project.id}/merge_requests`, { title, source_branch: source, target_branch: 'main', assignee_ids: assignees }, token);
  if (answer.status !== 201) throw new Error(`${title}: ${JSON.stringify(answer.body)}`);
  return answer.body as { iid: number };
};

beforeAll(async () => {
  dataDir = newDataDir();
  server = await start(dataDir);
  await unprotectDefaultBranches(server);
  const group = (await server.call('POST', '/groups', { name: 'Idx', path: 'idx' })).body;
  app = (await server.call('POST', '/projects', { name: 'App', namespace_id: group.id, initialize_with_readme: true, visibility: 'private' })).body;
  lib = (await server.call('POST', '/projects', { name: 'Lib', namespace_id: group.id, initialize_with_readme: true, visibility: 'private' })).body;
  author = await member(server, 'idx-author', { id: app.id, level: 30 });
  other = await member(server, 'idx-other', { id: app.id, level: 30 });
  await server.call('POST', `/projects/${lib.id}/members`, { user_id: author.id, access_level: 30 });
  await server.call('POST', `/projects/${lib.id}/members`, { user_id: other.id, access_level: 30 });
  for (const name of ['a', 'b']) await branch(app, name);
  for (const name of ['c', 'd']) await branch(lib, name);
});
afterAll(async () => {
  await server.close();
  removeDir(dataDir);
});

describe('the author and assignee indexes behind GET /merge_requests', () => {
  it('follow creation, reassignment, lost access, deletion, project deletion and a restart', async () => {
    const a = await open(app, 'A', 'a', author.token, [other.id]);
    await open(lib, 'C', 'c', author.token);
    await open(lib, 'D', 'd', other.token, [other.id, author.id]);
    expect(await titles('created_by_me', author.token)).toEqual(['C', 'A']);
    expect(await titles('created-by-me', other.token)).toEqual(['D']);
    expect(await titles('assigned_to_me', other.token)).toEqual(['D', 'A']);
    expect(await titles('assigned_to_me', author.token)).toEqual(['D']);

    // Reassigned: off the former assignee's list, on the new one's.
    expect((await server.call('PUT', `/projects/${app.id}/merge_requests/${a.iid}`, { assignee_ids: [author.id] }, author.token)).status).toBe(200);
    expect(await titles('assigned_to_me', other.token)).toEqual(['D']);
    expect(await titles('assigned_to_me', author.token)).toEqual(['D', 'A']);

    // Out of a project: its merge requests leave the caller's lists (the index keeps them; the read check drops them).
    expect((await server.call('DELETE', `/projects/${lib.id}/members/${author.id}`)).status).toBe(204);
    expect(await titles('created_by_me', author.token)).toEqual(['A']);
    expect(await titles('assigned_to_me', author.token)).toEqual(['A']);

    // Deleted: gone from both lists.
    expect((await server.call('DELETE', `/projects/${app.id}/merge_requests/${a.iid}`)).status).toBe(204);
    expect(await titles('created_by_me', author.token)).toEqual([]);
    expect(await titles('assigned_to_me', author.token)).toEqual([]);

    // Rebuilt from the log on a restart.
    await server.close();
    server = await start(dataDir);
    expect(await titles('created_by_me', other.token)).toEqual(['D']);
    expect(await titles('assigned_to_me', other.token)).toEqual(['D']);

    // A project deleted takes its merge requests off every list.
    expect((await server.call('DELETE', `/projects/${lib.id}`)).status).toBe(202);
    expect(await titles('created_by_me', other.token)).toEqual([]);
    expect(await titles('assigned_to_me', other.token)).toEqual([]);
    const indexes = server.app.state.repositories;
    expect([...indexPairs(indexes.byAuthor)]).toEqual([]);
    expect([...indexPairs(indexes.byAssignee)]).toEqual([]);
  });
});

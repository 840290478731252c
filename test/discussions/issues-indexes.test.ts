/**
 * `GET /issues` with `scope=created_by_me` (its default) and `assigned_to_me` reads the author and assignee indexes of
 * the issues module: they follow reassignment, lost access, deletion, project deletion and a restart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexPairs, member, newDataDir, removeDir, start, type Running } from '../repositories/support.js';

let server: Running;
let dataDir: string;
let app: { id: number };
let lib: { id: number };
let author: { id: number; token: string };
let other: { id: number; token: string };

const titles = async (scope: string, token: string) => {
  const answer = await server.call('GET', `/issues?scope=${scope}`, undefined, token);
  expect(answer.status).toBe(200);
  return (answer.body as { title: string }[]).map((issue) => issue.title);
};

const open = async (project: { id: number }, title: string, token: string, assignees: number[] = []) => {
  const answer = await server.call('POST', `/projects/${project.id}/issues`, { title, assignee_ids: assignees }, token);
  if (answer.status !== 201) throw new Error(`${title}: ${JSON.stringify(answer.body)}`);
  return answer.body as { iid: number };
};

beforeAll(async () => {
  dataDir = newDataDir();
  server = await start(dataDir);
  app = (await server.call('POST', '/projects', { name: 'App' })).body;
  lib = (await server.call('POST', '/projects', { name: 'Lib' })).body;
  author = await member(server, 'iss-author', { id: app.id, level: 30 });
  other = await member(server, 'iss-other', { id: app.id, level: 30 });
  await server.call('POST', `/projects/${lib.id}/members`, { user_id: author.id, access_level: 30 });
  await server.call('POST', `/projects/${lib.id}/members`, { user_id: other.id, access_level: 30 });
});
afterAll(async () => {
  await server.close();
  removeDir(dataDir);
});

describe('the author and assignee indexes behind GET /issues', () => {
  it('follow creation, reassignment, lost access, deletion, project deletion and a restart', async () => {
    const a = await open(app, 'A', author.token, [other.id]);
    await open(lib, 'C', author.token);
    await open(lib, 'D', other.token, [other.id, author.id]);
    expect(await titles('created_by_me', author.token)).toEqual(['C', 'A']);
    expect(await titles('created-by-me', other.token)).toEqual(['D']);
    expect(await titles('assigned_to_me', other.token)).toEqual(['D', 'A']);
    expect(await titles('assigned_to_me', author.token)).toEqual(['D']);

    // Reassigned: off the former assignee's list, on the new one's.
    expect((await server.call('PUT', `/projects/${app.id}/issues/${a.iid}`, { assignee_ids: [author.id] }, author.token)).status).toBe(200);
    expect(await titles('assigned_to_me', other.token)).toEqual(['D']);
    expect(await titles('assigned_to_me', author.token)).toEqual(['D', 'A']);

    // Out of a project: its issues leave the caller's lists (the index keeps them; the read check drops them).
    expect((await server.call('DELETE', `/projects/${lib.id}/members/${author.id}`)).status).toBe(204);
    expect(await titles('created_by_me', author.token)).toEqual(['A']);
    expect(await titles('assigned_to_me', author.token)).toEqual(['A']);

    // Deleted: gone from both lists.
    expect((await server.call('DELETE', `/projects/${app.id}/issues/${a.iid}`)).status).toBe(204);
    expect(await titles('created_by_me', author.token)).toEqual([]);
    expect(await titles('assigned_to_me', author.token)).toEqual([]);

    // Rebuilt from the log on a restart.
    await server.close();
    server = await start(dataDir);
    expect(await titles('created_by_me', other.token)).toEqual(['D']);
    expect(await titles('assigned_to_me', other.token)).toEqual(['D']);

    // A project deleted takes its issues off every list.
    expect((await server.call('DELETE', `/projects/${lib.id}`)).status).toBe(202);
    expect(await titles('created_by_me', other.token)).toEqual([]);
    expect(await titles('assigned_to_me', other.token)).toEqual([]);
    expect([...indexPairs(server.app.state.issues.byAuthor)]).toEqual([]);
    expect([...indexPairs(server.app.state.issues.byAssignee)]).toEqual([]);
  });
});

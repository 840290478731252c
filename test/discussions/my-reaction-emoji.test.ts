/**
 * `my_reaction_emoji` on every issuable list (IssuableFinder#by_my_reaction_emoji, 14.7): one rule for issues, merge
 * requests and epics. A signed-in caller's `None` keeps what they have not awarded an emoji to (everything here: no
 * one awards emoji in Forgefold), `Any`, a name or a blank value what they have (nothing); an anonymous caller's
 * param is ignored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { member, newDataDir, removeDir, start, unprotectDefaultBranches, type Running } from '../repositories/support.js';

let server: Running;
let dataDir: string;
let group: { id: number };
let project: { id: number };
let dev: { id: number; token: string };

beforeAll(async () => {
  dataDir = newDataDir();
  server = await start(dataDir);
  await unprotectDefaultBranches(server);
  group = (await server.call('POST', '/groups', { name: 'Reacted', path: 'reacted', visibility: 'public' })).body;
  project = (await server.call('POST', '/projects', { name: 'App', namespace_id: group.id, visibility: 'public', initialize_with_readme: true })).body;
  dev = await member(server, 'reacting-dev', { id: project.id, level: 30 });
  await server.call('POST', `/projects/${project.id}/issues`, { title: 'One' }, dev.token);
  await server.call('POST', `/projects/${project.id}/issues`, { title: 'Two' }, dev.token);
  for (const branch of ['one', 'two']) {
    await server.call('POST', `/projects/${project.id}/repository/commits`, { branch, start_branch: 'main', commit_message: branch, actions: [{ action: 'create', file_path: `${branch}.txt`, content: branch }] });
    const opened = await server.call('POST', `/projects/${project.id}/merge_requests`, { title: `Add ${branch}`, source_branch: branch, target_branch: 'main' }, dev.token);
    if (opened.status !== 201) throw new Error(JSON.stringify(opened.body));
  }
  await server.call('POST', `/groups/${group.id}/epics`, { title: 'E' });
});
afterAll(async () => {
  await server.close();
  removeDir(dataDir);
});

const count = async (path: string, query: string, token?: string | null): Promise<number> => {
  const answer = await server.call('GET', `${path}${path.includes('?') ? '&' : '?'}${query}`, undefined, token);
  expect(answer.status).toBe(200);
  return answer.body.length;
};

/** Each list: signed-in `None` keeps all, `Any`, a name and blank none; anonymous callers (where they may list) are not filtered. */
const checkList = async (path: string, anonymous: boolean) => {
  const all = await count(path, 'state=all', dev.token);
  expect(all).toBeGreaterThan(0);
  for (const value of ['None', 'none']) expect(await count(path, `my_reaction_emoji=${value}`, dev.token)).toBe(all);
  for (const value of ['Any', 'ANY', 'thumbsup', '']) expect(await count(path, `my_reaction_emoji=${value}`, dev.token)).toBe(0);
  if (anonymous) for (const value of ['Any', 'thumbsup', 'None']) expect(await count(path, `my_reaction_emoji=${value}`, null)).toBe(all);
};

describe('my_reaction_emoji (IssuableFinder#by_my_reaction_emoji), one rule for every list', () => {
  it('filters the issue lists', async () => {
    await checkList(`/projects/${project.id}/issues`, true);
    await checkList(`/groups/${group.id}/issues`, true);
    await checkList('/issues?scope=all', true);
  });

  it('filters the issue statistics', async () => {
    const all = async (query: string, token?: string | null) => (await server.call('GET', `/projects/${project.id}/issues_statistics?${query}`, undefined, token)).body.statistics.counts.all;
    expect(await all('my_reaction_emoji=None', dev.token)).toBe(2);
    expect(await all('my_reaction_emoji=Any', dev.token)).toBe(0);
    expect(await all('my_reaction_emoji=Any', null)).toBe(2);
  });

  it('filters the merge request lists', async () => {
    await checkList(`/projects/${project.id}/merge_requests`, true);
    await checkList(`/groups/${group.id}/merge_requests`, true);
    await checkList('/merge_requests?scope=all', false);
  });

  it('filters the epic list', async () => {
    await checkList(`/groups/${group.id}/epics`, true);
  });
});

/**
 * `GET /issues` and `GET /merge_requests` with `scope=created_by_me` (their default) and `assigned_to_me` read the
 * author and assignee indexes of the issues and repositories modules: they follow reassignment, lost access,
 * deletion, project deletion and a restart, and end empty once everything they listed is gone.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { State } from '@forgefold/core';
import { indexPairs, member, newDataDir, removeDir, start, unprotectDefaultBranches, type Running } from './support.js';

interface Kind {
  /** The list route and the project's collection (`issues`, `merge_requests`). */
  readonly resource: string;
  /** Opens one in `project` as `token`: an issue, or a merge request from a branch of its own. */
  readonly open: (server: Running, project: { id: number }, title: string, token: string, assignees: number[]) => Promise<{ iid: number }>;
  readonly indexes: (state: State) => { byAuthor: State['issues']['byAuthor']; byAssignee: State['issues']['byAssignee'] };
}

const created = (title: string, answer: { status: number; body: unknown }) => {
  if (answer.status !== 201) throw new Error(`${title}: ${JSON.stringify(answer.body)}`);
  return answer.body as { iid: number };
};

const kinds: Kind[] = [
  {
    resource: 'issues',
    open: async (server, project, title, token, assignees) => created(title, await server.call('POST', `/projects/${project.id}/issues`, { title, assignee_ids: assignees }, token)),
    indexes: (state) => state.issues,
  },
  {
    resource: 'merge_requests',
    open: async (server, project, title, token, assignees) => {
      const branch = title.toLowerCase();
      created(
        branch,
        await server.call('POST', `/projects/${project.id}/repository/commits`, {
          branch,
          start_branch: 'main',
          commit_message: branch,
          actions: [{ action: 'create', file_path: `${branch}.txt`, content: branch }],
        }),
      );
      return created(title, await server.call('POST', `/projects/${project.id}/merge_requests`, { title, source_branch: branch, target_branch: 'main', assignee_ids: assignees }, token));
    },
    indexes: (state) => state.repositories,
  },
];

describe.each(kinds)('the author and assignee indexes behind GET /$resource', ({ resource, open, indexes }) => {
  let server: Running;
  let dataDir: string;
  beforeEach(async () => {
    dataDir = newDataDir();
    server = await start(dataDir);
    await unprotectDefaultBranches(server);
  });
  afterEach(async () => {
    await server.close();
    removeDir(dataDir);
  });

  it('follow creation, reassignment, lost access, deletion, project deletion and a restart', async () => {
    const newProject = async (name: string) => (await server.call('POST', '/projects', { name, initialize_with_readme: true })).body as { id: number };
    const app = await newProject('App');
    const lib = await newProject('Lib');
    const author = await member(server, 'idx-author', { id: app.id, level: 30 });
    const other = await member(server, 'idx-other', { id: app.id, level: 30 });
    for (const user of [author, other]) await server.call('POST', `/projects/${lib.id}/members`, { user_id: user.id, access_level: 30 });
    const titles = async (scope: string, token: string) => {
      const answer = await server.call('GET', `/${resource}?scope=${scope}`, undefined, token);
      expect(answer.status).toBe(200);
      return (answer.body as { title: string }[]).map((row) => row.title);
    };

    const a = await open(server, app, 'A', author.token, [other.id]);
    await open(server, lib, 'C', author.token, []);
    await open(server, lib, 'D', other.token, [other.id, author.id]);
    expect(await titles('created_by_me', author.token)).toEqual(['C', 'A']);
    expect(await titles('created-by-me', other.token)).toEqual(['D']);
    expect(await titles('assigned_to_me', other.token)).toEqual(['D', 'A']);
    expect(await titles('assigned_to_me', author.token)).toEqual(['D']);

    // Reassigned: off the former assignee's list, on the new one's.
    expect((await server.call('PUT', `/projects/${app.id}/${resource}/${a.iid}`, { assignee_ids: [author.id] }, author.token)).status).toBe(200);
    expect(await titles('assigned_to_me', other.token)).toEqual(['D']);
    expect(await titles('assigned_to_me', author.token)).toEqual(['D', 'A']);

    // Out of a project: its records leave the caller's lists (the index keeps them; the read check drops them).
    expect((await server.call('DELETE', `/projects/${lib.id}/members/${author.id}`)).status).toBe(204);
    expect(await titles('created_by_me', author.token)).toEqual(['A']);
    expect(await titles('assigned_to_me', author.token)).toEqual(['A']);

    // Deleted: gone from both lists.
    expect((await server.call('DELETE', `/projects/${app.id}/${resource}/${a.iid}`)).status).toBe(204);
    expect(await titles('created_by_me', author.token)).toEqual([]);
    expect(await titles('assigned_to_me', author.token)).toEqual([]);

    // Rebuilt from the log on a restart.
    await server.close();
    server = await start(dataDir);
    expect(await titles('created_by_me', other.token)).toEqual(['D']);
    expect(await titles('assigned_to_me', other.token)).toEqual(['D']);

    // A project deleted takes its records off every list, and nothing is left in the indexes.
    expect((await server.call('DELETE', `/projects/${lib.id}`)).status).toBe(202);
    expect(await titles('created_by_me', other.token)).toEqual([]);
    expect(await titles('assigned_to_me', other.token)).toEqual([]);
    const { byAuthor, byAssignee } = indexes(server.app.state);
    expect([...indexPairs(byAuthor)]).toEqual([]);
    expect([...indexPairs(byAssignee)]).toEqual([]);
  });
});

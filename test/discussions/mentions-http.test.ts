/**
 * Cross-references over HTTP: "mentioned in …" system notes on the issues and merge requests a text references,
 * with the platform's bodies, once per mentioner, hidden from readers who may not read the mentioner.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { member, newDataDir, removeDir, start, type Running } from '../repositories/support.js';

let server: Running;
let dataDir: string;
let project: { id: number; path: string; path_with_namespace: string };
let other: { id: number };
let dev: { id: number; token: string };
let guest: { id: number; token: string };
let outsider: { id: number; token: string };

beforeAll(async () => {
  dataDir = newDataDir();
  server = await start(dataDir);
  project = (await server.call('POST', '/projects', { name: 'Talk', visibility: 'public', initialize_with_readme: true })).body;
  other = (await server.call('POST', '/projects', { name: 'Other', visibility: 'public' })).body;
  dev = await member(server, 'dev', { id: project.id, level: 30 });
  guest = await member(server, 'guest', { id: project.id, level: 10 });
  outsider = await member(server, 'outsider');
});
afterAll(async () => {
  await server.close();
  removeDir(dataDir);
});

const systemNotes = async (path: string, token: string | null) =>
  ((await server.call('GET', `${path}/notes?sort=asc&per_page=100`, undefined, token)).body as { body: string; system: boolean }[]).filter((note) => note.system);

describe('cross-references', () => {
  it('an issue, a merge request and notes mention issues: one system note per mentioner on each target', async () => {
    const base = `/projects/${project.id}`;
    const target = (await server.call('POST', `${base}/issues`, { title: 'Target' }, dev.token)).body;
    const targetPath = `${base}/issues/${target.iid}`;
    const source = (await server.call('POST', `${base}/issues`, { title: 'Source', description: `Blocked by #${target.iid}` }, dev.token)).body;
    const threads = await server.call('GET', `${targetPath}/discussions`, undefined, dev.token);
    expect(threads.status).toBe(200);
    expect(threads.body).toEqual([
      {
        id: expect.stringMatching(/^[0-9a-f]{40}$/),
        individual_note: true,
        notes: [
          {
            id: expect.any(Number),
            type: null,
            body: `mentioned in issue #${source.iid}`,
            attachment: null,
            author: expect.objectContaining({ id: dev.id, username: 'dev' }),
            created_at: expect.any(String),
            updated_at: expect.any(String),
            system: true,
            noteable_id: target.id,
            noteable_type: 'Issue',
            resolvable: false,
            confidential: false,
            noteable_iid: target.iid,
            commands_changes: {},
          },
        ],
      },
    ]);
    // Editing the description again records no second note (`cross_reference_exists?`); a system note is not edited.
    await server.call('PUT', `${base}/issues/${source.iid}`, { description: `Blocked by #${target.iid}, still` }, dev.token);
    const [mention] = await systemNotes(targetPath, dev.token);
    expect(await systemNotes(targetPath, dev.token)).toHaveLength(1);
    expect((await server.call('PUT', `${targetPath}/notes/${(mention as unknown as { id: number }).id}`, { body: 'x' }, dev.token)).status).toBe(403);

    // A merge request (by its description) and a note on it: "merge request !1", once for both.
    await server.call('POST', `${base}/repository/commits`, { branch: 'topic', start_branch: 'main', commit_message: 'Topic', actions: [{ action: 'create', file_path: 't.txt', content: 't\n' }] });
    const mr = (await server.call('POST', `${base}/merge_requests`, { title: 'Topic', source_branch: 'topic', target_branch: 'main', description: `Closes #${target.iid}` }, dev.token)).body;
    await server.call('POST', `${base}/merge_requests/${mr.iid}/notes`, { body: `Also #${target.iid}` }, dev.token);
    // A note on an issue mentioning the merge request by URL.
    await server.call('POST', `${base}/issues/${source.iid}/notes`, { body: `Fixed in http://localhost/${project.path_with_namespace}/-/merge_requests/${mr.iid}` }, guest.token);
    expect((await systemNotes(targetPath, dev.token)).map((note) => note.body)).toEqual([`mentioned in issue #${source.iid}`, `mentioned in merge request !${mr.iid}`]);
    expect((await systemNotes(`${base}/merge_requests/${mr.iid}`, dev.token)).map((note) => note.body)).toEqual([`mentioned in issue #${source.iid}`]);

    // From another project of the namespace: the project's path.
    await server.call('POST', `/projects/${other.id}/issues`, { title: 'Elsewhere', description: `See ${project.path}#${target.iid}` });
    expect((await systemNotes(targetPath, dev.token)).at(-1)!.body).toBe('mentioned in issue other#1');
  });

  it('a confidential mentioner is not shown to readers who may not read it; targets the author may not read get nothing', async () => {
    const base = `/projects/${project.id}`;
    const target = (await server.call('POST', `${base}/issues`, { title: 'Public' }, dev.token)).body;
    const targetPath = `${base}/issues/${target.iid}`;
    const secret = (await server.call('POST', `${base}/issues`, { title: 'Secret', confidential: true, description: `Related: #${target.iid}` })).body;
    const note = (await systemNotes(targetPath, dev.token))[0] as unknown as { id: number; body: string };
    expect(note.body).toBe(`mentioned in issue #${secret.iid}`);
    // Guests and outsiders do not read others' confidential issues: the note is left out of every read.
    for (const token of [guest.token, outsider.token]) {
      expect(await systemNotes(targetPath, token)).toEqual([]);
      expect(await server.call('GET', `${targetPath}/notes/${note.id}`, undefined, token)).toMatchObject({ status: 404, body: { message: '404 Note Not Found' } });
      const threads = await server.call('GET', `${targetPath}/discussions`, undefined, token);
      expect(threads.body).toEqual([]);
      // The page is cut before the unreadable notes are left out: the total still counts the thread.
      expect(threads.headers.get('x-total')).toBe('1');
    }
    const threadId = (await server.call('GET', `${targetPath}/discussions`, undefined, dev.token)).body[0].id;
    expect(await server.call('GET', `${targetPath}/discussions/${threadId}`, undefined, guest.token)).toMatchObject({ status: 404, body: { message: '404 Discussion Not Found' } });
    expect(await server.call('GET', `${targetPath}/discussions/${threadId}`, undefined, dev.token)).toMatchObject({ status: 200, body: { notes: [{ body: note.body }] } });
    // An outsider naming the confidential issue creates no note on it.
    await server.call('POST', `${targetPath}/notes`, { body: `Is this #${secret.iid}?` }, outsider.token);
    expect((await server.call('GET', `${base}/issues/${secret.iid}/notes`)).body).toEqual([]);
  });
});

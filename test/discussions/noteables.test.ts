/** Issues, snippets and epics over HTTP (lib/api/issues.rb, project_snippets.rb, ee/lib/api/epics.rb, 14.7), lean. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { member, newDataDir, removeDir, start, type Running } from '../repositories/support.js';

let server: Running;
let dataDir: string;
let project: { id: number; path_with_namespace: string };
let priv: { id: number };
let guest: { id: number; token: string };
let reporter: { id: number; token: string };
let outsider: { id: number; token: string };

beforeAll(async () => {
  dataDir = newDataDir();
  server = await start(dataDir);
  project = (await server.call('POST', '/projects', { name: 'Tracker', visibility: 'public' })).body;
  priv = (await server.call('POST', '/projects', { name: 'Secret' })).body;
  guest = await member(server, 'guest', { id: project.id, level: 10 });
  reporter = await member(server, 'reporter', { id: project.id, level: 20 });
  outsider = await member(server, 'outsider');
});
afterAll(async () => {
  await server.close();
  removeDir(dataDir);
});

describe('issues', () => {
  it('creates, lists with filters and pagination, gets, updates with state_event, deletes', async () => {
    const base = `/projects/${project.id}/issues`;
    expect(await server.call('POST', base, {})).toMatchObject({ status: 400, body: { error: 'title is missing' } });
    const first = await server.call('POST', base, { title: 'Broken build', description: 'It fails', labels: 'bug,ci' }, guest.token);
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      iid: 1,
      project_id: project.id,
      title: 'Broken build',
      description: 'It fails',
      state: 'opened',
      labels: ['bug', 'ci'],
      confidential: false,
      author: { id: guest.id, username: 'guest' },
      references: { short: '#1', full: `${project.path_with_namespace}#1` },
      web_url: expect.stringMatching(new RegExp(`/${project.path_with_namespace}/-/issues/1$`)),
      user_notes_count: 0,
    });
    await server.call('POST', base, { title: 'Feature idea', labels: 'feature' });
    await server.call('POST', base, { title: 'Secret bug', confidential: true, labels: 'bug' });
    const all = await server.call('GET', `${base}?per_page=2`);
    expect(all.status).toBe(200);
    expect(all.body.map((issue: { iid: number }) => issue.iid)).toEqual([3, 2]);
    expect(all.headers.get('x-total')).toBe('3');
    expect(all.headers.get('x-next-page')).toBe('2');
    expect((await server.call('GET', `${base}?labels=bug&sort=asc`)).body.map((issue: { iid: number }) => issue.iid)).toEqual([1, 3]);
    expect((await server.call('GET', `${base}?search=idea`)).body.map((issue: { iid: number }) => issue.iid)).toEqual([2]);
    // Confidential issues: hidden from guests and outsiders, 404 on get.
    expect((await server.call('GET', `${base}?labels=bug`, undefined, guest.token)).body.map((issue: { iid: number }) => issue.iid)).toEqual([1]);
    expect(await server.call('GET', `${base}/3`, undefined, outsider.token)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect((await server.call('GET', `${base}/3`, undefined, reporter.token)).status).toBe(200);
    // Update: the author or Reporters; close and reopen.
    expect(await server.call('PUT', `${base}/1`, {}, guest.token)).toMatchObject({ status: 400 });
    expect((await server.call('PUT', `${base}/2`, { title: 'Nope' }, guest.token)).status).toBe(403);
    const closed = await server.call('PUT', `${base}/1`, { state_event: 'close', title: 'Broken build on main' }, guest.token);
    expect(closed.body).toMatchObject({ state: 'closed', title: 'Broken build on main', closed_by: { id: guest.id } });
    expect((await server.call('GET', `${base}?state=closed`)).body.map((issue: { iid: number }) => issue.iid)).toEqual([1]);
    expect((await server.call('PUT', `${base}/1`, { state_event: 'reopen' }, reporter.token)).body).toMatchObject({ state: 'opened', closed_at: null });
    expect(await server.call('PUT', `${base}/1`, { state_event: 'shut' })).toMatchObject({ status: 400, body: { error: 'state_event does not have a valid value' } });
    // Delete: owners only.
    expect((await server.call('DELETE', `${base}/2`, undefined, reporter.token)).status).toBe(403);
    expect((await server.call('DELETE', `${base}/2`)).status).toBe(204);
    expect(await server.call('GET', `${base}/2`)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    // A private project is invisible to outsiders.
    expect(await server.call('POST', `/projects/${priv.id}/issues`, { title: 'x' }, outsider.token)).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
  });
});

describe('project snippets', () => {
  it('creates with content/file_name or files[], lists, gets, serves raw, updates and deletes', async () => {
    const base = `/projects/${project.id}/snippets`;
    expect(await server.call('POST', base, { title: 'x', visibility: 'public' }, reporter.token)).toMatchObject({
      status: 400,
      body: { error: 'files, content are missing, exactly one parameter must be provided' },
    });
    expect((await server.call('POST', base, { title: 'x', visibility: 'public', content: 'a', file_name: 'a.rb' }, guest.token)).status).toBe(403);
    const one = await server.call('POST', base, { title: 'Hello', visibility: 'public', content: 'puts 1', file_name: 'hello.rb' }, reporter.token);
    expect(one.status).toBe(201);
    expect(one.body).toMatchObject({ title: 'Hello', visibility: 'public', file_name: 'hello.rb', files: [{ path: 'hello.rb' }], author: { id: reporter.id }, project_id: project.id });
    const many = await server.call('POST', base, { title: 'Pair', visibility: 'private', files: [{ file_path: 'a.txt', content: 'A' }, { file_path: 'b.txt', content: 'B' }] }, reporter.token);
    expect(many.body.files.map((file: { path: string }) => file.path)).toEqual(['a.txt', 'b.txt']);
    const raw = await server.call('GET', `${base}/${one.body.id}/raw`);
    expect(raw).toMatchObject({ status: 200, body: 'puts 1' });
    expect(raw.headers.get('content-type')).toMatch(/^text\/plain/);
    expect((await server.call('GET', base, undefined, outsider.token)).body.map((snippet: { id: number }) => snippet.id)).toEqual([one.body.id]);
    expect((await server.call('GET', base, undefined, guest.token)).body.map((snippet: { id: number }) => snippet.id)).toEqual([many.body.id, one.body.id]);
    expect(await server.call('GET', `${base}/${many.body.id}`, undefined, outsider.token)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    const updated = await server.call('PUT', `${base}/${one.body.id}`, { content: 'puts 2', title: 'Hi' }, reporter.token);
    expect(updated.body).toMatchObject({ title: 'Hi', file_name: 'hello.rb' });
    expect((await server.call('GET', `${base}/${one.body.id}/raw`)).body).toBe('puts 2');
    expect(await server.call('PUT', `${base}/${many.body.id}`, { content: 'x' }, reporter.token)).toMatchObject({ status: 400, body: { message: { error: 'To update Snippets with multiple files, you must use the `files` parameter' } } });
    const moved = await server.call('PUT', `${base}/${many.body.id}`, { files: [{ action: 'move', previous_path: 'a.txt', file_path: 'c.txt' }, { action: 'delete', file_path: 'b.txt' }] }, reporter.token);
    expect(moved.body.files.map((file: { path: string }) => file.path)).toEqual(['c.txt']);
    expect((await server.call('PUT', `${base}/${one.body.id}`, { title: 'Mine' }, guest.token)).status).toBe(403);
    expect((await server.call('DELETE', `${base}/${one.body.id}`, undefined, reporter.token)).status).toBe(204);
    expect((await server.call('GET', `${base}/${one.body.id}/raw`)).status).toBe(404);
  });
});

describe('epics', () => {
  it('creates, lists, gets and updates group epics', async () => {
    const group = (await server.call('POST', '/groups', { name: 'Planning', path: 'planning', visibility: 'public' })).body;
    const base = `/groups/${group.id}/epics`;
    const epic = await server.call('POST', base, { title: 'Roadmap', labels: 'q1' });
    expect(epic.status).toBe(201);
    expect(epic.body).toMatchObject({ iid: 1, group_id: group.id, title: 'Roadmap', state: 'opened', labels: ['q1'], references: { short: '&1', full: 'planning&1' } });
    expect((await server.call('POST', base, { title: 'x' }, outsider.token)).status).toBe(403);
    expect((await server.call('GET', base, undefined, outsider.token)).body.map((item: { iid: number }) => item.iid)).toEqual([1]);
    expect((await server.call('PUT', `${base}/1`, { state_event: 'close' })).body).toMatchObject({ state: 'closed' });
    // `authorize!(:read_epic, nil)`: a missing epic is a 403 (fidelity audit, issue 16).
    expect(await server.call('GET', `${base}/9`)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
  });

  it('lists epics newest first (or by updated_at, ascending) within the created/updated window', async () => {
    const group = (await server.call('POST', '/groups', { name: 'Window', path: 'window', visibility: 'public' })).body;
    const base = `/groups/${group.id}/epics`;
    const first = (await server.call('POST', base, { title: 'First' })).body;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = (await server.call('POST', base, { title: 'Second' })).body;
    await new Promise((resolve) => setTimeout(resolve, 5));
    await server.call('PUT', `${base}/${first.iid}`, { title: 'First, edited' });
    const iids = async (query: string) => (await server.call('GET', `${base}?${query}`)).body.map((item: { iid: number }) => item.iid);
    expect(await iids('')).toEqual([2, 1]);
    expect(await iids('order_by=updated_at&sort=asc')).toEqual([2, 1]);
    expect(await iids(`created_after=${encodeURIComponent(second.created_at)}`)).toEqual([2]);
    expect(await iids(`created_before=${encodeURIComponent(first.created_at)}`)).toEqual([1]);
    expect(await iids(`updated_before=${encodeURIComponent(second.updated_at)}`)).toEqual([2]);
  });
});

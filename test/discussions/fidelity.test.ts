/**
 * The fidelity audit of issues, snippets and epics (issue 16, branch `fid-threads`): what a 14.7 client sends
 * (python-gitlab's comma lists, `None`/`Any`, usernames, scopes, dates, `not[…]`, `add_labels`, `due_date`) and the
 * platform's answers to it, raw HTTP with exact statuses and bodies. References: lib/api/issues.rb and
 * helpers/issues_helpers.rb, lib/api/project_snippets.rb and helpers/snippets_helpers.rb, ee/lib/api/epics.rb.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { member, newDataDir, removeDir, start, type Running } from '../repositories/support.js';

let server: Running;
let dataDir: string;
let project: { id: number };
let priv: { id: number };
let guest: { id: number; token: string };
let dev: { id: number; token: string };
let outsider: { id: number; token: string };

const iids = (body: { iid: number }[]) => body.map((issue) => issue.iid);

beforeAll(async () => {
  dataDir = newDataDir();
  server = await start(dataDir);
  project = (await server.call('POST', '/projects', { name: 'Audit', visibility: 'public' })).body;
  priv = (await server.call('POST', '/projects', { name: 'Hidden' })).body;
  guest = await member(server, 'guest', { id: project.id, level: 10 });
  dev = await member(server, 'dev', { id: project.id, level: 30 });
  outsider = await member(server, 'outsider');
});
afterAll(async () => {
  await server.close();
  removeDir(dataDir);
});

describe('GET /projects/:id/issues filters (IssuesFinder)', () => {
  it('takes comma lists, None/Any, usernames, scopes, dates, `in`, `not[…]` and the other orders', async () => {
    const base = `/projects/${project.id}/issues`;
    const one = (await server.call('POST', base, { title: 'Crash on start', labels: 'bug', assignee_ids: [dev.id] }, guest.token)).body;
    const two = (await server.call('POST', base, { title: 'Question', description: 'about a crash' }, outsider.token)).body;
    await server.call('POST', base, { title: 'Layout', labels: 'bug,ui' }, dev.token);
    const list = async (query: string, token?: string) => {
      const answer = await server.call('GET', `${base}?${query}`, undefined, token);
      expect(answer.status).toBe(200);
      return iids(answer.body);
    };
    expect(await list('iids=1,3')).toEqual([3, 1]);
    expect(await list('labels=None')).toEqual([2]);
    expect(await list('labels=Any')).toEqual([3, 1]);
    expect(await list('labels=bug,ui')).toEqual([3]);
    expect(await list('assignee_id=None')).toEqual([3, 2]);
    expect(await list('assignee_id=any')).toEqual([1]);
    expect(await list(`assignee_id=${dev.id}`)).toEqual([1]);
    expect(await server.call('GET', `${base}?assignee_id=abc`)).toMatchObject({ status: 400, body: { error: 'assignee_id should be an integer, None, or Any, however got abc' } });
    expect(await list('author_username=guest')).toEqual([1]);
    expect(await list('author_username=nobody')).toEqual([]);
    expect(await list('assignee_username=dev')).toEqual([1]);
    expect(await server.call('GET', `${base}?author_id=1&author_username=guest`)).toMatchObject({ status: 400, body: { error: 'author_id, author_username are mutually exclusive' } });
    expect(await list('scope=created_by_me', outsider.token)).toEqual([2]);
    expect(await list('scope=assigned-to-me', dev.token)).toEqual([1]);
    expect(await list('scope=all', dev.token)).toEqual([3, 2, 1]);
    expect(await server.call('GET', `${base}?scope=mine`)).toMatchObject({ status: 400, body: { error: 'scope does not have a valid value' } });
    expect(await list(`created_after=${two.created_at}`)).toEqual([3, 2]);
    expect(await list(`created_before=${one.created_at}`)).toEqual([1]);
    expect(await list('updated_after=2100-01-01T00:00:00Z')).toEqual([]);
    expect(await list('updated_before=2100-01-01')).toEqual([3, 2, 1]);
    expect(await list('search=crash')).toEqual([2, 1]);
    expect(await list('search=crash&in=title')).toEqual([1]);
    expect(await list('not[labels]=bug')).toEqual([2]);
    expect(await list('not[author_username]=guest')).toEqual([3, 2]);
    expect(await list('not[iids]=1,2')).toEqual([3]);
    expect(await list('milestone=None')).toEqual([3, 2, 1]);
    expect(await list('milestone=v1.0')).toEqual([]);
    expect(await list('order_by=priority&sort=asc')).toEqual([3, 2, 1]);
  });
});

describe('GET /projects/:id/issues by due date and type', () => {
  it('filters by `due_date` against today (the server clock: Sunday 2026-02-01), orders by it, and knows only issues', async () => {
    const dates = (await server.call('POST', '/projects', { name: 'Dates', visibility: 'public' })).body;
    const base = `/projects/${dates.id}/issues`;
    for (const [title, due] of [['A', '2026-01-20'], ['B', '2026-01-28'], ['C', '2026-02-20'], ['D', '2026-03-15'], ['E', null]] as const) {
      expect((await server.call('POST', base, { title, ...(due ? { due_date: due } : {}) })).body.due_date).toBe(due);
    }
    const titles = async (query: string) => {
      const answer = await server.call('GET', `${base}?${query}`);
      expect(answer.status).toBe(200);
      return answer.body.map((issue: { title: string }) => issue.title).join('');
    };
    expect(await titles('due_date=0')).toBe('E');
    expect(await titles('due_date=overdue')).toBe('BA');
    expect(await titles('due_date=week')).toBe('B');
    expect(await titles('due_date=month')).toBe('C');
    expect(await titles('due_date=next_month_and_previous_two_weeks')).toBe('DCBA');
    expect(await titles('due_date=')).toBe('EDCBA');
    expect(await titles('order_by=due_date&sort=asc')).toBe('ABCDE');
    expect(await titles('order_by=due_date')).toBe('DCBAE');
    expect(await titles('issue_type=incident')).toBe('');
    expect(await titles('issue_type=issue')).toBe('EDCBA');
    expect(await server.call('GET', `${base}?due_date=tomorrow`)).toMatchObject({ status: 400, body: { error: 'due_date does not have a valid value' } });
    expect(await server.call('GET', `${base}?issue_type=bug`)).toMatchObject({ status: 400, body: { error: 'issue_type does not have a valid value' } });
  });
});

describe('PUT and DELETE /projects/:id/issues/:issue_iid', () => {
  it('adds and removes labels, takes comma-separated assignees and a due date, and asks for one of the update fields', async () => {
    const base = `/projects/${project.id}/issues`;
    const issue = (await server.call('POST', base, { title: 'Labels', labels: 'a,b', due_date: '2026-04-01' }, dev.token)).body;
    expect(issue.due_date).toBe('2026-04-01');
    const path = `${base}/${issue.iid}`;
    expect((await server.call('PUT', path, { add_labels: 'c' }, dev.token)).body.labels).toEqual(['a', 'b', 'c']);
    expect((await server.call('PUT', path, { remove_labels: 'a, c' }, dev.token)).body.labels).toEqual(['b']);
    expect((await server.call('PUT', path, { labels: 'x', add_labels: 'y', remove_labels: 'x' }, dev.token)).body.labels).toEqual(['y']);
    expect((await server.call('PUT', `${path}?assignee_ids=${dev.id},${guest.id}`, undefined, dev.token)).body.assignees.map((user: { id: number }) => user.id)).toEqual([dev.id, guest.id]);
    expect((await server.call('PUT', path, { due_date: '2026-03-01' }, dev.token)).body.due_date).toBe('2026-03-01');
    expect((await server.call('PUT', path, { due_date: '' }, dev.token)).body.due_date).toBeNull();
    // `CommonSystemNotesService`: a due date set at creation, changed and removed.
    const notes = await server.call('GET', `${path}/notes?sort=asc&activity_filter=only_activity`, undefined, dev.token);
    // The assignees' note (`handle_assignee_changes`) between them (review-threads).
    expect(notes.body.map((note: { body: string }) => note.body)).toEqual(['changed due date to April 1, 2026', 'assigned to @dev and @guest', 'changed due date to March 1, 2026', 'removed due date']);
    expect(await server.call('PUT', path, { updated_at: '2020-01-01T00:00:00Z' }, dev.token)).toMatchObject({
      status: 400,
      body: {
        error:
          'assignee_id, assignee_ids, confidential, created_at, description, discussion_locked, due_date, labels, add_labels, remove_labels, milestone_id, state_event, title are missing, at least one parameter must be provided',
      },
    });
    // A milestone that does not exist is dropped (`filter_milestone`): nothing changes.
    expect(await server.call('PUT', path, { milestone_id: 42 }, dev.token)).toMatchObject({ status: 200, body: { milestone: null } });
  });

  it('drops the metadata of callers without set_issue_metadata: a guest author on update, an outsider on creation', async () => {
    const base = `/projects/${project.id}/issues`;
    const own = (await server.call('POST', base, { title: 'Guest bug', labels: 'bug', assignee_ids: [dev.id], due_date: '2026-05-01' }, guest.token)).body;
    expect(own).toMatchObject({ labels: ['bug'], due_date: '2026-05-01', assignees: [{ id: dev.id }] });
    const edited = await server.call('PUT', `${base}/${own.iid}`, { title: 'Guest bug!', labels: 'other', due_date: '', assignee_ids: [], confidential: true }, guest.token);
    expect(edited).toMatchObject({ status: 200, body: { title: 'Guest bug!', labels: ['bug'], due_date: '2026-05-01', assignees: [{ id: dev.id }], confidential: false } });
    expect((await server.call('PUT', `${base}/${own.iid}`, { labels: 'other' }, dev.token)).body.labels).toEqual(['other']);
    const foreign = await server.call('POST', base, { title: 'Outside', labels: 'bug', assignee_ids: [dev.id], due_date: '2026-05-01', confidential: true }, outsider.token);
    expect(foreign).toMatchObject({ status: 201, body: { labels: [], assignees: [], due_date: null, confidential: true } });
  });

  it('locks discussions: stored and shown, a system note each way, and only project members comment while locked', async () => {
    const base = `/projects/${project.id}/issues`;
    const issue = (await server.call('POST', base, { title: 'Heated' }, dev.token)).body;
    expect(issue.discussion_locked).toBeNull();
    const path = `${base}/${issue.iid}`;
    const early = (await server.call('POST', `${path}/notes`, { body: 'first' }, outsider.token)).body;
    expect((await server.call('PUT', path, { discussion_locked: true }, guest.token)).status).toBe(403);
    expect((await server.call('PUT', path, { discussion_locked: true }, dev.token)).body.discussion_locked).toBe(true);
    expect(await server.call('POST', `${path}/notes`, { body: 'late' }, outsider.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await server.call('POST', `${path}/discussions`, { body: 'late' }, outsider.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await server.call('PUT', `${path}/notes/${early.id}`, { body: 'edited' }, outsider.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect((await server.call('POST', `${path}/notes`, { body: 'member' }, guest.token)).status).toBe(201);
    expect((await server.call('PUT', path, { discussion_locked: false }, dev.token)).body.discussion_locked).toBe(false);
    expect((await server.call('POST', `${path}/notes`, { body: 'again' }, outsider.token)).status).toBe(201);
    const notes = await server.call('GET', `${path}/notes?sort=asc&activity_filter=only_activity`, undefined, dev.token);
    expect(notes.body.map((note: { body: string }) => note.body)).toEqual(['locked this issue', 'unlocked this issue']);
  });

  it('answers find_by! and authorize! as the platform: 404 "Not found", 403 on an issue the caller cannot read, 400 for a bad iid', async () => {
    const base = `/projects/${project.id}/issues`;
    const secret = (await server.call('POST', base, { title: 'Secret', confidential: true }, dev.token)).body;
    expect(await server.call('PUT', `${base}/9999`, { title: 'x' }, dev.token)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect(await server.call('DELETE', `${base}/9999`)).toMatchObject({ status: 404, body: { message: '404 Issue Not Found' } });
    expect(await server.call('GET', `${base}/${secret.iid}`, undefined, outsider.token)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect(await server.call('PUT', `${base}/${secret.iid}`, { title: 'x' }, outsider.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await server.call('PUT', `${base}/${secret.iid}`, { title: 'x' }, guest.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await server.call('DELETE', `${base}/${secret.iid}`, undefined, outsider.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await server.call('GET', `${base}/abc`)).toMatchObject({ status: 400, body: { error: 'issue_iid is invalid' } });
    expect(await server.call('PUT', `/projects/${priv.id}/issues/1`, { title: 'x' }, outsider.token)).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
  });

  it('shows `subscribed` on one issue (its participants), not in lists', async () => {
    const base = `/projects/${project.id}/issues`;
    const issue = (await server.call('POST', base, { title: 'Subscribed' }, guest.token)).body;
    expect(issue.subscribed).toBe(true);
    const path = `${base}/${issue.iid}`;
    expect((await server.call('GET', path, undefined, guest.token)).body.subscribed).toBe(true);
    expect((await server.call('GET', path, undefined, outsider.token)).body.subscribed).toBe(false);
    expect((await server.call('GET', path, undefined, null)).body.subscribed).toBe(false);
    await server.call('POST', `${path}/notes`, { body: 'me too' }, outsider.token);
    expect((await server.call('GET', path, undefined, outsider.token)).body.subscribed).toBe(true);
    const listed = (await server.call('GET', `${base}?iids=${issue.iid}`, undefined, guest.token)).body;
    expect(listed).toHaveLength(1);
    expect(listed[0]).not.toHaveProperty('subscribed');
  });

  it('subscribes and unsubscribes (lib/api/subscriptions.rb): 201 with the issue, 304 when nothing changes, the choice over participation', async () => {
    const base = `/projects/${project.id}/issues`;
    const issue = (await server.call('POST', base, { title: 'Follow me' }, guest.token)).body;
    const path = `${base}/${issue.iid}`;
    const subscribed = async (token: string) => (await server.call('GET', path, undefined, token)).body.subscribed;
    // An outsider who reads the public project subscribes; a second time is 304 with no body.
    const done = await server.call('POST', `${path}/subscribe`, undefined, outsider.token);
    expect(done).toMatchObject({ status: 201, body: { iid: issue.iid, title: 'Follow me', subscribed: true } });
    const again = await server.call('POST', `${path}/subscribe`, undefined, outsider.token);
    expect([again.status, again.body, again.headers.get('content-type')]).toEqual([304, null, null]);
    expect(await subscribed(outsider.token)).toBe(true);
    expect(await server.call('POST', `${path}/unsubscribe`, undefined, outsider.token)).toMatchObject({ status: 201, body: { subscribed: false } });
    expect((await server.call('POST', `${path}/unsubscribe`, undefined, outsider.token)).status).toBe(304);
    // The author participates, so is subscribed without asking: subscribing is 304, unsubscribing wins over
    // participation, and a comment afterwards does not bring the subscription back.
    expect((await server.call('POST', `${path}/subscribe`, undefined, guest.token)).status).toBe(304);
    expect(await server.call('POST', `${path}/unsubscribe`, undefined, guest.token)).toMatchObject({ status: 201, body: { subscribed: false } });
    await server.call('POST', `${path}/notes`, { body: 'still here' }, guest.token);
    expect(await subscribed(guest.token)).toBe(false);
    // Each user's choice is their own.
    expect(await subscribed(dev.token)).toBe(false);
    expect((await server.call('POST', `${path}/subscribe`, undefined, dev.token)).status).toBe(201);
    expect([await subscribed(dev.token), await subscribed(guest.token), await subscribed(outsider.token)]).toEqual([true, false, false]);
  });

  it('lists participants as Participable orders them: assignees, note authors (system notes too), the author, then the mentioned', async () => {
    const watcher = await member(server, 'watcher');
    await member(server, 'coder');
    const base = `/projects/${project.id}/issues`;
    const issue = (await server.call('POST', base, { title: 'Who is here', description: 'cc @watcher, not `@coder` in code, nor @nobody-at-all', assignee_ids: [dev.id] }, guest.token)).body;
    const path = `${base}/${issue.iid}`;
    await server.call('PUT', path, { title: 'Who is here now' }); // root: a system note ("changed title …")
    await server.call('POST', `${path}/notes`, { body: 'present' }, outsider.token);
    const participants = await server.call('GET', `${path}/participants`, undefined, null);
    expect(participants.status).toBe(200);
    // Paginated (`paginate(::Kaminari.paginate_array(issue.participants))`).
    expect([participants.headers.get('x-total'), participants.headers.get('x-per-page')]).toEqual(['5', '20']);
    expect((await server.call('GET', `${path}/participants?per_page=2&page=3`, undefined, null)).body.map((user: { username: string }) => user.username)).toEqual(['watcher']);
    // The guest author wrote the creation's "assigned to @dev" note, so counts among the note authors (review-threads).
    expect(participants.body.map((user: { username: string }) => user.username)).toEqual(['dev', 'guest', 'root', 'outsider', 'watcher']);
    expect(Object.keys(participants.body[0]).sort()).toEqual(['avatar_url', 'id', 'name', 'state', 'username', 'web_url']);
    // A mention makes a participant, so a subscriber.
    expect((await server.call('GET', path, undefined, watcher.token)).body.subscribed).toBe(true);
    expect((await server.call('POST', `${path}/subscribe`, undefined, watcher.token)).status).toBe(304);
  });

  it('leaves out of the participants whoever cannot read the project, and hides an issue the caller cannot read', async () => {
    const hidden = await server.call('POST', `/projects/${priv.id}/issues`, { title: 'Inside', description: 'ping @outsider' });
    expect((await server.call('GET', `/projects/${priv.id}/issues/${hidden.body.iid}/participants`)).body.map((user: { username: string }) => user.username)).toEqual(['root']);
    const secret = (await server.call('POST', `/projects/${project.id}/issues`, { title: 'Quiet', confidential: true }, dev.token)).body;
    expect(await server.call('GET', `/projects/${project.id}/issues/${secret.iid}/participants`, undefined, outsider.token)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect(await server.call('GET', `/projects/${priv.id}/issues/${hidden.body.iid}/participants`, undefined, null)).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
  });

  it('refuses a subscription to what the caller cannot read, and anonymous callers', async () => {
    const base = `/projects/${project.id}/issues`;
    const secret = (await server.call('POST', base, { title: 'Secret', confidential: true }, dev.token)).body;
    const before = (await server.call('GET', `${base}/${secret.iid}`)).body;
    expect(await server.call('POST', `${base}/${secret.iid}/subscribe`, undefined, outsider.token)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect(await server.call('POST', `${base}/9999/subscribe`, undefined, outsider.token)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect(await server.call('POST', `${base}/${secret.iid}/subscribe`, undefined, null)).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    expect(await server.call('POST', `/projects/${priv.id}/issues/1/unsubscribe`, undefined, outsider.token)).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    // `subscribable_id` is a String: any text is looked up, and found nowhere.
    expect(await server.call('POST', `${base}/abc/subscribe`, undefined, outsider.token)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    // Nothing changed: the issue's `updated_at` does not move with a subscription either.
    expect((await server.call('POST', `${base}/${secret.iid}/unsubscribe`, undefined, dev.token)).status).toBe(201);
    expect((await server.call('GET', `${base}/${secret.iid}`)).body.updated_at).toBe(before.updated_at);
  });
});

describe('project snippets (lib/api/project_snippets.rb, helpers/snippets_helpers.rb)', () => {
  it('asks anonymous listers to sign in, needs a file_name with content, and words service errors as `{"message":{"error":…}}`', async () => {
    const base = `/projects/${project.id}/snippets`;
    expect(await server.call('GET', base, undefined, null)).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    expect(await server.call('GET', `/projects/${priv.id}/snippets`, undefined, null)).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect(await server.call('POST', base, { title: 'x', visibility: 'public', content: 'puts 1' }, dev.token)).toMatchObject({ status: 400, body: { error: 'file_name is missing' } });
    const many = (await server.call('POST', base, { title: 'Two', visibility: 'public', files: [{ file_path: 'a.rb', content: 'A' }, { file_path: 'b.rb', content: 'B' }] }, dev.token)).body;
    expect((await server.call('GET', `${base}/${many.id}`, undefined, null)).status).toBe(200);
    expect(await server.call('PUT', `${base}/${many.id}`, { content: 'x' }, dev.token)).toMatchObject({
      status: 400,
      body: { message: { error: 'To update Snippets with multiple files, you must use the `files` parameter' } },
    });
    expect(await server.call('PUT', `${base}/${many.id}`, { files: [{ action: 'update', file_path: 'a.rb' }] }, dev.token)).toMatchObject({
      status: 422,
      body: { message: { error: 'Snippet actions have invalid data' } },
    });
    expect(await server.call('PUT', `${base}/${many.id}`, { files: [{ action: 'move', file_path: 'c.rb' }] }, dev.token)).toMatchObject({
      status: 422,
      body: { message: { error: 'Snippet actions have invalid data' } },
    });
    expect((await server.call('PUT', `${base}/${many.id}`, { files: [{ action: 'update', file_path: 'a.rb', content: 'AA' }] }, dev.token)).status).toBe(200);
  });
});

describe('group epics (ee/lib/api/epics.rb)', () => {
  it('adds and removes labels and filters lists by confidentiality and dates', async () => {
    const group = (await server.call('POST', '/groups', { name: 'Roadmaps', path: 'roadmaps', visibility: 'public' })).body;
    const base = `/groups/${group.id}/epics`;
    const open = (await server.call('POST', base, { title: 'Open', labels: 'q1,q2' })).body;
    await server.call('POST', base, { title: 'Closed doors', confidential: true });
    expect((await server.call('PUT', `${base}/${open.iid}`, { add_labels: 'q3', remove_labels: 'q1' })).body.labels).toEqual(['q2', 'q3']);
    expect(await server.call('PUT', `${base}/${open.iid}`, {})).toMatchObject({ status: 400 });
    expect(iids((await server.call('GET', `${base}?confidential=true`)).body)).toEqual([2]);
    expect(iids((await server.call('GET', `${base}?confidential=false`)).body)).toEqual([1]);
    expect(iids((await server.call('GET', `${base}?created_after=2100-01-01T00:00:00Z`)).body)).toEqual([]);
    expect(iids((await server.call('GET', `${base}?created_before=${open.created_at}`)).body)).toEqual([1]);
  });

  it('deletes epics for owners (204, threads along) and refuses missing or unreadable epics with 403', async () => {
    const group = (await server.call('POST', '/groups', { name: 'Plans', path: 'plans', visibility: 'public' })).body;
    await server.call('POST', `/groups/${group.id}/members`, { user_id: dev.id, access_level: 30 });
    await server.call('POST', `/groups/${group.id}/members`, { user_id: guest.id, access_level: 10 });
    const base = `/groups/${group.id}/epics`;
    const epic = (await server.call('POST', base, { title: 'Doomed' }, dev.token)).body;
    const secret = (await server.call('POST', base, { title: 'Secret', confidential: true }, dev.token)).body;
    expect((await server.call('POST', `${base}/${epic.id}/discussions`, { body: 'thread' }, guest.token)).status).toBe(201);
    expect(await server.call('GET', `${base}/99`)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await server.call('GET', `${base}/${secret.iid}`, undefined, guest.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await server.call('PUT', `${base}/99`, { title: 'x' })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await server.call('DELETE', `${base}/${epic.iid}`, undefined, dev.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await server.call('DELETE', `${base}/${epic.iid}`, undefined, null)).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    const deleted = await server.call('DELETE', `${base}/${epic.iid}`);
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeNull();
    expect(await server.call('DELETE', `${base}/${epic.iid}`)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await server.call('GET', `${base}/${epic.id}/discussions`)).toMatchObject({ status: 404, body: { message: '404 Epic Not Found' } });
    expect(iids((await server.call('GET', base)).body)).toEqual([secret.iid]);
    // iids are not reused.
    expect((await server.call('POST', base, { title: 'Next' }, dev.token)).body.iid).toBe(3);
  });
});

describe('GET /issues and GET /groups/:id/issues (lib/api/issues.rb)', () => {
  it('lists the caller’s issues (created_by_me unless scope=all) and a group’s issues across its subgroups', async () => {
    const lone = await member(server, 'lone');
    const group = (await server.call('POST', '/groups', { name: 'Org', path: 'org', visibility: 'public' })).body;
    const sub = (await server.call('POST', '/groups', { name: 'Team', path: 'team', parent_id: group.id, visibility: 'public' })).body;
    const top = (await server.call('POST', '/projects', { name: 'Top', namespace_id: group.id, visibility: 'public' })).body;
    const deep = (await server.call('POST', '/projects', { name: 'Deep', namespace_id: sub.id, visibility: 'public' })).body;
    const hidden = (await server.call('POST', '/projects', { name: 'Closed', namespace_id: sub.id, visibility: 'private' })).body;
    const mine = (await server.call('POST', `/projects/${top.id}/issues`, { title: 'Mine' }, lone.token)).body;
    const theirs = (await server.call('POST', `/projects/${deep.id}/issues`, { title: 'Theirs', assignee_ids: [lone.id] })).body;
    const secret = (await server.call('POST', `/projects/${hidden.id}/issues`, { title: 'Private' })).body;
    const ids = (body: { id: number }[]) => body.map((issue) => issue.id);

    expect(await server.call('GET', '/issues', undefined, null)).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    expect(ids((await server.call('GET', '/issues', undefined, lone.token)).body)).toEqual([mine.id]);
    expect(ids((await server.call('GET', '/issues?scope=assigned_to_me', undefined, lone.token)).body)).toEqual([theirs.id]);
    const everything = await server.call('GET', `/issues?scope=all&iids=${mine.iid}&search=Mine`, undefined, null);
    expect(everything.status).toBe(200);
    expect(ids(everything.body)).toEqual([mine.id]);
    expect(everything.body[0]).toMatchObject({ project_id: top.id, references: { full: `org/top#${mine.iid}` } });

    const groupIssues = await server.call('GET', `/groups/${group.id}/issues`, undefined, lone.token);
    expect(groupIssues.status).toBe(200);
    expect(ids(groupIssues.body)).toEqual([theirs.id, mine.id]);
    expect(groupIssues.headers.get('x-total')).toBe('2');
    expect(ids((await server.call('GET', `/groups/${group.id}/issues`)).body)).toEqual([secret.id, theirs.id, mine.id]);
    expect(ids((await server.call('GET', `/groups/${sub.id}/issues?state=opened`, undefined, null)).body)).toEqual([theirs.id]);
    expect(await server.call('GET', '/groups/9999/issues')).toMatchObject({ status: 404, body: { message: '404 Group Not Found' } });
  });
});

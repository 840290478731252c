/**
 * The review of the issues, notes, discussions, snippets and epics audit (issue 16, branch `review-threads`): what
 * `fid-threads` missed, as raw HTTP with exact statuses and bodies. References: lib/api/notes.rb,
 * lib/api/helpers/notes_helpers.rb and app/policies/note_policy.rb (14.7), lib/api/discussions.rb,
 * lib/api/project_snippets.rb, ee/lib/api/epics.rb.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { member, newDataDir, removeDir, start, type Running } from '../repositories/support.js';

let server: Running;
let dataDir: string;
let project: { id: number };
let guest: { id: number; token: string };
let reporter: { id: number; token: string };
let dev: { id: number; token: string };
let outsider: { id: number; token: string };

beforeAll(async () => {
  dataDir = newDataDir();
  server = await start(dataDir);
  project = (await server.call('POST', '/projects', { name: 'Review', visibility: 'public' })).body;
  guest = await member(server, 'guest', { id: project.id, level: 10 });
  reporter = await member(server, 'reporter', { id: project.id, level: 20 });
  dev = await member(server, 'dev', { id: project.id, level: 30 });
  outsider = await member(server, 'outsider');
});
afterAll(async () => {
  await server.close();
  removeDir(dataDir);
});

const bodies = (list: { body: string }[]) => list.map((note) => note.body);

/** `at` is a time the server's clock handed out since `before` (one of its readings): after it, at most the latest. */
const expectStampedSince = (at: string, before: string): void => {
  expect(at > before, `${at} after ${before}`).toBe(true);
  expect(at <= server.lastClockReading(), `${at} at most ${server.lastClockReading()}`).toBe(true);
};

describe('confidential notes (notes.rb `confidential`, NotePolicy `confidential & ~can_read_confidential`)', () => {
  it('stores and shows `confidential`, and hides the note from whoever may not read confidential notes', async () => {
    const other = await member(server, 'other', { id: project.id, level: 10 });
    const issue = (await server.call('POST', `/projects/${project.id}/issues`, { title: 'Leak' }, guest.token)).body;
    const path = `/projects/${project.id}/issues/${issue.iid}`;
    await server.call('POST', `${path}/notes`, { body: 'public words' }, dev.token);
    const secret = await server.call('POST', `${path}/notes`, { body: 'secret words', confidential: true }, dev.token);
    expect(secret).toMatchObject({ status: 201, body: { body: 'secret words', confidential: true, type: null } });
    const note = `${path}/notes/${secret.body.id}`;
    // Reporters and above, and the issue's author (a Guest here), read it.
    for (const token of [reporter.token, guest.token, dev.token]) expect((await server.call('GET', note, undefined, token)).body.confidential).toBe(true);
    // Another Guest and an outsider do not: "404 Note Not Found", left out of the lists and threads.
    for (const token of [other.token, outsider.token]) {
      expect(await server.call('GET', note, undefined, token)).toMatchObject({ status: 404, body: { message: '404 Note Not Found' } });
      expect(bodies((await server.call('GET', `${path}/notes`, undefined, token)).body)).toEqual(['public words']);
      expect((await server.call('GET', `${path}/discussions`, undefined, token)).body.map((thread: { notes: { body: string }[] }) => bodies(thread.notes))).toEqual([['public words']]);
      expect(await server.call('GET', `${path}/discussions/${secret.body.id}`, undefined, token)).toMatchObject({ status: 404 });
    }
    expect(bodies((await server.call('GET', `${path}/notes?sort=asc`, undefined, reporter.token)).body)).toEqual(['public words', 'secret words']);
    const threads = (await server.call('GET', `${path}/discussions`, undefined, reporter.token)).body;
    const thread = threads.find((each: { notes: { id: number }[] }) => each.notes[0]!.id === secret.body.id);
    expect(await server.call('GET', `${path}/discussions/${thread.id}`, undefined, other.token)).toMatchObject({ status: 404, body: { message: '404 Discussion Not Found' } });
    // Replying to it needs to read it (`readable_discussion_notes`).
    expect(await server.call('POST', `${path}/discussions/${thread.id}/notes`, { body: 'me?' }, other.token)).toMatchObject({ status: 404, body: { message: '404 Discussion Not Found' } });
    // The discussions API shows the flag too.
    expect((await server.call('GET', `${path}/discussions/${thread.id}`, undefined, reporter.token)).body.notes[0]).toMatchObject({ confidential: true });
  });

  it('updates `confidential` and takes `body` as optional, not blank, on PUT …/notes/:note_id', async () => {
    const issue = (await server.call('POST', `/projects/${project.id}/issues`, { title: 'Edits' }, dev.token)).body;
    const path = `/projects/${project.id}/issues/${issue.iid}/notes`;
    const secret = (await server.call('POST', path, { body: 'hush', confidential: true }, dev.token)).body;
    expect((await server.call('GET', `${path}/${secret.id}`, undefined, outsider.token)).status).toBe(404);
    expect(await server.call('PUT', `${path}/${secret.id}`, { confidential: false }, dev.token)).toMatchObject({ status: 200, body: { body: 'hush', confidential: false } });
    expect(await server.call('GET', `${path}/${secret.id}`, undefined, outsider.token)).toMatchObject({ status: 200, body: { body: 'hush', confidential: false } });
    expect(await server.call('PUT', `${path}/${secret.id}`, { body: '' }, dev.token)).toMatchObject({ status: 400, body: { error: 'body is empty' } });
    const before = server.events.length;
    expect(await server.call('PUT', `${path}/${secret.id}`, {}, dev.token)).toMatchObject({ status: 200, body: { body: 'hush' } });
    expect(server.events.length).toBe(before);
    // Someone who may not read a confidential note may not edit or delete their own either (`prevent :admin_note`).
    const own = (await server.call('POST', path, { body: 'mine', confidential: true }, outsider.token)).body;
    expect(await server.call('PUT', `${path}/${own.id}`, { body: 'changed' }, outsider.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await server.call('DELETE', `${path}/${own.id}`, undefined, outsider.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
  });
});

describe('Integer path parameters (Grape `type: Integer`): 400 "<name> is invalid", after the before-filters', () => {
  it('checks `noteable_id` and `note_id` on the notes routes, `note_id` on the discussions routes', async () => {
    const issue = (await server.call('POST', `/projects/${project.id}/issues`, { title: 'Ids' }, dev.token)).body;
    const path = `/projects/${project.id}/issues/${issue.iid}`;
    const invalid = (name: string) => ({ status: 400, body: { error: `${name} is invalid` } });
    expect(await server.call('GET', `/projects/${project.id}/issues/abc/notes`, undefined, dev.token)).toMatchObject(invalid('noteable_id'));
    expect(await server.call('POST', `/projects/${project.id}/issues/abc/notes`, { body: 'x' }, dev.token)).toMatchObject(invalid('noteable_id'));
    expect(await server.call('GET', `${path}/notes/abc`, undefined, dev.token)).toMatchObject(invalid('note_id'));
    expect(await server.call('PUT', `${path}/notes/abc`, { body: 'x' }, dev.token)).toMatchObject(invalid('note_id'));
    expect(await server.call('DELETE', `${path}/notes/abc`, undefined, dev.token)).toMatchObject(invalid('note_id'));
    expect(await server.call('GET', `${path}/discussions/0123/notes/abc`, undefined, dev.token)).toMatchObject(invalid('note_id'));
    expect(await server.call('PUT', `${path}/discussions/0123/notes/abc`, { body: 'x' }, dev.token)).toMatchObject(invalid('note_id'));
    expect(await server.call('DELETE', `${path}/discussions/0123/notes/abc`, undefined, dev.token)).toMatchObject(invalid('note_id'));
    // `authenticate!` comes first; the discussions API takes any `noteable_id` (`[Integer, String]`) and finds none.
    expect(await server.call('GET', `${path}/notes/abc`, undefined, null)).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    expect(await server.call('GET', `/projects/${project.id}/issues/abc/discussions`, undefined, dev.token)).toMatchObject({ status: 404, body: { message: '404 Issue Not Found' } });
  });

  it('checks `snippet_id` after the project is found, and `epic_iid` after the group is found', async () => {
    const invalid = (name: string) => ({ status: 400, body: { error: `${name} is invalid` } });
    for (const method of ['GET', 'PUT', 'DELETE']) {
      expect(await server.call(method, `/projects/${project.id}/snippets/abc`, method === 'PUT' ? { title: 'x' } : undefined, dev.token)).toMatchObject(invalid('snippet_id'));
      expect(await server.call(method, `/projects/9999/snippets/abc`, method === 'PUT' ? { title: 'x' } : undefined, dev.token)).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    }
    expect(await server.call('GET', `/projects/${project.id}/snippets/abc/raw`, undefined, dev.token)).toMatchObject(invalid('snippet_id'));
    const group = (await server.call('POST', '/groups', { name: 'Ids', path: 'ids', visibility: 'public' })).body;
    for (const method of ['GET', 'PUT', 'DELETE']) {
      expect(await server.call(method, `/groups/${group.id}/epics/abc`, method === 'PUT' ? { title: 'x' } : undefined)).toMatchObject(invalid('epic_iid'));
      expect(await server.call(method, `/groups/9999/epics/abc`, method === 'PUT' ? { title: 'x' } : undefined)).toMatchObject({ status: 404, body: { message: '404 Group Not Found' } });
    }
    // A well-formed iid that names no epic stays the 403 of `authorize!` on nil.
    expect(await server.call('GET', `/groups/${group.id}/epics/99`)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
  });
});

describe('epic dates (ee/lib/api/epics.rb `start_date`/`end_date` as the fixed dates, Epics::UpdateDatesService)', () => {
  it('stores the fixed dates, shows the one in force, and counts them for at_least_one_of', async () => {
    const group = (await server.call('POST', '/groups', { name: 'Dated', path: 'dated', visibility: 'public' })).body;
    const base = `/groups/${group.id}/epics`;
    const epic = await server.call('POST', base, { title: 'Q1', start_date: '2026-01-05', start_date_is_fixed: true, end_date: '2026-03-31' });
    expect(epic).toMatchObject({
      status: 201,
      body: { start_date: '2026-01-05', start_date_is_fixed: true, start_date_fixed: '2026-01-05', end_date: null, due_date: null, due_date_is_fixed: false, due_date_fixed: '2026-03-31' },
    });
    const path = `${base}/${epic.body.iid}`;
    // A date alone is an update (before, the rule did not know the dates: 400).
    expect(await server.call('PUT', path, { due_date_is_fixed: true })).toMatchObject({ status: 200, body: { end_date: '2026-03-31', due_date: '2026-03-31', due_date_is_fixed: true } });
    expect(await server.call('PUT', path, { end_date: '2026-04-30' })).toMatchObject({ status: 200, body: { end_date: '2026-04-30', due_date_fixed: '2026-04-30' } });
    expect(await server.call('PUT', path, { start_date_is_fixed: false })).toMatchObject({ status: 200, body: { start_date: null, start_date_fixed: '2026-01-05' } });
    expect(await server.call('PUT', path, { start_date: 'soon' })).toMatchObject({ status: 200, body: { start_date_fixed: null } });
    expect(await server.call('GET', path)).toMatchObject({ status: 200, body: { start_date: null, end_date: '2026-04-30', due_date_is_fixed: true } });
    expect(await server.call('PUT', path, {})).toMatchObject({
      status: 400,
      body: {
        error:
          'title, description, start_date_fixed, start_date_is_fixed, due_date_fixed, due_date_is_fixed, labels, add_labels, remove_labels, state_event, confidential are missing, at least one parameter must be provided',
      },
    });
  });
});

describe('GET /groups/:id/epics across the hierarchy (EpicsFinder#related_groups)', () => {
  it('includes the readable subgroups’ epics by default, the ancestors’ when asked, each relative to the group asked', async () => {
    const top = (await server.call('POST', '/groups', { name: 'Tree', path: 'tree', visibility: 'public' })).body;
    const sub = (await server.call('POST', '/groups', { name: 'Leaf', path: 'leaf', parent_id: top.id, visibility: 'public' })).body;
    const hidden = (await server.call('POST', '/groups', { name: 'Root', path: 'root', parent_id: top.id, visibility: 'private' })).body;
    const own = (await server.call('POST', `/groups/${top.id}/epics`, { title: 'Top' })).body;
    const leaf = (await server.call('POST', `/groups/${sub.id}/epics`, { title: 'Leaf' })).body;
    const secret = (await server.call('POST', `/groups/${hidden.id}/epics`, { title: 'Hidden' })).body;
    const titles = async (path: string, token?: string | null) => {
      const answer = await server.call('GET', path, undefined, token);
      expect(answer.status).toBe(200);
      return answer.body.map((epic: { title: string }) => epic.title);
    };
    expect(await titles(`/groups/${top.id}/epics`, outsider.token)).toEqual(['Leaf', 'Top']);
    expect(await titles(`/groups/${top.id}/epics`)).toEqual(['Hidden', 'Leaf', 'Top']);
    expect(await titles(`/groups/${top.id}/epics?include_descendant_groups=false`, outsider.token)).toEqual(['Top']);
    expect(await titles(`/groups/${sub.id}/epics`, null)).toEqual(['Leaf']);
    expect(await titles(`/groups/${sub.id}/epics?include_ancestor_groups=true`, null)).toEqual(['Leaf', 'Top']);
    const listed = (await server.call('GET', `/groups/${top.id}/epics`, undefined, outsider.token)).body;
    expect(listed[0]).toMatchObject({ id: leaf.id, group_id: sub.id, references: { short: '&1', relative: 'tree/leaf&1', full: 'tree/leaf&1' }, web_url: expect.stringContaining('/groups/tree/leaf/-/epics/1') });
    expect(listed[1]).toMatchObject({ id: own.id, references: { relative: '&1' } });
    expect(secret.group_id).toBe(hidden.id);
  });
});

describe('POST /projects/:id/issues with `iid` (administrators and owners: `set_issue_iid`)', () => {
  it('takes the iid, continues after it, refuses one in use with 409 "Duplicated issue", and ignores it from others', async () => {
    const own = (await server.call('POST', '/projects', { name: 'Imported', visibility: 'public' })).body;
    await server.call('POST', `/projects/${own.id}/members`, { user_id: dev.id, access_level: 30 });
    const base = `/projects/${own.id}/issues`;
    expect(await server.call('POST', base, { title: 'Tenth', iid: 10 })).toMatchObject({ status: 201, body: { iid: 10, title: 'Tenth' } });
    expect(await server.call('POST', base, { title: 'Next' })).toMatchObject({ status: 201, body: { iid: 11 } });
    expect(await server.call('POST', base, { title: 'Third', iid: 3 })).toMatchObject({ status: 201, body: { iid: 3 } });
    const before = server.events.length;
    expect(await server.call('POST', base, { title: 'Again', iid: 10 })).toMatchObject({ status: 409, body: { message: 'Duplicated issue' } });
    expect(server.events.length).toBe(before);
    expect(await server.call('POST', base, { title: 'Developer', iid: 50 }, dev.token)).toMatchObject({ status: 201, body: { iid: 12 } });
    expect(await server.call('POST', base, { title: 'Bad', iid: 'x' })).toMatchObject({ status: 400, body: { error: 'iid is invalid' } });
  });
});

describe('Entities::ProjectSnippet', () => {
  it('shows the snippet repository’s SSH URL beside its HTTP one (both are exposed once the repository exists)', async () => {
    const snippet = await server.call('POST', `/projects/${project.id}/snippets`, { title: 'Urls', visibility: 'public', file_name: 'a.rb', content: 'puts 1' }, dev.token);
    expect(snippet.status).toBe(201);
    const host = new URL(server.url).hostname;
    expect(snippet.body.ssh_url_to_repo).toBe(`git@${host}:root/review/snippets/${snippet.body.id}.git`);
    expect(snippet.body.http_url_to_repo).toBe(`${server.url}/root/review/snippets/${snippet.body.id}.git`);
  });
});

describe('assignee system notes on issues (Issues::CreateService and UpdateService#handle_assignee_changes)', () => {
  it('writes "assigned to" and "unassigned" on creation and on update, after the common notes and before confidentiality', async () => {
    const base = `/projects/${project.id}/issues`;
    const issue = (await server.call('POST', base, { title: 'Owners', assignee_ids: [dev.id, reporter.id] }, dev.token)).body;
    const path = `${base}/${issue.iid}`;
    await server.call('PUT', path, { assignee_ids: [reporter.id, guest.id], title: 'Owners!', confidential: true }, dev.token);
    await server.call('PUT', path, { assignee_ids: [] }, dev.token);
    await server.call('PUT', path, { assignee_ids: [guest.id, reporter.id] }, dev.token);
    await server.call('PUT', path, { assignee_ids: [reporter.id, guest.id] }, dev.token);
    const notes = (await server.call('GET', `${path}/notes?sort=asc`, undefined, dev.token)).body;
    expect(notes.map((note: { body: string; system: boolean; author: { username: string } }) => [note.body, note.system, note.author.username])).toEqual([
      ['assigned to @dev and @reporter', true, 'dev'],
      ['changed title from **Owners** to **Owners{+!+}**', true, 'dev'],
      ['assigned to @guest and unassigned @dev', true, 'dev'],
      ['made the issue confidential', true, 'dev'],
      ['unassigned @reporter and @guest', true, 'dev'],
      ['assigned to @guest and @reporter', true, 'dev'],
    ]);
  });
});

describe('EE::API::Entities::Epic (14.7)', () => {
  it('shows the date sources and web_edit_url to those who administer the epic, `subscribed` on the single epic, no `reference` or `color`', async () => {
    const group = (await server.call('POST', '/groups', { name: 'Shown', path: 'shown', visibility: 'public' })).body;
    await server.call('POST', `/groups/${group.id}/members`, { user_id: reporter.id, access_level: 20 });
    await server.call('POST', `/groups/${group.id}/members`, { user_id: guest.id, access_level: 10 });
    const epic = (await server.call('POST', `/groups/${group.id}/epics`, { title: 'Plan', description: 'cc @outsider' }, reporter.token)).body;
    const path = `/groups/${group.id}/epics/${epic.iid}`;
    const adminKeys = ['start_date_is_fixed', 'start_date_fixed', 'start_date_from_inherited_source', 'start_date_from_milestones', 'due_date_is_fixed', 'due_date_fixed', 'due_date_from_inherited_source', 'due_date_from_milestones', 'web_edit_url'];
    const asReporter = (await server.call('GET', path, undefined, reporter.token)).body;
    expect(Object.keys(asReporter)).toEqual([
      'id', 'iid', 'group_id', 'parent_id', 'parent_iid', 'title', 'description', 'confidential', 'author', 'start_date',
      'start_date_is_fixed', 'start_date_fixed', 'start_date_from_inherited_source', 'start_date_from_milestones', 'end_date', 'due_date',
      'due_date_is_fixed', 'due_date_fixed', 'due_date_from_inherited_source', 'due_date_from_milestones', 'state', 'web_edit_url', 'web_url',
      'references', 'created_at', 'updated_at', 'closed_at', 'labels', 'upvotes', 'downvotes', 'subscribed', '_links',
    ]);
    expect(asReporter).toMatchObject({ web_edit_url: `/groups/shown/-/epics/${epic.iid}`, subscribed: true });
    for (const token of [guest.token, null]) {
      const shown = (await server.call('GET', path, undefined, token)).body;
      for (const key of [...adminKeys, 'reference', 'color']) expect(shown).not.toHaveProperty(key);
      expect(shown.subscribed).toBe(false);
    }
    // Mentioned, so a participant, so subscribed.
    expect((await server.call('GET', path, undefined, outsider.token)).body.subscribed).toBe(true);
    // Lists and writes leave `subscribed` out.
    expect((await server.call('GET', `/groups/${group.id}/epics`, undefined, reporter.token)).body[0]).not.toHaveProperty('subscribed');
    expect((await server.call('PUT', path, { title: 'Plan!' }, reporter.token)).body).not.toHaveProperty('subscribed');
  });
});

describe('epic system notes (CommonSystemNotesService; EE Epics::UpdateService#handle_changes)', () => {
  it('notes the title and the description, not the confidentiality', async () => {
    const group = (await server.call('POST', '/groups', { name: 'Notes', path: 'epic-notes', visibility: 'public' })).body;
    const epic = (await server.call('POST', `/groups/${group.id}/epics`, { title: 'Plan' })).body;
    await server.call('PUT', `/groups/${group.id}/epics/${epic.iid}`, { title: 'Plans', description: 'more', confidential: true });
    await server.call('PUT', `/groups/${group.id}/epics/${epic.iid}`, { confidential: false });
    const notes = (await server.call('GET', `/groups/${group.id}/epics/${epic.id}/notes?sort=asc`)).body;
    expect(notes.map((note: { body: string }) => note.body)).toEqual(['changed title from **Plan** to **Plan{+s+}**', 'changed the description']);
  });
});

describe('issues_statistics and GET /issues/:id (lib/api/issues.rb)', () => {
  it('counts what the list would find by state, at the three levels, and shows any issue to an administrator by id', async () => {
    const group = (await server.call('POST', '/groups', { name: 'Counted', path: 'counted', visibility: 'public' })).body;
    const counted = (await server.call('POST', '/projects', { name: 'Counted', namespace_id: group.id, visibility: 'public' })).body;
    await server.call('POST', `/projects/${counted.id}/members`, { user_id: dev.id, access_level: 30 });
    const base = `/projects/${counted.id}/issues`;
    const one = (await server.call('POST', base, { title: 'One', labels: 'bug' }, dev.token)).body;
    await server.call('POST', base, { title: 'Two' }, dev.token);
    await server.call('POST', base, { title: 'Secret', confidential: true }, dev.token);
    await server.call('PUT', `${base}/${one.iid}`, { state_event: 'close' }, dev.token);
    const counts = (all: number, closed: number, opened: number) => ({ status: 200, body: { statistics: { counts: { all, closed, opened } } } });
    expect(await server.call('GET', `/projects/${counted.id}/issues_statistics`, undefined, dev.token)).toMatchObject(counts(3, 1, 2));
    expect(await server.call('GET', `/projects/${counted.id}/issues_statistics`, undefined, null)).toMatchObject(counts(2, 1, 1));
    expect(await server.call('GET', `/projects/${counted.id}/issues_statistics?labels=bug`, undefined, dev.token)).toMatchObject(counts(1, 1, 0));
    expect(await server.call('GET', `/groups/${group.id}/issues_statistics`, undefined, outsider.token)).toMatchObject(counts(2, 1, 1));
    expect(await server.call('GET', `/groups/${group.id}/issues_statistics?search=two`, undefined, outsider.token)).toMatchObject(counts(1, 0, 1));
    expect(await server.call('GET', '/issues_statistics', undefined, dev.token)).toMatchObject({ status: 200, body: { statistics: { counts: { all: expect.any(Number) } } } });
    expect(await server.call('GET', '/issues_statistics', undefined, null)).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    expect(await server.call('GET', `/issues_statistics?scope=all&iids=${one.iid}&search=One`, undefined, null)).toMatchObject(counts(1, 1, 0));
    expect(await server.call('GET', '/issues_statistics?scope=created-by-me', undefined, dev.token)).toMatchObject({ status: 400, body: { error: 'scope does not have a valid value' } });
    expect(await server.call('GET', `/projects/9999/issues_statistics`)).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    // `GET /issues/:id`: administrators only, by the global id.
    expect(await server.call('GET', `/issues/${one.id}`)).toMatchObject({ status: 200, body: { id: one.id, iid: one.iid, project_id: counted.id, state: 'closed', subscribed: false } });
    expect(await server.call('GET', `/issues/${one.id}`, undefined, dev.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await server.call('GET', `/issues/${one.id}`, undefined, null)).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    expect(await server.call('GET', '/issues/99999')).toMatchObject({ status: 404, body: { message: '404 Not found' } });
  });
});

describe('search (Issuable.full_search, Gitlab::SQL::Pattern#fuzzy_arel_match)', () => {
  it('matches every word of three characters or more in one column, a quoted phrase whole, and a shorter query only exactly', async () => {
    const searched = (await server.call('POST', '/projects', { name: 'Searched', visibility: 'public' })).body;
    const base = `/projects/${searched.id}/issues`;
    await server.call('POST', base, { title: 'Crash on start', description: 'about a crash' });
    await server.call('POST', base, { title: 'on', description: 'Layout' });
    const titles = async (query: string) => (await server.call('GET', `${base}?${query}`)).body.map((issue: { title: string }) => issue.title);
    expect(await titles('search=on%20start')).toEqual(['Crash on start']);
    expect(await titles('search=crash%20about')).toEqual(['Crash on start']);
    expect(await titles('search=crash%20about&in=title')).toEqual([]);
    expect(await titles('search=%22on%20start%22')).toEqual(['Crash on start']);
    expect(await titles('search=cr')).toEqual([]);
    expect(await titles('search=ON')).toEqual(['on']);
    const group = (await server.call('POST', '/groups', { name: 'Sought', path: 'sought', visibility: 'public' })).body;
    await server.call('POST', `/groups/${group.id}/epics`, { title: 'Roadmap for Q1', description: 'planning' });
    const epics = async (query: string) => (await server.call('GET', `/groups/${group.id}/epics?${query}`)).body.map((epic: { title: string }) => epic.title);
    expect(await epics('search=q1%20roadmap')).toEqual(['Roadmap for Q1']);
    expect(await epics('search=ning%20plan')).toEqual(['Roadmap for Q1']);
    expect(await epics('search=for%20planning')).toEqual([]);
    expect(await epics('search=roadmap%20planning')).toEqual([]);
    expect(await epics('search=Q1')).toEqual([]);
  });
});

describe('PUT /projects/:id/issues/:issue_iid with `updated_at` (administrators and owners: `set_issue_updated_at`)', () => {
  it('dates the update and its system notes for an administrator, and ignores it from a developer', async () => {
    const base = `/projects/${project.id}/issues`;
    const issue = (await server.call('POST', base, { title: 'Dated' }, dev.token)).body;
    const path = `${base}/${issue.iid}`;
    expect(await server.call('PUT', path, { title: 'Dated!', updated_at: '2025-06-01T12:00:00Z' })).toMatchObject({ status: 200, body: { title: 'Dated!', updated_at: '2025-06-01T12:00:00.000Z' } });
    const note = (await server.call('GET', `${path}/notes`, undefined, dev.token)).body[0];
    expect(note).toMatchObject({ system: true, created_at: '2025-06-01T12:00:00.000Z' });
    const before = server.lastClockReading();
    const ignored = await server.call('PUT', path, { title: 'Dated?', updated_at: '2025-06-02T12:00:00Z' }, dev.token);
    expect(ignored.status).toBe(200);
    expectStampedSince(ignored.body.updated_at, before);
  });
});

describe('epics with created_at and updated_at (administrators and owners: `set_epic_created_at`, `set_epic_updated_at`)', () => {
  it('honours them from an administrator and ignores them from a reporter', async () => {
    const group = (await server.call('POST', '/groups', { name: 'Backdated', path: 'backdated', visibility: 'public' })).body;
    await server.call('POST', `/groups/${group.id}/members`, { user_id: reporter.id, access_level: 20 });
    const base = `/groups/${group.id}/epics`;
    const old = await server.call('POST', base, { title: 'Old', created_at: '2020-01-02T03:04:05Z' });
    expect(old).toMatchObject({ status: 201, body: { created_at: '2020-01-02T03:04:05.000Z' } });
    expect(await server.call('PUT', `${base}/${old.body.iid}`, { title: 'Older', updated_at: '2021-01-02T03:04:05Z' })).toMatchObject({ status: 200, body: { updated_at: '2021-01-02T03:04:05.000Z' } });
    let before = server.lastClockReading();
    const mine = await server.call('POST', base, { title: 'Mine', created_at: '2020-01-02T03:04:05Z' }, reporter.token);
    expect(mine.status).toBe(201);
    expectStampedSince(mine.body.created_at, before);
    before = server.lastClockReading();
    const edited = await server.call('PUT', `${base}/${mine.body.iid}`, { title: 'Mine!', updated_at: '2021-01-02T03:04:05Z' }, reporter.token);
    expect(edited.status).toBe(200);
    expectStampedSince(edited.body.updated_at, before);
  });
});

describe('project snippets of a demoted author (ProjectSnippetPolicy: `is_author` updates; deleting needs Reporter)', () => {
  it('lets the author update their snippet after losing Reporter, and refuses the deletion', async () => {
    const writer = await member(server, 'writer', { id: project.id, level: 20 });
    const base = `/projects/${project.id}/snippets`;
    const snippet = (await server.call('POST', base, { title: 'Mine', visibility: 'public', file_name: 'a.rb', content: 'puts 1' }, writer.token)).body;
    expect((await server.call('PUT', `/projects/${project.id}/members/${writer.id}`, { access_level: 10 })).status).toBe(200);
    expect(await server.call('PUT', `${base}/${snippet.id}`, { title: 'Still mine' }, writer.token)).toMatchObject({ status: 200, body: { title: 'Still mine' } });
    expect(await server.call('DELETE', `${base}/${snippet.id}`, undefined, writer.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    // Out of the project, reading it as anyone may (it is public): the same.
    expect((await server.call('DELETE', `/projects/${project.id}/members/${writer.id}`)).status).toBe(204);
    expect(await server.call('PUT', `${base}/${snippet.id}`, { title: 'Mine again' }, writer.token)).toMatchObject({ status: 200, body: { title: 'Mine again' } });
    expect(await server.call('DELETE', `${base}/${snippet.id}`, undefined, writer.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    // Another guest may do neither.
    expect(await server.call('PUT', `${base}/${snippet.id}`, { title: 'Theirs' }, guest.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
  });
});

describe('project snippets at a restricted visibility level (Snippets::BaseService#visibility_allowed?)', () => {
  it('refuses a restricted level to non-administrators with 403 and the model’s message, on create and on a change', async () => {
    expect((await server.call('PUT', '/application/settings', { restricted_visibility_levels: ['public'] })).status).toBe(200);
    try {
      const base = `/projects/${project.id}/snippets`;
      const refused = { status: 403, body: { message: { error: 'Visibility level public has been restricted by your GitLab administrator' } } };
      const before = server.events.length;
      expect(await server.call('POST', base, { title: 'Open', visibility: 'public', file_name: 'a.rb', content: 'x' }, dev.token)).toMatchObject(refused);
      expect(server.events.length).toBe(before);
      const own = (await server.call('POST', base, { title: 'Inner', visibility: 'internal', file_name: 'a.rb', content: 'x' }, dev.token)).body;
      expect(await server.call('PUT', `${base}/${own.id}`, { visibility: 'public' }, dev.token)).toMatchObject(refused);
      expect((await server.call('PUT', `${base}/${own.id}`, { visibility: 'internal', title: 'Inner!' }, dev.token)).status).toBe(200);
      // Administrators are not restricted.
      expect((await server.call('POST', base, { title: 'Admin', visibility: 'public', file_name: 'a.rb', content: 'x' })).status).toBe(201);
    } finally {
      await server.call('PUT', '/application/settings', { restricted_visibility_levels: [] });
    }
  });
});

describe('GET /projects/:id/snippets/:snippet_id/files/:ref/:file_path/raw (SnippetsHelpers#file_content_for)', () => {
  it('answers a file of the snippet at its branch, 404 Reference or File Not Found otherwise', async () => {
    const base = `/projects/${project.id}/snippets`;
    const snippet = (await server.call('POST', base, { title: 'Files', visibility: 'public', files: [{ file_path: 'lib/a.rb', content: 'puts :a' }, { file_path: 'b.rb', content: 'puts :b' }] }, dev.token)).body;
    const raw = await fetch(`${server.url}/api/v4${base}/${snippet.id}/files/main/lib%2Fa.rb/raw`);
    expect([raw.status, raw.headers.get('content-type'), await raw.text()]).toEqual([200, 'text/plain; charset=utf-8', 'puts :a']);
    expect(await server.call('GET', `${base}/${snippet.id}/files/main/b.rb/raw`, undefined, null)).toMatchObject({ status: 200, body: 'puts :b' });
    expect(await server.call('GET', `${base}/${snippet.id}/files/nope/b.rb/raw`)).toMatchObject({ status: 404, body: { message: '404 Reference Not Found' } });
    expect(await server.call('GET', `${base}/${snippet.id}/files/main/c.rb/raw`)).toMatchObject({ status: 404, body: { message: '404 File Not Found' } });
    expect(await server.call('GET', `${base}/abc/files/main/b.rb/raw`)).toMatchObject({ status: 404, body: { message: '404 Snippet Not Found' } });
    expect(await server.call('GET', `${base}/${snippet.id}/files/main/..%2Fb.rb/raw`)).toMatchObject({ status: 400, body: { error: 'file_path should be a valid file path' } });
    // The files API's validator: an absolute path and a backslash traversal are refused too.
    for (const path of ['%2Fb.rb', '..%5Cb.rb']) {
      expect(await server.call('GET', `${base}/${snippet.id}/files/main/${path}/raw`)).toMatchObject({ status: 400, body: { error: 'file_path should be a valid file path' } });
    }
  });
});

describe('GET /groups/:id/epics?labels=None|Any (IssuableFinder#by_label)', () => {
  it('takes None and Any as the finder does, not as label names', async () => {
    const group = (await server.call('POST', '/groups', { name: 'Labelled', path: 'labelled', visibility: 'public' })).body;
    await server.call('POST', `/groups/${group.id}/epics`, { title: 'Bare' });
    await server.call('POST', `/groups/${group.id}/epics`, { title: 'Tagged', labels: 'q1' });
    const titles = async (query: string) => (await server.call('GET', `/groups/${group.id}/epics?${query}`)).body.map((epic: { title: string }) => epic.title);
    expect(await titles('labels=None')).toEqual(['Bare']);
    expect(await titles('labels=any')).toEqual(['Tagged']);
    expect(await titles('labels=q1')).toEqual(['Tagged']);
  });
});

describe('project snippet writes: the project before the parameters, then `authenticate!` (project_snippets.rb)', () => {
  it('answers an anonymous caller 404 for a project it may not see and 401 otherwise, and an unknown project before a parameter error', async () => {
    const hidden = (await server.call('POST', '/projects', { name: 'Snippets hidden' })).body;
    const body = { title: 'x', visibility: 'public', file_name: 'a.rb', content: 'x' };
    const notFound = { status: 404, body: { message: '404 Project Not Found' } };
    const unauthorized = { status: 401, body: { message: '401 Unauthorized' } };
    expect(await server.call('POST', `/projects/${hidden.id}/snippets`, body, null)).toMatchObject(notFound);
    expect(await server.call('PUT', `/projects/${hidden.id}/snippets/1`, { title: 'y' }, null)).toMatchObject(notFound);
    expect(await server.call('DELETE', `/projects/${hidden.id}/snippets/1`, undefined, null)).toMatchObject(notFound);
    expect(await server.call('POST', `/projects/${project.id}/snippets`, body, null)).toMatchObject(unauthorized);
    expect(await server.call('PUT', `/projects/${project.id}/snippets/9999`, { title: 'y' }, null)).toMatchObject(unauthorized);
    expect(await server.call('DELETE', `/projects/${project.id}/snippets/9999`, undefined, null)).toMatchObject(unauthorized);
    // `check_snippets_enabled` (a `before` hook) finds the project before `given :content { requires :file_name }`.
    expect(await server.call('POST', '/projects/9999/snippets', { title: 'x', visibility: 'public', content: 'x' }, dev.token)).toMatchObject(notFound);
    expect(await server.call('POST', `/projects/${project.id}/snippets`, { title: 'x', visibility: 'public', content: 'x' }, dev.token)).toMatchObject({ status: 400, body: { error: 'file_name is missing' } });
  });
});

describe('GET /projects/:id/issues/:issue_iid/time_stats (TimeTrackingEndpoints)', () => {
  it('answers the issue’s time stats to its readers, "404 Not found" otherwise', async () => {
    const issue = (await server.call('POST', `/projects/${project.id}/issues`, { title: 'Timed' }, dev.token)).body;
    expect(await server.call('GET', `/projects/${project.id}/issues/${issue.iid}/time_stats`, undefined, null)).toMatchObject({
      status: 200,
      body: { time_estimate: 0, total_time_spent: 0, human_time_estimate: null, human_total_time_spent: null },
    });
    const secret = (await server.call('POST', `/projects/${project.id}/issues`, { title: 'Timed', confidential: true }, dev.token)).body;
    expect(await server.call('GET', `/projects/${project.id}/issues/${secret.iid}/time_stats`, undefined, outsider.token)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect(await server.call('GET', `/projects/${project.id}/issues/abc/time_stats`)).toMatchObject({ status: 400, body: { error: 'issue_iid is invalid' } });
  });
});

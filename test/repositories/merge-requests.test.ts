/** Merge requests over HTTP: create, list, get, update, changes, versions, merge (lib/api/merge_requests.rb, 14.7). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { member, newDataDir, removeDir, start, unprotectDefaultBranches, type Running } from './support.js';

let server: Running;
let dataDir: string;
let project: { id: number; path_with_namespace: string };
let dev: { id: number; token: string };
let reporter: { id: number; token: string };

const base = () => `/projects/${project.id}`;
const commit = (branch: string, file: string, content: string, extra: object = {}) =>
  server.call('POST', `${base()}/repository/commits`, { branch, commit_message: `Change ${file}`, actions: [{ action: 'create', file_path: file, content }], ...extra }, dev.token);

beforeAll(async () => {
  dataDir = newDataDir();
  server = await start(dataDir);
  await unprotectDefaultBranches(server);
  project = (await server.call('POST', '/projects', { name: 'Merging', initialize_with_readme: true })).body;
  dev = await member(server, 'dev', { id: project.id, level: 30 });
  reporter = await member(server, 'reporter', { id: project.id, level: 20 });
});
afterAll(async () => {
  await server.close();
  removeDir(dataDir);
});

describe('merge requests', () => {
  it('creates one with its first version and diff_refs; refuses same branches, missing branches and duplicates', async () => {
    const main = (await server.call('GET', `${base()}/repository/branches/main`)).body.commit.id;
    const first = await commit('feature', 'a.txt', 'a\n', { start_branch: 'main' });
    const created = await server.call('POST', `${base()}/merge_requests`, { title: 'Add a', source_branch: 'feature', target_branch: 'main', description: 'Why', assignee_ids: [dev.id] }, dev.token);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      iid: 1,
      project_id: project.id,
      title: 'Add a',
      description: 'Why',
      state: 'opened',
      source_branch: 'feature',
      target_branch: 'main',
      author: { id: dev.id, username: 'dev' },
      assignees: [{ id: dev.id }],
      merge_status: 'can_be_merged',
      has_conflicts: false,
      sha: first.body.id,
      merged_by: null,
      merged_at: null,
      changes_count: '1',
      diff_refs: { base_sha: main, head_sha: first.body.id, start_sha: main },
      references: { short: '!1', full: `${project.path_with_namespace}!1` },
    });
    expect(await server.call('POST', `${base()}/merge_requests`, { title: 'Same', source_branch: 'main', target_branch: 'main' }, dev.token)).toMatchObject({
      status: 422,
      body: { message: ["You can't use same project/branch for source and target"] },
    });
    expect(await server.call('POST', `${base()}/merge_requests`, { title: 'Nope', source_branch: 'nope', target_branch: 'main' }, dev.token)).toMatchObject({
      status: 409,
      body: { message: ['Source branch "nope" does not exist'] },
    });
    expect(await server.call('POST', `${base()}/merge_requests`, { title: 'Again', source_branch: 'feature', target_branch: 'main' }, dev.token)).toMatchObject({
      status: 409,
      body: { message: ['Another open merge request already exists for this source branch: !1'] },
    });
    expect(await server.call('POST', `${base()}/merge_requests`, { title: 'R', source_branch: 'feature', target_branch: 'main' }, reporter.token)).toMatchObject({ status: 403 });
    expect(await server.call('POST', `${base()}/merge_requests`, { source_branch: 'feature', target_branch: 'main' }, dev.token)).toMatchObject({ status: 400, body: { error: 'title is missing' } });
  });

  it('records a new version when the source branch moves, by the API or otherwise; versions and changes follow', async () => {
    const second = await commit('feature', 'b.txt', 'b\n');
    const versions = await server.call('GET', `${base()}/merge_requests/1/versions`, undefined, dev.token);
    expect(versions.body.map((v: { head_commit_sha: string }) => v.head_commit_sha)[0]).toBe(second.body.id);
    expect(versions.body).toHaveLength(2);
    expect(versions.body[0]).toMatchObject({ state: 'collected', merge_request_id: expect.any(Number), start_commit_sha: versions.body[1].start_commit_sha });
    const version = await server.call('GET', `${base()}/merge_requests/1/versions/${versions.body[0].id}`, undefined, dev.token);
    expect(version.body.commits.map((c: { title: string }) => c.title)).toEqual(['Change b.txt', 'Change a.txt']);
    expect(version.body.diffs.map((d: { new_path: string }) => d.new_path)).toEqual(['a.txt', 'b.txt']);
    expect(await server.call('GET', `${base()}/merge_requests/1/versions/999`, undefined, dev.token)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    const changes = await server.call('GET', `${base()}/merge_requests/1/changes`, undefined, dev.token);
    expect(changes.body.changes.map((d: { new_path: string }) => d.new_path)).toEqual(['a.txt', 'b.txt']);
    expect(changes.body.overflow).toBe(false);
    expect((await server.call('GET', `${base()}/merge_requests/1/commits`, undefined, dev.token)).body.map((c: { title: string }) => c.title)).toEqual(['Change b.txt', 'Change a.txt']);
    expect(server.events.filter((e) => e.type === 'MergeRequestVersionCreated').map((e) => (e.data as { head_commit_sha: string }).head_commit_sha).at(-1)).toBe(second.body.id);
  });

  it('updates, closes and reopens; lists with filters', async () => {
    expect((await server.call('PUT', `${base()}/merge_requests/1`, { title: 'Add a and b' }, dev.token)).body.title).toBe('Add a and b');
    const closed = await server.call('PUT', `${base()}/merge_requests/1`, { state_event: 'close' }, dev.token);
    expect(closed.body).toMatchObject({ state: 'closed', closed_by: { id: dev.id } });
    expect((await server.call('GET', `${base()}/merge_requests?state=opened`, undefined, dev.token)).body).toEqual([]);
    expect((await server.call('PUT', `${base()}/merge_requests/1`, { state_event: 'reopen' }, dev.token)).body.state).toBe('opened');
    expect((await server.call('GET', `${base()}/merge_requests?state=opened&source_branch=feature`, undefined, dev.token)).body.map((mr: { iid: number }) => mr.iid)).toEqual([1]);
    expect(await server.call('PUT', `${base()}/merge_requests/1`, {}, dev.token)).toMatchObject({ status: 400 });
    expect(await server.call('GET', `${base()}/merge_requests/99`, undefined, dev.token)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
  });

  it('merges with a merge commit, recorded with merged_by and merged_at; a conflict is refused with 406', async () => {
    expect(await server.call('PUT', `${base()}/merge_requests/1/merge`, { sha: 'f'.repeat(40) }, dev.token)).toMatchObject({ status: 409 });
    const merged = await server.call('PUT', `${base()}/merge_requests/1/merge`, { should_remove_source_branch: true }, dev.token);
    expect(merged.status).toBe(200);
    expect(merged.body).toMatchObject({ state: 'merged', merged_by: { id: dev.id }, merge_commit_sha: expect.stringMatching(/^[0-9a-f]{40}$/) });
    expect(merged.body.merged_at).toMatch(/^\d{4}-/);
    const main = await server.call('GET', `${base()}/repository/commits/main`, undefined, dev.token);
    expect(main.body).toMatchObject({ id: merged.body.merge_commit_sha, title: "Merge branch 'feature' into 'main'" });
    expect(main.body.parent_ids).toHaveLength(2);
    expect((await server.call('GET', `${base()}/repository/branches/feature`, undefined, dev.token)).status).toBe(404);
    const types = server.events.slice(-3).map((e) => e.type);
    expect(types).toEqual(['BranchUpdated', 'MergeRequestMerged', 'BranchDeleted']);
    expect(await server.call('PUT', `${base()}/merge_requests/1/merge`, {}, dev.token)).toMatchObject({ status: 405, body: { message: '405 Method Not Allowed' } });

    await commit('left', 'same.txt', 'left\n', { start_branch: 'main' });
    await commit('main', 'same.txt', 'main\n');
    const conflicting = await server.call('POST', `${base()}/merge_requests`, { title: 'Conflict', source_branch: 'left', target_branch: 'main' }, dev.token);
    expect(conflicting.body).toMatchObject({ merge_status: 'cannot_be_merged', has_conflicts: true });
    expect(await server.call('PUT', `${base()}/merge_requests/${conflicting.body.iid}/merge`, {}, dev.token)).toMatchObject({ status: 406, body: { message: 'Branch cannot be merged' } });
    expect(await server.call('PUT', `${base()}/merge_requests/${conflicting.body.iid}/merge`, {}, reporter.token)).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
  });

  it('merges by the project’s merge_method: ff moves the target, refused with 406 when not possible; rebase_merge needs it too', async () => {
    const other = (await server.call('POST', '/projects', { name: 'Methods', initialize_with_readme: true })).body;
    const at = (path: string) => `/projects/${other.id}${path}`;
    const change = (branch: string, file: string, extra: object = {}) =>
      server.call('POST', at('/repository/commits'), { branch, commit_message: `Change ${file}`, actions: [{ action: 'create', file_path: file, content: `${file}\n` }], ...extra });
    const open = async (source: string) => (await server.call('POST', at('/merge_requests'), { title: `Merge ${source}`, source_branch: source, target_branch: 'main' })).body as { iid: number };
    const head = async (branch: string) => (await server.call('GET', at(`/repository/branches/${branch}`))).body.commit as { id: string; parent_ids: string[]; title: string };

    expect(await server.call('PUT', `/projects/${other.id}`, { merge_method: 'fast' })).toMatchObject({ status: 400, body: { error: 'merge_method does not have a valid value' } });
    expect(await server.call('PUT', `/projects/${other.id}`, { merge_method: 'ff' })).toMatchObject({ status: 200, body: { merge_method: 'ff' } });
    await change('ff-ok', 'one.txt', { start_branch: 'main' });
    const okMr = await open('ff-ok');
    const okHead = await head('ff-ok');
    const merged = await server.call('PUT', at(`/merge_requests/${okMr.iid}/merge`), {});
    expect(merged.status).toBe(200);
    expect((await head('main')).id).toBe(okHead.id);

    await change('ff-late', 'two.txt', { start_branch: 'main' });
    await change('main', 'three.txt');
    const lateMr = await open('ff-late');
    expect(await server.call('PUT', at(`/merge_requests/${lateMr.iid}/merge`), {})).toMatchObject({ status: 406, body: { message: 'Branch cannot be merged' } });
    await server.call('PUT', `/projects/${other.id}`, { merge_method: 'rebase_merge' });
    expect(await server.call('PUT', at(`/merge_requests/${lateMr.iid}/merge`), {})).toMatchObject({ status: 406, body: { message: 'Branch cannot be merged' } });
    await server.call('PUT', `/projects/${other.id}`, { merge_method: 'merge' });
    expect((await server.call('PUT', at(`/merge_requests/${lateMr.iid}/merge`), {})).status).toBe(200);
    expect((await head('main')).parent_ids).toHaveLength(2);
  });

  it('squashes on merge: one commit with the source’s tree on the merge base, merged (merge) or fast-forwarded (ff)', async () => {
    const other = (await server.call('POST', '/projects', { name: 'Squashing', initialize_with_readme: true })).body;
    const at = (path: string) => `/projects/${other.id}${path}`;
    const change = (branch: string, file: string, extra: object = {}) =>
      server.call('POST', at('/repository/commits'), { branch, commit_message: `Change ${file}`, actions: [{ action: 'create', file_path: file, content: `${file}\n` }], ...extra });
    const head = async (branch: string) => (await server.call('GET', at(`/repository/branches/${branch}`))).body.commit as { id: string; parent_ids: string[]; title: string };
    const base = await head('main');

    await change('many', 'a.txt', { start_branch: 'main' });
    await change('many', 'b.txt');
    const mr = (await server.call('POST', at('/merge_requests'), { title: 'Two commits', source_branch: 'many', target_branch: 'main' })).body;
    const merged = await server.call('PUT', at(`/merge_requests/${mr.iid}/merge`), { squash: true, squash_commit_message: 'Both files' });
    expect(merged.status).toBe(200);
    expect(merged.body).toMatchObject({ state: 'merged', squash: true });
    const main = await head('main');
    expect(main.parent_ids).toHaveLength(2);
    const squashed = (await server.call('GET', at(`/repository/commits/${main.parent_ids[1]}`))).body;
    expect(squashed).toMatchObject({ title: 'Both files', parent_ids: [base.id] });
    const tree = (await server.call('GET', at(`/repository/tree?ref=${main.id}`))).body as { path: string }[];
    expect(tree.map((entry) => entry.path)).toEqual(['README.md', 'a.txt', 'b.txt']);

    await server.call('PUT', `/projects/${other.id}`, { merge_method: 'ff' });
    await change('more', 'c.txt', { start_branch: 'main' });
    await change('more', 'd.txt');
    const ffMr = (await server.call('POST', at('/merge_requests'), { title: 'Squash and ff', source_branch: 'more', target_branch: 'main', squash: true })).body;
    expect((await server.call('PUT', at(`/merge_requests/${ffMr.iid}/merge`), {})).status).toBe(200);
    const after = await head('main');
    expect(after).toMatchObject({ title: 'Squash and ff', parent_ids: [main.id] });
  });
});

// lib/api/issues.rb's `closed_by` and `related_merge_requests`, python-gitlab's `issue.closed_by()` and
// `issue.related_merge_requests()`: the default `issue_closing_pattern` in a merge request targeting the default branch,
// and the references between the issue's texts and merge requests.
describe('the merge requests of an issue', () => {
  it('lists those that close it (closed_by) and those it is related to (related_merge_requests)', async () => {
    const issue = (await server.call('POST', `${base()}/issues`, { title: 'Broken' }, dev.token)).body;
    const other = (await server.call('POST', `${base()}/issues`, { title: 'Also broken' }, dev.token)).body;
    const path = `${base()}/issues/${issue.iid}`;
    for (const branch of ['closer', 'mention', 'side', 'fixer', 'late']) await commit(branch, `${branch}.txt`, 'x\n', { start_branch: 'main' });
    const mr = async (source: string, target: string, title: string, description: string) =>
      (await server.call('POST', `${base()}/merge_requests`, { title, source_branch: source, target_branch: target, description }, dev.token)).body;
    const closer = await mr('closer', 'main', 'Fix the crash', `Closes #${issue.iid} and #${other.iid}`);
    const mention = await mr('mention', 'main', 'Related work', `See #${issue.iid}`);
    const side = await mr('side', 'closer', 'Not on the default branch', `Fixes #${issue.iid}`);
    const fixer = await mr('fixer', 'main', `Resolves: ${project.path_with_namespace}#${issue.iid}`, 'in the title');
    const closedBy = await server.call('GET', `${path}/closed_by`, undefined, reporter.token);
    expect(closedBy.status).toBe(200);
    expect(closedBy.body.map((entry: { iid: number }) => entry.iid)).toEqual([fixer.iid, closer.iid]);
    expect(closedBy.headers.get('x-total')).toBe('2');
    expect(closedBy.body[0]).not.toHaveProperty('diff_refs');
    expect((await server.call('GET', `${base()}/issues/${other.iid}/closed_by`, undefined, reporter.token)).body.map((entry: { iid: number }) => entry.iid)).toEqual([closer.iid]);
    // Related: every one that mentions it (each left its cross reference on the issue), by iid; with the open ones
    // that close it, which here mention it too.
    const related = await server.call('GET', `${path}/related_merge_requests`, undefined, reporter.token);
    expect(related.status).toBe(200);
    expect(related.body.map((entry: { iid: number }) => entry.iid)).toEqual([closer.iid, mention.iid, side.iid, fixer.iid]);
    expect(related.body[0]).toMatchObject({ iid: closer.iid, title: 'Fix the crash', merge_status: 'can_be_merged' });
    expect(related.body[0]).toHaveProperty('diff_refs');
    expect(related.body[0]).not.toHaveProperty('subscribed');
    // The issue's own text and notes count too: a comment naming another merge request.
    const late = await mr('late', 'main', 'Late', 'no mention');
    await server.call('POST', `${path}/notes`, { body: `superseded by !${late.iid}` }, dev.token);
    expect((await server.call('GET', `${path}/related_merge_requests`, undefined, reporter.token)).body.map((entry: { iid: number }) => entry.iid)).toEqual([closer.iid, mention.iid, side.iid, fixer.iid, late.iid]);
    // A merge request of another project of the namespace that mentions the issue: after this project's, its
    // reference relative to this project (`project: user_project`).
    const helper = (await server.call('POST', '/projects', { name: 'Helper', initialize_with_readme: true })).body;
    await server.call('POST', `/projects/${helper.id}/repository/commits`, { branch: 'help', start_branch: 'main', commit_message: 'Help', actions: [{ action: 'create', file_path: 'h.txt', content: 'h' }] });
    const foreign = (await server.call('POST', `/projects/${helper.id}/merge_requests`, { title: 'Helps', source_branch: 'help', target_branch: 'main', description: `For merging#${issue.iid}` })).body;
    const withForeign = (await server.call('GET', `${path}/related_merge_requests`)).body as { iid: number; project_id: number; references: { short: string; relative: string } }[];
    expect(withForeign.at(-1)).toMatchObject({ iid: foreign.iid, project_id: helper.id, references: { short: `!${foreign.iid}`, relative: `helper!${foreign.iid}` } });
    expect(withForeign[0]!.references.relative).toBe(`!${withForeign[0]!.iid}`);
    // Whoever does not read the project's merge requests sees none; the issue itself is a 404 to strangers.
    const outsider = await member(server, 'mr-outsider');
    expect(await server.call('GET', `${path}/closed_by`, undefined, outsider.token)).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
  });
});

describe('merging closes issues', () => {
  it('closes the open issues a merge request into the default branch closes (closed_by the merger), and only those', async () => {
    const issue = (await server.call('POST', `${base()}/issues`, { title: 'To be fixed' }, reporter.token)).body;
    const spared = (await server.call('POST', `${base()}/issues`, { title: 'Merely mentioned' }, reporter.token)).body;
    await commit('fix-it', 'fix.txt', 'fixed\n', { start_branch: 'main' });
    const mr = (await server.call('POST', `${base()}/merge_requests`, { title: 'Fix it', source_branch: 'fix-it', target_branch: 'main', description: `Fixes #${issue.iid}, see #${spared.iid}` }, dev.token)).body;
    expect((await server.call('PUT', `${base()}/merge_requests/${mr.iid}/merge`, {}, dev.token)).status).toBe(200);
    expect((await server.call('GET', `${base()}/issues/${issue.iid}`, undefined, reporter.token)).body).toMatchObject({ state: 'closed', closed_by: { id: dev.id } });
    expect((await server.call('GET', `${base()}/issues/${spared.iid}`, undefined, reporter.token)).body).toMatchObject({ state: 'opened', closed_by: null });
    // Into another branch, nothing closes.
    const other = (await server.call('POST', `${base()}/issues`, { title: 'Still open' }, reporter.token)).body;
    await commit('base', 'base.txt', 'b\n', { start_branch: 'main' });
    await commit('on-base', 'on-base.txt', 'o\n', { start_branch: 'base' });
    const side = (await server.call('POST', `${base()}/merge_requests`, { title: `Closes #${other.iid}`, source_branch: 'on-base', target_branch: 'base' }, dev.token)).body;
    expect((await server.call('PUT', `${base()}/merge_requests/${side.iid}/merge`, {}, dev.token)).status).toBe(200);
    expect((await server.call('GET', `${base()}/issues/${other.iid}`, undefined, reporter.token)).body.state).toBe('opened');
  });
});

describe('merge request participants', () => {
  it('lists the assignees, the note authors and the author, paginated (Participable, as for issues)', async () => {
    await commit('talk', 'talk.txt', 't\n', { start_branch: 'main' });
    const mr = (await server.call('POST', `${base()}/merge_requests`, { title: 'Talk', source_branch: 'talk', target_branch: 'main', assignee_ids: [reporter.id] }, dev.token)).body;
    await server.call('POST', `${base()}/merge_requests/${mr.iid}/notes`, { body: 'looks fine' });
    const listed = await server.call('GET', `${base()}/merge_requests/${mr.iid}/participants`, undefined, reporter.token);
    expect([listed.status, listed.headers.get('x-total'), listed.body.map((user: { username: string }) => user.username)]).toEqual([200, '3', ['reporter', 'root', 'dev']]);
    expect(await server.call('GET', `${base()}/merge_requests/999/participants`, undefined, reporter.token)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
  });
});

/**
 * The merge requests API against 14.7's (lib/api/merge_requests.rb, helpers/merge_requests_helpers.rb,
 * MergeRequestsFinder, Entities::MergeRequestBasic/Simple): raw requests as clients send them, exact answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { member, newDataDir, removeDir, start, unprotectDefaultBranches, type Running } from './support.js';

let server: Running;
let dataDir: string;
let group: { id: number };
let project: { id: number; path_with_namespace: string };
let sub: { id: number };
let subProject: { id: number };
let dev: { id: number; token: string };
let rep: { id: number; token: string };
let guest: { id: number; token: string };
const mrs: Record<string, { iid: number; id: number }> = {};

const base = () => `/projects/${project.id}`;
const iids = (body: { iid: number }[]) => body.map((mr) => mr.iid);
const list = async (query: string, token?: string | null) => {
  const answer = await server.call('GET', `${base()}/merge_requests?${query}`, undefined, token);
  if (answer.status !== 200) return answer;
  return iids(answer.body);
};

beforeAll(async () => {
  dataDir = newDataDir();
  server = await start(dataDir);
  await unprotectDefaultBranches(server);
  group = (await server.call('POST', '/groups', { name: 'Team', path: 'team' })).body;
  sub = (await server.call('POST', '/groups', { name: 'Sub', path: 'sub', parent_id: group.id })).body;
  project = (await server.call('POST', '/projects', { name: 'App', namespace_id: group.id, initialize_with_readme: true, visibility: 'private' })).body;
  subProject = (await server.call('POST', '/projects', { name: 'Lib', namespace_id: sub.id, initialize_with_readme: true, visibility: 'private' })).body;
  dev = await member(server, 'mr-dev', { id: project.id, level: 30 });
  rep = await member(server, 'mr-rep', { id: project.id, level: 20 });
  guest = await member(server, 'mr-guest', { id: project.id, level: 10 });
  for (const branch of ['one', 'two', 'three', 'four']) {
    await server.call('POST', `${base()}/repository/commits`, { branch, start_branch: 'main', commit_message: branch, actions: [{ action: 'create', file_path: `${branch}.txt`, content: branch }] });
  }
  await server.call('POST', `/projects/${subProject.id}/repository/commits`, { branch: 'lib', start_branch: 'main', commit_message: 'lib', actions: [{ action: 'create', file_path: 'lib.txt', content: 'lib' }] });
  const open = async (key: string, body: object, token?: string) => {
    const answer = await server.call('POST', `${base()}/merge_requests`, body, token);
    if (answer.status !== 201) throw new Error(`${key}: ${answer.status} ${JSON.stringify(answer.body)}`);
    mrs[key] = answer.body;
    return answer;
  };
  // iid 1: root's, labelled, two assignees (comma list), a reviewer.
  await open('one', { title: 'Add one', source_branch: 'one', target_branch: 'main', labels: 'bug,api', assignee_ids: `${dev.id},${rep.id}`, reviewer_ids: `${dev.id}`, description: 'First thing' });
  // iid 2: dev's, one assignee.
  await open('two', { title: 'Add two', source_branch: 'two', target_branch: 'main', assignee_id: dev.id }, dev.token);
  // iid 3: dev's draft, nothing else.
  await open('three', { title: 'Draft: add three', source_branch: 'three', target_branch: 'main', description: 'about one' }, dev.token);
  await server.call('POST', `/projects/${subProject.id}/merge_requests`, { title: 'Lib change', source_branch: 'lib', target_branch: 'main' });
});
afterAll(async () => {
  await server.close();
  removeDir(dataDir);
});

describe('creating and updating: labels, reviewers, comma lists', () => {
  it('keeps labels (sorted in the entity), reviewers and comma-separated assignee ids; shows merge_user', async () => {
    const one = (await server.call('GET', `${base()}/merge_requests/${mrs['one']!.iid}`)).body;
    expect(one.labels).toEqual(['api', 'bug']);
    expect(one.assignees.map((user: { id: number }) => user.id)).toEqual([dev.id, rep.id]);
    expect(one.reviewers.map((user: { id: number }) => user.id)).toEqual([dev.id]);
    expect(one).toMatchObject({ merge_user: null, merged_by: null, reference: '!1', references: { short: '!1', relative: '!1', full: 'team/app!1' } });
    expect(Object.keys(one).indexOf('merge_user')).toBe(Object.keys(one).indexOf('merged_by') + 1);
  });

  it('updates with add_labels, remove_labels and reviewer_ids alone (each counts for at_least_one_of)', async () => {
    const path = `${base()}/merge_requests/${mrs['one']!.iid}`;
    expect(await server.call('PUT', path, { add_labels: 'ui', remove_labels: 'bug' })).toMatchObject({ status: 200, body: { labels: ['api', 'ui'] } });
    const reviewed = await server.call('PUT', path, { reviewer_ids: [rep.id, dev.id] });
    expect(reviewed.status).toBe(200);
    expect(reviewed.body.reviewers.map((user: { id: number }) => user.id)).toEqual([rep.id, dev.id]);
    expect((await server.call('PUT', path, { allow_collaboration: false })).status).toBe(200);
    expect(await server.call('PUT', path, { labels: 'api,bug' })).toMatchObject({ status: 200, body: { labels: ['api', 'bug'] } });
    expect((await server.call('PUT', path, { reviewer_ids: [rep.id] })).status).toBe(200);
    const before = server.events.length;
    expect((await server.call('PUT', path, { labels: 'bug,api' })).status).toBe(200);
    expect(server.events.length).toBe(before);
    expect(await server.call('PUT', path, { sha: 'x' })).toMatchObject({
      status: 400,
      body: {
        error:
          'assignee_id, assignee_ids, reviewer_ids, description, labels, add_labels, remove_labels, milestone_id, remove_source_branch, allow_collaboration, allow_maintainer_to_push, squash, target_branch, title, state_event, discussion_locked are missing, at least one parameter must be provided',
      },
    });
    const two = `${base()}/merge_requests/${mrs['two']!.iid}`;
    expect(await server.call('PUT', two, { assignee_ids: `${rep.id}` }, dev.token)).toMatchObject({ status: 200, body: { assignees: [{ id: rep.id }] } });
    // `CommaSeparatedToIntegerArray` is `to_i` of each part: `x` is 0, which unassigns.
    expect(await server.call('PUT', two, { assignee_ids: 'x' }, dev.token)).toMatchObject({ status: 200, body: { assignees: [] } });
    expect((await server.call('PUT', two, { assignee_id: rep.id }, dev.token)).status).toBe(200);
  });
});

describe('the project list’s filters (MergeRequestsFinder)', () => {
  it('filters by labels, assignees, reviewers, authors, scope, draft, text and dates', async () => {
    expect(await list('labels=bug')).toEqual([1]);
    expect(await list('labels=api,bug')).toEqual([1]);
    expect(await list('labels=None')).toEqual([3, 2]);
    expect(await list('labels=Any')).toEqual([1]);
    expect(await list(`assignee_id=${rep.id}`)).toEqual([2, 1]);
    expect(await list('assignee_id=None')).toEqual([3]);
    expect(await list('assignee_id=any')).toEqual([2, 1]);
    expect(await list('assignee_username=mr-rep')).toEqual([2, 1]);
    expect(await list(`reviewer_id=${rep.id}`)).toEqual([1]);
    expect(await list('reviewer_id=None')).toEqual([3, 2]);
    expect(await list('reviewer_username=mr-rep')).toEqual([1]);
    expect(await list('author_username=mr-dev')).toEqual([3, 2]);
    expect(await list(`author_id=${dev.id}&sort=asc`)).toEqual([2, 3]);
    expect(await list(`not[author_id]=${dev.id}`)).toEqual([1]);
    expect(await list('not[labels]=bug')).toEqual([3, 2]);
    expect(await list('scope=created_by_me', dev.token)).toEqual([3, 2]);
    expect(await list('scope=assigned-to-me', rep.token)).toEqual([2, 1]);
    expect(await list('wip=yes')).toEqual([3]);
    expect(await list('wip=no')).toEqual([2, 1]);
    expect(await list('search=one')).toEqual([3, 1]);
    expect(await list('search=one&in=title')).toEqual([1]);
    // `Issuable.full_search` (fuzzy_arel_match): each word of three characters or more, in any order, in one column;
    // a shorter query only as the whole value.
    expect(await list('search=one%20add')).toEqual([1]);
    expect(await list('search=dd')).toEqual([]);
    expect(await list('search=add%20one')).toEqual([1]);
    expect(await list('search=%20%20')).toEqual([3, 2, 1]);
    expect(await list('iids=1,3')).toEqual([3, 1]);
    expect(await list('created_before=2000-01-01T00:00:00Z')).toEqual([]);
    expect(await list('created_after=2000-01-01T00:00:00Z')).toEqual([3, 2, 1]);
    expect(await list('updated_before=2000-01-01')).toEqual([]);
    expect(await list('milestone=None')).toEqual([3, 2, 1]);
    expect(await list('milestone=v1.0')).toEqual([]);
    expect(await list('my_reaction_emoji=thumbsup')).toEqual([]);
    expect(await list(`source_project_id=${project.id}`)).toEqual([3, 2, 1]);
    expect(await list(`source_project_id=${subProject.id}`)).toEqual([]);
  });

  it('answers the declared validations', async () => {
    expect(await list('assignee_id=abc')).toMatchObject({ status: 400, body: { error: 'assignee_id should be an integer, None, or Any, however got abc' } });
    expect(await list(`author_id=1&author_username=root`)).toMatchObject({ status: 400, body: { error: 'author_id, author_username are mutually exclusive' } });
    expect(await list('scope=mine')).toMatchObject({ status: 400, body: { error: 'scope does not have a valid value' } });
    expect(await list('wip=maybe')).toMatchObject({ status: 400, body: { error: 'wip does not have a valid value' } });
    expect(await list('view=full')).toMatchObject({ status: 400, body: { error: 'view does not have a valid value' } });
    expect(await list('created_after=soon')).toMatchObject({ status: 400, body: { error: 'created_after is invalid' } });
  });

  it('view=simple answers MergeRequestSimple', async () => {
    const simple = await server.call('GET', `${base()}/merge_requests?view=simple&iids[]=1`);
    expect(simple.body).toEqual([
      {
        id: mrs['one']!.id,
        iid: 1,
        project_id: project.id,
        title: 'Add one',
        description: 'First thing',
        state: 'opened',
        created_at: expect.any(String),
        updated_at: expect.any(String),
        web_url: `${server.url}/team/app/-/merge_requests/1`,
      },
    ]);
  });
});

describe('GET /merge_requests and GET /groups/:id/merge_requests', () => {
  it('lists the caller’s own by default, every readable one with scope=all; 401 for anonymous callers without it', async () => {
    expect(await server.call('GET', '/merge_requests', undefined, null)).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    expect(iids((await server.call('GET', '/merge_requests', undefined, dev.token)).body)).toEqual([3, 2]);
    const mine = (await server.call('GET', '/merge_requests?scope=assigned_to_me', undefined, rep.token)).body;
    expect(iids(mine)).toEqual([2, 1]);
    // No project option: `to_reference(nil)` is the short reference.
    expect(mine[0]).toMatchObject({ reference: '!2', references: { relative: '!2', full: 'team/app!2' } });
    // A private project's merge requests are not the anonymous reader's, nor a guest's.
    expect((await server.call('GET', '/merge_requests?scope=all', undefined, null)).body).toEqual([]);
    expect((await server.call('GET', '/merge_requests?scope=all', undefined, guest.token)).body).toEqual([]);
    expect((await server.call('GET', '/merge_requests?scope=all&labels=bug')).body.map((mr: { title: string }) => mr.title)).toEqual(['Add one']);
  });

  it('lists a group’s and its subgroups’ merge requests, references relative to the group', async () => {
    const listed = await server.call('GET', `/groups/${group.id}/merge_requests?sort=asc`);
    expect(listed.status).toBe(200);
    expect(listed.headers.get('x-total')).toBe('4');
    expect(listed.body.map((mr: { references: { relative: string } }) => mr.references.relative)).toEqual(['app!1', 'app!2', 'app!3', 'team/sub/lib!1']);
    expect(listed.body[0].reference).toBe('!1');
    expect(iids((await server.call('GET', `/groups/${group.id}/merge_requests?state=opened&wip=yes`)).body)).toEqual([3]);
    expect((await server.call('GET', `/groups/${group.id}/merge_requests`, undefined, rep.token)).body.map((mr: { project_id: number }) => mr.project_id)).toEqual([project.id, project.id, project.id]);
    expect(await server.call('GET', `/groups/${sub.id}/merge_requests`, undefined, guest.token)).toMatchObject({ status: 404, body: { message: '404 Group Not Found' } });
  });
});

describe('lookups and permissions', () => {
  it('a non-integer iid is 400 on GET and DELETE; a guest of a private project gets the platform’s 404s', async () => {
    expect(await server.call('GET', `${base()}/merge_requests/abc`)).toMatchObject({ status: 400, body: { error: 'merge_request_iid is invalid' } });
    expect(await server.call('DELETE', `${base()}/merge_requests/abc`)).toMatchObject({ status: 400, body: { error: 'merge_request_iid is invalid' } });
    for (const suffix of ['', '/changes', '/commits', '/participants']) {
      expect(await server.call('GET', `${base()}/merge_requests/1${suffix}`, undefined, guest.token)).toMatchObject({ status: 404, body: { message: '404 Merge Request Not Found' } });
    }
    expect(await server.call('GET', `${base()}/merge_requests/1/versions`, undefined, guest.token)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    // merge_request_diffs.rb: `before { authenticate! }`, then `requires :merge_request_iid` / `:version_id, type: Integer`.
    for (const suffix of ['/versions', '/versions/1']) {
      expect(await server.call('GET', `${base()}/merge_requests/1${suffix}`, undefined, null)).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
      expect(await server.call('GET', `${base()}/merge_requests/abc${suffix}`)).toMatchObject({ status: 400, body: { error: 'merge_request_iid is invalid' } });
    }
    expect(await server.call('GET', `${base()}/merge_requests/1/versions/abc`)).toMatchObject({ status: 400, body: { error: 'version_id is invalid' } });
    expect(await server.call('GET', `${base()}/merge_requests/1/versions/abc`, undefined, guest.token)).toMatchObject({ status: 400, body: { error: 'version_id is invalid' } });
    expect(await server.call('GET', `${base()}/merge_requests/1/versions/999999`)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect(await server.call('PUT', `${base()}/merge_requests/1`, { title: 'x' }, guest.token)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect(await server.call('PUT', `${base()}/merge_requests/1/merge`, {}, guest.token)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect(await server.call('GET', `${base()}/merge_requests`, undefined, guest.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
  });

  it('DELETE: owners only (204), threads go with it; 404 afterwards', async () => {
    await server.call('POST', `${base()}/repository/commits`, { branch: 'gone', start_branch: 'main', commit_message: 'gone', actions: [{ action: 'create', file_path: 'gone.txt', content: 'g' }] });
    const doomed = (await server.call('POST', `${base()}/merge_requests`, { title: 'Doomed', source_branch: 'gone', target_branch: 'main' }, dev.token)).body;
    const path = `${base()}/merge_requests/${doomed.iid}`;
    expect((await server.call('POST', `${path}/discussions`, { body: 'hmm' }, dev.token)).status).toBe(201);
    expect(await server.call('DELETE', path, undefined, dev.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await server.call('DELETE', path, undefined, guest.token)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect(await server.call('DELETE', path, undefined, null)).toMatchObject({ status: 401 });
    const deleted = await server.call('DELETE', path);
    expect([deleted.status, deleted.body]).toEqual([204, null]);
    expect(server.events.at(-1)).toMatchObject({ type: 'MergeRequestDeleted', data: { project_id: project.id, iid: doomed.iid, id: doomed.id } });
    expect(await server.call('GET', path)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect(await server.call('GET', `${path}/discussions`)).toMatchObject({ status: 404 });
    expect(await server.call('DELETE', path)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    // Iids are not reused.
    const next = (await server.call('POST', `${base()}/merge_requests`, { title: 'Again', source_branch: 'gone', target_branch: 'main' }, dev.token)).body;
    expect(next.iid).toBe(doomed.iid + 1);
  });
});

describe('notes, participation, closing issues and pipelines', () => {
  it('counts user notes, answers subscribed by participation, lists the issues it closes', async () => {
    const issue = (await server.call('POST', `${base()}/issues`, { title: 'Crash' }, rep.token)).body;
    const confidential = (await server.call('POST', `${base()}/issues`, { title: 'Secret', confidential: true })).body;
    await server.call('POST', `${base()}/repository/commits`, { branch: 'fix', start_branch: 'main', commit_message: 'fix', actions: [{ action: 'create', file_path: 'fix.txt', content: 'f' }] });
    const mr = (await server.call('POST', `${base()}/merge_requests`, { title: 'Fix', source_branch: 'fix', target_branch: 'main', description: `Closes #${issue.iid} and #${confidential.iid}` }, dev.token)).body;
    const path = `${base()}/merge_requests/${mr.iid}`;
    expect(mr).toMatchObject({ user_notes_count: 0, subscribed: true });
    await server.call('POST', `${path}/notes`, { body: 'one' }, rep.token);
    await server.call('POST', `${path}/notes`, { body: 'two' }, rep.token);
    expect((await server.call('GET', path, undefined, rep.token)).body).toMatchObject({ user_notes_count: 2, subscribed: true });
    expect((await server.call('GET', `${base()}/merge_requests?iids[]=${mr.iid}`)).body[0].user_notes_count).toBe(2);
    expect((await server.call('GET', `${base()}/merge_requests/1`, undefined, rep.token)).body.subscribed).toBe(true);
    expect((await server.call('GET', `${base()}/merge_requests/2`, undefined, dev.token)).body.subscribed).toBe(true);
    expect((await server.call('GET', `${base()}/merge_requests/3`, undefined, rep.token)).body.subscribed).toBe(false);
    const closes = await server.call('GET', `${path}/closes_issues`, undefined, dev.token);
    expect([closes.status, closes.headers.get('x-total'), closes.body.map((entry: { iid: number }) => entry.iid)]).toEqual([200, '2', [issue.iid, confidential.iid]]);
    expect(closes.body[0]).toMatchObject({ id: issue.id, title: 'Crash', project_id: project.id });
    expect(closes.body[0]).not.toHaveProperty('subscribed');
    // A guest of a private project does not reach it (the finder's 404).
    expect(await server.call('GET', `${path}/closes_issues`, undefined, guest.token)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect(await server.call('GET', `${base()}/merge_requests/99/closes_issues`)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
  });

  it('shows the head pipeline, lists the source branch’s pipelines; merge_when_pipeline_succeeds needs a successful one (405)', async () => {
    await server.call('POST', `${base()}/repository/commits`, { branch: 'ci', start_branch: 'main', commit_message: 'ci', actions: [{ action: 'create', file_path: 'ci.txt', content: 'c' }] });
    const mr = (await server.call('POST', `${base()}/merge_requests`, { title: 'CI', source_branch: 'ci', target_branch: 'main' }, dev.token)).body;
    const path = `${base()}/merge_requests/${mr.iid}`;
    expect(mr).toMatchObject({ pipeline: null, head_pipeline: null });
    expect((await server.call('GET', `${path}/pipelines`, undefined, dev.token)).body).toEqual([]);
    expect(await server.call('PUT', `${path}/merge`, { merge_when_pipeline_succeeds: true }, dev.token)).toMatchObject({ status: 405, body: { message: '405 Method Not Allowed' } });
    const onMain = (await server.call('POST', `${base()}/pipeline`, { ref: 'main' }, dev.token)).body;
    const pipeline = (await server.call('POST', `${base()}/pipeline`, { ref: 'ci' }, dev.token)).body;
    expect(pipeline).toMatchObject({ ref: 'ci', sha: mr.sha });
    const shown = (await server.call('GET', path, undefined, dev.token)).body;
    expect(shown.head_pipeline).toMatchObject({ id: pipeline.id, sha: mr.sha, ref: 'ci', status: pipeline.status, detailed_status: expect.any(Object) });
    expect(shown.pipeline).toMatchObject({ id: pipeline.id, web_url: expect.stringContaining(`/-/pipelines/${pipeline.id}`) });
    const listed = await server.call('GET', `${path}/pipelines`, undefined, dev.token);
    expect(listed.body.map((entry: { id: number }) => entry.id)).toEqual([pipeline.id]);
    expect(listed.body.map((entry: { id: number }) => entry.id)).not.toContain(onMain.id);
    // Not a successful pipeline: still 405, and nothing merged.
    expect(await server.call('PUT', `${path}/merge`, { merge_when_pipeline_succeeds: true }, dev.token)).toMatchObject({ status: 405 });
    expect((await server.call('GET', path, undefined, dev.token)).body.state).toBe('opened');
    expect(await server.call('GET', `${path}/pipelines`, undefined, guest.token)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
  });
});

describe('approvals (EE, no approval rules)', () => {
  it('approves (201, a system note), refuses the author, a second approval and outsiders (401), unapproves; a push resets', async () => {
    await server.call('POST', `${base()}/repository/commits`, { branch: 'approve-me', start_branch: 'main', commit_message: 'a', actions: [{ action: 'create', file_path: 'approve.txt', content: 'a' }] });
    const mr = (await server.call('POST', `${base()}/merge_requests`, { title: 'Approve me', source_branch: 'approve-me', target_branch: 'main' }, dev.token)).body;
    const path = `${base()}/merge_requests/${mr.iid}`;
    const maintainer = await member(server, 'mr-maint', { id: project.id, level: 40 });
    const state = await server.call('GET', `${path}/approvals`, undefined, maintainer.token);
    expect(state.body).toEqual({
      id: mr.id,
      iid: mr.iid,
      project_id: project.id,
      title: 'Approve me',
      description: '',
      state: 'opened',
      created_at: mr.created_at,
      updated_at: mr.updated_at,
      merge_status: 'can_be_merged',
      approved: true,
      approvals_required: 0,
      approvals_left: 0,
      require_password_to_approve: false,
      approved_by: [],
      suggested_approvers: [],
      approvers: [],
      approver_groups: [],
      user_has_approved: false,
      user_can_approve: true,
      approval_rules_left: [],
      has_approval_rules: false,
      merge_request_approvers_available: true,
      multiple_approval_rules_available: true,
    });
    expect(await server.call('POST', `${path}/approve`, {}, dev.token)).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    expect(await server.call('POST', `${path}/approve`, {}, rep.token)).toMatchObject({ status: 401 });
    expect(await server.call('POST', `${path}/approve`, {}, guest.token)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect(await server.call('POST', `${path}/approve`, { sha: 'f'.repeat(40) }, maintainer.token)).toMatchObject({ status: 409, body: { message: `SHA does not match HEAD of source branch: ${mr.sha}` } });
    const approved = await server.call('POST', `${path}/approve`, { sha: mr.sha }, maintainer.token);
    expect(approved.status).toBe(201);
    expect(approved.body).toMatchObject({ approved_by: [{ user: { id: maintainer.id, username: 'mr-maint' } }], user_has_approved: true, user_can_approve: false });
    expect(server.events.at(-1)).toMatchObject({ type: 'MergeRequestApproved', data: { project_id: project.id, iid: mr.iid, user_id: maintainer.id } });
    expect(await server.call('POST', `${path}/approve`, {}, maintainer.token)).toMatchObject({ status: 401 });
    const notes = (await server.call('GET', `${path}/notes?sort=asc`, undefined, dev.token)).body as { body: string; system: boolean; author: { id: number } }[];
    expect(notes.at(-1)).toMatchObject({ body: 'approved this merge request', system: true, author: { id: maintainer.id } });
    expect((await server.call('GET', `${path}/approval_state`, undefined, dev.token)).body).toEqual({ approval_rules_overwritten: false, rules: [] });
    // Only who approved may unapprove.
    expect(await server.call('POST', `${path}/unapprove`, {}, dev.token)).toMatchObject({ status: 404, body: { message: '404 Not Found' } });
    const unapproved = await server.call('POST', `${path}/unapprove`, {}, maintainer.token);
    expect(unapproved).toMatchObject({ status: 201, body: { approved_by: [], user_has_approved: false, user_can_approve: true } });
    expect((await server.call('GET', `${path}/notes?sort=asc`, undefined, dev.token)).body.at(-1)).toMatchObject({ body: 'unapproved this merge request', system: true });
    // A push to the source branch clears the approvals (`reset_approvals_on_push`).
    expect((await server.call('POST', `${path}/approve`, {}, maintainer.token)).status).toBe(201);
    await server.call('POST', `${base()}/repository/commits`, { branch: 'approve-me', commit_message: 'b', actions: [{ action: 'create', file_path: 'approve2.txt', content: 'b' }] });
    expect((await server.call('GET', `${path}/approvals`, undefined, maintainer.token)).body).toMatchObject({ approved_by: [], user_can_approve: true });
    expect(await server.call('POST', `${path}/approve`, {}, null)).toMatchObject({ status: 401 });
  });
});

describe('subscriptions (lib/api/subscriptions.rb)', () => {
  it('subscribes and unsubscribes (201 with the entity), 304 when nothing changes, the lookup’s 404, 401 for anonymous callers', async () => {
    const path = `${base()}/merge_requests/3`;
    // mr-rep takes no part in !3.
    expect((await server.call('GET', path, undefined, rep.token)).body.subscribed).toBe(false);
    expect((await server.call('POST', `${path}/unsubscribe`, undefined, rep.token)).status).toBe(304);
    const subscribed = await server.call('POST', `${path}/subscribe`, undefined, rep.token);
    expect(subscribed).toMatchObject({ status: 201, body: { iid: 3, subscribed: true } });
    expect(server.events.at(-1)).toMatchObject({ type: 'MergeRequestSubscribed', data: { project_id: project.id, iid: 3, user_id: rep.id } });
    expect((await server.call('POST', `${path}/subscribe`, undefined, rep.token)).status).toBe(304);
    // The author participates; unsubscribing wins over that.
    expect(await server.call('POST', `${path}/unsubscribe`, undefined, dev.token)).toMatchObject({ status: 201, body: { subscribed: false } });
    expect((await server.call('GET', path, undefined, dev.token)).body.subscribed).toBe(false);
    expect(await server.call('POST', `${base()}/merge_requests/abc/subscribe`, undefined, rep.token)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect(await server.call('POST', `${path}/subscribe`, undefined, guest.token)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect(await server.call('POST', `${path}/subscribe`, undefined, null)).toMatchObject({ status: 401 });
  });
});

describe('system notes of an update, and discussion_locked', () => {
  it('notes the draft status, the title, the description, the lock and the target branch, in the platform’s order', async () => {
    await server.call('POST', `${base()}/repository/commits`, { branch: 'noted', start_branch: 'main', commit_message: 'n', actions: [{ action: 'create', file_path: 'noted.txt', content: 'n' }] });
    await server.call('POST', `${base()}/repository/branches`, { branch: 'stable', ref: 'main' });
    const mr = (await server.call('POST', `${base()}/merge_requests`, { title: 'Noted', source_branch: 'noted', target_branch: 'main' }, dev.token)).body;
    const path = `${base()}/merge_requests/${mr.iid}`;
    const systemNotes = async () =>
      ((await server.call('GET', `${path}/notes?sort=asc&per_page=100`, undefined, dev.token)).body as { body: string; system: boolean }[]).filter((note) => note.system).map((note) => note.body);
    // Only the prefix: the draft note, no title note.
    expect((await server.call('PUT', path, { title: 'Draft: Noted' }, dev.token)).body.draft).toBe(true);
    expect(await systemNotes()).toEqual(['marked this merge request as **draft**']);
    const updated = await server.call('PUT', path, { title: 'Better', description: 'Why', discussion_locked: true, target_branch: 'stable' }, dev.token);
    expect(updated.body).toMatchObject({ title: 'Better', discussion_locked: true, target_branch: 'stable', draft: false });
    expect((await systemNotes()).slice(1)).toEqual([
      'marked this merge request as **ready**',
      'changed title from **{-Draft: Noted-}** to **{+Better+}**',
      'changed the description',
      'locked this merge request',
      'changed target branch from `main` to `stable`',
    ]);
    // `change_issuable_assignees` and `change_issuable_reviewers`, after the common notes.
    await server.call('PUT', path, { assignee_ids: [dev.id, rep.id], reviewer_ids: [rep.id] }, dev.token);
    // A Guest of a private project does not read its merge requests: dropped (`user_can_read?`), and a list left
    // empty by that is dropped as a whole (the assignees stay; review 'review-mr').
    await server.call('PUT', path, { assignee_ids: [guest.id], reviewer_ids: [] }, dev.token);
    await server.call('PUT', path, { assignee_ids: [0] }, dev.token);
    expect((await systemNotes()).slice(-4)).toEqual([
      'assigned to @mr-dev and @mr-rep',
      'requested review from @mr-rep',
      'removed review request for @mr-rep',
      'unassigned @mr-dev and @mr-rep',
    ]);
    expect((await server.call('GET', path, undefined, dev.token)).body.assignees).toEqual([]);
    // Locked: only project members comment.
    const outsider = await member(server, 'mr-outsider');
    await server.call('PUT', `/projects/${project.id}`, { visibility: 'public' });
    expect((await server.call('POST', `${path}/notes`, { body: 'let me in' }, outsider.token)).status).toBe(403);
    expect((await server.call('POST', `${path}/notes`, { body: 'member' }, rep.token)).status).toBe(201);
    expect(await server.call('PUT', path, { discussion_locked: false }, dev.token)).toMatchObject({ status: 200, body: { discussion_locked: false } });
    expect((await systemNotes()).at(-1)).toBe('unlocked this merge request');
    expect((await server.call('POST', `${path}/notes`, { body: 'let me in' }, outsider.token)).status).toBe(201);
    await server.call('PUT', `/projects/${project.id}`, { visibility: 'private' });
  });
});

describe('merging', () => {
  it('shows the merge’s should_remove_source_branch and merge_user', async () => {
    await server.call('POST', `${base()}/repository/commits`, { branch: 'merge-me', start_branch: 'main', commit_message: 'm', actions: [{ action: 'create', file_path: 'merge-me.txt', content: 'm' }] });
    const mr = (await server.call('POST', `${base()}/merge_requests`, { title: 'Merge me', source_branch: 'merge-me', target_branch: 'main' }, dev.token)).body;
    expect(mr.should_remove_source_branch).toBeNull();
    const merged = await server.call('PUT', `${base()}/merge_requests/${mr.iid}/merge`, { should_remove_source_branch: true }, dev.token);
    expect(merged.body).toMatchObject({ state: 'merged', should_remove_source_branch: true, merge_user: { id: dev.id }, merged_by: { id: dev.id } });
    expect(server.events.find((event) => event.type === 'MergeRequestMerged' && (event.data as { iid: number }).iid === mr.iid)).toMatchObject({ data: { should_remove_source_branch: true } });
  });
});

describe('force_remove_source_branch', () => {
  it('is null when the creation does not say (the API sets the key to nil), else what was given', async () => {
    await server.call('POST', `${base()}/repository/commits`, { branch: 'keep-me', start_branch: 'main', commit_message: 'k', actions: [{ action: 'create', file_path: 'keep.txt', content: 'k' }] });
    const mr = (await server.call('POST', `${base()}/merge_requests`, { title: 'Keep me', source_branch: 'keep-me', target_branch: 'main' }, dev.token)).body;
    expect(mr.force_remove_source_branch).toBeNull();
    expect((await server.call('PUT', `${base()}/merge_requests/${mr.iid}`, { remove_source_branch: false }, dev.token)).body.force_remove_source_branch).toBe(false);
    expect((await server.call('PUT', `${base()}/merge_requests/${mr.iid}`, { title: 'Keep me too' }, dev.token)).body.force_remove_source_branch).toBe(false);
  });
});

describe('what the single GET may include', () => {
  it('first_contribution on the single GET only; diverged_commits_count and rebase_in_progress when asked', async () => {
    await server.call('POST', `${base()}/repository/commits`, { branch: 'behind', start_branch: 'main', commit_message: 'b', actions: [{ action: 'create', file_path: 'behind.txt', content: 'b' }] });
    const mr = (await server.call('POST', `${base()}/merge_requests`, { title: 'Behind', source_branch: 'behind', target_branch: 'main' }, dev.token)).body;
    expect(mr).not.toHaveProperty('first_contribution');
    const path = `${base()}/merge_requests/${mr.iid}`;
    const plain = (await server.call('GET', path)).body;
    expect(plain.first_contribution).toBe(false);
    expect(plain).not.toHaveProperty('diverged_commits_count');
    expect(plain).not.toHaveProperty('rebase_in_progress');
    expect((await server.call('GET', `${path}?include_diverged_commits_count=true&include_rebase_in_progress=true`)).body).toMatchObject({ diverged_commits_count: 0, rebase_in_progress: false });
    await server.call('POST', `${base()}/repository/commits`, { branch: 'main', commit_message: 'ahead', actions: [{ action: 'create', file_path: 'ahead.txt', content: 'a' }] });
    expect((await server.call('GET', `${path}?include_diverged_commits_count=true`)).body.diverged_commits_count).toBe(1);
    expect(await server.call('GET', `${path}?include_diverged_commits_count=maybe`)).toMatchObject({ status: 400, body: { error: 'include_diverged_commits_count is invalid' } });
    expect((await server.call('PUT', path, { title: 'Behind still' }, dev.token)).body).not.toHaveProperty('first_contribution');
  });
});

describe('task_completion_status', () => {
  it('counts the description’s task list items (Taskable::ITEM_PATTERN)', async () => {
    await server.call('POST', `${base()}/repository/commits`, { branch: 'tasks', start_branch: 'main', commit_message: 't', actions: [{ action: 'create', file_path: 'tasks.txt', content: 't' }] });
    const description = ['- [ ] one', '- [x] two', '* [X] three', '1. [ ] four', '> - [x] quoted', '- [] not a box', '[x] not in a list', '- [x]', '  - [ ] nested'].join('\n');
    const mr = (await server.call('POST', `${base()}/merge_requests`, { title: 'Tasks', source_branch: 'tasks', target_branch: 'main', description }, dev.token)).body;
    // `\s` takes the line break after a bare `- [x]`, so the next line is its text and is not an item of its own (as
    // Ruby's `scan` reads it): one, two, three, four, quoted and the bare one; done: two, three, quoted, the bare one.
    expect(mr.task_completion_status).toEqual({ count: 6, completed_count: 4 });
  });
});

describe('target_project_id', () => {
  it('a project outside the source’s fork network, where the caller may create merge requests, is 422 (validate_fork)', async () => {
    const other = (await server.call('POST', '/projects', { name: 'Elsewhere', initialize_with_readme: true })).body;
    await server.call('POST', `${base()}/repository/commits`, { branch: 'across', start_branch: 'main', commit_message: 'x', actions: [{ action: 'create', file_path: 'across.txt', content: 'x' }] });
    const body = { title: 'Across', source_branch: 'across', target_branch: 'main', target_project_id: other.id };
    expect(await server.call('POST', `${base()}/merge_requests`, body)).toMatchObject({ status: 422, body: { message: ['Source project is not a fork of the target project'] } });
    // Where the caller may not create merge requests, the target falls back to the project itself.
    const created = await server.call('POST', `${base()}/merge_requests`, body, dev.token);
    expect(created).toMatchObject({ status: 201, body: { project_id: project.id, target_project_id: project.id } });
  });
});

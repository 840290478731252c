/**
 * Review of the merge requests audit (issue 16; branch `review-mr`): who may update and what they may set
 * (IssuablePolicy, `filter_params`), how unreadable assignees and reviewers are filtered (`filter_assignees`,
 * `filter_reviewer`), and who may approve (`approve_merge_request` is `update_merge_request`, 14.7).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { member, newDataDir, removeDir, start, unprotectDefaultBranches, type Running } from './support.js';

let server: Running;
let dataDir: string;
let project: { id: number };
let dev: { id: number; token: string };
let rep: { id: number; token: string };
let guest: { id: number; token: string };

const base = () => `/projects/${project.id}`;
let branches = 0;
const open = async (body: object, token?: string): Promise<{ iid: number; id: number; sha: string; title: string }> => {
  const branch = `review-${++branches}`;
  await server.call('POST', `${base()}/repository/commits`, { branch, start_branch: 'main', commit_message: branch, actions: [{ action: 'create', file_path: `${branch}.txt`, content: branch }] });
  const answer = await server.call('POST', `${base()}/merge_requests`, { title: branch, source_branch: branch, target_branch: 'main', ...body }, token);
  if (answer.status !== 201) throw new Error(`${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
};
const setLevel = async (userId: number, level: number) => server.call('PUT', `${base()}/members/${userId}`, { access_level: level });

beforeAll(async () => {
  dataDir = newDataDir();
  server = await start(dataDir);
  await unprotectDefaultBranches(server);
  project = (await server.call('POST', '/projects', { name: 'Reviewed', initialize_with_readme: true, visibility: 'private' })).body;
  dev = await member(server, 'rv-dev', { id: project.id, level: 30 });
  rep = await member(server, 'rv-rep', { id: project.id, level: 20 });
  guest = await member(server, 'rv-guest', { id: project.id, level: 10 });
});
afterAll(async () => {
  await server.close();
  removeDir(dataDir);
});

describe('assignees and reviewers who may not read it (filter_assignees, filter_reviewer)', () => {
  it('an update naming only users who may not read it changes nothing (the parameter is dropped); 0 alone clears', async () => {
    const mr = await open({ assignee_ids: [dev.id, rep.id], reviewer_ids: [rep.id] });
    const path = `${base()}/merge_requests/${mr.iid}`;
    const before = server.events.length;
    const answer = await server.call('PUT', path, { assignee_ids: [guest.id], reviewer_ids: [guest.id, 9999] });
    expect(answer.status).toBe(200);
    expect(answer.body.assignees.map((user: { id: number }) => user.id)).toEqual([dev.id, rep.id]);
    expect(answer.body.reviewers.map((user: { id: number }) => user.id)).toEqual([rep.id]);
    expect(server.events.length).toBe(before);
    // A readable one among them is kept alone.
    expect((await server.call('PUT', path, { assignee_ids: [guest.id, rep.id] })).body.assignees.map((user: { id: number }) => user.id)).toEqual([rep.id]);
    // `[0]` (`IssuableFinder::Params::NONE`) and an empty list clear.
    expect((await server.call('PUT', path, { assignee_ids: [0], reviewer_ids: [0] })).body).toMatchObject({ assignees: [], reviewers: [] });
  });
});

describe('who may update a merge request, and what', () => {
  it('an author without Developer access sets no metadata: labels, assignees, reviewers and the lock are dropped', async () => {
    const author = await member(server, 'rv-author', { id: project.id, level: 30 });
    const mr = await open({}, author.token);
    await setLevel(author.id, 20);
    const path = `${base()}/merge_requests/${mr.iid}`;
    const answer = await server.call('PUT', path, { title: 'Retitled', labels: 'bug', assignee_ids: [dev.id], reviewer_ids: [dev.id], discussion_locked: true }, author.token);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ title: 'Retitled', labels: [], assignees: [], reviewers: [], discussion_locked: null });
    // Only metadata: nothing is recorded.
    const before = server.events.length;
    expect((await server.call('PUT', path, { discussion_locked: true }, author.token)).status).toBe(200);
    expect(server.events.length).toBe(before);
  });

  it('an author who is no longer a member may not update (IssuablePolicy: guest_access & assignee_or_author)', async () => {
    const leaver = await member(server, 'rv-leaver', { id: project.id, level: 30 });
    const mr = await open({}, leaver.token);
    await server.call('DELETE', `${base()}/members/${leaver.id}`);
    await server.call('PUT', base(), { visibility: 'public' });
    try {
      const path = `${base()}/merge_requests/${mr.iid}`;
      expect(await server.call('PUT', path, { title: 'Mine still?' }, leaver.token)).toMatchObject({ status: 403 });
      expect(await server.call('PUT', path, { discussion_locked: true }, leaver.token)).toMatchObject({ status: 403 });
      expect(await server.call('PUT', path, { state_event: 'close' }, leaver.token)).toMatchObject({ status: 403 });
      expect((await server.call('GET', path)).body).toMatchObject({ title: mr.title, state: 'opened', discussion_locked: null });
    } finally {
      await server.call('PUT', base(), { visibility: 'private' });
    }
  });

  it('an assignee who is a member updates it (and a Reporter assignee sets no metadata)', async () => {
    const mr = await open({ assignee_ids: [rep.id] });
    const path = `${base()}/merge_requests/${mr.iid}`;
    const answer = await server.call('PUT', path, { title: 'Assignee edit', labels: 'x' }, rep.token);
    expect(answer).toMatchObject({ status: 200, body: { title: 'Assignee edit', labels: [] } });
    // Another Reporter is neither author nor assignee.
    const other = await member(server, 'rv-rep2', { id: project.id, level: 20 });
    expect(await server.call('PUT', path, { title: 'Not mine' }, other.token)).toMatchObject({ status: 403 });
  });
});

describe('a locked merge request', () => {
  it('is not reopened while locked (rule { locked }.prevent :reopen_merge_request): 200, still closed, nothing recorded', async () => {
    const mr = await open({}, dev.token);
    const path = `${base()}/merge_requests/${mr.iid}`;
    expect((await server.call('PUT', path, { state_event: 'close', discussion_locked: true }, dev.token)).body).toMatchObject({ state: 'closed', discussion_locked: true });
    const before = server.events.length;
    expect(await server.call('PUT', path, { state_event: 'reopen' }, dev.token)).toMatchObject({ status: 200, body: { state: 'closed' } });
    expect(await server.call('PUT', path, { state_event: 'reopen' })).toMatchObject({ status: 200, body: { state: 'closed' } });
    expect(server.events.length).toBe(before);
    // Unlocked (the state changes first, so not in the same request), it reopens.
    expect((await server.call('PUT', path, { state_event: 'reopen', discussion_locked: false }, dev.token)).body).toMatchObject({ state: 'closed', discussion_locked: false });
    expect((await server.call('PUT', path, { state_event: 'reopen' }, dev.token)).body.state).toBe('opened');
  });
});

describe('who may approve (approve_merge_request is update_merge_request)', () => {
  it('an administrator who is not a member and a Reporter assignee approve; a Reporter who is neither does not', async () => {
    const mr = await open({ assignee_ids: [rep.id] }, dev.token);
    const path = `${base()}/merge_requests/${mr.iid}`;
    // An administrator who is no member of the project.
    const admin = await member(server, 'rv-admin');
    await server.call('PUT', `/users/${admin.id}`, { admin: true });
    expect((await server.call('GET', `${path}/approvals`, undefined, admin.token)).body.user_can_approve).toBe(true);
    expect((await server.call('POST', `${path}/approve`, {}, admin.token)).status).toBe(201);
    expect((await server.call('POST', `${path}/approve`, {}, rep.token)).status).toBe(201);
    const other = await member(server, 'rv-rep3', { id: project.id, level: 20 });
    expect(await server.call('POST', `${path}/approve`, {}, other.token)).toMatchObject({ status: 401 });
    expect((await server.call('GET', `${path}/approvals`)).body.approved_by.map((entry: { user: { id: number } }) => entry.user.id)).toEqual([admin.id, rep.id]);
  });
});

/**
 * Review of the branches, tags, commits, files, protected refs and releases audit (issue 16, branch `review-repo`):
 * answers a GitLab 14.7 client meets that the audit (`fidelity-refs.test.ts`) left different. Each case failed
 * before its fix.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { member, newDataDir, removeDir, start, unprotectDefaultBranches, type Running } from './support.js';

let server: Running;
let dataDir: string;
let base: string;
let projectPath: string;
let dev: { id: number; token: string };
let maintainer: { id: number; token: string };

beforeAll(async () => {
  dataDir = newDataDir();
  server = await start(dataDir);
  await unprotectDefaultBranches(server);
  const project = (await server.call('POST', '/projects', { name: 'Review', initialize_with_readme: true, visibility: 'public' })).body;
  projectPath = `/projects/${project.id}`;
  base = `${projectPath}/repository`;
  dev = await member(server, 'dev', { id: project.id, level: 30 });
  maintainer = await member(server, 'maintainer', { id: project.id, level: 40 });
});
afterAll(async () => {
  await server.close();
  removeDir(dataDir);
});

describe('files', () => {
  it('ignores last_commit_id on DELETE …/files/:file_path (simple_file_params declares none)', async () => {
    const first = await server.call('POST', `${base}/files/stale.txt`, { branch: 'main', commit_message: 'Add', content: 'one' }, dev.token);
    expect(first.status).toBe(201);
    const read = await server.call('GET', `${base}/files/stale.txt?ref=main`);
    const stale = read.body.last_commit_id as string;
    await server.call('PUT', `${base}/files/stale.txt`, { branch: 'main', commit_message: 'Change', content: 'two' }, dev.token);
    // The update still compares it (`Files::UpdateService#validate!`).
    expect(await server.call('PUT', `${base}/files/stale.txt`, { branch: 'main', commit_message: 'Again', content: 'three', last_commit_id: stale }, dev.token)).toMatchObject({
      status: 400,
      body: { message: 'You are attempting to update a file that has changed since you started editing it.' },
    });
    const deleted = await server.call('DELETE', `${base}/files/stale.txt`, { branch: 'main', commit_message: 'Remove', last_commit_id: stale }, dev.token);
    expect(deleted.status).toBe(204);
    expect((await server.call('GET', `${base}/files/stale.txt?ref=main`)).status).toBe(404);
  });
});

describe('blame', () => {
  it('answers GET …/files/:file_path/blame with each run of lines of one commit (Entities::BlameRange)', async () => {
    const first = await server.call('POST', `${base}/files/blame.txt`, { branch: 'main', commit_message: 'Blame one', content: 'a\nb\nc\n' }, dev.token);
    expect(first.status).toBe(201);
    const one = (await server.call('GET', `${base}/commits/main`)).body;
    await server.call('PUT', `${base}/files/blame.txt`, { branch: 'main', commit_message: 'Blame two', content: 'a\nB\nc\nd\n' }, dev.token);
    const two = (await server.call('GET', `${base}/commits/main`)).body;
    const blamed = await server.call('GET', `${base}/files/blame.txt/blame?ref=main`);
    expect(blamed.status).toBe(200);
    expect(blamed.headers.get('x-gitlab-file-path')).toBe('blame.txt');
    expect(blamed.headers.get('x-gitlab-last-commit-id')).toBe(two.id);
    expect(blamed.body.map((range: { commit: { id: string }; lines: string[] }) => [range.commit.id, range.lines])).toEqual([
      [one.id, ['a']],
      [two.id, ['B']],
      [one.id, ['c']],
      [two.id, ['d']],
    ]);
    expect(blamed.body[0].commit).toEqual({
      id: one.id,
      parent_ids: one.parent_ids,
      message: one.message,
      authored_date: one.authored_date,
      author_name: one.author_name,
      author_email: one.author_email,
      committed_date: one.committed_date,
      committer_name: one.committer_name,
      committer_email: one.committer_email,
    });
    expect(await server.call('GET', `${base}/files/blame.txt/blame`)).toMatchObject({ status: 400, body: { error: 'ref is missing' } });
    expect(await server.call('GET', `${base}/files/nope.txt/blame?ref=main`)).toMatchObject({ status: 404, body: { message: '404 File Not Found' } });
    expect(await server.call('GET', `${base}/files/blame.txt/blame?ref=nope`)).toMatchObject({ status: 404, body: { message: '404 Commit Not Found' } });
    const head = await server.call('HEAD', `${base}/files/blame.txt/blame?ref=main`);
    expect(head.status).toBe(200);
    expect(head.headers.get('x-gitlab-blob-id')).toBe((await server.call('GET', `${base}/files/blame.txt?ref=main`)).body.blob_id);
  });
});

describe('file paths', () => {
  it('refuses absolute paths, line breaks and backslash traversal as the FilePath validator does (400)', async () => {
    const invalid = { status: 400, body: { error: 'file_path should be a valid file path' } };
    for (const path of ['%2Fetc%2Fpasswd', 'a%5C..%5Cb', '..%5Cx', 'a%0Ab']) {
      expect(await server.call('GET', `${base}/files/${path}?ref=main`)).toMatchObject(invalid);
      expect(await server.call('GET', `${base}/files/${path}/raw?ref=main`)).toMatchObject(invalid);
      expect(await server.call('POST', `${base}/files/${path}`, { branch: 'main', commit_message: 'x', content: 'x' }, dev.token)).toMatchObject(invalid);
    }
    // Dots inside a name are no traversal.
    expect((await server.call('POST', `${base}/files/a..b.txt`, { branch: 'main', commit_message: 'Dots', content: 'x' }, dev.token)).status).toBe(201);
    expect((await server.call('GET', `${base}/files/a..b.txt?ref=main`)).status).toBe(200);
  });
});

describe('branch creation order', () => {
  it('refuses an existing or invalid name before the pre-receive checks (Branches::ValidateNewService first)', async () => {
    expect((await server.call('POST', `${projectPath}/protected_branches`, { name: 'locked-*', push_access_level: 40, merge_access_level: 40 }, maintainer.token)).status).toBe(201);
    expect((await server.call('POST', `${base}/branches`, { branch: 'locked-1', ref: 'main' }, maintainer.token)).status).toBe(201);
    // A Developer may create no `locked-*` branch, but an existing one is "Branch already exists" to them too.
    expect(await server.call('POST', `${base}/branches`, { branch: 'locked-1', ref: 'main' }, dev.token)).toMatchObject({ status: 400, body: { message: 'Branch already exists' } });
    expect(await server.call('POST', `${base}/branches`, { branch: 'locked-..x', ref: 'main' }, dev.token)).toMatchObject({ status: 400, body: { message: 'Branch name is invalid' } });
    expect(await server.call('POST', `${base}/branches`, { branch: 'locked-2', ref: 'main' }, dev.token)).toMatchObject({
      status: 400,
      body: { message: 'You are not allowed to create protected branches on this project.' },
    });
  });
});

describe('tag creation order', () => {
  it('refuses an invalid name, then an unknown target, before the protected tag check (Tags::CreateService, Gitaly)', async () => {
    expect((await server.call('POST', `${projectPath}/protected_tags`, { name: 'pv*', create_access_level: 40 }, maintainer.token)).status).toBe(201);
    expect(await server.call('POST', `${base}/tags`, { tag_name: 'pv 1', ref: 'main' }, dev.token)).toMatchObject({ status: 400, body: { message: 'Tag name invalid' } });
    expect(await server.call('POST', `${base}/tags`, { tag_name: 'pv2', ref: 'nope' }, dev.token)).toMatchObject({ status: 400, body: { message: 'Target nope is invalid' } });
    expect(await server.call('POST', `${base}/tags`, { tag_name: 'pv3', ref: 'main' }, dev.token)).toMatchObject({
      status: 400,
      body: { message: 'You are not allowed to create this tag as it is protected.' },
    });
  });
});

describe('protected branch creation', () => {
  it('lets a merger create a protected branch only from a commit of a protected branch (safe_commit_for_new_protected_branch?)', async () => {
    expect((await server.call('POST', `${base}/branches`, { branch: 'stable', ref: 'main' }, maintainer.token)).status).toBe(201);
    for (const name of ['stable', 'rc-*']) {
      expect((await server.call('POST', `${projectPath}/protected_branches`, { name, push_access_level: 40, merge_access_level: 30 }, maintainer.token)).status).toBe(201);
    }
    await server.call('POST', `${base}/branches`, { branch: 'wip', ref: 'main' }, dev.token);
    const loose = (await server.call('POST', `${base}/commits`, { branch: 'wip', commit_message: 'Loose', actions: [{ action: 'create', file_path: 'loose.txt', content: 'x' }] }, dev.token)).body.id as string;
    expect(await server.call('POST', `${base}/branches`, { branch: 'rc-1', ref: loose }, dev.token)).toMatchObject({
      status: 400,
      body: { message: 'You can only use an existing protected branch ref as the basis of a new protected branch.' },
    });
    expect(await server.call('POST', `${base}/branches`, { branch: 'rc-1', ref: 'stable' }, dev.token)).toMatchObject({ status: 201, body: { name: 'rc-1', protected: true } });
    // Who may push creates it from anything; an unprotected name needs nothing.
    expect((await server.call('POST', `${base}/branches`, { branch: 'rc-2', ref: loose }, maintainer.token)).status).toBe(201);
    expect((await server.call('POST', `${base}/branches`, { branch: 'loose-copy', ref: loose }, dev.token)).status).toBe(201);
  });
});

describe('releases of protected tags', () => {
  it('lets a Developer release a tag one matching protected tag rule lets them create (any rule, as can_create_tag?)', async () => {
    for (const [name, level] of [['v*', 40], ['v1.*', 30]] as const) {
      expect((await server.call('POST', `${projectPath}/protected_tags`, { name, create_access_level: level }, maintainer.token)).status).toBe(201);
    }
    // The tags API already says any.
    expect((await server.call('POST', `${base}/tags`, { tag_name: 'v1.0', ref: 'main' }, dev.token)).status).toBe(201);
    expect(await server.call('POST', `${projectPath}/releases`, { tag_name: 'v1.0', description: 'One' }, dev.token)).toMatchObject({ status: 201, body: { tag_name: 'v1.0' } });
    expect(await server.call('POST', `${projectPath}/releases`, { tag_name: 'v1.1', ref: 'main', description: 'New tag' }, dev.token)).toMatchObject({ status: 201, body: { tag_name: 'v1.1' } });
    expect(await server.call('PUT', `${projectPath}/releases/v1.0`, { description: 'Edited' }, dev.token)).toMatchObject({ status: 200, body: { description: 'Edited' } });
    // Only `v*` matches v2.0: Maintainers only.
    expect(await server.call('POST', `${projectPath}/releases`, { tag_name: 'v2.0', ref: 'main', description: 'Two' }, dev.token)).toMatchObject({
      status: 403,
      body: { message: 'You are not allowed to create this tag as it is protected.' },
    });
  });
});

describe('protected branches', () => {
  it('searches protected branches as fuzzy_arel_match does (short words match the whole name only)', async () => {
    for (const name of ['qa', 'qa-*', 'stage-qa', 'hotfix/urgent']) {
      expect((await server.call('POST', `${projectPath}/protected_branches`, { name }, maintainer.token)).status).toBe(201);
    }
    const names = async (search: string) =>
      ((await server.call('GET', `${projectPath}/protected_branches?search=${encodeURIComponent(search)}`, undefined, maintainer.token)).body as { name: string }[]).map((rule) => rule.name);
    expect(await names('QA')).toEqual(['qa']);
    expect(await names('stage')).toEqual(['stage-qa']);
    expect(await names('fix urg')).toEqual(['hotfix/urgent']);
    expect(await names('fix nope')).toEqual([]);
    expect(await names('qa-*')).toEqual(['qa-*']);
  });

  it("answers EE's PATCH …/protected_branches/:name, which sets code_owner_approval_required (default false)", async () => {
    expect((await server.call('POST', `${projectPath}/protected_branches`, { name: 'release/*', push_access_level: 30 }, maintainer.token)).status).toBe(201);
    const patched = await server.call('PATCH', `${projectPath}/protected_branches/release%2F*`, { code_owner_approval_required: true }, maintainer.token);
    expect(patched).toMatchObject({ status: 200, body: { name: 'release/*', code_owner_approval_required: true, push_access_levels: [{ access_level: 30 }] } });
    expect((await server.call('GET', `${projectPath}/protected_branches/release%2F*`, undefined, maintainer.token)).body.code_owner_approval_required).toBe(true);
    // Without the parameter it is its default, false.
    expect(await server.call('PATCH', `${projectPath}/protected_branches/release%2F*`, {}, maintainer.token)).toMatchObject({ status: 200, body: { code_owner_approval_required: false } });
    const before = server.events.length;
    expect(await server.call('PATCH', `${projectPath}/protected_branches/release%2F*`, { code_owner_approval_required: false }, maintainer.token)).toMatchObject({ status: 200, body: { code_owner_approval_required: false } });
    expect(server.events.length).toBe(before);
    // `find_by!` by the exact name; `authorize_admin_project` first.
    expect(await server.call('PATCH', `${projectPath}/protected_branches/release%2F1`, { code_owner_approval_required: true }, maintainer.token)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect(await server.call('PATCH', `${projectPath}/protected_branches/release%2F*`, { code_owner_approval_required: true }, dev.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await server.call('PATCH', `${projectPath}/protected_branches/release%2F*`, { code_owner_approval_required: 'maybe' }, maintainer.token)).toMatchObject({ status: 400, body: { error: 'code_owner_approval_required is invalid' } });
    expect((await server.call('GET', `${projectPath}/protected_branches/release%2F*`, undefined, maintainer.token)).body.code_owner_approval_required).toBe(false);
  });
});

describe('commit comments', () => {
  it('adds and lists comments on a commit (POST and GET …/repository/commits/:sha/comments, Entities::CommitNote)', async () => {
    await server.call('POST', `${base}/files/lines.txt`, { branch: 'main', commit_message: 'Lines', content: 'one\ntwo\nthree\n' }, dev.token);
    const edited = await server.call('PUT', `${base}/files/lines.txt`, { branch: 'main', commit_message: 'Edit', content: 'one\nTWO\nthree\n' }, dev.token);
    expect(edited.status).toBe(200);
    const sha = (await server.call('GET', `${base}/commits/main`)).body.id as string;
    const comments = `${base}/commits/${sha}/comments`;

    const plain = await server.call('POST', comments, { note: 'Looks good' }, dev.token);
    expect(plain.status).toBe(201);
    expect(Object.keys(plain.body)).toEqual(['note', 'path', 'line', 'line_type', 'author', 'created_at']);
    expect(plain.body).toMatchObject({ note: 'Looks good', path: null, line: null, line_type: null, author: { username: 'dev' } });

    // The added line 2 of the diff: a diff note; the removed one matches by its type and new position.
    expect(await server.call('POST', comments, { note: 'Why upper case?', path: 'lines.txt', line: 2, line_type: 'new' }, dev.token)).toMatchObject({
      status: 201,
      body: { note: 'Why upper case?', path: 'lines.txt', line: 2, line_type: 'new' },
    });
    expect(await server.call('POST', comments, { note: 'Was lower', path: 'lines.txt', line: 2, line_type: 'old' }, dev.token)).toMatchObject({
      status: 201,
      body: { path: 'lines.txt', line: 2, line_type: 'old' },
    });
    // A context line never matches: the comment silently becomes a plain note.
    expect(await server.call('POST', comments, { note: 'Context', path: 'lines.txt', line: 1 }, dev.token)).toMatchObject({ status: 201, body: { path: null, line: null, line_type: null } });

    // `given :path`: `line` is required with it; the commit is looked up after the parameters.
    expect(await server.call('POST', comments, { note: 'x', path: 'lines.txt' }, dev.token)).toMatchObject({ status: 400, body: { error: 'line is missing' } });
    expect(await server.call('POST', comments, { note: 'x', path: 'lines.txt', line: 2, line_type: 'both' }, dev.token)).toMatchObject({ status: 400, body: { error: 'line_type does not have a valid value' } });
    expect(await server.call('POST', comments, {}, dev.token)).toMatchObject({ status: 400, body: { error: 'note is missing' } });
    expect(await server.call('POST', comments, { note: '' }, dev.token)).toMatchObject({ status: 400, body: { message: 'Failed to save note {:note=>["can\'t be blank"]}' } });
    expect(await server.call('POST', `${base}/commits/${'f'.repeat(40)}/comments`, { note: 'x' }, dev.token)).toMatchObject({ status: 404, body: { message: '404 Commit Not Found' } });

    const listed = await server.call('GET', comments, undefined, null);
    expect(listed.status).toBe(200);
    expect(listed.headers.get('x-total')).toBe('4');
    expect(listed.body.map((comment: { note: string; line: number | null; line_type: string | null }) => [comment.note, comment.line, comment.line_type])).toEqual([
      ['Looks good', null, null],
      ['Why upper case?', 2, 'new'],
      ['Was lower', 2, 'old'],
      ['Context', null, null],
    ]);
    // The same notes through the commit's discussions: the plain ones individual, the diff ones threads.
    const threads = (await server.call('GET', `${base}/commits/${sha}/discussions`)).body as { individual_note: boolean; notes: { type: string | null }[] }[];
    expect(threads.map((thread) => [thread.individual_note, thread.notes[0]!.type])).toEqual([
      [true, null],
      [false, 'DiffNote'],
      [false, 'DiffNote'],
      [true, null],
    ]);
    expect((await server.call('GET', `${base}/commits/unknown/comments`)).body).toEqual({ message: '404 Commit Not Found' });

    // `line` is coerced as every `type: Integer` parameter: Ruby's `Integer(s, 10)` (spaces, a sign, underscores
    // between digits); blank or null is nil, which `requires` lets through (the key is present), and no line matches.
    expect(await server.call('POST', comments, { note: 'Underscored', path: 'lines.txt', line: '0_2' }, dev.token)).toMatchObject({ status: 201, body: { line: 2, line_type: 'new' } });
    expect(await server.call('POST', comments, { note: 'Blank', path: 'lines.txt', line: '' }, dev.token)).toMatchObject({ status: 201, body: { path: null, line: null } });
    expect(await server.call('POST', comments, { note: 'Null', path: 'lines.txt', line: null }, dev.token)).toMatchObject({ status: 201, body: { path: null, line: null } });
    for (const line of ['two', '2.0', true]) {
      expect(await server.call('POST', comments, { note: 'x', path: 'lines.txt', line }, dev.token)).toMatchObject({ status: 400, body: { error: 'line is invalid' } });
    }
    // A JSON number is `Integer(input)`, which cuts the fraction off: 2.5 is line 2.
    expect(await server.call('POST', comments, { note: 'Cut', path: 'lines.txt', line: 2.5 }, dev.token)).toMatchObject({ status: 201, body: { line: 2, line_type: 'new' } });
    // Without a path, `line` is not read (Grape skips a `given` block whose parameter is absent).
    expect(await server.call('POST', comments, { note: 'No path', line: 'two' }, dev.token)).toMatchObject({ status: 201, body: { path: null, line: null } });
    // A blank path skips it too (`meets_dependency?` asks `params[:path].blank?`): neither missing nor invalid lines.
    for (const path of ['', '  ']) {
      expect(await server.call('POST', comments, { note: 'Blank path', path }, dev.token)).toMatchObject({ status: 201, body: { path: null, line: null, line_type: null } });
      expect(await server.call('POST', comments, { note: 'Blank path', path, line: 'two', line_type: 'both' }, dev.token)).toMatchObject({ status: 201, body: { path: null, line: null } });
    }
  });
});

describe('commit trailers', () => {
  it('parses each listed commit\'s trailers with trailers=true ({} otherwise, and on a single commit)', async () => {
    const message = 'Add trailers\n\nWhy it is so.\n\nChangelog: added\nSigned-off-by: Dev <dev@example.com>\nChangelog: fixed\n';
    const made = await server.call('POST', `${base}/commits`, { branch: 'main', commit_message: message, actions: [{ action: 'create', file_path: 'trailers.txt', content: 't' }] }, dev.token);
    expect(made.status).toBe(201);
    expect(made.body.trailers).toEqual({});
    const listed = await server.call('GET', `${base}/commits?trailers=true&per_page=2`);
    expect(listed.body[0]).toMatchObject({ id: made.body.id, trailers: { Changelog: 'fixed', 'Signed-off-by': 'Dev <dev@example.com>' } });
    expect(listed.body[1].trailers).toEqual({});
    expect((await server.call('GET', `${base}/commits?per_page=1`)).body[0].trailers).toEqual({});
    expect((await server.call('GET', `${base}/commits?trailers=true&with_stats=true&per_page=1`)).body[0]).toMatchObject({ trailers: { Changelog: 'fixed' }, stats: { additions: 1 } });
    expect((await server.call('GET', `${base}/commits/${made.body.id}`)).body.trailers).toEqual({});
    expect(await server.call('GET', `${base}/commits?trailers=maybe`)).toMatchObject({ status: 400, body: { error: 'trailers is invalid' } });
  });
});

describe('merge requests of a commit', () => {
  it('lists the merge requests whose latest diff holds the commit (GET …/repository/commits/:sha/merge_requests)', async () => {
    await server.call('POST', `${base}/branches`, { branch: 'topic', ref: 'main' }, dev.token);
    const first = (await server.call('POST', `${base}/commits`, { branch: 'topic', commit_message: 'Topic one', actions: [{ action: 'create', file_path: 'topic.txt', content: '1' }] }, dev.token)).body.id as string;
    const second = (await server.call('POST', `${base}/commits`, { branch: 'topic', commit_message: 'Topic two', actions: [{ action: 'update', file_path: 'topic.txt', content: '2' }] }, dev.token)).body.id as string;
    const older = await server.call('POST', `${projectPath}/merge_requests`, { source_branch: 'topic', target_branch: 'main', title: 'Topic' }, dev.token);
    expect(older.status).toBe(201);
    await server.call('PUT', `${projectPath}/merge_requests/${older.body.iid}`, { state_event: 'close' }, dev.token);
    const newer = await server.call('POST', `${projectPath}/merge_requests`, { source_branch: 'topic', target_branch: 'main', title: 'Topic again' }, dev.token);
    expect(newer.status).toBe(201);

    const listed = await server.call('GET', `${base}/commits/${first}/merge_requests`, undefined, null);
    expect(listed.status).toBe(200);
    expect(listed.headers.get('x-total')).toBe('2');
    expect(listed.body.map((mr: { iid: number; state: string }) => [mr.iid, mr.state])).toEqual([
      [newer.body.iid, 'opened'],
      [older.body.iid, 'closed'],
    ]);
    expect(listed.body[0]).toMatchObject({ title: 'Topic again', source_branch: 'topic', target_branch: 'main', project_id: Number(projectPath.split('/')[2]) });
    expect((await server.call('GET', `${base}/commits/topic/merge_requests`)).body).toHaveLength(2);
    expect((await server.call('GET', `${base}/commits/${second}/merge_requests`)).body).toHaveLength(2);
    // The default branch's commits are in no merge request's diff.
    expect(await server.call('GET', `${base}/commits/main/merge_requests`)).toMatchObject({ status: 200, body: [] });
    expect(await server.call('GET', `${base}/commits/${'e'.repeat(40)}/merge_requests`)).toMatchObject({ status: 404, body: { message: '404 Commit Not Found' } });

    // On a private project: a guest may not read the code (403), a stranger not the project (404).
    const secret = (await server.call('POST', '/projects', { name: 'Secret', initialize_with_readme: true, visibility: 'private' })).body;
    const guest = await member(server, 'guest', { id: secret.id, level: 10 });
    const reporter = await member(server, 'reporter', { id: secret.id, level: 20 });
    const path = `/projects/${secret.id}/repository/commits/main/merge_requests`;
    expect(await server.call('GET', path, undefined, guest.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await server.call('GET', path, undefined, dev.token)).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect(await server.call('GET', path, undefined, reporter.token)).toMatchObject({ status: 200, body: [] });
    expect(await server.call('GET', `/projects/${secret.id}/repository/commits/main/comments`, undefined, guest.token)).toMatchObject({ status: 403 });
    expect(await server.call('POST', `/projects/${secret.id}/repository/commits/main/comments`, { note: 'x' }, guest.token)).toMatchObject({ status: 403 });
    expect(await server.call('POST', `/projects/${secret.id}/repository/commits/main/comments`, { note: 'x' }, reporter.token)).toMatchObject({ status: 201 });
  });
});

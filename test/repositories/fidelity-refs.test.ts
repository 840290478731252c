/**
 * Fidelity audit of branches, commits and the tree (issue 16, branch `fid-repo`): answers a GitLab 14.7 client
 * meets, as lib/api/branches.rb, commits.rb, repositories.rb and the Repository model give them. Each case failed
 * before its fix.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { member, newDataDir, removeDir, ROOT_TOKEN, start, unprotectDefaultBranches, type Running } from './support.js';

let server: Running;
let dataDir: string;
let base: string;
let dev: { id: number; token: string };
let maintainer: { id: number; token: string };

beforeAll(async () => {
  dataDir = newDataDir();
  server = await start(dataDir);
  await unprotectDefaultBranches(server);
  const project = (await server.call('POST', '/projects', { name: 'Fidelity', initialize_with_readme: true, visibility: 'public' })).body;
  base = `/projects/${project.id}/repository`;
  dev = await member(server, 'dev', { id: project.id, level: 30 });
  maintainer = await member(server, 'maintainer', { id: project.id, level: 40 });
});
afterAll(async () => {
  await server.close();
  removeDir(dataDir);
});

/** A request as a client reads it off the wire: each header's value as the bytes sent (node reads them as latin1). */
const wire = (path: string, method = 'GET') =>
  new Promise<{ status: number; header: (name: string) => Buffer | undefined; body: Buffer }>((resolve, reject) => {
    const sent = request(`${server.url}/api/v4${path}`, { method, headers: { 'PRIVATE-TOKEN': ROOT_TOKEN } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const header = (name: string) => {
          const at = res.rawHeaders.findIndex((value, index) => index % 2 === 0 && value.toLowerCase() === name);
          return at === -1 ? undefined : Buffer.from(res.rawHeaders[at + 1]!, 'latin1');
        };
        resolve({ status: res.statusCode!, header, body: Buffer.concat(chunks) });
      });
    });
    sent.on('error', reject);
    sent.end();
  });
const utf8 = (text: string) => Buffer.from(text, 'utf8');

describe('branches', () => {
  it('answers a ref name GitRefValidator refuses with 400 "The branch refname is invalid" (find_branch!)', async () => {
    const invalid = { status: 400, body: { message: 'The branch refname is invalid' } };
    expect(await server.call('GET', `${base}/branches/branch*`)).toMatchObject(invalid);
    expect(await server.call('GET', `${base}/branches/a..b`)).toMatchObject(invalid);
    expect(await server.call('DELETE', `${base}/branches/branch*`, undefined, maintainer.token)).toMatchObject(invalid);
    expect(await server.call('PUT', `${base}/branches/branch*/protect`, undefined, maintainer.token)).toMatchObject(invalid);
    expect(await server.call('PUT', `${base}/branches/branch*/unprotect`, undefined, maintainer.token)).toMatchObject(invalid);
    // A valid name that is no branch stays a 404; HEAD is `branch_exists?`, a 404 for any name.
    expect(await server.call('GET', `${base}/branches/unknown`)).toMatchObject({ status: 404, body: { message: '404 Branch Not Found' } });
    expect((await server.call('HEAD', `${base}/branches/branch*`)).status).toBe(404);
    // Permissions still come first: a developer may not protect.
    expect(await server.call('PUT', `${base}/branches/branch*/protect`, undefined, dev.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
  });

  it('shows a branch at the default branch head as not merged (merged_to_root_ref?, merged_branch_names)', async () => {
    const created = await server.call('POST', `${base}/branches`, { branch: 'fresh', ref: 'main' }, dev.token);
    expect(created).toMatchObject({ status: 201, body: { name: 'fresh', merged: false } });
    expect((await server.call('GET', `${base}/branches/fresh`)).body.merged).toBe(false);
    const listed = (await server.call('GET', `${base}/branches`)).body as { name: string; merged: boolean }[];
    expect(listed.map((branch) => [branch.name, branch.merged])).toEqual([
      ['fresh', false],
      ['main', false],
    ]);
    // Once the default branch moves on, the old head is merged.
    await server.call('POST', `${base}/commits`, { branch: 'main', commit_message: 'Next', actions: [{ action: 'create', file_path: 'next.txt', content: 'x' }] }, dev.token);
    expect((await server.call('GET', `${base}/branches/fresh`)).body.merged).toBe(true);
    expect((await server.call('GET', `${base}/branches?search=fresh`)).body[0].merged).toBe(true);
  });
});

describe('merged branches', () => {
  it('DELETE /repository/merged_branches answers 202 and deletes what Branches::DeleteMergedService deletes', async () => {
    const project = (await server.call('POST', '/projects', { name: 'Merged', initialize_with_readme: true })).body;
    const repo = `/projects/${project.id}/repository`;
    const reporter = await member(server, 'merged-reporter', { id: project.id, level: 20 });
    await server.call('POST', `/projects/${project.id}/members`, { user_id: dev.id, access_level: 30 });
    await server.call('POST', `/projects/${project.id}/members`, { user_id: maintainer.id, access_level: 40 });
    for (const branch of ['done', 'in-review', 'stable', 'at-head']) await server.call('POST', `${repo}/branches`, { branch, ref: 'main' }, dev.token);
    await server.call('POST', `${repo}/branches`, { branch: 'behind', ref: 'main' }, dev.token);
    await server.call('POST', `${repo}/commits`, { branch: 'wip', start_branch: 'main', commit_message: 'WIP', actions: [{ action: 'create', file_path: 'wip.txt', content: 'x' }] }, dev.token);
    await server.call('POST', `${repo}/commits`, { branch: 'main', commit_message: 'Later', actions: [{ action: 'create', file_path: 'later.txt', content: 'x' }] }, dev.token);
    await server.call('POST', `${repo}/branches`, { branch: 'at-head-now', ref: 'main' }, dev.token);
    await server.call('POST', `/projects/${project.id}/merge_requests`, { source_branch: 'in-review', target_branch: 'wip', title: 'Review' }, dev.token);
    await server.call('POST', `/projects/${project.id}/protected_branches`, { name: 'stab*' }, maintainer.token);
    const names = async () => ((await server.call('GET', `${repo}/branches`)).body as { name: string }[]).map((branch) => branch.name);
    const before = await names();

    // Without push access the platform still answers 202 (the work is a worker's) and nothing goes.
    expect(await server.call('DELETE', `${repo}/merged_branches`, undefined, reporter.token)).toMatchObject({ status: 202, body: { message: '202 Accepted' } });
    expect(await names()).toEqual(before);

    expect(await server.call('DELETE', `${repo}/merged_branches`, undefined, dev.token)).toMatchObject({ status: 202, body: { message: '202 Accepted' } });
    // `done`, `at-head` and `behind` were merged (behind main); `in-review`/`wip` belong to an open merge request,
    // `stable` is protected, `at-head-now` is main's head (not merged), `main` is the default branch.
    expect(await names()).toEqual(['at-head-now', 'in-review', 'main', 'stable', 'wip']);
  });
});

describe('commits', () => {
  it('makes an empty commit from an empty actions list (201, the parent tree)', async () => {
    const head = (await server.call('GET', `${base}/commits/main`)).body;
    const created = await server.call('POST', `${base}/commits`, { branch: 'main', commit_message: 'Trigger', actions: [] }, dev.token);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ title: 'Trigger', parent_ids: [head.id], stats: { additions: 0, deletions: 0, total: 0 } });
    expect((await server.call('GET', `${base}/commits/${created.body.id}/diff`)).body).toEqual([]);
    expect((await server.call('GET', `${base}/branches/main`)).body.commit.id).toBe(created.body.id);
  });
});

describe('commits list', () => {
  it('lists every ref\'s commits with all=true, a page of the newest oldest first (Gitaly\'s --all --reverse)', async () => {
    await server.call('POST', `${base}/commits`, { branch: 'fresh', commit_message: 'Side', actions: [{ action: 'create', file_path: 'side.txt', content: 'x' }] }, dev.token);
    const titles = async (query: string) => ((await server.call('GET', `${base}/commits${query}`)).body as { title: string }[]).map((commit) => commit.title);
    expect(await titles('')).toEqual(['Trigger', 'Next', 'Initial commit']);
    expect(await titles('?all=true')).toEqual(['Initial commit', 'Next', 'Trigger', 'Side']);
    expect(await titles('?all=true&per_page=2')).toEqual(['Trigger', 'Side']);
    expect(await titles('?all=true&ref_name=nope&per_page=2&page=2')).toEqual(['Initial commit', 'Next']);
  });

  it('lists nothing for a path outside the repository (git refuses it; Gitaly streamed no commits), never a 500', async () => {
    for (const path of ['..', '../x', '/abs', 'docs/../..']) {
      const listed = await server.call('GET', `${base}/commits?path=${encodeURIComponent(path)}`, undefined, null);
      expect(listed, path).toMatchObject({ status: 200, body: [] });
    }
    // A path that stays inside after its `..` is git's to normalise, as before.
    expect((await server.call('GET', `${base}/commits?path=${encodeURIComponent('docs/../README.md')}`)).body.at(-1).title).toBe('Initial commit');
  });
});

describe('files', () => {
  it('refuses a stale last_commit_id on PUT with Files::UpdateService\'s text', async () => {
    const path = `${base}/files/docs%2Fnotes.md`;
    expect((await server.call('POST', path, { branch: 'main', content: 'one', commit_message: 'Notes' }, dev.token)).status).toBe(201);
    const stale = (await server.call('GET', `${path}?ref=main`)).body.last_commit_id;
    expect(await server.call('PUT', path, { branch: 'main', content: 'two', commit_message: 'Edit', last_commit_id: stale }, dev.token)).toMatchObject({ status: 200 });
    expect(await server.call('PUT', path, { branch: 'main', content: 'three', commit_message: 'Edit again', last_commit_id: stale }, dev.token)).toMatchObject({
      status: 400,
      body: { message: 'You are attempting to update a file that has changed since you started editing it.' },
    });
    // The commits API keeps Files::MultiService's text.
    const action = { action: 'update', file_path: 'docs/notes.md', content: 'four', last_commit_id: stale };
    expect(await server.call('POST', `${base}/commits`, { branch: 'main', commit_message: 'Multi', actions: [action] }, dev.token)).toMatchObject({
      status: 400,
      body: { message: 'The file has changed since you started editing it: docs/notes.md' },
    });
  });
});

describe('merge base', () => {
  it('GET /repository/merge_base answers the common ancestor commit, with the platform\'s refusals', async () => {
    const project = (await server.call('POST', '/projects', { name: 'Bases', initialize_with_readme: true, visibility: 'public' })).body;
    const repo = `/projects/${project.id}/repository`;
    const root = (await server.call('GET', `${repo}/commits/main`)).body;
    const commit = (branch: string, file: string, start?: string) =>
      server.call('POST', `${repo}/commits`, { branch, ...(start ? { start_branch: start } : {}), commit_message: file, actions: [{ action: 'create', file_path: file, content: file }] });
    await commit('left', 'l.txt', 'main');
    await commit('right', 'r.txt', 'main');
    await commit('main', 'm.txt');
    const base = await server.call('GET', `${repo}/merge_base?refs[]=left&refs[]=right`, undefined, null);
    expect(base).toMatchObject({ status: 200, body: { id: root.id, title: root.title } });
    expect(Object.keys(base.body)).toEqual(Object.keys(root).filter((key) => !['stats', 'status', 'project_id', 'last_pipeline'].includes(key)));
    expect((await server.call('GET', `${repo}/merge_base?refs=left,right,main`)).body.id).toBe(root.id);
    expect(await server.call('GET', `${repo}/merge_base?refs[]=left`)).toMatchObject({ status: 400, body: { message: 'Provide at least 2 refs' } });
    expect(await server.call('GET', `${repo}/merge_base`)).toMatchObject({ status: 400, body: { error: 'refs is missing' } });
    expect(await server.call('GET', `${repo}/merge_base?refs[]=left&refs[]=nope`)).toMatchObject({ status: 400, body: { message: 'Could not find ref: nope' } });
    expect(await server.call('GET', `${repo}/merge_base?refs[]=left&refs[]=x&refs[]=y`)).toMatchObject({ status: 400, body: { message: 'Could not find refs: x, y' } });
  });
});

describe('commit pipelines', () => {
  it('GET /repository/commits/:sha shows the newest pipeline of the commit as status and last_pipeline', async () => {
    const project = (await server.call('POST', '/projects', { name: 'Piped', initialize_with_readme: true })).body;
    const repo = `/projects/${project.id}/repository`;
    const reporter = await member(server, 'piped-reporter', { id: project.id, level: 20 });
    const sha = (await server.call('GET', `${repo}/commits/main`)).body.id;
    expect((await server.call('GET', `${repo}/commits/${sha}`)).body).toMatchObject({ status: null, last_pipeline: null });
    await server.call('POST', `/projects/${project.id}/pipeline`, { ref: 'main' });
    const second = (await server.call('POST', `/projects/${project.id}/pipeline`, { ref: 'main' })).body;
    await server.call('POST', `/projects/${project.id}/pipelines/${second.id}/cancel`);
    const shown = (await server.call('GET', `${repo}/commits/${sha}`, undefined, reporter.token)).body;
    expect(shown.status).toBe('canceled');
    expect(shown.last_pipeline).toEqual({
      id: second.id,
      iid: second.iid,
      project_id: project.id,
      sha,
      ref: 'main',
      status: 'canceled',
      source: second.source,
      created_at: second.created_at,
      updated_at: expect.any(String),
      web_url: second.web_url,
    });
  });
});

describe('other projects named by commits and compare', () => {
  it('start_project: find_project! (404), then forked_from? (403 naming the start project; the project itself is none)', async () => {
    const other = (await server.call('POST', '/projects', { name: 'Elsewhere', visibility: 'public' })).body;
    const body = (start_project: unknown) => ({ branch: 'main', start_project, commit_message: 'x', actions: [{ action: 'create', file_path: 'x.txt', content: 'x' }] });
    expect(await server.call('POST', `${base}/commits`, body(99999), dev.token)).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect(await server.call('POST', `${base}/commits`, body(other.id), dev.token)).toMatchObject({
      status: 403,
      body: { message: '403 Forbidden - Project is not included in the fork network for Administrator / Elsewhere' },
    });
    expect(await server.call('POST', `${base}/commits`, body(base.split('/')[2]), dev.token)).toMatchObject({
      status: 403,
      body: { message: '403 Forbidden - Project is not included in the fork network for Administrator / Fidelity' },
    });
  });

  it('compare with from_project_id outside the fork network is 400 (MergeRequestTargetProjectFinder)', async () => {
    const id = base.split('/')[2]!;
    const other = (await server.call('POST', '/projects', { name: 'Unrelated', visibility: 'public' })).body;
    const fork = (await server.call('POST', `/projects/${id}/fork`, { namespace_path: 'dev', path: 'fidelity-fork', name: 'Fidelity fork' }, dev.token)).body;
    const compare = (from: unknown) => server.call('GET', `${base}/compare?from=main&to=main&from_project_id=${String(from)}`);
    for (const outside of [other.id, 99999, 'abc']) {
      expect(await compare(outside)).toMatchObject({ status: 400, body: { message: `Target project id:${String(outside)} is not a fork of project id:${id}` } });
    }
    expect(await compare(id)).toMatchObject({ status: 200, body: { compare_same_ref: true } });
    expect(await compare(fork.id)).toMatchObject({ status: 200 });
    expect((await server.call('GET', `${base}/compare?from=main&to=main&from_project_id=`)).status).toBe(200);
  });
});

describe('contributors', () => {
  it('GET /repository/contributors groups the default branch\'s authors by e-mail, ordered as Commit.order_by', async () => {
    const project = (await server.call('POST', '/projects', { name: 'Authors', initialize_with_readme: true, visibility: 'public' })).body;
    const repo = `/projects/${project.id}/repository`;
    await server.call('POST', `/projects/${project.id}/members`, { user_id: dev.id, access_level: 30 });
    await server.call('POST', `/projects/${project.id}/members`, { user_id: maintainer.id, access_level: 40 });
    const commit = (token: string, file: string, branch = 'main') =>
      server.call('POST', `${repo}/commits`, { branch, commit_message: file, actions: [{ action: 'create', file_path: file, content: file }] }, token);
    for (const file of ['a', 'b', 'c']) await commit(dev.token, file);
    for (const file of ['d', 'e']) await commit(maintainer.token, file);
    await server.call('POST', `${repo}/branches`, { branch: 'side', ref: 'main' }, dev.token);
    await commit(dev.token, 'f', 'side');
    const list = async (query = '') => ((await server.call('GET', `${repo}/contributors${query}`, undefined, null)).body as { name: string; commits: number }[]);
    const all = await server.call('GET', `${repo}/contributors`, undefined, null);
    expect(all.status).toBe(200);
    expect(all.body).toEqual([
      { name: 'Administrator', email: 'admin@example.com', commits: 1, additions: 0, deletions: 0 },
      { name: 'MAINTAINER', email: 'maintainer@example.com', commits: 2, additions: 0, deletions: 0 },
      { name: 'DEV', email: 'dev@example.com', commits: 3, additions: 0, deletions: 0 },
    ]);
    expect(all.headers.get('x-total')).toBe('3');
    expect(all.headers.get('link')).toContain('order_by=commits');
    expect((await list('?sort=desc')).map((entry) => entry.commits)).toEqual([3, 2, 1]);
    expect((await list('?order_by=name')).map((entry) => entry.name)).toEqual(['Administrator', 'DEV', 'MAINTAINER']);
    expect((await list('?order_by=email&sort=desc')).map((entry) => entry.name)).toEqual(['MAINTAINER', 'DEV', 'Administrator']);
    expect(await server.call('GET', `${repo}/contributors?order_by=size`)).toMatchObject({ status: 400, body: { error: 'order_by does not have a valid value' } });
  });
});

describe('blobs', () => {
  it('reads a blob by the id a tree listing gives, as JSON and raw; an unknown id is 404 Blob Not Found', async () => {
    const entry = ((await server.call('GET', `${base}/tree`)).body as { name: string; id: string }[]).find((candidate) => candidate.name === 'README.md')!;
    const file = (await server.call('GET', `${base}/files/README.md?ref=main`)).body;
    const text = Buffer.from(file.content, 'base64').toString();
    const blob = await server.call('GET', `${base}/blobs/${entry.id}`);
    expect(blob).toMatchObject({ status: 200, body: { size: file.size, encoding: 'base64', content: file.content, sha: entry.id } });
    expect(Object.keys(blob.body)).toEqual(['size', 'encoding', 'content', 'sha']);
    expect((await server.call('GET', `${base}/blobs/${entry.id.slice(0, 8)}`)).body.sha).toBe(entry.id);
    const raw = await server.call('GET', `${base}/blobs/${entry.id}/raw`);
    expect(raw).toMatchObject({ status: 200, body: text });
    expect(raw.headers.get('content-disposition')).toBe('inline');
    expect(await server.call('GET', `${base}/blobs/abcd9876`)).toMatchObject({ status: 404, body: { message: '404 Blob Not Found' } });
    expect(await server.call('GET', `${base}/blobs/abcd9876/raw`)).toMatchObject({ status: 404, body: { message: '404 Blob Not Found' } });
    // A tree or a commit id is no blob.
    const head = (await server.call('GET', `${base}/commits/main`)).body.id;
    expect(await server.call('GET', `${base}/blobs/${head}`)).toMatchObject({ status: 404, body: { message: '404 Blob Not Found' } });
    expect(await server.call('GET', `${base}/blobs/main`)).toMatchObject({ status: 404, body: { message: '404 Blob Not Found' } });
  });
});

describe('raw files', () => {
  it('names the file in Content-Disposition as send_git_blob does (inline; filename; filename*)', async () => {
    const raw = await server.call('GET', `${base}/files/README.md/raw?ref=main`);
    expect(raw.headers.get('content-disposition')).toBe(`inline; filename="README.md"; filename*=UTF-8''README.md`);
    const name = 'résumé final.txt';
    await server.call('POST', `${base}/files/${encodeURIComponent(name)}`, { branch: 'main', content: 'cv', commit_message: 'CV' }, dev.token);
    const accented = await server.call('GET', `${base}/files/${encodeURIComponent(name)}/raw?ref=main`);
    expect(accented).toMatchObject({ status: 200, body: 'cv' });
    expect(accented.headers.get('content-disposition')).toBe(`inline; filename="resume final.txt"; filename*=UTF-8''r%C3%A9sum%C3%A9%20final.txt`);
  });

  it('sends names beyond ASCII as their UTF-8 bytes, as Rails does (X-Gitlab-File-Name, X-Gitlab-Ref, Content-Disposition)', async () => {
    const name = '日本.txt';
    const path = `${base}/files/${encodeURIComponent(name)}`;
    expect((await server.call('POST', path, { branch: 'main', content: 'nihon', commit_message: 'Japanese' }, dev.token)).status).toBe(201);
    for (const method of ['GET', 'HEAD']) {
      const file = await wire(`${path}?ref=main`, method);
      expect(file.status, method).toBe(200);
      expect(file.header('x-gitlab-file-name')).toEqual(utf8(name));
      expect(file.header('x-gitlab-file-path')).toEqual(utf8(name));
    }
    const raw = await wire(`${path}/raw?ref=main`);
    expect(raw.status).toBe(200);
    expect(raw.body).toEqual(utf8('nihon'));
    expect(raw.header('content-disposition')).toEqual(utf8(`inline; filename="%3F%3F.txt"; filename*=UTF-8''%E6%97%A5%E6%9C%AC.txt`));
    // Latin-1 goes out as UTF-8 too: é is two bytes on the wire.
    expect((await wire(`${base}/files/${encodeURIComponent('résumé final.txt')}?ref=main`)).header('x-gitlab-file-name')).toEqual(utf8('résumé final.txt'));

    expect((await server.call('POST', `${base}/branches`, { branch: '功能', ref: 'main' }, dev.token)).status).toBe(201);
    for (const suffix of ['', '/raw']) {
      const onBranch = await wire(`${base}/files/README.md${suffix}?ref=${encodeURIComponent('功能')}`);
      expect(onBranch.status, suffix).toBe(200);
      expect(onBranch.header('x-gitlab-ref')).toEqual(utf8('功能'));
    }
  });

  it('makes the ASCII filename as I18n.transliterate does (its table, ? for the rest) and escapes it', async () => {
    const name = 'Straße Æsir ø ǎ÷ "q".txt';
    await server.call('POST', `${base}/files/${encodeURIComponent(name)}`, { branch: 'main', content: 'x', commit_message: 'Names' }, dev.token);
    const raw = await wire(`${base}/files/${encodeURIComponent(name)}/raw?ref=main`);
    expect(raw.status).toBe(200);
    expect(raw.header('content-disposition')?.toString('latin1')).toBe(
      `inline; filename="Strasse AEsir o %3F%3F %22q%22.txt"; filename*=UTF-8''Stra%C3%9Fe%20%C3%86sir%20%C3%B8%20%C7%8E%C3%B7%20%22q%22.txt`,
    );
  });
});

describe('archives', () => {
  it('GET /repository/archive[.format] answers the archive Workhorse sends, named after project, ref and commit', async () => {
    const sha = (await server.call('GET', `${base}/commits/main`)).body.id as string;
    const get = async (path: string) => {
      const response = await fetch(`${server.url}/api/v4${base}/${path}`, { headers: { 'PRIVATE-TOKEN': ROOT_TOKEN } });
      return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
    };
    const prefix = `fidelity-main-${sha}`;
    const zip = await get('archive.zip');
    expect(zip.status).toBe(200);
    expect(zip.headers.get('content-type')).toBe('application/zip');
    expect(zip.headers.get('content-disposition')).toBe(`attachment; filename="${prefix}.zip"`);
    expect(zip.bytes.subarray(0, 4).toString('latin1')).toBe('PK\x03\x04');
    expect(zip.bytes.includes(Buffer.from(`${prefix}/README.md`))).toBe(true);

    const tarball = await get('archive');
    expect(tarball.headers.get('content-type')).toBe('application/octet-stream');
    expect(tarball.headers.get('content-disposition')).toBe(`attachment; filename="${prefix}.tar.gz"`);
    expect(gunzipSync(tarball.bytes).includes(Buffer.from(`${prefix}/README.md`))).toBe(true);
    expect((await get('archive.tbz2')).bytes.subarray(0, 3).toString('latin1')).toBe('BZh');
    expect((await get('archive?format=TAR')).headers.get('content-disposition')).toBe(`attachment; filename="${prefix}.tar"`);

    const byRef = await get(`archive.tar?sha=${sha.slice(0, 10)}&path=docs`);
    expect(byRef.headers.get('content-disposition')).toBe(`attachment; filename="fidelity-${sha.slice(0, 10)}-${sha}-docs.tar"`);
    expect(byRef.bytes.includes(Buffer.from('notes.md'))).toBe(true);
    expect(byRef.bytes.includes(Buffer.from('README.md'))).toBe(false);

    expect(await server.call('GET', `${base}/archive.zip?sha=nope`)).toMatchObject({ status: 404, body: { message: '404 File Not Found' } });
    expect(await server.call('GET', `${base}/archive.rar`)).toMatchObject({ status: 404, body: { error: '404 Not Found' } });
  });

  it('names archives of refs and paths beyond ASCII as Workhorse does: the name\'s UTF-8 bytes, quoted as they are', async () => {
    const branch = async (name: string) => {
      await server.call('POST', `${base}/branches`, { branch: name, ref: 'main' }, dev.token);
      return (await server.call('GET', `${base}/branches/${encodeURIComponent(name)}`)).body.commit.id as string;
    };
    const sha = await branch('功能');
    const byRef = await wire(`${base}/archive?sha=${encodeURIComponent('功能')}`);
    expect(byRef.status).toBe(200);
    expect(byRef.header('content-disposition')).toEqual(utf8(`attachment; filename="fidelity-功能-${sha}.tar.gz"`));
    const head = (await server.call('GET', `${base}/commits/main`)).body.id as string;
    const byPath = await wire(`${base}/archive.zip?path=${encodeURIComponent('日本.txt')}`);
    expect(byPath.status).toBe(200);
    expect(byPath.header('content-disposition')).toEqual(utf8(`attachment; filename="fidelity-main-${head}-日本.txt.zip"`));
    // Workhorse formats `attachment; filename="%s"` and escapes nothing.
    const quoted = await branch('a"b');
    expect((await wire(`${base}/archive.tar?sha=${encodeURIComponent('a"b')}`)).header('content-disposition')).toEqual(utf8(`attachment; filename="fidelity-a"b-${quoted}.tar"`));
  });
});

describe('tree', () => {
  it('lists nothing for a path that is no directory at the ref (200 []), and 404 only for an unknown ref', async () => {
    const missing = await server.call('GET', `${base}/tree?path=nope`);
    expect(missing).toMatchObject({ status: 200, body: [] });
    expect(missing.headers.get('x-total')).toBe('0');
    expect(await server.call('GET', `${base}/tree?path=README.md&recursive=true`)).toMatchObject({ status: 200, body: [] });
    expect(await server.call('GET', `${base}/tree?ref=nope`)).toMatchObject({ status: 404, body: { message: '404 Tree Not Found' } });
  });

  it('answers hostile paths and refs alone (no 5xx), and the reads beside them are unharmed (one cat-file per repository)', async () => {
    const readme = (await server.call('GET', `${base}/files/README.md?ref=main`)).body.content as string;
    const listing = (await server.call('GET', `${base}/tree?ref=main`)).body as unknown[];
    const anonymous = (path: string) => server.call('GET', `${base}/${path}`, undefined, null);
    // Gitaly answered no entries for a path outside the repository, as for any path that is no directory.
    const paths = ['..%2Fx', '.%2Fdocs', '..', 'docs%2F..%2F..%2Fx', '%2F..%2F..%2Fetc', '%0A', 'a%0Ab', 'a%0D%0Ab'];
    const refs = ['main%0A', 'main%3AREADME.md', 'main%40%7Bupstream%7D', '%3A%2Fx', '..%2Fx', '-all', 'main%5E%7B%2F%5B%7D'];
    const files = ['.%2FREADME.md', 'README.md%0D'];
    // `check_path_traversal!` also refuses a line break (review-repo).
    const traversals = ['..%2Fx', 'docs%2F..%2FREADME.md', 'a%0Ab', 'README.md%0A'];
    const hostile = [
      ...paths.map(async (path) => expect(await anonymous(`tree?ref=main&path=${path}`), path).toMatchObject({ status: 200, body: [] })),
      ...refs.map(async (ref) => expect(await anonymous(`tree?ref=${ref}`), ref).toMatchObject({ status: 404, body: { message: '404 Tree Not Found' } })),
      ...refs.map(async (ref) => expect(await anonymous(`files/README.md?ref=${ref}`), ref).toMatchObject({ status: 404, body: { message: '404 Commit Not Found' } })),
      ...files.map(async (file) => expect(await anonymous(`files/${file}?ref=main`), file).toMatchObject({ status: 404, body: { message: '404 File Not Found' } })),
      ...traversals.map(async (file) => expect(await anonymous(`files/${file}?ref=main`), file).toMatchObject({ status: 400, body: { error: 'file_path should be a valid file path' } })),
    ];
    const innocent = Array.from({ length: 12 }, async (_, n) => {
      if (n % 2 === 0) expect(await anonymous('files/README.md?ref=main')).toMatchObject({ status: 200, body: { content: readme } });
      else expect(await anonymous('tree?ref=main')).toMatchObject({ status: 200, body: listing });
    });
    await Promise.all([...hostile, ...innocent]);
    expect(await anonymous('tree?ref=main')).toMatchObject({ status: 200, body: listing });
  });
});

// Branches, tags, commits, files and protected refs have no `authenticate!` in 14.7: an anonymous write meets the
// same `authorize!` a signed-in non-member meets (403 on a public project), and `find_project!`'s 404 on a private
// one. `DELETE …/merged_branches` is the exception kept: the platform would fail on the missing user (a 500).
describe('anonymous writes', () => {
  const writes = (repo: string, project: number): [string, string, unknown][] => [
    ['POST', `${repo}/branches`, { branch: 'anon', ref: 'main' }],
    ['DELETE', `${repo}/branches/main`, undefined],
    ['PUT', `${repo}/branches/main/protect`, undefined],
    ['PUT', `${repo}/branches/main/unprotect`, undefined],
    ['POST', `${repo}/tags`, { tag_name: 'anon', ref: 'main' }],
    ['DELETE', `${repo}/tags/anon`, undefined],
    ['POST', `${repo}/commits`, { branch: 'main', commit_message: 'Anon', actions: [{ action: 'create', file_path: 'anon.txt', content: 'x' }] }],
    ['POST', `${repo}/files/anon.txt`, { branch: 'main', commit_message: 'Anon', content: 'x' }],
    ['PUT', `${repo}/files/README.md`, { branch: 'main', commit_message: 'Anon', content: 'x' }],
    ['DELETE', `${repo}/files/README.md`, { branch: 'main', commit_message: 'Anon' }],
    ['GET', `/projects/${project}/protected_branches`, undefined],
    ['POST', `/projects/${project}/protected_branches`, { name: 'anon' }],
    ['DELETE', `/projects/${project}/protected_branches/main`, undefined],
    ['GET', `/projects/${project}/protected_tags`, undefined],
    ['POST', `/projects/${project}/protected_tags`, { name: 'anon' }],
  ];

  it('answers an anonymous write on a public project as it answers a signed-in non-member (403), and changes nothing', async () => {
    const project = (await server.call('POST', '/projects', { name: 'Anon public', initialize_with_readme: true, visibility: 'public' })).body;
    const outsider = await member(server, 'anon-outsider');
    const head = async () => (await server.call('GET', `/projects/${project.id}/repository/branches/main`)).body.commit.id;
    const before = await head();
    for (const [method, path, body] of writes(`/projects/${project.id}/repository`, project.id)) {
      const signedIn = await server.call(method, path, body, outsider.token);
      const anonymous = await server.call(method, path, body, null);
      expect({ method, path, status: anonymous.status, body: anonymous.body }).toEqual({ method, path, status: signedIn.status, body: signedIn.body });
      expect({ method, path, status: anonymous.status }).toEqual({ method, path, status: 403 });
    }
    expect(await head()).toBe(before);
    expect((await server.call('GET', `/projects/${project.id}/repository/tags`)).body).toEqual([]);
    expect(await server.call('DELETE', `/projects/${project.id}/repository/merged_branches`, undefined, null)).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
  });

  it('answers 404 "Project Not Found" to an anonymous write on a private project', async () => {
    const project = (await server.call('POST', '/projects', { name: 'Anon private', initialize_with_readme: true })).body;
    for (const [method, path, body] of writes(`/projects/${project.id}/repository`, project.id)) {
      expect({ method, path, ...(await server.call(method, path, body, null)) }).toMatchObject({ method, path, status: 404, body: { message: '404 Project Not Found' } });
    }
  });
});

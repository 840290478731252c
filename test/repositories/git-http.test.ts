/**
 * Git over HTTP with the real git client against a real server: clone, commit, push a branch and an annotated
 * tag (seen by the tags API and in the event log with the pusher), a push to a protected tag refused, the
 * authentication and permission answers of the platform.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, clientEnv } from '../git/support.js';
import { ROOT_TOKEN, member, newDataDir, removeDir, start, type Running } from './support.js';

let server: Running;
let dataDir: string;
let work: string;
let project: { id: number; path_with_namespace: string };
let dev: { id: number; token: string };
let reporter: { id: number; token: string };

const env = () => clientEnv(work);
const url = (user: string | null, token: string | null, path = project.path_with_namespace) => {
  const { host } = new URL(server.url);
  return `http://${user !== null ? `${encodeURIComponent(user)}:${encodeURIComponent(token ?? '')}@` : ''}${host}/${path}.git`;
};

beforeAll(async () => {
  dataDir = newDataDir();
  work = mkdtempSync(join(tmpdir(), 'forgefold-client-'));
  server = await start(dataDir);
  project = (await server.call('POST', '/projects', { name: 'Cloned', initialize_with_readme: true })).body;
  dev = await member(server, 'dev', { id: project.id, level: 30 });
  reporter = await member(server, 'reporter', { id: project.id, level: 20 });
});
afterAll(async () => {
  await server.close();
  removeDir(dataDir);
  removeDir(work);
});

describe('git over HTTP', () => {
  it('clones, then pushes a branch and an annotated tag; the API and the log see them with the pusher', async () => {
    const clone = await client(work, ['clone', '--quiet', url('dev', dev.token), 'repo'], env());
    expect(clone.code, clone.stderr).toBe(0);
    const repo = join(work, 'repo');
    expect((await client(repo, ['log', '--format=%s'], env())).stdout.trim()).toBe('Initial commit');

    await client(repo, ['checkout', '-q', '-b', 'topic'], env());
    await client(repo, ['commit', '-q', '--allow-empty', '-m', 'Pushed work'], env());
    await client(repo, ['tag', '-a', 'v2.0', '-m', 'Version 2'], env());
    const push = await client(repo, ['push', '-q', 'origin', 'topic', 'v2.0'], env());
    expect(push.code, push.stderr).toBe(0);
    const head = (await client(repo, ['rev-parse', 'HEAD'], env())).stdout.trim();

    const tag = await server.call('GET', `/projects/${project.id}/repository/tags/v2.0`, undefined, dev.token);
    expect(tag.body).toMatchObject({ name: 'v2.0', message: 'Version 2', commit: { id: head, title: 'Pushed work' } });
    const pushed = server.events.filter((event) => (event.data as { via?: string }).via === 'push');
    expect(pushed.map((event) => [event.type, (event.data as { name: string }).name, event.metadata.actorId])).toEqual([
      ['BranchCreated', 'topic', dev.id],
      ['TagCreated', 'v2.0', dev.id],
    ]);
    expect(pushed[1]!.data).toMatchObject({ commit_sha: head, message: 'Version 2', tagger: { name: 'Client User', email: 'client@example.com' } });

    // A fast-forward and a force push of the branch, then its deletion.
    await client(repo, ['commit', '-q', '--allow-empty', '-m', 'More'], env());
    expect((await client(repo, ['push', '-q', 'origin', 'topic'], env())).code).toBe(0);
    await client(repo, ['reset', '-q', '--hard', 'HEAD~2'], env());
    await client(repo, ['commit', '-q', '--allow-empty', '-m', 'Rewritten'], env());
    expect((await client(repo, ['push', '-q', '--force', 'origin', 'topic'], env())).code).toBe(0);
    expect((await client(repo, ['push', '-q', 'origin', ':topic'], env())).code).toBe(0);
    const moves = server.events.filter((event) => event.type.startsWith('Branch') && (event.data as { name: string }).name === 'topic').map((event) => [event.type, (event.data as { forced?: boolean }).forced]);
    expect(moves).toEqual([
      ['BranchCreated', undefined],
      ['BranchUpdated', false],
      ['BranchUpdated', true],
      ['BranchDeleted', undefined],
    ]);
  });

  it('clones again after an API commit and a push and gets the new refs (reused answers end with the refs they saw)', async () => {
    const other = (await server.call('POST', '/projects', { name: 'Recloned', initialize_with_readme: true })).body;
    const remote = url('root', ROOT_TOKEN, other.path_with_namespace);
    for (const protocol of ['0', '2']) {
      const first = await client(work, ['-c', `protocol.version=${protocol}`, 'clone', '--quiet', remote, `again-${protocol}-1`], env());
      expect(first.code, first.stderr).toBe(0);
      const commit = await server.call('POST', `/projects/${other.id}/repository/commits`, {
        branch: 'main',
        commit_message: `Through the API ${protocol}`,
        actions: [{ action: 'create', file_path: `api-${protocol}.txt`, content: 'api\n' }],
      });
      expect(commit.status).toBe(201);
      const second = await client(work, ['-c', `protocol.version=${protocol}`, 'clone', '--quiet', remote, `again-${protocol}-2`], env());
      expect(second.code, second.stderr).toBe(0);
      expect((await client(join(work, `again-${protocol}-2`), ['rev-parse', 'HEAD'], env())).stdout.trim()).toBe(commit.body.id);
      const repo = join(work, `again-${protocol}-2`);
      await client(repo, ['commit', '-q', '--allow-empty', '-m', `Pushed ${protocol}`], env());
      expect((await client(repo, ['push', '-q', 'origin', 'main'], env())).code).toBe(0);
      const pushed = (await client(repo, ['rev-parse', 'HEAD'], env())).stdout.trim();
      const third = await client(work, ['-c', `protocol.version=${protocol}`, 'clone', '--quiet', remote, `again-${protocol}-3`], env());
      expect(third.code, third.stderr).toBe(0);
      expect((await client(join(work, `again-${protocol}-3`), ['rev-parse', 'HEAD'], env())).stdout.trim()).toBe(pushed);
    }
  });

  it('refuses a push to a protected tag and to a protected branch, with the platform message, and records nothing', async () => {
    await server.call('POST', `/projects/${project.id}/protected_tags`, { name: 'release-*', create_access_level: 40 });
    await server.call('POST', `/projects/${project.id}/protected_branches`, { name: 'main', push_access_level: 40, merge_access_level: 40 });
    const repo = join(work, 'repo');
    await client(repo, ['checkout', '-q', 'main'], env());
    await client(repo, ['commit', '-q', '--allow-empty', '-m', 'On main'], env());
    await client(repo, ['tag', '-a', 'release-1', '-m', 'Release 1'], env());
    const before = server.events.length;
    const tagPush = await client(repo, ['push', 'origin', 'release-1'], env());
    expect(tagPush.code).not.toBe(0);
    expect(tagPush.stderr).toContain('remote: GitLab: You are not allowed to create this tag as it is protected.');
    expect(tagPush.stderr).toContain('pre-receive hook declined');
    const branchPush = await client(repo, ['push', 'origin', 'main'], env());
    expect(branchPush.stderr).toContain('remote: GitLab: You are not allowed to push code to protected branches on this project.');
    expect(server.events.length).toBe(before);
    expect((await server.call('GET', `/projects/${project.id}/repository/tags/release-1`)).status).toBe(404);
  });

  it('answers 401 with WWW-Authenticate to anonymous callers of a private project, 403 to a reporter pushing', async () => {
    const info = await fetch(`${server.url}/${project.path_with_namespace}.git/info/refs?service=git-upload-pack`);
    expect(info.status).toBe(401);
    expect(info.headers.get('www-authenticate')).toBe('Basic realm="GitLab"');
    const wrong = await fetch(`${server.url}/${project.path_with_namespace}.git/info/refs?service=git-upload-pack`, { headers: { Authorization: `Basic ${Buffer.from('dev:nope').toString('base64')}` } });
    expect(wrong.status).toBe(401);
    const missing = await fetch(`${server.url}/root/nope.git/info/refs?service=git-upload-pack`, { headers: { Authorization: `Basic ${Buffer.from(`dev:${dev.token}`).toString('base64')}` } });
    expect(missing.status).toBe(404);

    const reporterClone = await client(work, ['clone', '--quiet', url('reporter', reporter.token), 'reporter-repo'], env());
    expect(reporterClone.code, reporterClone.stderr).toBe(0);
    const repo = join(work, 'reporter-repo');
    await client(repo, ['commit', '-q', '--allow-empty', '-m', 'Nope'], env());
    const push = await client(repo, ['push', 'origin', 'HEAD:refs/heads/reporter'], env());
    expect(push.code).not.toBe(0);
    expect(push.stderr).toContain('You are not allowed to push code to this project.');

    // Scopes (`Gitlab::Auth#abilities_for_scopes`, `GitAccess` `auth_download`/`auth_upload`): `read_api` reads code
    // and pushes none; `read_user` does neither.
    const scoped = async (scopes: string[]) => (await server.call('POST', `/users/${dev.id}/personal_access_tokens`, { name: scopes.join(), scopes })).body.token as string;
    const readApi = await scoped(['read_api']);
    expect((await client(work, ['clone', '--quiet', url('dev', readApi), 'read-api-repo'], env())).code).toBe(0);
    const readOnly = join(work, 'read-api-repo');
    await client(readOnly, ['commit', '-q', '--allow-empty', '-m', 'Nope'], env());
    const readApiPush = await client(readOnly, ['push', 'origin', 'HEAD:refs/heads/read-api'], env());
    expect(readApiPush.code).not.toBe(0);
    expect(readApiPush.stderr).toContain('You are not allowed to upload code.');
    const readUser = await client(work, ['ls-remote', url('dev', await scoped(['read_user']))], env());
    expect(readUser.code).not.toBe(0);
    expect(readUser.stderr).toContain('You are not allowed to download code.');
    // Scopes are checked before the project is looked at (`GitAccess#check` order): a missing project is not told.
    const elsewhere = await fetch(`${server.url}/root/nope.git/info/refs?service=git-upload-pack`, { headers: { Authorization: `Basic ${Buffer.from(`dev:${await scoped(['read_user'])}`).toString('base64')}` } });
    expect([elsewhere.status, await elsewhere.text()]).toEqual([403, 'You are not allowed to download code.\n']);

    // `oauth2` with a token works like any login with a personal access token; a password login works too.
    expect((await client(work, ['ls-remote', url('oauth2', dev.token)], env())).code).toBe(0);
    expect((await client(work, ['ls-remote', url('dev', 'password-123')], env())).code).toBe(0);
  });

  it('answers a request body git cannot read with 400 and a short text, never git\'s stderr; clones and pushes go on', async () => {
    const auth = { Authorization: `Basic ${Buffer.from(`dev:${dev.token}`).toString('base64')}` };
    const bodies = { empty: '', garbage: 'garbage', flush: '0009done\n', a100k: 'A'.repeat(100 * 1024) };
    for (const service of ['git-upload-pack', 'git-receive-pack']) {
      for (const [name, body] of Object.entries(bodies)) {
        const response = await fetch(`${server.url}/${project.path_with_namespace}.git/${service}`, {
          method: 'POST',
          headers: { ...auth, 'Content-Type': `application/x-${service}-request` },
          body,
        });
        const text = await response.text();
        expect(response.status, `${service} ${name}`).toBe(400);
        expect(text, `${service} ${name}`).toBe('The request is not one git understands\n');
      }
    }
    const clone = await client(work, ['clone', '--quiet', url('dev', dev.token), 'after-garbage'], env());
    expect(clone.code, clone.stderr).toBe(0);
    const repo = join(work, 'after-garbage');
    await client(repo, ['commit', '-q', '--allow-empty', '-m', 'After garbage'], env());
    const push = await client(repo, ['push', '-q', 'origin', 'HEAD:refs/heads/after-garbage'], env());
    expect(push.code, push.stderr).toBe(0);
  });

  it('lets anyone clone a public project', async () => {
    const open = (await server.call('POST', '/projects', { name: 'Open', visibility: 'public', initialize_with_readme: true })).body;
    const clone = await client(work, ['clone', '--quiet', url(null, null, open.path_with_namespace), 'open'], env());
    expect(clone.code, clone.stderr).toBe(0);
  });
});

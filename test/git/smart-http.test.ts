/**
 * Smart HTTP end to end: the real git client against a tiny node:http server on 127.0.0.1 that serves the
 * engine's handler with basic auth, a push policy (protected tags, no force push to main) and an event list.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RefChange, Repository } from '@forgefold/git';
import { client, clientEnv, ok, signature, storage, type Storage } from './support.js';

let store: Storage;
let server: Server;
let base: string;
let home: string;
let env: NodeJS.ProcessEnv;
const events: { pusher: string; updates: readonly RefChange[] }[] = [];
const protocols: (string | undefined)[] = [];
const checks: RefChange[][] = [];

const PROJECT = 7;
const PRIVATE_PROJECT = 8;
/** Served with a refs version (below): its upload-pack answers are reused while the version holds. */
const CACHED_PROJECT = 10;
let cachedVersion = 1;
const author = signature('2024-01-02T03:04:05.000Z');

const basicUser = (header: string | undefined): string | null => {
  if (!header?.startsWith('Basic ')) return null;
  const [user, token] = Buffer.from(header.slice(6), 'base64').toString('utf8').split(':');
  // A username with its token, or `oauth2` with a token: the caller's concern, as the engine leaves it.
  return token === 'secret' && (user === 'alice' || user === 'oauth2') ? user : null;
};

beforeAll(async () => {
  store = await storage();
  home = await mkdtemp(join(tmpdir(), 'ff-client-'));
  env = clientEnv(home);
  await ok(store.repositories.create(PROJECT, { readme: { author, committer: author, content: '# Served\n' } }));
  await ok(store.repositories.create(PRIVATE_PROJECT, { readme: { author, committer: author, content: '# Private\n' } }));
  await ok(store.repositories.create(CACHED_PROJECT, { readme: { author, committer: author, content: '# Cached\n' } }));
  server = createServer((req, res) => {
    const match = /^\/(\d+)\.git\/(.*)$/.exec(new URL(req.url ?? '/', 'http://x').pathname);
    if (!match) {
      res.writeHead(404).end();
      return;
    }
    const project = Number(match[1]);
    const pusher = basicUser(req.headers.authorization);
    void store.repositories.serveHttp(project, req, res, {
      path: match[2]!,
      ...(project === CACHED_PROJECT ? { refsVersion: String(cachedVersion) } : {}),
      authorize: async (service) => {
        protocols.push(req.headers['git-protocol'] as string | undefined);
        if (pusher === null && (project === PRIVATE_PROJECT || service === 'git-receive-pack')) return { allowed: false, status: 401 };
        if (pusher === 'oauth2' && service === 'git-receive-pack') return { allowed: false, status: 403, message: 'You are not allowed to push code to this project.\n' };
        return { allowed: true };
      },
      push: {
        check: async (updates, context) => {
          checks.push([...updates]);
          for (const update of updates) {
            if (update.ref.startsWith('refs/tags/protected')) return { accepted: false, message: 'GitLab: You are not allowed to create this tag as it is protected.' };
            if (update.ref === 'refs/heads/main' && update.oldSha && update.newSha && !(await context.isAncestor(update.oldSha, update.newSha))) {
              return { accepted: false, message: 'GitLab: You are not allowed to force push code to a protected branch on this project.' };
            }
          }
          return { accepted: true };
        },
        received: async (updates) => {
          events.push({ pusher: pusher ?? 'anonymous', updates });
        },
      },
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await store.dispose();
  // The client's home holds the clones too.
  await rm(home, { recursive: true, force: true });
});

const url = (project: number, credentials = 'alice:secret@') => `${base.replace('http://', `http://${credentials}`)}/${project}.git`;

const clone = async (protocol: 0 | 2, project = PROJECT, credentials?: string) => {
  const dir = await mkdtemp(join(home, 'clone-'));
  const result = await client(dir, ['-c', `protocol.version=${protocol}`, 'clone', '--quiet', url(project, credentials), 'work'], env);
  return { ...result, work: join(dir, 'work') };
};

const repository = (): Repository => store.repositories.open(PROJECT);

describe('smart HTTP', () => {
  it('clones over protocol v0 and v2 with the advertised shas', async () => {
    const head = (await ok(repository().findBranch('main'))).commit.id;
    for (const protocol of [0, 2] as const) {
      protocols.length = 0;
      const cloned = await clone(protocol);
      expect(cloned.code, cloned.stderr).toBe(0);
      expect(await readFile(join(cloned.work, 'README.md'), 'utf8')).toBe('# Served\n');
      expect((await client(cloned.work, ['rev-parse', 'HEAD'], env)).stdout.trim()).toBe(head);
      expect(protocols.every((p) => (protocol === 2 ? p === 'version=2' : p === undefined))).toBe(true);
    }
  });

  it('reuses upload-pack answers while the refs version holds, and asks git again once it changes', async () => {
    const cached = store.repositories.open(CACHED_PROJECT);
    const first = (await ok(cached.findBranch('main'))).commit.id;
    for (const protocol of [0, 2] as const) {
      const cloned = await clone(protocol, CACHED_PROJECT);
      expect(cloned.code, cloned.stderr).toBe(0);
      expect((await client(cloned.work, ['rev-parse', 'HEAD'], env)).stdout.trim()).toBe(first);
    }
    // A move the version does not know of: the answers kept are replayed (the caller's token is the contract).
    const moved = await ok(cached.commitFiles({ branch: 'main', commit_message: 'Second', actions: [{ action: 'create', file_path: 'two.txt', content: '2\n' }], author, committer: author }));
    for (const protocol of [0, 2] as const) {
      const again = await clone(protocol, CACHED_PROJECT);
      expect(again.code, again.stderr).toBe(0);
      expect((await client(again.work, ['rev-parse', 'HEAD'], env)).stdout.trim()).toBe(first);
    }
    // A new version: git answers again.
    cachedVersion++;
    for (const protocol of [0, 2] as const) {
      const fresh = await clone(protocol, CACHED_PROJECT);
      expect(fresh.code, fresh.stderr).toBe(0);
      expect((await client(fresh.work, ['rev-parse', 'HEAD'], env)).stdout.trim()).toBe(moved.commit.id);
      expect(await readFile(join(fresh.work, 'two.txt'), 'utf8')).toBe('2\n');
    }
  });

  it('answers 401 with a Basic challenge to an anonymous client of a private project, 403 when refused', async () => {
    const response = await fetch(`${base}/${PRIVATE_PROJECT}.git/info/refs?service=git-upload-pack`);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Basic realm="GitLab"');
    const anonymous = await clone(0, PRIVATE_PROJECT, '');
    expect(anonymous.code).not.toBe(0);
    const withToken = await clone(2, PRIVATE_PROJECT, 'oauth2:secret@');
    expect(withToken.code, withToken.stderr).toBe(0);
    const refused = await fetch(`${base}/${PROJECT}.git/info/refs?service=git-receive-pack`, { headers: { authorization: `Basic ${Buffer.from('oauth2:secret').toString('base64')}` } });
    expect(refused.status).toBe(403);
    expect(await refused.text()).toBe('You are not allowed to push code to this project.\n');
  });

  it('serves the advertisement with the preamble only for v0/v1, and the right content types', async () => {
    const v0 = await fetch(`${base}/${PROJECT}.git/info/refs?service=git-upload-pack`);
    expect(v0.headers.get('content-type')).toBe('application/x-git-upload-pack-advertisement');
    expect(v0.headers.get('cache-control')).toContain('no-cache');
    expect((await v0.text()).startsWith('001e# service=git-upload-pack\n0000')).toBe(true);
    const v2 = await fetch(`${base}/${PROJECT}.git/info/refs?service=git-upload-pack`, { headers: { 'git-protocol': 'version=2' } });
    expect((await v2.text()).startsWith('000eversion 2\n')).toBe(true);
    const push = await fetch(`${base}/${PROJECT}.git/info/refs?service=git-receive-pack`, { headers: { authorization: `Basic ${Buffer.from('alice:secret').toString('base64')}`, 'git-protocol': 'version=2' } });
    expect(push.headers.get('content-type')).toBe('application/x-git-receive-pack-advertisement');
    expect((await push.text()).startsWith('001f# service=git-receive-pack\n0000')).toBe(true);
    expect((await fetch(`${base}/${PROJECT}.git/info/refs`)).status).toBe(403);
    expect((await fetch(`${base}/${PROJECT}.git/objects/info/packs`)).status).toBe(404);
    expect((await fetch(`${base}/4242.git/info/refs?service=git-upload-pack`)).status).toBe(404);
  });

  it('reads a gzip request body', async () => {
    const pkt = (line: string) => `${(line.length + 4).toString(16).padStart(4, '0')}${line}`;
    const body = gzipSync(Buffer.from(`${pkt('command=ls-refs\n')}0001${pkt('ref-prefix refs/heads/\n')}0000`));
    const response = await fetch(`${base}/${PROJECT}.git/git-upload-pack`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-git-upload-pack-request', 'content-encoding': 'gzip', 'git-protocol': 'version=2' },
      body,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/x-git-upload-pack-result');
    const head = (await ok(repository().findBranch('main'))).commit.id;
    expect(await response.text()).toContain(`${head} refs/heads/main`);
  });

  it('reads gzip bodies that inflate past what is read ahead, and refuses a broken one', async () => {
    const pkt = (line: string) => `${(line.length + 4).toString(16).padStart(4, '0')}${line}`;
    const head = (await ok(repository().findBranch('main'))).commit.id;
    // 6,000 `have` lines of unknown commits (300 KB inflated, a few KB compressed): upload-pack answers NAK and the pack.
    const haves = Array.from({ length: 6_000 }, (_, i) => pkt(`have ${i.toString(16).padStart(40, 'f')}\n`)).join('');
    const request = `${pkt(`want ${head} multi_ack_detailed side-band-64k ofs-delta\n`)}0000${haves}${pkt('done\n')}`;
    const post = (body: Buffer) =>
      fetch(`${base}/${PROJECT}.git/git-upload-pack`, { method: 'POST', headers: { 'content-type': 'application/x-git-upload-pack-request', 'content-encoding': 'gzip' }, body });
    const response = await post(gzipSync(Buffer.from(request)));
    expect(response.status).toBe(200);
    const answer = Buffer.from(await response.arrayBuffer());
    expect(answer.subarray(0, 8).toString('latin1')).toBe('0008NAK\n');
    expect(answer.includes('PACK')).toBe(true);
    const broken = await post(Buffer.from('not gzip at all'));
    expect(broken.status).toBe(400);
  });

  it('pushes a branch and an annotated tag, and reports the ref changes after receive-pack', async () => {
    const { work } = await clone(2);
    const before = (await ok(repository().findBranch('main'))).commit.id;
    await writeFile(join(work, 'pushed.txt'), 'pushed\n');
    await client(work, ['add', 'pushed.txt'], env);
    await client(work, ['commit', '--quiet', '-m', 'Pushed'], env);
    await client(work, ['tag', '-a', 'v1.0', '-m', 'Release 1.0'], env);
    await client(work, ['branch', 'feature'], env);
    const pushedSha = (await client(work, ['rev-parse', 'HEAD'], env)).stdout.trim();
    const tagSha = (await client(work, ['rev-parse', 'v1.0'], env)).stdout.trim();
    events.length = 0;
    const pushed = await client(work, ['push', '--quiet', 'origin', 'main', 'feature', 'v1.0'], env);
    expect(pushed.code, pushed.stderr).toBe(0);
    expect(events).toHaveLength(1);
    expect(events[0]!.pusher).toBe('alice');
    expect([...events[0]!.updates].sort((a, b) => a.ref.localeCompare(b.ref))).toEqual([
      { ref: 'refs/heads/feature', oldSha: null, newSha: pushedSha },
      { ref: 'refs/heads/main', oldSha: before, newSha: pushedSha },
      { ref: 'refs/tags/v1.0', oldSha: null, newSha: tagSha },
    ]);
    expect(await ok(repository().findTag('v1.0'))).toMatchObject({ message: 'Release 1.0', annotated: true, target: tagSha, commit: { id: pushedSha } });
    // A deletion is a change to null.
    events.length = 0;
    expect((await client(work, ['push', '--quiet', 'origin', ':feature'], env)).code).toBe(0);
    expect(events[0]!.updates).toEqual([{ ref: 'refs/heads/feature', oldSha: pushedSha, newSha: null }]);
  });

  it('refuses a push the policy refuses: the message reaches the client and no ref moves', async () => {
    const { work } = await clone(0);
    const refsBefore = await ok(repository().refs());
    await client(work, ['tag', 'protected-1'], env);
    events.length = 0;
    const refused = await client(work, ['push', 'origin', 'protected-1'], env);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('remote: GitLab: You are not allowed to create this tag as it is protected.');
    expect(refused.stderr).toContain('pre-receive hook declined');
    expect(await ok(repository().refs())).toEqual(refsBefore);
    expect(events).toEqual([]);
  });

  it('lets the policy see the pushed objects (a force push is told from a fast-forward)', async () => {
    const { work } = await clone(2);
    const refsBefore = await ok(repository().refs());
    await client(work, ['commit', '--quiet', '--amend', '-m', 'Rewritten'], env);
    const forced = await client(work, ['push', '--force', 'origin', 'main'], env);
    expect(forced.stderr).toContain('remote: GitLab: You are not allowed to force push code to a protected branch on this project.');
    expect(await ok(repository().refs())).toEqual(refsBefore);
  });

  it('clones an empty repository and takes its first push', async () => {
    const EMPTY = 9;
    await ok(store.repositories.create(EMPTY, { default_branch: 'trunk' }));
    const cloned = await clone(2, EMPTY);
    expect(cloned.code, cloned.stderr).toBe(0);
    await writeFile(join(cloned.work, 'first.txt'), 'first\n');
    await client(cloned.work, ['add', 'first.txt'], env);
    await client(cloned.work, ['commit', '--quiet', '-m', 'First'], env);
    events.length = 0;
    const pushed = await client(cloned.work, ['push', '--quiet', 'origin', 'HEAD:trunk'], env);
    expect(pushed.code, pushed.stderr).toBe(0);
    const head = (await client(cloned.work, ['rev-parse', 'HEAD'], env)).stdout.trim();
    expect(events[0]!.updates).toEqual([{ ref: 'refs/heads/trunk', oldSha: null, newSha: head }]);
    expect((await ok(store.repositories.open(EMPTY).findBranch('trunk'))).commit.message).toBe('First\n');
  });

  it('refuses a push straight into the directory, past the server', async () => {
    const { work } = await clone(2);
    await client(work, ['commit', '--quiet', '--allow-empty', '-m', 'Sneaky'], env);
    const direct = await client(work, ['push', store.repositories.pathOf(PROJECT), 'HEAD:refs/heads/sneaky'], env);
    expect(direct.code).not.toBe(0);
    expect(direct.stderr).toContain('Pushes are accepted only through the Forgefold server.');
    expect((await ok(repository().refs()))['refs/heads/sneaky']).toBeUndefined();
  });
});

/**
 * Ref advertisements answered from the ref files (packages/git/src/ref-advertisement.ts): byte for byte what
 * `git upload-pack --stateless-rpc` answers to the same request, over loose and packed refs, annotated tags (a
 * tag of a tag too), a loose ref shadowing a packed one, refs under other namespaces; and without starting
 * `upload-pack` (a wrapper on PATH counts the git processes the server starts).
 */
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAllRefFiles, readHeadBranch } from '@forgefold/git';
import { clientEnv, ok, run, signature, storage, type Storage } from './support.js';

let store: Storage;
let server: Server;
let base: string;
let gitDir: string;
let wrapperDir: string;
let spawnLog: string;
const savedPath = process.env.PATH;
let version = 0;
const PROJECT = 3;
const author = signature('2024-01-02T03:04:05.000Z');

const gitIn = async (args: readonly string[], env: Record<string, string> = {}, input?: Buffer) => {
  const child = run('git', [`--git-dir=${gitDir}`, ...args], { env: { ...clientEnv(tmpdir(), { PATH: savedPath ?? '' }), ...env }, encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 });
  if (input !== undefined) {
    // `--advertise-refs` exits without reading its input: a write racing that exit fails with EPIPE, which is not
    // the test's concern (what git answered is), and unhandled it fails the whole run.
    child.child.stdin!.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
    });
    child.child.stdin!.end(input);
  }
  return (await child).stdout as unknown as Buffer;
};

const pkt = (line: string) => `${(Buffer.byteLength(line) + 4).toString(16).padStart(4, '0')}${line}`;

const lsRefsBody = (args: readonly string[]) => Buffer.from(`${pkt('command=ls-refs\n')}${pkt('agent=git/2.39.5\n')}${pkt('object-format=sha1\n')}0001${args.map((arg) => pkt(`${arg}\n`)).join('')}0000`);

/** git's own answer, run directly (no server). */
const gitAnswer = (body: Buffer | null, protocol: string | null) =>
  gitIn(['upload-pack', '--stateless-rpc', ...(body === null ? ['--advertise-refs'] : []), '--strict', gitDir], protocol === null ? {} : { GIT_PROTOCOL: protocol }, body ?? Buffer.alloc(0));

const served = async (body: Buffer | null, protocol: string | null): Promise<Buffer> => {
  const headers: Record<string, string> = protocol === null ? {} : { 'Git-Protocol': protocol };
  const response =
    body === null
      ? await fetch(`${base}/${PROJECT}.git/info/refs?service=git-upload-pack`, { headers })
      : await fetch(`${base}/${PROJECT}.git/git-upload-pack`, { method: 'POST', headers: { ...headers, 'Content-Type': 'application/x-git-upload-pack-request' }, body });
  expect(response.status).toBe(200);
  return Buffer.from(await response.arrayBuffer());
};

const uploadPacksStarted = async () => (await readFile(spawnLog, 'utf8').catch(() => '')).split('\n').filter((line) => line.includes('upload-pack')).length;

beforeAll(async () => {
  store = await storage();
  wrapperDir = await mkdtemp(join(tmpdir(), 'ff-gitwrap-'));
  spawnLog = join(wrapperDir, 'spawned.log');
  const realGit = (await run('sh', ['-c', 'command -v git'])).stdout.trim();
  await writeFile(join(wrapperDir, 'git'), `#!/bin/sh\necho "$*" >> ${spawnLog}\nexec ${realGit} "$@"\n`);
  await chmod(join(wrapperDir, 'git'), 0o755);
  process.env.PATH = `${wrapperDir}:${savedPath ?? ''}`;
  await ok(store.repositories.create(PROJECT, { readme: { author, committer: author, content: '# Refs\n' } }));
  gitDir = store.repositories.pathOf(PROJECT);
  const head = (await gitIn(['rev-parse', 'refs/heads/main'])).toString().trim();
  const tagOf = async (name: string, object: string, type = 'commit') =>
    (await gitIn(['mktag'], {}, Buffer.from(`object ${object}\ntype ${type}\ntag ${name}\ntagger T <t@example.com> 1700000000 +0000\n\n${name}\n`))).toString().trim();
  const annotated = await tagOf('v1.0', head);
  const nested = await tagOf('nested', annotated, 'tag');
  await gitIn(['update-ref', 'refs/tags/v1.0', annotated]);
  await gitIn(['update-ref', 'refs/tags/nested', nested]);
  await gitIn(['update-ref', 'refs/tags/light', head]);
  await gitIn(['update-ref', 'refs/heads/feature/ü', head]);
  await gitIn(['update-ref', 'refs/merge-requests/1/head', head]);
  await gitIn(['pack-refs', '--all', '--prune']);
  // Loose refs after packing: a new annotated tag, and a branch shadowing its packed value.
  await ok(store.repositories.open(PROJECT).commitFiles({ branch: 'main', commit_message: 'Two', actions: [{ action: 'create', file_path: 'two.txt', content: '2\n' }], author, committer: author }));
  const second = (await gitIn(['rev-parse', 'refs/heads/main'])).toString().trim();
  await gitIn(['update-ref', 'refs/tags/v2.0', await tagOf('v2.0', second)]);
  await gitIn(['update-ref', 'refs/heads/after', second]);
  await gitIn(['update-ref', '-d', 'refs/tags/light']);

  server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname.replace(`/${PROJECT}.git/`, '');
    // A new refs version per request: nothing is answered from the cache of whole answers.
    void store.repositories.serveHttp(PROJECT, req, res, { path, refsVersion: String(++version), authorize: async () => ({ allowed: true }) });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  process.env.PATH = savedPath;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await store.dispose();
  await rm(wrapperDir, { recursive: true, force: true });
});

describe('ref advertisements without upload-pack', () => {
  it('answers v2 ls-refs as git does, for every combination of arguments, without starting upload-pack', async () => {
    const requests = [
      ['peel', 'symrefs', 'unborn', 'ref-prefix HEAD', 'ref-prefix refs/heads/', 'ref-prefix refs/tags/'],
      [],
      ['symrefs'],
      ['peel'],
      ['ref-prefix refs/tags/v', 'peel'],
      ['ref-prefix refs/heads/feature/', 'ref-prefix refs/heads/', 'symrefs'],
      ['ref-prefix HEAD'],
      ['ref-prefix refs/nothing/'],
    ];
    const before = await uploadPacksStarted();
    const ours = [];
    for (const args of requests) ours.push(await served(lsRefsBody(args), 'version=2'));
    expect(await uploadPacksStarted()).toBe(before);
    for (const [index, args] of requests.entries()) {
      expect(ours[index]!.toString('utf8'), args.join(',')).toBe((await gitAnswer(lsRefsBody(args), 'version=2')).toString('utf8'));
    }
  });

  it('answers v2 capabilities as git did the first time, and v0 advertisements from the refs once git gave its capabilities', async () => {
    const expectedV2 = (await gitAnswer(null, 'version=2')).toString('utf8');
    expect((await served(null, 'version=2')).toString('utf8')).toBe(expectedV2);
    const v0 = async () => (await served(null, null)).toString('utf8');
    const expectedV0 = `001e# service=git-upload-pack\n0000${(await gitAnswer(null, null)).toString('utf8')}`;
    // The first answer of each is git's; from then on no upload-pack starts.
    expect(await v0()).toBe(expectedV0);
    const before = await uploadPacksStarted();
    expect((await served(null, 'version=2')).toString('utf8')).toBe(expectedV2);
    expect(await v0()).toBe(expectedV0);
    // HEAD moved to another branch: the capabilities name it.
    await gitIn(['symbolic-ref', 'HEAD', 'refs/heads/after']);
    const moved = await v0();
    expect(await uploadPacksStarted()).toBe(before);
    expect(moved).toBe(`001e# service=git-upload-pack\n0000${(await gitAnswer(null, null)).toString('utf8')}`);
    expect(moved).toContain('symref=HEAD:refs/heads/after');
    await gitIn(['symbolic-ref', 'HEAD', 'refs/heads/main']);
  });

  it('asks git when the refs are not plain (a symbolic ref under refs/), and git answers', async () => {
    await gitIn(['symbolic-ref', 'refs/heads/alias', 'refs/heads/main']);
    try {
      const before = await uploadPacksStarted();
      const body = lsRefsBody(['symrefs', 'peel']);
      expect((await served(body, 'version=2')).toString('utf8')).toBe((await gitAnswer(body, 'version=2')).toString('utf8'));
      expect(await uploadPacksStarted()).toBeGreaterThan(before);
    } finally {
      await gitIn(['symbolic-ref', '--delete', 'refs/heads/alias']);
    }
  });

  it('reads every ref and HEAD from the files as for-each-ref and symbolic-ref list them (start-up alignment), else defers to git', async () => {
    const listed = (await gitIn(['for-each-ref', '--format=%(refname) %(objectname)'])).toString('utf8').trim().split('\n');
    expect([...readAllRefFiles(gitDir)!].map(([name, sha]) => `${name} ${sha}`).sort()).toEqual([...listed].sort());
    expect(readHeadBranch(gitDir)).toBe((await gitIn(['symbolic-ref', 'HEAD'])).toString('utf8').trim().replace('refs/heads/', ''));
    await gitIn(['symbolic-ref', 'refs/heads/alias', 'refs/heads/main']);
    try {
      expect(readAllRefFiles(gitDir)).toBeNull();
    } finally {
      await gitIn(['symbolic-ref', '--delete', 'refs/heads/alias']);
    }
  });
});

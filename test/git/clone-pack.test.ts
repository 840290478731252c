/**
 * A plain full clone answered by pack-objects alone (packages/git/src/clone-pack.ts), with the real git client:
 * clones over v0 and v2 pass `fsck` and hold every object of the source; anything else (a fetch with `have`s, a
 * shallow clone, a partial clone, a want that is not a ref tip) is still upload-pack's; a pack-objects failure
 * reaches the client as an error; and the parser leaves every request it does not know to upload-pack.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitRepositories, parseCloneRequest, type UploadPackAnswer } from '@forgefold/git';
import { client, clientEnv, ok, run, signature } from './support.js';

let root: string;
let repositories: GitRepositories;
let server: Server;
let base: string;
let env: NodeJS.ProcessEnv;
const answers: UploadPackAnswer[] = [];
const author = signature('2024-01-02T03:04:05.000Z');

const PROJECT = 1;
const BROKEN = 2;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'ff-clone-pack-'));
  env = clientEnv(await mkdtemp(join(root, 'client-')));
  repositories = new GitRepositories({ root: join(root, 'repositories'), uploadPackCacheBytes: 0, onUploadPack: (answer) => answers.push(answer) });
  for (const project of [PROJECT, BROKEN]) await ok(repositories.create(project, { readme: { author, committer: author, content: '# Served\n' } }));
  const repository = repositories.open(PROJECT);
  for (let i = 0; i < 5; i++) {
    await ok(repository.commitFiles({ branch: 'main', commit_message: `Change ${i}`, actions: [{ action: 'create', file_path: `src/${i}.txt`, content: `${i}\n`.repeat(200) }], author, committer: author }));
  }
  await ok(repository.createBranch({ branch: 'feature', ref: 'main~2' }));
  await ok(repository.createTag({ tag_name: 'v1.0', ref: 'main~1', message: 'Release 1.0', tagger: author }));
  await ok(repository.createTag({ tag_name: 'light', ref: 'main~3' }));
  server = createServer((req, res) => {
    const match = /^\/(\d+)\.git\/(.*)$/.exec(new URL(req.url ?? '/', 'http://x').pathname);
    if (!match) {
      res.writeHead(404).end();
      return;
    }
    void repositories.serveHttp(Number(match[1]), req, res, {
      path: match[2]!,
      authorize: async () => ({ allowed: true }),
      push: { check: async () => ({ accepted: true }), received: async () => undefined },
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await repositories.close();
  await rm(root, { recursive: true, force: true });
});

const git = (cwd: string, args: readonly string[]) => client(cwd, args, env);

// Under `root`, which afterAll removes.
const scratch = () => mkdtemp(join(root, 'clone-'));

/** Every object reachable from every ref, sorted: what a complete copy must hold. */
const objectsOf = async (gitDir: string) => (await run('git', ['--git-dir', gitDir, 'rev-list', '--objects', '--all'], { env })).stdout.split('\n').filter(Boolean).sort();
const refsOf = async (gitDir: string) => (await run('git', ['--git-dir', gitDir, 'for-each-ref', '--format=%(objectname) %(refname)'], { env })).stdout;

describe('a plain full clone answered by pack-objects', () => {
  it('clones over v0 and v2 (bare and not, quiet and with progress): fsck passes, every ref and object arrives', async () => {
    const source = repositories.pathOf(PROJECT);
    for (const protocol of [0, 2]) {
      for (const quiet of [true, false]) {
        answers.length = 0;
        const dir = await scratch();
        const cloned = await git(dir, ['-c', `protocol.version=${protocol}`, 'clone', '--mirror', ...(quiet ? ['--quiet'] : ['--progress']), `${base}/${PROJECT}.git`, 'copy.git']);
        expect(cloned.code, cloned.stderr).toBe(0);
        // The fetch went to pack-objects; upload-pack ran only for v2's first capability advertisement (then known).
        expect(answers).toContain('pack-objects');
        expect(answers.filter((answer) => answer === 'upload-pack').length).toBeLessThanOrEqual(1);
        // pack-objects' progress reaches the client on band 2.
        if (!quiet) expect(cloned.stderr).toMatch(/remote: (Enumerating|Counting) objects/);
        const copy = join(dir, 'copy.git');
        const fsck = await git(copy, ['fsck', '--full', '--strict']);
        expect(fsck.code, fsck.stderr).toBe(0);
        expect(await refsOf(copy)).toBe(await refsOf(source));
        expect(await objectsOf(copy)).toEqual(await objectsOf(source));
        await rm(dir, { recursive: true, force: true });
      }
    }
    // A working-tree clone checks out HEAD's files.
    const dir = await scratch();
    expect((await git(dir, ['clone', '--quiet', `${base}/${PROJECT}.git`, 'work'])).code).toBe(0);
    expect(await readFile(join(dir, 'work', 'src', '4.txt'), 'utf8')).toBe('4\n'.repeat(200));
    expect((await git(join(dir, 'work'), ['fsck', '--full', '--strict'])).code).toBe(0);
  });

  it('keeps an idle pack-objects for the next clone, which sees what was pushed after it started (loose and packed)', async () => {
    const source = repositories.pathOf(PROJECT);
    const config = ['-c', 'protocol.version=2'];
    const dir = await scratch();
    expect((await git(dir, [...config, 'clone', '--quiet', `${base}/${PROJECT}.git`, 'work'])).code).toBe(0);
    // The spare starts once the answer is out.
    const spareRunning = async () => (await run('ps', ['-eo', 'args'], { env })).stdout.split('\n').some((line) => line.includes(`--git-dir=${source} pack-objects`));
    for (let i = 0; i < 50 && !(await spareRunning()); i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await spareRunning()).toBe(true);
    const work = join(dir, 'work');
    // More objects than receive.unpackLimit (100): the push lands as a new pack; then a small one, loose.
    for (let i = 0; i < 120; i++) await writeFile(join(work, `pushed-${i}.txt`), `pushed ${i}\n`);
    await git(work, ['add', '.']);
    await git(work, ['commit', '--quiet', '-m', 'Many files']);
    expect((await git(work, [...config, 'push', '--quiet', 'origin', 'HEAD:main'])).code).toBe(0);
    for (const round of [0, 1]) {
      if (round === 1) {
        await writeFile(join(work, 'one-more.txt'), 'one more\n');
        await git(work, ['add', '.']);
        await git(work, ['commit', '--quiet', '-m', 'One more']);
        expect((await git(work, [...config, 'push', '--quiet', 'origin', 'HEAD:main'])).code).toBe(0);
      }
      answers.length = 0;
      const copy = join(dir, `copy-${round}.git`);
      const cloned = await git(dir, [...config, 'clone', '--quiet', '--mirror', `${base}/${PROJECT}.git`, copy]);
      expect(cloned.code, cloned.stderr).toBe(0);
      expect(answers).toContain('pack-objects');
      expect((await git(copy, ['fsck', '--full', '--strict'])).code).toBe(0);
      expect(await refsOf(copy)).toBe(await refsOf(source));
      expect(await objectsOf(copy)).toEqual(await objectsOf(source));
    }
    await rm(dir, { recursive: true, force: true });
  });

  it('leaves a fetch after a push (have lines) to upload-pack, and the fetch brings the pushed commit', async () => {
    for (const protocol of [0, 2]) {
      const dir = await scratch();
      const config = ['-c', `protocol.version=${protocol}`];
      expect((await git(dir, [...config, 'clone', '--quiet', `${base}/${PROJECT}.git`, 'one'])).code).toBe(0);
      expect((await git(dir, [...config, 'clone', '--quiet', `${base}/${PROJECT}.git`, 'two'])).code).toBe(0);
      const two = join(dir, 'two');
      await git(two, ['commit', '--quiet', '--allow-empty', '-m', `Pushed over v${protocol}`]);
      const pushed = await git(two, [...config, 'push', '--quiet', 'origin', 'HEAD:main']);
      expect(pushed.code, pushed.stderr).toBe(0);
      const head = (await git(two, ['rev-parse', 'HEAD'])).stdout.trim();
      answers.length = 0;
      const one = join(dir, 'one');
      const fetched = await git(one, [...config, 'fetch', '--quiet', 'origin']);
      expect(fetched.code, fetched.stderr).toBe(0);
      expect(answers).not.toContain('pack-objects');
      expect(answers).toContain('upload-pack');
      expect((await git(one, ['rev-parse', 'origin/main'])).stdout.trim()).toBe(head);
      expect((await git(one, ['fsck', '--full', '--strict'])).code).toBe(0);
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('leaves shallow clones, partial clones and wants that are not ref tips to upload-pack', async () => {
    for (const protocol of [0, 2]) {
      const config = ['-c', `protocol.version=${protocol}`];
      const dir = await scratch();
      answers.length = 0;
      const shallow = await git(dir, [...config, 'clone', '--quiet', '--depth', '1', `${base}/${PROJECT}.git`, 'shallow']);
      expect(shallow.code, shallow.stderr).toBe(0);
      expect(answers).not.toContain('pack-objects');
      expect((await git(join(dir, 'shallow'), ['rev-list', '--count', 'HEAD'])).stdout.trim()).toBe('1');
      expect((await git(join(dir, 'shallow'), ['fsck'])).code).toBe(0);

      answers.length = 0;
      const partial = await git(dir, [...config, 'clone', '--quiet', '--bare', '--filter=blob:none', `${base}/${PROJECT}.git`, 'partial.git']);
      expect(partial.code, partial.stderr).toBe(0);
      expect(answers).not.toContain('pack-objects');
      // Only the commits and trees came: no blob is held.
      const held = (await run('git', ['--git-dir', join(dir, 'partial.git'), 'cat-file', '--batch-all-objects', '--batch-check=%(objecttype)'], { env })).stdout;
      expect(held).not.toContain('blob');
      await rm(dir, { recursive: true, force: true });
    }
    // The first commit by its sha (v2 serves any object; v0 would refuse it): not a tip, so upload-pack decides.
    const older = (await run('git', ['--git-dir', repositories.pathOf(PROJECT), 'rev-list', '--max-parents=0', 'main'], { env })).stdout.trim();
    const dir = await scratch();
    await git(dir, ['init', '--quiet', '--bare', 'byid.git']);
    answers.length = 0;
    const fetched = await git(join(dir, 'byid.git'), ['-c', 'protocol.version=2', 'fetch', '--quiet', `${base}/${PROJECT}.git`, older]);
    expect(fetched.code, fetched.stderr).toBe(0);
    expect(answers).not.toContain('pack-objects');
    expect((await git(join(dir, 'byid.git'), ['cat-file', '-t', older])).stdout.trim()).toBe('commit');
  });

  it('tells the client when pack-objects fails (a missing object), and the clone fails', async () => {
    const gitDir = repositories.pathOf(BROKEN);
    const blob = (await run('git', ['--git-dir', gitDir, 'rev-parse', 'HEAD:README.md'], { env })).stdout.trim();
    await rm(join(gitDir, 'objects', blob.slice(0, 2), blob.slice(2)));
    for (const protocol of [0, 2]) {
      answers.length = 0;
      const dir = await scratch();
      const cloned = await git(dir, ['-c', `protocol.version=${protocol}`, 'clone', '--quiet', '--bare', `${base}/${BROKEN}.git`, 'copy.git']);
      expect(answers).toContain('pack-objects');
      expect(cloned.code).not.toBe(0);
      expect(cloned.stderr).toContain('aborting due to possible repository corruption on the remote side.');
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('parseCloneRequest', () => {
  const pkt = (line: string) => `${(line.length + 4).toString(16).padStart(4, '0')}${line}`;
  const a = 'a'.repeat(40);
  const b = 'b'.repeat(40);
  const v0 = (first: string, ...rest: string[]) => Buffer.from([pkt(`${first}\n`), ...rest.map((line) => pkt(`${line}\n`)), '0000', pkt('done\n')].join(''));
  const v2 = (...args: string[]) => Buffer.from([pkt('command=fetch\n'), pkt('agent=git/2.39.5\n'), pkt('object-format=sha1\n'), '0001', ...args.map((line) => pkt(`${line}\n`)), '0000'].join(''));
  const caps = 'multi_ack_detailed no-done side-band-64k thin-pack no-progress ofs-delta deepen-since deepen-not agent=git/2.39.5';

  it("reads the requests git 2.39's clone sends", () => {
    expect(parseCloneRequest(v0(`want ${a} ${caps}`, `want ${b}`), false)).toEqual({ v2: false, wants: [a, b], thinPack: true, ofsDelta: true, includeTag: false, noProgress: true, maxPacket: 65520 });
    expect(parseCloneRequest(v0(`want ${a} side-band include-tag`), false)).toMatchObject({ wants: [a], includeTag: true, thinPack: false, noProgress: false, maxPacket: 1000 });
    expect(parseCloneRequest(v2('thin-pack', 'no-progress', 'ofs-delta', `want ${a}`, `want ${b}`, 'done'), true)).toEqual({ v2: true, wants: [a, b], thinPack: true, ofsDelta: true, includeTag: false, noProgress: true, maxPacket: 65520 });
  });

  it('leaves everything else to upload-pack', () => {
    const leftToGit = [
      [v0(`want ${a} ${caps}`, `have ${b}`), false],
      [v0(`want ${a} ${caps}`, 'deepen 1'), false],
      [v0(`want ${a} ${caps}`, `shallow ${b}`), false],
      [v0(`want ${a} ${caps} filter`, 'filter blob:none'), false],
      [v0(`want ${a} multi_ack_detailed thin-pack`), false], // no side band
      [v0(`want ${a} ${caps} allow-tip-sha1-in-want`), false], // a capability it does not know
      [v0(`want ${a}`, `want ${b} side-band-64k`), false], // capabilities after the first want
      [Buffer.from(`${pkt(`want ${a} ${caps}\n`)}0000`), false], // no done: a negotiation
      [v2(`want ${a}`, `have ${b}`, 'done'), true],
      [v2(`want ${a}`, 'deepen 1', 'done'), true],
      [v2(`want ${a}`, 'filter blob:none', 'done'), true],
      [v2('want-ref refs/heads/main', 'done'), true],
      [v2(`want ${a}`, 'sideband-all', 'done'), true],
      [v2(`want ${a}`, 'packfile-uris https', 'done'), true],
      [v2(`want ${a}`, 'wait-for-done', 'done'), true],
      [v2(`want ${a}`), true], // no done
      [v2('done'), true], // no want
      [Buffer.from(`${pkt('command=fetch\n')}${pkt('server-option=x\n')}0001${pkt(`want ${a}\n`)}${pkt('done\n')}0000`), true],
      [Buffer.from(`${pkt('command=ls-refs\n')}0001${pkt('peel\n')}0000`), true],
      [Buffer.from('00zzbroken'), true],
    ] as const;
    for (const [body, isV2] of leftToGit) expect(parseCloneRequest(body, isV2), body.toString('latin1')).toBeNull();
  });
});

/**
 * Git engine benchmarks (`pnpm bench git`), each against git itself in the same run:
 *
 *  (a) list 20 tags of a repository with BENCH_TAGS tags (default 10,000; half annotated, refs packed) through
 *      `Repository.listTags`, vs one raw `git for-each-ref --count=20` with the same order and the fields a tag
 *      needs. Target ≥ 0.5x. Orders: `updated` desc (the platform's default), `name`, `version`.
 *  (b) clone over smart HTTP (the engine's handler in a node:http server on 127.0.0.1) vs `git clone --no-local`
 *      from the bare directory (the same upload-pack over a pipe; a plain local clone hard-links files and
 *      measures no transport). A repository of BENCH_CLONE_COMMITS commits (default 300). Target ≥ 0.7x. No
 *      refs version is given, so every clone is a first clone (no answer is reused); the fetch is answered by
 *      pack-objects alone (packages/git/src/clone-pack.ts). BENCH_CLONE_ROUNDS rounds (default 20), each one
 *      clone of every kind in turn, so that all see the same load; ratios of medians.
 *  (c) a one-file commit through `Repository.commitFiles` (p50/p99), vs the bare plumbing for the same commit
 *      (hash-object, read-tree, update-index, write-tree, commit-tree, update-ref; no checks).
 *
 * Knobs: BENCH_TAGS, BENCH_CLONE_COMMITS, BENCH_COMMITS (commits measured in (c), default 200), BENCH_MS
 * (duration of each throughput case, default 2000), BENCH_CASES (e.g. "ac").
 */
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import * as E from 'fp-ts/lib/Either.js';
import { GitRepositories, type GitResult, type RefOrder, type Signature } from '@forgefold/git';
import { git, gitEnv, history } from './git-fixtures.js';
import { Report, envInt, log, percentile, throughput, tmpDir } from './lib.js';

const TAGS = envInt('BENCH_TAGS', 10_000);
const CLONE_COMMITS = envInt('BENCH_CLONE_COMMITS', 300);
const COMMITS = envInt('BENCH_COMMITS', 200);
const MS = envInt('BENCH_MS', 2_000);
const CASES = process.env.BENCH_CASES ?? 'abc';

const exec = promisify(execFile);
const ok = async <A>(result: GitResult<A>): Promise<A> => {
  const answer = await result;
  if (E.isLeft(answer)) throw new Error(`${answer.left._tag}: ${answer.left.message}`);
  return answer.right;
};

const at = (seconds: number): Signature => ({ name: 'Bench', email: 'bench@example.com', at: new Date(seconds * 1000).toISOString() });

const tagFormat = [
  '%(refname)',
  '%(objectname)',
  '%(objecttype)',
  '%(contents)',
  '%(taggername)',
  '%(taggeremail)',
  '%(taggerdate:iso-strict)',
  '%(*objectname)',
  '%(*contents)',
  '%(*authorname)',
  '%(*authoremail)',
  '%(*authordate:iso-strict)',
  '%(*committername)',
  '%(*committeremail)',
  '%(*committerdate:iso-strict)',
  '%(*parent)',
  '%(authorname)',
  '%(committerdate:iso-strict)',
  '%(parent)',
].join('%00');

export default async function (): Promise<void> {
  const root = join(tmpDir, 'git-bench');
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  const repositories = new GitRepositories({ root });
  const report = new Report('Git engine (@forgefold/git) vs git itself');
  try {
    if (CASES.includes('a')) await tags(repositories, report);
    if (CASES.includes('b')) await clone(repositories, report, root);
    if (CASES.includes('c')) await commits(repositories, report);
  } finally {
    await repositories.close();
    rmSync(root, { recursive: true, force: true });
  }
  report.print();
}

async function tags(repositories: GitRepositories, report: Report): Promise<void> {
  await ok(repositories.create(1));
  const path = repositories.pathOf(1);
  log(`(a) importing 100 commits and ${TAGS} tags`);
  await git(null, ['--git-dir', path, 'fast-import', '--quiet'], history(100, TAGS, 24));
  const repository = repositories.open(1);
  await ok(repository.packRefs());
  const orders: [RefOrder, 'asc' | 'desc', string][] = [
    ['updated', 'desc', '-*committerdate'],
    ['name', 'asc', 'refname'],
    ['version', 'asc', 'version:refname'],
  ];
  // The plainest listing git has: refnames, with object types (its default format), no sort key to read.
  const plain = await throughput(() => git(null, ['--git-dir', path, 'for-each-ref', '--count=20', 'refs/tags/']), { ms: MS });
  report.add('raw for-each-ref --count=20', plain.opsPerSec, 'ops/s', { note: 'default format' });
  for (const [orderBy, sort, gitSort] of orders) {
    // Lightweight tags sort by `committerdate`, annotated ones by `*committerdate`: git has no single key for the
    // platform's order, so the baseline sorts by the annotated tags' key (one for-each-ref, the same work per ref).
    const raw = await throughput(() => git(null, ['--git-dir', path, 'for-each-ref', '--count=20', `--sort=${gitSort}`, `--format=${tagFormat}`, 'refs/tags/']), { ms: MS });
    const api = await throughput(() => ok(repository.listTags({ orderBy, sort, limit: 20 })), { ms: MS });
    const baseline = `raw for-each-ref --sort=${gitSort}`;
    report.add(baseline, raw.opsPerSec, 'ops/s', { note: `${TAGS} tags, 20 listed` });
    report.add(`listTags ${orderBy} ${sort}`, api.opsPerSec, 'ops/s', { baseline, target: { ratio: 0.5, text: '≥ 0.5x' } });
    report.add(`listTags ${orderBy} ${sort} `, api.opsPerSec, 'ops/s', { baseline: 'raw for-each-ref --count=20', note: 'against the plainest listing' });
  }
}

async function clone(repositories: GitRepositories, report: Report, root: string): Promise<void> {
  await ok(repositories.create(2));
  const path = repositories.pathOf(2);
  log(`(b) importing ${CLONE_COMMITS} commits`);
  await git(null, ['--git-dir', path, 'fast-import', '--quiet'], history(CLONE_COMMITS, 20, 2_000));
  await git(null, ['--git-dir', path, 'repack', '-a', '-d', '-q']);
  const server = createServer((req, res) => {
    void repositories.serveHttp(2, req, res, { path: (req.url ?? '').replace(/^\/2\.git\//, '').replace(/\?.*$/, ''), authorize: async () => ({ allowed: true }) });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/2.git`;
  let n = 0;
  const cloneInto = async (source: string, extra: string[]) => {
    const target = join(root, `clone-${n++}`);
    await exec('git', ['clone', '--quiet', '--bare', ...extra, source, target], { env: gitEnv });
    rmSync(target, { recursive: true, force: true });
  };
  try {
    const kinds = {
      raw: () => cloneInto(path, ['--no-local']),
      v2: () => cloneInto(url, ['-c', 'protocol.version=2']),
      v0: () => cloneInto(url, ['-c', 'protocol.version=0']),
    };
    const times: Record<keyof typeof kinds, number[]> = { raw: [], v2: [], v0: [] };
    const rounds = envInt('BENCH_CLONE_ROUNDS', 20);
    for (let round = -2; round < rounds; round++) {
      for (const kind of ['raw', 'v2', 'v0'] as const) {
        const started = performance.now();
        await kinds[kind]();
        if (round >= 0) times[kind].push(performance.now() - started);
      }
    }
    const median = (kind: keyof typeof kinds) => percentile(times[kind], 50);
    report.add('raw git clone --no-local', 1_000 / median('raw'), 'ops/s', { note: `${CLONE_COMMITS} commits, median ${median('raw').toFixed(0)} ms, ${rounds} rounds` });
    report.add('clone over smart HTTP (v2)', 1_000 / median('v2'), 'ops/s', {
      baseline: 'raw git clone --no-local',
      target: { ratio: 0.7, text: '≥ 0.7x' },
      note: `median ${median('v2').toFixed(0)} ms; no refs version, so every clone is a first clone (no cache)`,
    });
    report.add('clone over smart HTTP (v0)', 1_000 / median('v0'), 'ops/s', {
      baseline: 'raw git clone --no-local',
      target: { ratio: 0.7, text: '≥ 0.7x' },
      note: `median ${median('v0').toFixed(0)} ms; no cache`,
    });
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

async function commits(repositories: GitRepositories, report: Report): Promise<void> {
  const repository = repositories.open(3);
  await ok(repositories.create(3, { readme: { author: at(1_700_000_000), committer: at(1_700_000_000), content: '# Bench\n' } }));
  const path = repositories.pathOf(3);
  log(`(c) ${COMMITS} commits each way`);
  const api: number[] = [];
  for (let i = 0; i < COMMITS + 5; i++) {
    const started = performance.now();
    await ok(
      repository.commitFiles({
        branch: 'main',
        commit_message: `Commit ${i}`,
        actions: [{ action: 'create', file_path: `api/file-${i}.txt`, content: `content ${i}\n` }],
        author: at(1_700_000_000 + i),
        committer: at(1_700_000_000 + i),
      }),
    );
    if (i >= 5) api.push(performance.now() - started);
  }
  // The same commit with bare plumbing and no checks.
  const raw: number[] = [];
  const index = join(path, 'bench-index');
  for (let i = 0; i < COMMITS + 5; i++) {
    const started = performance.now();
    const env = { ...gitEnv, GIT_INDEX_FILE: index };
    const run = (args: string[], input?: string) =>
      new Promise<string>((resolve, reject) => {
        const child = execFile('git', ['--git-dir', path, ...args], { env }, (error, stdout) => (error ? reject(error) : resolve(stdout.trim())));
        child.stdin!.on('error', () => undefined);
        child.stdin!.end(input ?? '');
      });
    const head = await run(['rev-parse', 'refs/heads/main']);
    const blob = await run(['hash-object', '-w', '--stdin'], `raw ${i}\n`);
    await run(['read-tree', head]);
    await run(['update-index', '--add', '--cacheinfo', `100644,${blob},raw/file-${i}.txt`]);
    const tree = await run(['write-tree']);
    const identity = { GIT_AUTHOR_NAME: 'Bench', GIT_AUTHOR_EMAIL: 'b@example.com', GIT_AUTHOR_DATE: `${1_800_000_000 + i} +0000`, GIT_COMMITTER_NAME: 'Bench', GIT_COMMITTER_EMAIL: 'b@example.com', GIT_COMMITTER_DATE: `${1_800_000_000 + i} +0000` };
    Object.assign(env, identity);
    const commit = await run(['commit-tree', tree, '-p', head], `Raw ${i}`);
    await run(['update-ref', 'refs/heads/main', commit, head]);
    if (i >= 5) raw.push(performance.now() - started);
  }
  rmSync(index, { force: true });
  report.add('raw plumbing commit p50', percentile(raw, 50), 'ms', { note: `p99 ${percentile(raw, 99).toFixed(1)} ms` });
  report.add('commitFiles p50', percentile(api, 50), 'ms', { baseline: 'raw plumbing commit p50' });
  report.add('raw plumbing commit p99', percentile(raw, 99), 'ms');
  report.add('commitFiles p99', percentile(api, 99), 'ms', { baseline: 'raw plumbing commit p99' });
}

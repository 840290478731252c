/**
 * Repository benchmarks through the running server (`pnpm bench repositories`), each against git itself in the
 * same run (issue 9):
 *
 *  (a) `GET /projects/:id/repository/tags?per_page=20` on a project holding BENCH_TAGS tags (default 10,000,
 *      half annotated, pushed in one push so the log records them), vs one raw `git for-each-ref --count=20` on
 *      the bare directory (the plainest listing, and the same order with the fields a tag needs). Target ≥ 0.5x.
 *      Each request carries a distinct dummy parameter, so the response cache never answers. The route orders
 *      and pages from the projection (the log records each tag's commit date) and reads the 20 tags from git.
 *  (b) `git clone` over smart HTTP from the server vs `git clone --no-local` from the bare directory (the same
 *      upload-pack over a pipe), BENCH_CLONE_COMMITS commits (default 300). Target ≥ 0.7x. Repeated clones of
 *      unchanged refs are answered from the upload-pack cache (packages/git/src/upload-pack-cache.ts); the
 *      first clone after a change (a commit through the API before each, BENCH_FIRST_CLONES rounds, default 20)
 *      misses it and is answered by pack-objects alone (packages/git/src/clone-pack.ts; an idle one is kept after
 *      a clone), and is measured against raw clones in the same rounds.
 *  (c) one-file commits through `POST /projects/:id/repository/commits` at 10 connections (one file each, over 10
 *      branches): p50 and p99, and one at a time on one connection, against the bare plumbing of the same commit
 *      (no checks, no HTTP, no log).
 *
 * Knobs: BENCH_TAGS, BENCH_CLONE_COMMITS, BENCH_FIRST_CLONES, BENCH_MS (default 2000), BENCH_HTTP_SECONDS (default 5), BENCH_CASES.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { GitRepositories } from '@forgefold/git';
import { git, gitEnv, history } from './git-fixtures.js';
import { Report, envInt, httpLoad, log, percentile, startForgefoldProcess, stopServerProcess, throughput, tmpDir } from './lib.js';

const TAGS = envInt('BENCH_TAGS', 10_000);
const CLONE_COMMITS = envInt('BENCH_CLONE_COMMITS', 300);
const MS = envInt('BENCH_MS', 2_000);
const SECONDS = envInt('BENCH_HTTP_SECONDS', 5);
const CASES = process.env.BENCH_CASES ?? 'abc';
const TOKEN = 'glpat-bench-repositories-0000';

const exec = promisify(execFile);
const tagFormat = ['%(refname)', '%(objectname)', '%(objecttype)', '%(contents)', '%(taggername)', '%(taggeremail)', '%(taggerdate:iso-strict)', '%(*objectname)', '%(*contents)', '%(*authorname)', '%(*authoremail)', '%(*authordate:iso-strict)', '%(*committername)', '%(*committeremail)', '%(*committerdate:iso-strict)', '%(*parent)'].join('%00');

export default async function (): Promise<void> {
  const root = join(tmpDir, 'repositories-bench');
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  const dataDir = join(root, 'data');
  const report = new Report('Repositories through the server vs git itself');
  const server = await startForgefoldProcess(dataDir, TOKEN);
  const headers = { 'PRIVATE-TOKEN': TOKEN, 'Content-Type': 'application/json' };
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${server.url}/api/v4${path}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    return (await response.json()) as { id: number; path_with_namespace: string };
  };
  const storage = new GitRepositories({ root: join(dataDir, 'repositories') });
  const host = new URL(server.url).host;
  const remote = (path: string) => `http://root:${TOKEN}@${host}/${path}.git`;
  try {
    if (CASES.includes('a')) {
      const project = await call('POST', '/projects', { name: 'Tags' });
      const local = join(root, 'tags-source');
      await git(null, ['init', '--quiet', '--bare', local]);
      log(`(a) importing 100 commits and ${TAGS} tags, pushing them`);
      await git(null, ['--git-dir', local, 'fast-import', '--quiet'], history(100, TAGS, 24));
      await git(null, ['--git-dir', local, 'push', '--quiet', remote(project.path_with_namespace), 'refs/heads/main', 'refs/tags/*']);
      const bare = storage.pathOf(project.id);
      await git(null, ['--git-dir', bare, 'pack-refs', '--all']);
      const plain = await throughput(() => git(null, ['--git-dir', bare, 'for-each-ref', '--count=20', 'refs/tags/']), { ms: MS });
      const sorted = await throughput(() => git(null, ['--git-dir', bare, 'for-each-ref', '--count=20', '--sort=-*committerdate', `--format=${tagFormat}`, 'refs/tags/']), { ms: MS });
      let n = 0;
      const api = await throughput(async () => {
        const response = await fetch(`${server.url}/api/v4/projects/${project.id}/repository/tags?per_page=20&nocache=${n++}`, { headers });
        if (response.status !== 200) throw new Error(`tags: ${response.status}`);
        await response.arrayBuffer();
      }, { ms: MS, warmup: 3 });
      report.add('raw for-each-ref --count=20', plain.opsPerSec, 'ops/s', { note: 'default format, no sort key' });
      report.add('raw for-each-ref --sort=-*committerdate', sorted.opsPerSec, 'ops/s', { note: `${TAGS} tags, 20 listed with the fields a tag needs` });
      report.add('GET …/repository/tags (20, updated desc)', api.opsPerSec, 'ops/s', {
        baseline: 'raw for-each-ref --count=20',
        target: { ratio: 0.5, text: '≥ 0.5x' },
        note: `uncached; p50 ${percentile(api.latencies, 50).toFixed(1)} ms`,
      });
      report.add('GET …/repository/tags (same order)', api.opsPerSec, 'ops/s', { baseline: 'raw for-each-ref --sort=-*committerdate', note: 'against the same order' });
    }

    if (CASES.includes('b')) {
      const project = await call('POST', '/projects', { name: 'Clone' });
      const local = join(root, 'clone-source');
      await git(null, ['init', '--quiet', '--bare', local]);
      log(`(b) importing ${CLONE_COMMITS} commits, pushing them`);
      await git(null, ['--git-dir', local, 'fast-import', '--quiet'], history(CLONE_COMMITS, 20, 2_000));
      await git(null, ['--git-dir', local, 'push', '--quiet', remote(project.path_with_namespace), 'refs/heads/main', 'refs/tags/*']);
      const bare = storage.pathOf(project.id);
      await git(null, ['--git-dir', bare, 'repack', '-a', '-d', '-q']);
      let n = 0;
      const cloneInto = async (source: string, extra: string[]) => {
        const target = join(root, `clone-${n++}`);
        await exec('git', ['clone', '--quiet', '--bare', ...extra, source, target], { env: gitEnv });
        rmSync(target, { recursive: true, force: true });
      };
      const options = { ms: MS, minIterations: 5, warmup: 2 };
      const raw = await throughput(() => cloneInto(bare, ['--no-local']), options);
      const http = await throughput(() => cloneInto(remote(project.path_with_namespace), ['-c', 'protocol.version=2']), options);
      const v0 = await throughput(() => cloneInto(remote(project.path_with_namespace), ['-c', 'protocol.version=0']), options);
      report.add('raw git clone --no-local', raw.opsPerSec, 'ops/s', { note: `${CLONE_COMMITS} commits, median ${percentile(raw.latencies, 50).toFixed(0)} ms` });
      report.add('git clone over the server (v2, token)', http.opsPerSec, 'ops/s', {
        baseline: 'raw git clone --no-local',
        target: { ratio: 0.7, text: '≥ 0.7x' },
        note: `median ${percentile(http.latencies, 50).toFixed(0)} ms; three requests, answered from the upload-pack cache after the first clone`,
      });
      report.add('git clone over the server (v0, token)', v0.opsPerSec, 'ops/s', {
        baseline: 'raw git clone --no-local',
        target: { ratio: 0.7, text: '≥ 0.7x' },
        note: `median ${percentile(v0.latencies, 50).toFixed(0)} ms; two requests, cached as above`,
      });
      // First clones after a change (cache misses): a commit through the API before each clone, untimed, and a
      // raw clone in the same rounds so that both see the same load. Ratios of medians.
      const rounds = envInt('BENCH_FIRST_CLONES', 20);
      const firstRaw: number[] = [];
      const first: Record<'v2' | 'v0', number[]> = { v2: [], v0: [] };
      let change = 0;
      const commit = async () => {
        const response = await fetch(`${server.url}/api/v4/projects/${project.id}/repository/commits`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ branch: 'main', commit_message: `Change ${change}`, actions: [{ action: 'create', file_path: `changes/${change++}.txt`, content: 'change\n' }] }),
        });
        if (response.status !== 201) throw new Error(`commit: ${response.status}`);
        await response.arrayBuffer();
      };
      const timedClone = async (source: string, extra: string[]) => {
        const started = performance.now();
        await cloneInto(source, extra);
        return performance.now() - started;
      };
      log(`(b) ${rounds} rounds of first clones after a commit`);
      for (let round = 0; round < rounds; round++) {
        firstRaw.push(await timedClone(bare, ['--no-local']));
        for (const version of ['v2', 'v0'] as const) {
          await commit();
          first[version].push(await timedClone(remote(project.path_with_namespace), ['-c', `protocol.version=${version.slice(1)}`]));
        }
      }
      const rawMedian = percentile(firstRaw, 50);
      report.add('raw git clone --no-local (first-clone rounds)', 1_000 / rawMedian, 'ops/s', { note: `median ${rawMedian.toFixed(0)} ms, ${rounds} rounds` });
      for (const version of ['v2', 'v0'] as const) {
        const median = percentile(first[version], 50);
        report.add(`first clone after a commit (${version}, token)`, 1_000 / median, 'ops/s', {
          baseline: 'raw git clone --no-local (first-clone rounds)',
          target: { ratio: 0.7, text: '≥ 0.7x' },
          note: `median ${median.toFixed(0)} ms; an upload-pack cache miss, answered by pack-objects alone`,
        });
      }
    }

    if (CASES.includes('c')) {
      const project = await call('POST', '/projects', { name: 'Commits', initialize_with_readme: true });
      for (let b = 1; b <= 10; b++) await call('POST', `/projects/${project.id}/repository/branches`, { branch: `b${b}`, ref: 'main' });
      log(`(c) one-file commits at 10 connections for ${SECONDS} s`);
      const load = await httpLoad(SECONDS, {
        url: `${server.url}/api/v4/projects/${project.id}/repository/commits`,
        connections: 10,
        method: 'POST',
        headers,
        bodyTemplate: '{"branch":"b{v}","commit_message":"Bench {n}","actions":[{"action":"create","file_path":"bench/file-{n}.txt","content":"content {n}\\n"}]}',
        values: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
      });
      // The same commit with bare plumbing, one at a time, no checks, no HTTP and no log.
      const bare = join(root, 'plumbing');
      await git(null, ['init', '--quiet', '--bare', bare]);
      const index = join(bare, 'bench-index');
      const raw: number[] = [];
      let head: string | null = null;
      for (let i = 0; i < 105; i++) {
        const started = performance.now();
        const env = { ...gitEnv, GIT_INDEX_FILE: index, GIT_AUTHOR_NAME: 'B', GIT_AUTHOR_EMAIL: 'b@example.com', GIT_COMMITTER_NAME: 'B', GIT_COMMITTER_EMAIL: 'b@example.com' };
        const run = (args: string[]) => promisify(execFile)('git', ['--git-dir', bare, ...args], { env }).then((r) => r.stdout.trim());
        const blob = await new Promise<string>((resolve, reject) => {
          const child = execFile('git', ['--git-dir', bare, 'hash-object', '-w', '--stdin'], { env }, (error, stdout) => (error ? reject(error) : resolve(stdout.trim())));
          child.stdin!.end(`raw ${i}\n`);
        });
        await run(head === null ? ['read-tree', '--empty'] : ['read-tree', head]);
        await run(['update-index', '--add', '--cacheinfo', `100644,${blob},raw/file-${i}.txt`]);
        const tree = await run(['write-tree']);
        const commit = await run(['commit-tree', tree, ...(head === null ? [] : ['-p', head]), '-m', `Raw ${i}`]);
        await run(['update-ref', 'refs/heads/main', commit, ...(head === null ? [] : [head])]);
        head = commit;
        if (i >= 5) raw.push(performance.now() - started);
      }
      // One connection, one commit at a time: what a single commit costs, without queueing.
      const single: number[] = [];
      for (let i = 0; i < 60; i++) {
        const started = performance.now();
        const response = await fetch(`${server.url}/api/v4/projects/${project.id}/repository/commits`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ branch: 'b1', commit_message: `Single ${i}`, actions: [{ action: 'create', file_path: `single/file-${i}.txt`, content: `content ${i}\n` }] }),
        });
        if (response.status !== 201) throw new Error(`commit: ${response.status}`);
        await response.arrayBuffer();
        if (i >= 10) single.push(performance.now() - started);
      }
      report.add('raw plumbing commit p50', percentile(raw, 50), 'ms', { note: 'sequential, no checks' });
      report.add('POST …/repository/commits p50, 1 connection', percentile(single, 50), 'ms', { baseline: 'raw plumbing commit p50', note: `p99 ${percentile(single, 99).toFixed(0)} ms, 50 commits` });
      report.add('POST …/repository/commits p50', load.p50, 'ms', { baseline: 'raw plumbing commit p50', note: `10 connections, ${load.rps.toFixed(1)} commits/s` });
      report.add('raw plumbing commit p99', percentile(raw, 99), 'ms');
      report.add('POST …/repository/commits p99', load.p99, 'ms', { baseline: 'raw plumbing commit p99', note: '10 connections' });
    }
  } finally {
    await storage.close();
    await stopServerProcess(server.child);
    rmSync(root, { recursive: true, force: true });
  }
  report.print();
}

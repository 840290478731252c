/**
 * Commits through the engine side by side: commits to different branches run at once (a branch's lock and the
 * repository's shared lock), commits to one branch one after the other, repository-wide writers alone; each
 * record step sees its own ref moved; the repository stays consistent (`fsck`, trees as `git write-tree`
 * makes them). And the stats a create-only commit answers without git equal `git diff --numstat`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommitAction, Repository } from '@forgefold/git';
import { ok, run, signature, storage, type Storage } from './support.js';

let store: Storage;
let repository: Repository;
let gitDir: string;
const author = signature('2024-01-02T03:04:05.000Z');
const PROJECT = 1;

const gitOut = async (args: readonly string[]) => (await run('git', [`--git-dir=${gitDir}`, ...args])).stdout.trim();

const commit = (branch: string, actions: CommitAction[], record?: (changes: readonly { ref: string; newSha: string | null }[]) => Promise<void>) =>
  repository.commitFiles({ branch, commit_message: `On ${branch}`, actions, author, committer: author }, record ? { record } : undefined);

beforeAll(async () => {
  store = await storage();
  await ok(store.repositories.create(PROJECT, { readme: { author, committer: author, content: '# Concurrency\n' } }));
  repository = store.repositories.open(PROJECT);
  gitDir = store.repositories.pathOf(PROJECT);
  for (let b = 1; b <= 4; b++) await ok(repository.createBranch({ branch: `b${b}`, ref: 'main' }));
});

afterAll(async () => {
  await store.dispose();
});

/** A record step that waits until `count` record steps are running at once (or gives up after `ms`). */
const rendezvous = (count: number, ms = 3_000) => {
  let arrived = 0;
  let release!: () => void;
  const all = new Promise<void>((resolve) => (release = resolve));
  let peak = 0;
  let running = 0;
  return {
    get peak() {
      return peak;
    },
    record: async () => {
      running++;
      peak = Math.max(peak, running);
      if (++arrived >= count) release();
      await Promise.race([all, new Promise((resolve) => setTimeout(resolve, ms))]);
      running--;
    },
  };
};

describe('commits side by side', () => {
  it('runs commits to different branches at once, each record step after its own ref moved', async () => {
    const meeting = rendezvous(4);
    const seen: boolean[] = [];
    const results = await Promise.all(
      [1, 2, 3, 4].map((b) =>
        ok(
          commit(`b${b}`, [{ action: 'create', file_path: `dir/b${b}.txt`, content: `${b}\n` }], async (changes) => {
            // The ref has moved when the events are recorded.
            seen.push((await gitOut(['rev-parse', changes[0]!.ref])) === changes[0]!.newSha);
            await meeting.record();
          }),
        ),
      ),
    );
    expect(meeting.peak).toBe(4);
    expect(seen).toEqual([true, true, true, true]);
    for (const [index, result] of results.entries()) expect(await gitOut(['rev-parse', `refs/heads/b${index + 1}`])).toBe(result.commit.id);
  });

  it('runs commits to one branch one after the other, each on top of the last', async () => {
    const meeting = rendezvous(2, 200);
    const results = await Promise.all([1, 2, 3].map((n) => ok(commit('main', [{ action: 'create', file_path: `main/${n}.txt`, content: `${n}\n` }], () => meeting.record()))));
    expect(meeting.peak).toBe(1);
    const history = (await gitOut(['rev-list', '--max-count=3', 'refs/heads/main'])).split('\n');
    expect(new Set(history)).toEqual(new Set(results.map((result) => result.commit.id)));
    expect(await gitOut(['ls-tree', '--name-only', 'refs/heads/main', 'main/'])).toBe('main/1.txt\nmain/2.txt\nmain/3.txt');
  });

  it('keeps a repository-wide write (a tag) apart from branch commits', async () => {
    const meeting = rendezvous(2, 200);
    await Promise.all([
      ok(commit('b1', [{ action: 'create', file_path: 'tagged.txt', content: 't\n' }], () => meeting.record())),
      ok(repository.createTag({ tag_name: 'apart', ref: 'main' }, { record: () => meeting.record() })),
    ]);
    expect(meeting.peak).toBe(1);
  });

  it('leaves trees as git writes them, and a repository fsck finds sound', async () => {
    await Promise.all(
      [1, 2, 3, 4].map((b) =>
        ok(
          commit(`b${b}`, [
            { action: 'create', file_path: `deep/${b}/x/y.txt`, content: 'y\n' },
            { action: 'update', file_path: 'README.md', content: `# ${b}\n` },
          ]),
        ),
      ),
    );
    for (let b = 1; b <= 4; b++) {
      const tree = await gitOut(['rev-parse', `refs/heads/b${b}^{tree}`]);
      const index = `${gitDir}/test-index-${b}`;
      await run('git', [`--git-dir=${gitDir}`, 'read-tree', tree], { env: { ...process.env, GIT_INDEX_FILE: index } });
      const written = (await run('git', [`--git-dir=${gitDir}`, 'write-tree'], { env: { ...process.env, GIT_INDEX_FILE: index } })).stdout.trim();
      expect(written).toBe(tree);
      await run('rm', ['-f', index]);
    }
    await gitOut(['fsck', '--strict', '--no-progress']);
  });

  it('answers a ref transaction git refuses with the platform error, and the next write still goes through', async () => {
    await ok(repository.createBranch({ branch: 'clash', ref: 'main' }));
    const refused = await repository.createBranch({ branch: 'clash/inner', ref: 'main' });
    expect(refused._tag === 'Left' && refused.left._tag).toBe('RefExists');
    const after = await ok(commit('clash', [{ action: 'create', file_path: 'after.txt', content: 'a\n' }]));
    expect(await gitOut(['rev-parse', 'refs/heads/clash'])).toBe(after.commit.id);
  });

  it('answers the stats of a create-only commit as git diff --numstat counts them', async () => {
    const cases: CommitAction[][] = [
      [{ action: 'create', file_path: 'stats/a.txt', content: 'one\ntwo\n' }],
      [{ action: 'create', file_path: 'stats/b.txt', content: 'no newline\nat end' }],
      [{ action: 'create', file_path: 'stats/empty.txt', content: '' }],
      [
        { action: 'create', file_path: 'stats/bin.dat', content: Buffer.from([1, 0, 2, 10, 10]).toString('base64'), encoding: 'base64' },
        { action: 'create', file_path: 'stats/c.txt', content: '\n\n\n' },
      ],
    ];
    for (const actions of cases) {
      const result = await ok(commit('b2', actions));
      expect(result.stats).toBeDefined();
      expect(result.stats).toEqual(await ok(repository.commitStats(result.commit.id)));
    }
    const updated = await ok(commit('b2', [{ action: 'update', file_path: 'stats/a.txt', content: 'one\n' }]));
    expect(updated.stats).toBeUndefined();
  });
});

/** The git engine against real git in temporary directories: storage, commits with actions, reads, diffs. */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as E from 'fp-ts/lib/Either.js';
import fc from 'fast-check';
import { parseDiffLines, type Repository } from '@forgefold/git';
import { failure, ok, run, signature, storage, type Storage } from './support.js';

let store: Storage;
beforeAll(async () => {
  store = await storage();
});
afterAll(async () => store.dispose());

const author = signature('2024-01-02T03:04:05.000Z');
const readme = { author, committer: author, content: '# Demo\n' };

let nextProject = 1000;
/** Each repository's directory, to find its git processes. */
const gitDirs = new WeakMap<Repository, string>();
const newRepository = async (options: { readme?: boolean; default_branch?: string } = {}): Promise<Repository> => {
  const id = nextProject++;
  const { path } = await ok(store.repositories.create(id, { default_branch: options.default_branch ?? 'main', ...(options.readme === false ? {} : { readme }) }));
  const repository = store.repositories.open(id);
  gitDirs.set(repository, path);
  return repository;
};

const commit = (repository: Repository, actions: Parameters<Repository['commitFiles']>[0]['actions'], extra: Partial<Parameters<Repository['commitFiles']>[0]> = {}) =>
  repository.commitFiles({ branch: 'main', commit_message: 'Change', actions, author, committer: author, ...extra });

describe('storage', () => {
  it('keeps one bare repository per project at the hashed path, with HEAD on the default branch', async () => {
    const created = await ok(store.repositories.create(1, { default_branch: 'trunk', readme }));
    // sha256("1") = 6b86b273ff34fce19d6b804eff5a3f5747ada4eaa22f1d49c01e52ddb7875b4b
    expect(created.path).toBe(`${store.root}/@hashed/6b/86/6b86b273ff34fce19d6b804eff5a3f5747ada4eaa22f1d49c01e52ddb7875b4b.git`);
    expect(existsSync(`${created.path}/hooks/pre-receive`)).toBe(true);
    expect((await run('git', ['--git-dir', created.path, 'rev-parse', '--is-bare-repository'])).stdout.trim()).toBe('true');
    const repository = store.repositories.open(1);
    expect(await ok(repository.headBranch())).toBe('trunk');
    expect(created.changes).toEqual([{ ref: 'refs/heads/trunk', oldSha: null, newSha: created.commit!.id }]);
    expect(created.commit).toMatchObject({ title: 'Initial commit', message: 'Initial commit', parent_ids: [], author_name: 'Ada Lovelace', authored_date: '2024-01-02T03:04:05.000+00:00' });
    expect((await ok(repository.blob({ ref: 'trunk', path: 'README.md' }))).content.toString()).toBe('# Demo\n');
  });

  it('makes the same shas from the same inputs, in any repository', async () => {
    const a = await ok(store.repositories.create(2, { readme }));
    const b = await ok(store.repositories.create(3, { readme }));
    expect(a.commit!.id).toBe(b.commit!.id);
    const later = await ok(store.repositories.create(4, { readme: { ...readme, author: signature('2024-01-02T03:04:06.000+02:00') } }));
    expect(later.commit!.id).not.toBe(a.commit!.id);
    expect(later.commit!.authored_date).toBe('2024-01-02T03:04:06.000+02:00');
  });

  it('creates an empty repository, refuses a second one at the same path, removes it', async () => {
    const created = await ok(store.repositories.create(5));
    expect(created).toMatchObject({ commit: null, changes: [] });
    expect(await store.repositories.exists(5)).toBe(true);
    expect(await ok(store.repositories.open(5).isEmpty())).toBe(true);
    expect((await failure(store.repositories.create(5)))._tag).toBe('RepositoryExists');
    await ok(store.repositories.remove(5));
    expect(await store.repositories.exists(5)).toBe(false);
    expect(existsSync(created.path)).toBe(false);
    expect((await failure(store.repositories.remove(5)))._tag).toBe('RepositoryNotFound');
    expect((await failure(store.repositories.open(5).findCommit('main')))._tag).toBe('RepositoryNotFound');
  });

  it('refuses an invalid default branch', async () => {
    expect(await failure(store.repositories.create(6, { default_branch: 'bad name' }))).toMatchObject({ _tag: 'InvalidRefName', message: 'Branch name is invalid' });
  });
});

describe('commits with actions', () => {
  it('creates, updates, moves, chmods and deletes files, each commit on top of the last', async () => {
    const repository = await newRepository();
    const first = await ok(
      commit(repository, [
        { action: 'create', file_path: 'src/a.txt', content: 'one\n' },
        { action: 'create', file_path: 'bin/run', content: 'IyEvYmluL3NoCg==', encoding: 'base64', execute_filemode: true },
      ]),
    );
    expect(first.branchCreated).toBe(false);
    expect(first.changes[0]!.oldSha).toBe(first.commit.parent_ids[0]);
    const tree = await ok(repository.tree({ ref: 'main', recursive: true }));
    expect(tree.items.map((entry) => [entry.path, entry.type, entry.mode])).toEqual([
      ['bin', 'tree', '040000'],
      ['src', 'tree', '040000'],
      ['README.md', 'blob', '100644'],
      ['bin/run', 'blob', '100755'],
      ['src/a.txt', 'blob', '100644'],
    ]);
    expect((await ok(repository.blob({ ref: 'main', path: 'bin/run' }))).content.toString()).toBe('#!/bin/sh\n');

    const second = await ok(
      commit(repository, [
        { action: 'update', file_path: 'src/a.txt', content: 'two\n' },
        { action: 'move', previous_path: 'src/a.txt', file_path: 'docs/a.txt' },
        { action: 'chmod', file_path: 'bin/run', execute_filemode: false },
        { action: 'delete', file_path: 'README.md' },
      ]),
    );
    expect(second.commit.parent_ids).toEqual([first.commit.id]);
    const after = await ok(repository.tree({ ref: 'main', recursive: true }));
    expect(after.items.map((entry) => `${entry.path} ${entry.mode}`)).toEqual(['bin 040000', 'docs 040000', 'bin/run 100644', 'docs/a.txt 100644']);
    // The move kept the content written by the update before it.
    expect((await ok(repository.blob({ ref: 'main', path: 'docs/a.txt' }))).content.toString()).toBe('two\n');
  });

  it('handles paths with spaces and unicode', async () => {
    const repository = await newRepository();
    await ok(commit(repository, [{ action: 'create', file_path: 'my docs/été 1.txt', content: 'x' }]));
    expect((await ok(repository.tree({ ref: 'main', path: 'my docs' }))).items.map((e) => e.path)).toEqual(['my docs/été 1.txt']);
    expect((await ok(repository.blob({ ref: 'main', path: 'my docs/été 1.txt' }))).size).toBe(1);
    expect((await failure(repository.tree({ ref: 'main', path: 'my docs/no such dir' })))._tag).toBe('PathNotFound');
    // One space: git's "<name> missing" has three words, like an object header.
    expect((await failure(repository.tree({ ref: 'main', path: 'no docs' })))._tag).toBe('PathNotFound');
    expect((await failure(repository.blob({ ref: 'main', path: 'my docs/no such file' })))._tag).toBe('PathNotFound');
    const [diff] = await ok(repository.commitDiff('main'));
    expect(diff).toMatchObject({ new_path: 'my docs/été 1.txt', new_file: true, diff: '@@ -0,0 +1 @@\n+x\n\\ No newline at end of file\n' });
  });

  it('answers the platform’s errors and changes nothing', async () => {
    const repository = await newRepository();
    const before = await ok(repository.findBranch('main'));
    const cases: [Parameters<typeof commit>[1], string][] = [
      [[{ action: 'create', file_path: 'README.md', content: 'x' }], 'A file with this name already exists'],
      [[{ action: 'update', file_path: 'missing.txt', content: 'x' }], "A file with this name doesn't exist"],
      [[{ action: 'delete', file_path: 'missing.txt' }], "A file with this name doesn't exist"],
      [[{ action: 'chmod', file_path: 'missing.txt', execute_filemode: true }], "A file with this name doesn't exist"],
      [[{ action: 'move', previous_path: 'missing.txt', file_path: 'b.txt' }], "A file with this name doesn't exist"],
      [[{ action: 'create', file_path: 'd/x', content: '' }, { action: 'create', file_path: 'd', content: '' }], 'A directory with this name already exists'],
      [[{ action: 'create', file_path: 'README.md/x', content: '' }], 'A file with this name already exists'],
      [[{ action: 'create', file_path: '../etc/passwd', content: '' }], 'Path cannot include directory traversal'],
      [[{ action: 'create', file_path: '/abs', content: '' }], 'Path cannot include directory traversal'],
      [[{ action: 'create', file_path: '', content: '' }], 'You must provide a file path'],
      [[{ action: 'create', file_path: '.git/config', content: '' }], "invalid path: '.git/config'"],
    ];
    for (const [actions, message] of cases) {
      const error = await failure(commit(repository, actions));
      expect(error.message, JSON.stringify(actions)).toBe(message);
      expect(error._tag).toBe('IndexError');
    }
    expect((await ok(repository.findBranch('main'))).commit.id).toBe(before.commit.id);
  });

  it('starts a new branch from start_branch, and refuses the cases the platform refuses', async () => {
    const repository = await newRepository();
    const created = await ok(commit(repository, [{ action: 'create', file_path: 'f.txt', content: 'f' }], { branch: 'feature', start_branch: 'main' }));
    expect(created.branchCreated).toBe(true);
    expect(created.changes).toEqual([{ ref: 'refs/heads/feature', oldSha: null, newSha: created.commit.id }]);
    expect(await failure(commit(repository, [{ action: 'create', file_path: 'g', content: '' }], { branch: 'other' }))).toMatchObject({
      _tag: 'CommitRefused',
      message: 'You can only create or edit files when you are on a branch',
    });
    expect((await failure(commit(repository, [{ action: 'create', file_path: 'g', content: '' }], { branch: 'feature', start_branch: 'main' }))).message).toBe(
      "A branch called 'feature' already exists. Switch to that branch in order to make changes",
    );
    expect((await failure(commit(repository, [{ action: 'create', file_path: 'g', content: '' }], { branch: 'bad name', start_branch: 'main' }))).message).toBe(
      "Something went wrong when we tried to create 'bad name' for you: Branch name is invalid",
    );
    // force: the branch restarts from the start point.
    const forced = await ok(commit(repository, [{ action: 'create', file_path: 'h', content: '' }], { branch: 'feature', start_branch: 'main', force: true }));
    expect(forced.changes).toEqual([{ ref: 'refs/heads/feature', oldSha: created.commit.id, newSha: forced.commit.id }]);
    expect(forced.commit.parent_ids).toEqual([(await ok(repository.findBranch('main'))).commit.id]);
  });

  it('commits the first commit of an empty repository on any branch', async () => {
    const repository = await newRepository({ readme: false });
    const first = await ok(commit(repository, [{ action: 'create', file_path: 'a', content: 'a' }], { branch: 'develop' }));
    expect(first).toMatchObject({ branchCreated: true, commit: { parent_ids: [] } });
    expect(await ok(repository.isEmpty())).toBe(false);
  });

  it('refuses a stale last_commit_id', async () => {
    const repository = await newRepository();
    const head = (await ok(repository.findBranch('main'))).commit.id;
    const changed = await ok(commit(repository, [{ action: 'update', file_path: 'README.md', content: 'v2', last_commit_id: head }]));
    expect(await failure(commit(repository, [{ action: 'update', file_path: 'README.md', content: 'v3', last_commit_id: head }]))).toMatchObject({
      message: 'The file has changed since you started editing it: README.md',
    });
    await ok(commit(repository, [{ action: 'update', file_path: 'README.md', content: 'v3', last_commit_id: changed.commit.id }]));
  });

  it('serialises concurrent writers: every commit lands, each on the one before', async () => {
    const repository = await newRepository();
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => ok(commit(repository, [{ action: 'create', file_path: `f${i}`, content: `${i}` }]))));
    const changes = results.map((result) => result.changes[0]!);
    // The chain of ref changes is unbroken in completion order.
    const ordered = [...changes].sort((a, b) => results.findIndex((r) => r.changes[0] === a) - results.findIndex((r) => r.changes[0] === b));
    const byOld = new Map(ordered.map((change) => [change.oldSha, change]));
    let head = (await ok(repository.log({ ref: 'main', limit: 100 }))).items.at(-1)!.id;
    for (let i = 0; i < 6; i++) head = byOld.get(head)!.newSha!;
    expect(head).toBe((await ok(repository.findBranch('main'))).commit.id);
    expect((await ok(repository.tree({ ref: 'main' }))).total).toBe(7);
  });

  it('records under the lock, and moves the ref back when recording fails', async () => {
    const repository = await newRepository();
    const before = (await ok(repository.findBranch('main'))).commit.id;
    const recorded: unknown[] = [];
    const done = await ok(repository.commitFiles({ branch: 'main', commit_message: 'x', actions: [{ action: 'create', file_path: 'x', content: '' }], author, committer: author }, {
      record: async (changes) => {
        recorded.push(changes);
      },
    }));
    expect(recorded).toEqual([done.changes]);
    const error = await failure(
      repository.commitFiles({ branch: 'main', commit_message: 'y', actions: [{ action: 'create', file_path: 'y', content: '' }], author, committer: author }, {
        record: async () => {
          throw new Error('store down');
        },
      }),
    );
    expect(error).toMatchObject({ _tag: 'RecordFailed', message: 'Recording the change failed: store down' });
    expect((await ok(repository.findBranch('main'))).commit.id).toBe(done.commit.id);
    expect(done.commit.parent_ids).toEqual([before]);
  });

  it('refuses identities and dates git would rewrite', async () => {
    const repository = await newRepository();
    expect((await failure(commit(repository, [{ action: 'create', file_path: 'q', content: '' }], { author: signature('yesterday') }))).message).toBe('author date is invalid');
    expect((await failure(commit(repository, [{ action: 'create', file_path: 'q', content: '' }], { committer: signature(undefined, '') }))).message).toBe('committer name is invalid');
  });
});

describe('reads', () => {
  let repository: Repository;
  const shas: string[] = [];
  beforeAll(async () => {
    repository = await newRepository();
    shas.push((await ok(repository.findBranch('main'))).commit.id);
    const days = ['2024-02-01', '2024-03-01', '2024-04-01'];
    for (const [i, day] of days.entries()) {
      const at = signature(`${day}T12:00:00.000+02:00`);
      const result = await ok(
        repository.commitFiles({
          branch: 'main',
          commit_message: `Commit ${i}\n\nBody ${i}`,
          actions: [{ action: i === 0 ? 'create' : 'update', file_path: 'docs/guide.md', content: `line 1\nline ${i}\n` }],
          author: at,
          committer: at,
        }),
      );
      shas.push(result.commit.id);
    }
  });

  it('finds a commit by sha, short sha, branch and rev~n', async () => {
    const found = await ok(repository.findCommit(shas[3]!));
    expect(found).toMatchObject({
      id: shas[3],
      short_id: shas[3]!.slice(0, 8),
      title: 'Commit 2',
      message: 'Commit 2\n\nBody 2',
      parent_ids: [shas[2]],
      committed_date: '2024-04-01T12:00:00.000+02:00',
    });
    expect((await ok(repository.findCommit(shas[3]!.slice(0, 10)))).id).toBe(shas[3]);
    expect((await ok(repository.findCommit('main'))).id).toBe(shas[3]);
    expect((await ok(repository.findCommit('main~2'))).id).toBe(shas[1]);
    for (const bad of ['nope', '--all', 'main:README.md', ':/Commit', 'main@{0}', 'a\nb']) {
      expect((await failure(repository.findCommit(bad)))._tag, bad).toBe('RevisionNotFound');
    }
  });

  it('pages the log and counts it, by path and by date', async () => {
    const all = await ok(repository.log({ ref: 'main' }));
    expect(all.items.map((c) => c.id)).toEqual([...shas].reverse());
    expect(all.total).toBe(4);
    const second = await ok(repository.log({ ref: 'main', offset: 1, limit: 2 }));
    expect(second).toMatchObject({ total: 4, items: [{ id: shas[2] }, { id: shas[1] }] });
    // Uncounted (the commits API): the total is what was skipped plus what was listed.
    expect(await ok(repository.log({ ref: 'main', offset: 1, limit: 2, counted: false }))).toMatchObject({ total: 3, items: [{ id: shas[2] }, { id: shas[1] }] });
    expect((await ok(repository.log({ ref: 'main', path: 'docs/guide.md' }))).total).toBe(3);
    const march = await ok(repository.log({ ref: 'main', since: '2024-02-15T00:00:00Z', until: '2024-03-15T00:00:00Z' }));
    expect(march.items.map((c) => c.id)).toEqual([shas[2]]);
    expect(march.total).toBe(1);
  });

  it('lists a tree, pages it, and reads a file with its last commit', async () => {
    const docs = await ok(repository.tree({ ref: shas[1]!, path: 'docs/' }));
    expect(docs.items).toEqual([{ id: expect.any(String), name: 'guide.md', type: 'blob', path: 'docs/guide.md', mode: '100644' }]);
    expect(await ok(repository.tree({ ref: 'main', offset: 1, limit: 1 }))).toMatchObject({ total: 2, items: [{ path: 'README.md' }] });
    expect((await failure(repository.tree({ ref: 'main', path: 'nope' })))._tag).toBe('PathNotFound');
    const file = await ok(repository.blob({ ref: 'main', path: 'README.md' }));
    expect(file).toMatchObject({ file_name: 'README.md', file_path: 'README.md', size: 7, commit_id: shas[3], last_commit_id: shas[0], mode: '100644' });
    expect((await failure(repository.blob({ ref: 'main', path: 'docs' })))._tag).toBe('PathNotFound');
  });

  it('answers hostile paths and revisions alone: no git failure, and the reads in flight beside them are unharmed', async () => {
    const outside = ['../x', '..', 'docs/../..', '/abs', '/..', 'docs\0', 'a\nb'];
    const normalised = ['./docs', 'docs/./guide.md', 'docs//guide.md'];
    const innocent = () => Promise.all([ok(repository.blob({ ref: 'main', path: 'docs/guide.md' })), ok(repository.tree({ ref: 'main' }))]);
    const [answers] = await Promise.all([
      Promise.all(
        [...outside, ...normalised].map(async (path) => ({
          path,
          tree: await repository.tree({ ref: 'main', path }),
          blob: await repository.blob({ ref: 'main', path }),
          log: await repository.log({ ref: 'main', path }),
          archive: await repository.archive({ ref: 'main', format: 'tar', prefix: 'p', path }),
          compare: await repository.compare({ from: shas[0]!, to: 'main', paths: [path] }),
        })),
      ),
      ...Array.from({ length: 8 }, innocent),
    ]);
    for (const { path, tree, blob, log, archive, compare } of answers) {
      // A tree or a file is looked for by exact names (as Gitaly, `./` and `..` name nothing); git normalises a pathspec.
      expect(E.isLeft(tree) && tree.left._tag, path).toBe('PathNotFound');
      expect(E.isLeft(blob) && blob.left._tag, path).toBe('PathNotFound');
      const inside = normalised.includes(path);
      expect(E.isRight(log) && log.right.items.length, path).toBe(inside ? 3 : 0);
      expect(E.isRight(archive) || archive.left._tag, path).toBe(inside ? true : 'PathNotFound');
      expect(E.isRight(compare) && compare.right.diffs.length, path).toBe(inside ? 1 : 0);
    }
    // `.` is the root, as Gitaly's tree entries take it.
    expect((await ok(repository.tree({ ref: 'main', path: '.' }))).items.map((entry) => entry.path)).toEqual(['docs', 'README.md']);
    for (const revision of ['main@{upstream}', 'main:../x', ':/Commit', 'main\n', 'HEAD^{/[}']) {
      expect((await failure(repository.tree({ ref: revision })))._tag, revision).toBe('RevisionNotFound');
    }
    await innocent();
  });

  it('answers a write naming a path outside the repository as without last_commit_id (git refused the pathspec)', async () => {
    const head = (await ok(repository.findCommit('main'))).id;
    for (const action of [
      { action: 'update', file_path: '../x', content: 'x' },
      { action: 'delete', file_path: '/etc/passwd' },
      { action: 'move', file_path: 'moved.md', previous_path: '../../x' },
    ] as const) {
      const without = await commit(repository, [action]);
      const withLast = await commit(repository, [{ ...action, last_commit_id: head }]);
      // Refused by the commit service's index checks, not thrown by git (a 500 before).
      expect(E.isLeft(without) && without.left._tag, action.action).toBe('IndexError');
      expect(E.isLeft(withLast) && withLast.left, action.action).toEqual(E.isLeft(without) && without.left);
    }
    expect((await ok(repository.findCommit('main'))).id).toBe(head);
  });

  it('replaces a cat-file that dies: the reads waiting behind the one it was answering are asked again', async () => {
    await ok(repository.findCommit('main'));
    const reader = async () => {
      const { stdout } = await run('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)]);
      const line = stdout.split('\n').find((entry) => entry.includes(`--git-dir=${gitDirs.get(repository)} cat-file --batch`));
      return line === undefined ? null : Number(line.trim().split(/\s+/)[0]);
    };
    const pid = await reader();
    expect(pid).not.toBeNull();
    const reads = Array.from({ length: 20 }, () => repository.blob({ ref: 'main', path: 'docs/guide.md' }));
    process.kill(pid!, 'SIGKILL');
    const answers = await Promise.all([...reads, ...Array.from({ length: 20 }, () => repository.blob({ ref: 'main', path: 'docs/guide.md' }))]);
    // At most the read git was answering when it died fails; every other is answered by the next cat-file.
    expect(answers.filter(E.isLeft).length).toBeLessThanOrEqual(1);
    expect((await ok(repository.blob({ ref: 'main', path: 'docs/guide.md' }))).content.toString()).toBe('line 1\nline 2\n');
    expect(await reader()).not.toBe(pid);
  });

  it('shows a commit’s diff as the platform does, with the line numbers diff notes need', async () => {
    const [diff] = await ok(repository.commitDiff(shas[2]!));
    expect(diff).toMatchObject({
      old_path: 'docs/guide.md',
      new_path: 'docs/guide.md',
      a_mode: '100644',
      b_mode: '100644',
      new_file: false,
      renamed_file: false,
      deleted_file: false,
      diff: '@@ -1,2 +1,2 @@\n line 1\n-line 0\n+line 1\n',
    });
    expect(parseDiffLines(diff!.diff).map((line) => [line.type, line.old_pos, line.new_pos])).toEqual([
      [null, 1, 1],
      ['old', 2, 2],
      ['new', 3, 2],
    ]);
    const [root] = await ok(repository.commitDiff(shas[0]!));
    expect(root).toMatchObject({ new_file: true, a_mode: '0', b_mode: '100644', diff: '@@ -0,0 +1 @@\n+# Demo\n' });
    expect(await ok(repository.commitStats(shas[2]!))).toEqual({ additions: 1, deletions: 1, total: 2 });
  });

  it('compares straight and from the merge base', async () => {
    const side = await ok(commit(repository, [{ action: 'create', file_path: 'side.txt', content: 'side\n' }], { branch: 'side', start_branch: 'main' }));
    await ok(commit(repository, [{ action: 'create', file_path: 'main.txt', content: 'main\n' }]));
    const base = await ok(repository.compare({ from: 'main', to: 'side' }));
    expect(base.commits.map((c) => c.id)).toEqual([side.commit.id]);
    expect(base.diffs.map((d) => d.new_path)).toEqual(['side.txt']);
    expect(base.baseSha).toBe(shas[3]);
    const straight = await ok(repository.compare({ from: 'main', to: 'side', straight: true }));
    expect(straight.diffs.map((d) => [d.new_path, d.deleted_file])).toEqual([
      ['main.txt', true],
      ['side.txt', false],
    ]);
    expect((await ok(repository.compare({ from: 'main', to: 'main' }))).sameRef).toBe(true);
    expect(await ok(repository.mergeBase('main', 'side'))).toBe(shas[3]);
    expect(await ok(repository.isAncestor(shas[1]!, 'side'))).toBe(true);
    expect(await ok(repository.isAncestor('side', 'main'))).toBe(false);
    expect((await ok(repository.commitsBetween('main~1', 'main'))).items).toHaveLength(1);
    expect(await ok(repository.refsContaining(shas[3]!))).toEqual([
      { type: 'branch', name: 'main' },
      { type: 'branch', name: 'side' },
    ]);
    expect(await ok(repository.refsContaining(side.commit.id, 'branch'))).toEqual([{ type: 'branch', name: 'side' }]);
  });

  it('describes renames, deletions, mode changes and binary files', async () => {
    const repo = await newRepository();
    await ok(commit(repo, [
      { action: 'create', file_path: 'a.txt', content: 'a\nb\nc\nd\n' },
      { action: 'create', file_path: 'tool', content: 'x' },
      { action: 'create', file_path: 'img.bin', content: Buffer.from([0, 1, 2, 0]).toString('base64'), encoding: 'base64' },
    ]));
    const changed = await ok(commit(repo, [
      { action: 'move', previous_path: 'a.txt', file_path: 'b.txt', content: 'a\nb\nc\nD\n' },
      { action: 'chmod', file_path: 'tool', execute_filemode: true },
      { action: 'update', file_path: 'img.bin', content: Buffer.from([0, 9]).toString('base64'), encoding: 'base64' },
      { action: 'delete', file_path: 'README.md' },
    ]));
    const diffs = await ok(repo.commitDiff(changed.commit.id));
    const byPath = Object.fromEntries(diffs.map((d) => [d.new_path, d]));
    expect(byPath['b.txt']).toMatchObject({ old_path: 'a.txt', renamed_file: true, diff: '@@ -1,4 +1,4 @@\n a\n b\n c\n-d\n+D\n' });
    expect(byPath['tool']).toMatchObject({ a_mode: '100644', b_mode: '100755', diff: '' });
    expect(byPath['img.bin']).toMatchObject({ binary: true, diff: '' });
    expect(byPath['README.md']).toMatchObject({ deleted_file: true, b_mode: '0', diff: '@@ -1 +0,0 @@\n-# Demo\n' });
    const tiny = await ok(repo.commitDiff(changed.commit.id, { maxPatchBytes: 10 }));
    expect(tiny.find((d) => d.new_path === 'b.txt')).toMatchObject({ too_large: true, diff: '' });
  });
});

describe('trees written without an index', () => {
  const paths = ['a', 'b.txt', 'dir/one', 'dir/two', 'dir/sub/deep', 'dir/sub/deeper/x', 'z/é n', 'z-', 'z.a'];
  const action = fc.oneof(
    fc.record({ action: fc.constant('create' as const), file_path: fc.constantFrom(...paths), content: fc.string({ maxLength: 3 }), execute_filemode: fc.boolean() }),
    fc.record({ action: fc.constant('update' as const), file_path: fc.constantFrom(...paths), content: fc.string({ maxLength: 3 }) }),
    fc.record({ action: fc.constant('delete' as const), file_path: fc.constantFrom(...paths) }),
    fc.record({ action: fc.constant('chmod' as const), file_path: fc.constantFrom(...paths), execute_filemode: fc.boolean() }),
    fc.record({ action: fc.constant('move' as const), previous_path: fc.constantFrom(...paths), file_path: fc.constantFrom(...paths) }),
  );

  it('makes the trees git makes: after any commits, the tree equals git read-tree + write-tree of it, and fsck is clean', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(action, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 6 }), async (commits) => {
        const repository = await newRepository();
        const gitDir = store.repositories.pathOf(nextProject - 1);
        for (const actions of commits) {
          const result = await commit(repository, actions);
          if (E.isLeft(result)) continue;
          const tree = (await run('git', ['--git-dir', gitDir, 'rev-parse', `${result.right.commit.id}^{tree}`])).stdout.trim();
          const index = `${gitDir}/check-index`;
          await run('git', ['--git-dir', gitDir, 'read-tree', tree], { env: { ...process.env, GIT_INDEX_FILE: index } });
          expect((await run('git', ['--git-dir', gitDir, 'write-tree'], { env: { ...process.env, GIT_INDEX_FILE: index } })).stdout.trim()).toBe(tree);
        }
        await run('git', ['--git-dir', gitDir, 'fsck', '--strict', '--no-dangling']);
      }),
      { numRuns: 10 },
    );
  }, 240_000);
});

describe('commits written without commit-tree', () => {
  it('are the objects git commit-tree makes from the same tree, parents, identities, dates and message', async () => {
    const names = fc.constantFrom('Ada Lovelace', ' .Ada, ', 'Ünïcødé', "O'Brien;", 'a', 'x\ty');
    const emails = fc.constantFrom('ada@example.com', ' <ada@example.com> '.replace(/[<>]/g, ''), '', '.dots.@example.com.');
    const dates = fc.constantFrom('2024-01-02T03:04:05.000Z', '2001-09-09T01:46:40.000+02:00', '1969-12-31T23:59:59.000Z', '1972-01-01T00:00:00.000-05:30');
    const messages = fc.constantFrom('Change', 'Two\n\nlines\n', '', 'trailing spaces   ', 'ü\r\nx');
    await fc.assert(
      fc.asyncProperty(names, emails, dates, messages, names, async (name, email, at, message, committerName) => {
        const repository = await newRepository();
        const gitDir = store.repositories.pathOf(nextProject - 1);
        const made = await repository.commitFiles({ branch: 'main', commit_message: message, actions: [{ action: 'create', file_path: 'f', content: 'x' }], author: { name, email, at }, committer: { name: committerName, email, at } });
        if (E.isLeft(made)) return;
        const commit = made.right.commit;
        const { stdout } = await new Promise<{ stdout: string }>((resolve, reject) => {
          const child = execFile('git', ['--git-dir', gitDir, 'commit-tree', commit.tree_id, '-p', commit.parent_ids[0]!], {
            env: { PATH: process.env.PATH, HOME: gitDir, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_AUTHOR_NAME: name, GIT_AUTHOR_EMAIL: email, GIT_AUTHOR_DATE: gitDate(at), GIT_COMMITTER_NAME: committerName, GIT_COMMITTER_EMAIL: email, GIT_COMMITTER_DATE: gitDate(at) },
          }, (error, out) => (error ? reject(error) : resolve({ stdout: out })));
          child.stdin!.end(message);
        });
        expect(commit.id).toBe(stdout.trim());
      }),
      { numRuns: 10 },
    );
  }, 240_000);
});

const gitDate = (iso: string) => {
  const zone = /([+-]\d{2}):(\d{2})$/.exec(iso);
  return `${Math.floor(Date.parse(iso) / 1000)} ${zone ? `${zone[1]}${zone[2]}` : '+0000'}`;
};

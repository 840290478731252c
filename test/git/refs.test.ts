/** Branches, tags (orders, search, errors), merges and bundles, against real git. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { isValidFullRefName, sortByVersion, type Repository, type Sha } from '@forgefold/git';
import { failure, ok, run, signature, storage, type Storage } from './support.js';

let store: Storage;
beforeAll(async () => {
  store = await storage();
});
afterAll(async () => store.dispose());

const author = signature('2024-01-02T03:04:05.000Z');
let nextProject = 2000;
const newRepository = async (): Promise<Repository> => {
  const id = nextProject++;
  await ok(store.repositories.create(id, { readme: { author, committer: author, content: '# Demo\n' } }));
  return store.repositories.open(id);
};

const commitAt = (repository: Repository, at: string, path: string, branch = 'main', start_branch?: string) =>
  ok(
    repository.commitFiles({
      branch,
      ...(start_branch === undefined ? {} : { start_branch }),
      commit_message: `Add ${path}`,
      actions: [{ action: 'create', file_path: path, content: `${path}\n` }],
      author: signature(at),
      committer: signature(at),
    }),
  );

describe('tags', () => {
  let repository: Repository;
  beforeAll(async () => {
    repository = await newRepository();
    // Commits on three dates; tags named so that plain and version orders differ.
    const jan = await commitAt(repository, '2024-01-10T00:00:00Z', 'a');
    const mar = await commitAt(repository, '2024-03-10T00:00:00Z', 'b');
    const feb = await commitAt(repository, '2024-02-10T00:00:00Z', 'c');
    await ok(repository.createTag({ tag_name: 'v1.10', ref: jan.commit.id }));
    await ok(repository.createTag({ tag_name: 'v1.2', ref: mar.commit.id, message: '  Release 1.2\n\n', tagger: signature('2024-05-01T10:00:00.000+02:00', 'Tagger', 't@example.com') }));
    await ok(repository.createTag({ tag_name: 'v1.9-rc1', ref: feb.commit.id }));
    await ok(repository.createTag({ tag_name: 'V1.2.1', ref: feb.commit.id, message: 'upper', tagger: author }));
  });

  const names = async (query: Parameters<Repository['listTags']>[0]) => (await ok(repository.listTags(query))).items.map((tag) => tag.name);

  it('shows lightweight and annotated tags with their commit', async () => {
    const annotated = await ok(repository.findTag('v1.2'));
    expect(annotated).toMatchObject({
      name: 'v1.2',
      message: 'Release 1.2',
      annotated: true,
      tagger: { name: 'Tagger', email: 't@example.com', date: '2024-05-01T10:00:00.000+02:00' },
      commit: { title: 'Add b', committed_date: '2024-03-10T00:00:00.000+00:00' },
    });
    expect(annotated.target).not.toBe(annotated.commit!.id);
    expect((await run('git', ['--git-dir', store.repositories.pathOf(nextProject - 1), 'cat-file', '-t', annotated.target])).stdout.trim()).toBe('tag');
    const light = await ok(repository.findTag('v1.10'));
    expect(light).toMatchObject({ message: '', annotated: false, tagger: null });
    expect(light.target).toBe(light.commit!.id);
    expect(await failure(repository.findTag('nope'))).toMatchObject({ _tag: 'RefNotFound', message: '404 Tag Not Found' });
  });

  it('orders by name, version and the peeled commit’s date, both ways', async () => {
    expect(await names({ orderBy: 'name' })).toEqual(['V1.2.1', 'v1.10', 'v1.2', 'v1.9-rc1']);
    expect(await names({ orderBy: 'name', sort: 'desc' })).toEqual(['v1.9-rc1', 'v1.2', 'v1.10', 'V1.2.1']);
    expect(await names({ orderBy: 'version' })).toEqual(['V1.2.1', 'v1.2', 'v1.9-rc1', 'v1.10']);
    expect(await names({ orderBy: 'updated' })).toEqual(['v1.10', 'V1.2.1', 'v1.9-rc1', 'v1.2']);
    expect(await names({ orderBy: 'updated', sort: 'desc' })).toEqual(['v1.2', 'v1.9-rc1', 'V1.2.1', 'v1.10']);
  });

  it('searches by prefix, suffix and substring (exact match first), ignoring case, and pages', async () => {
    expect(await names({ search: '^v1.2' })).toEqual(['V1.2.1', 'v1.2']);
    expect(await names({ search: 'rc1$' })).toEqual(['v1.9-rc1']);
    expect(await names({ search: 'V1.2', orderBy: 'name', sort: 'asc' })).toEqual(['v1.2', 'V1.2.1']);
    expect(await names({ search: 'nothing' })).toEqual([]);
    expect(await ok(repository.listTags({ orderBy: 'name', offset: 1, limit: 2 }))).toMatchObject({ total: 4, items: [{ name: 'v1.10' }, { name: 'v1.2' }] });
  });

  it('answers the platform’s errors for a new tag', async () => {
    expect(await failure(repository.createTag({ tag_name: 'new design', ref: 'main' }))).toMatchObject({ _tag: 'InvalidRefName', message: 'Tag name invalid' });
    expect((await failure(repository.createTag({ tag_name: '', ref: 'main' }))).message).toBe('Tag name invalid');
    expect((await failure(repository.createTag({ tag_name: 'v1.2', ref: 'main' }))).message).toBe('Tag v1.2 already exists');
    expect((await failure(repository.createTag({ tag_name: 'v9', ref: 'foo' }))).message).toBe('Target foo is invalid');
    expect((await failure(repository.createTag({ tag_name: 'v9', ref: 'main', message: 'needs a tagger' })))._tag).toBe('InvalidInput');
  });

  it('makes the same annotated tag object from the same inputs', async () => {
    const input = { tag_name: 'same', ref: 'main', message: 'Same', tagger: author };
    const [one, two] = [await newRepository(), await newRepository()];
    expect((await ok(one.createTag(input))).tag.target).toBe((await ok(two.createTag(input))).tag.target);
  });

  it('deletes a tag and reports the change', async () => {
    const created = await ok(repository.createTag({ tag_name: 'temp', ref: 'main' }));
    expect(created.changes).toEqual([{ ref: 'refs/tags/temp', oldSha: null, newSha: created.tag.target }]);
    expect((await ok(repository.deleteTag({ tag_name: 'temp' }))).changes).toEqual([{ ref: 'refs/tags/temp', oldSha: created.tag.target, newSha: null }]);
    expect(await failure(repository.deleteTag({ tag_name: 'temp' }))).toMatchObject({ _tag: 'RefNotFound', message: 'No such tag' });
  });
});

describe('branches', () => {
  it('creates, lists, searches and deletes branches with the platform’s errors', async () => {
    const repository = await newRepository();
    const main = (await ok(repository.findBranch('main'))).commit;
    const created = await ok(repository.createBranch({ branch: 'feature/one', ref: 'main' }));
    expect(created).toEqual({ branch: { name: 'feature/one', commit: main }, changes: [{ ref: 'refs/heads/feature/one', oldSha: null, newSha: main.id }] });
    await ok(repository.createBranch({ branch: 'fix', ref: main.id.slice(0, 12) }));
    expect((await ok(repository.listBranches())).items.map((b) => b.name)).toEqual(['feature/one', 'fix', 'main']);
    expect((await ok(repository.listBranches({ search: 'F' }))).items.map((b) => b.name)).toEqual(['feature/one', 'fix']);
    expect(await failure(repository.createBranch({ branch: 'fix', ref: 'main' }))).toMatchObject({ _tag: 'RefExists', message: 'Branch already exists' });
    expect((await failure(repository.createBranch({ branch: 'a..b', ref: 'main' }))).message).toBe('Branch name is invalid');
    expect((await failure(repository.createBranch({ branch: 'HEAD', ref: 'main' }))).message).toBe('Branch name is invalid');
    expect((await failure(repository.createBranch({ branch: 'x', ref: 'missing' }))).message).toBe('Invalid reference name: missing');
    expect(await failure(repository.createBranch({ branch: 'main/x', ref: 'main' }))).toMatchObject({
      _tag: 'RefExists',
      message: 'Cannot create refs/heads/main/x: refs/heads/main exists',
    });
    expect((await ok(repository.deleteBranch({ branch: 'fix' }))).changes).toEqual([{ ref: 'refs/heads/fix', oldSha: main.id, newSha: null }]);
    expect((await failure(repository.deleteBranch({ branch: 'fix' }))).message).toBe('No such branch');
    expect((await failure(repository.deleteBranch({ branch: 'feature/one', expectedSha: '0'.repeat(40) as Sha })))._tag).toBe('RefChanged');
    expect(await ok(repository.refs())).toEqual({ 'refs/heads/feature/one': main.id, 'refs/heads/main': main.id });
  });
});

describe('merges', () => {
  it('fast-forwards when asked and possible, and refuses when not', async () => {
    const repository = await newRepository();
    const base = (await ok(repository.findBranch('main'))).commit.id;
    const feature = await commitAt(repository, '2024-02-01T00:00:00Z', 'f', 'feature', 'main');
    const merged = await ok(
      repository.merge({ target_branch: 'main', source_sha: feature.commit.id, mode: 'fast_forward', message: 'unused', author, committer: author }),
    );
    expect(merged).toMatchObject({ fastForward: true, commit: { id: feature.commit.id }, changes: [{ ref: 'refs/heads/main', oldSha: base, newSha: feature.commit.id }] });
    await commitAt(repository, '2024-02-02T00:00:00Z', 'g');
    const other = await commitAt(repository, '2024-02-03T00:00:00Z', 'h', 'other', 'feature');
    expect((await failure(repository.merge({ target_branch: 'main', source_sha: other.commit.id, mode: 'fast_forward', message: 'm', author, committer: author })))._tag).toBe(
      'NotFastForward',
    );
  });

  it('makes a merge commit with both parents, deterministically', async () => {
    const repository = await newRepository();
    const feature = await commitAt(repository, '2024-02-01T00:00:00Z', 'f', 'feature', 'main');
    const main = await commitAt(repository, '2024-02-02T00:00:00Z', 'm');
    const input = { target_branch: 'main', source_sha: feature.commit.id, mode: 'merge_commit' as const, message: "Merge branch 'feature' into 'main'", author, committer: author };
    const merged = await ok(repository.merge(input));
    expect(merged.fastForward).toBe(false);
    expect(merged.commit.parent_ids).toEqual([main.commit.id, feature.commit.id]);
    expect((await ok(repository.tree({ ref: 'main' }))).items.map((e) => e.path)).toEqual(['README.md', 'f', 'm']);
    // The same history and inputs elsewhere make the same merge commit.
    const twin = await newRepository();
    await commitAt(twin, '2024-02-01T00:00:00Z', 'f', 'feature', 'main');
    await commitAt(twin, '2024-02-02T00:00:00Z', 'm');
    expect((await ok(twin.merge(input))).commit.id).toBe(merged.commit.id);
  });

  it('reports conflicts as a value and moves nothing', async () => {
    const repository = await newRepository();
    const edit = (branch: string, content: string, start?: string) =>
      ok(repository.commitFiles({ branch, ...(start ? { start_branch: start } : {}), commit_message: content, actions: [{ action: 'update', file_path: 'README.md', content }], author, committer: author }));
    const feature = await edit('feature', 'feature\n', 'main');
    const main = await edit('main', 'main\n');
    const error = await failure(repository.merge({ target_branch: 'main', source_sha: feature.commit.id, mode: 'merge_commit', message: 'm', author, committer: author }));
    expect(error).toMatchObject({ _tag: 'MergeConflict', paths: ['README.md'] });
    expect((await ok(repository.findBranch('main'))).commit.id).toBe(main.commit.id);
    expect(
      (await failure(repository.merge({ target_branch: 'main', source_sha: feature.commit.id, expected_target_sha: feature.commit.id, mode: 'merge_commit', message: 'm', author, committer: author })))._tag,
    ).toBe('RefChanged');
  });
});

describe('bundles', () => {
  it('exports every ref and imports them into a new repository', async () => {
    const repository = await newRepository();
    await commitAt(repository, '2024-02-01T00:00:00Z', 'f', 'feature', 'main');
    await ok(repository.createTag({ tag_name: 'v1', ref: 'feature', message: 'One', tagger: author }));
    const before = await ok(repository.refs());
    const dir = await mkdtemp(join(tmpdir(), 'ff-bundle-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, 'repo.bundle');
    expect(await ok(store.repositories.exportBundle(nextProject - 1, file))).toEqual({ written: true, refs: 3 });
    const restored = await ok(store.repositories.importBundle(9999, file, { default_branch: 'main' }));
    expect(restored).toEqual(before);
    expect(await ok(store.repositories.open(9999).headBranch())).toBe('main');
    expect((await ok(store.repositories.open(9999).findTag('v1'))).message).toBe('One');
    // An empty repository has nothing to bundle, and imports empty.
    await ok(store.repositories.create(9998));
    expect(await ok(store.repositories.exportBundle(9998, `${file}.empty`))).toEqual({ written: false, refs: 0 });
    expect(await ok(store.repositories.importBundle(9997, null))).toEqual({});
  });
});

describe('ref names', () => {
  it('accepts exactly what git check-ref-format accepts', async () => {
    const alphabet = ['a', 'b', '/', '.', '-', '@', '{', '~', '^', ':', '?', '*', '[', '\\', ' ', 'l', 'o', 'c', 'k', '\t'];
    const names = fc.array(fc.constantFrom(...alphabet), { minLength: 1, maxLength: 10 }).map((chars) => `refs/${chars.join('')}`);
    const samples = fc.sample(names, { numRuns: 150, seed: 42 });
    for (const name of [...samples, 'refs/heads/a.lock', 'refs/heads/.a', 'refs/heads/a/', 'refs/@', 'refs/heads/@{x}', 'refs/heads/ok']) {
      const { code } = await run('git', ['check-ref-format', name]).then(
        () => ({ code: 0 }),
        (error: { code: number }) => ({ code: error.code }),
      );
      expect(isValidFullRefName(name), name).toBe(code === 0);
    }
  });

  it('sorts versions as the version_sorter gem does', () => {
    const sort = (names: string[]) => sortByVersion(names, (name) => name);
    expect(sort(['1.0.9', '1.0.10', '2.0', '3.1.4.2', '1.0.9a'])).toEqual(['1.0.9a', '1.0.9', '1.0.10', '2.0', '3.1.4.2']);
    expect(sort(['10.0', '1.0', '2.0'])).toEqual(['1.0', '2.0', '10.0']);
    expect(sort(['1.0.9.b', '1.0.9', '1.0.10', '2.0', '3.1.4.2', '1.0.9a', '2.0rc2', '2.0-rc1'])).toEqual([
      '1.0.9a',
      '1.0.9.b',
      '1.0.9',
      '1.0.10',
      '2.0-rc1',
      '2.0rc2',
      '2.0',
      '3.1.4.2',
    ]);
    // Past 32 bits a number is text, and numbers sort after text (the gem's own test).
    expect(sort([String(2 ** 32 + 1), String(2 ** 32 - 1), String(2 ** 32)])).toEqual([String(2 ** 32), String(2 ** 32 + 1), String(2 ** 32 - 1)]);
  });
});

/** The repository API through a real GitLab client, unmodified: Commits, Branches, RepositoryFiles, Tags, ProtectedTags, MergeRequests. */
import { describe, expect, it } from 'vitest';
import { gitbeakerAsRoot } from './support.js';

const client = gitbeakerAsRoot();

describe('@gitbeaker/rest on repositories', () => {
  it('commits, branches, files, tags, protected tags and a merge request end to end', async () => {
    const api = client();
    const project = await api.Projects.create({ name: 'Client Repo', initializeWithReadme: true });
    const id = project.id as number;
    expect(project.default_branch).toBe('main');

    const commit = await api.Commits.create(id, 'main', 'Add files', [
      { action: 'create', filePath: 'lib/one.txt', content: 'one' },
      { action: 'create', filePath: 'lib/two.txt', content: 'dHdv', encoding: 'base64' },
    ]);
    expect(commit.title).toBe('Add files');
    expect((await api.Commits.show(id, commit.id as string)).stats).toEqual({ additions: 2, deletions: 0, total: 2 });
    expect((await api.Commits.showDiff(id, commit.id as string)).map((diff) => diff.new_path)).toEqual(['lib/one.txt', 'lib/two.txt']);
    expect((await api.Commits.all(id, { refName: 'main' })).map((c) => c.title)).toEqual(['Add files', 'Initial commit']);
    expect(await api.Commits.allReferences(id, commit.id as string)).toEqual([{ type: 'branch', name: 'main' }]);

    const branch = await api.Branches.create(id, 'topic', 'main');
    expect(branch.name).toBe('topic');
    expect((await api.Branches.all(id)).map((b) => b.name)).toEqual(['main', 'topic']);

    await api.RepositoryFiles.create(id, 'docs/new.md', 'topic', 'New doc', 'Add doc');
    const file = await api.RepositoryFiles.show(id, 'docs/new.md', 'topic');
    expect(Buffer.from(file.content as string, 'base64').toString()).toBe('New doc');
    await api.RepositoryFiles.edit(id, 'docs/new.md', 'topic', 'Newer doc', 'Edit doc');
    expect(await api.RepositoryFiles.showRaw(id, 'docs/new.md', 'topic')).toBe('Newer doc');
    const compared = (await api.Repositories.compare(id, 'main', 'topic')) as unknown as { commits: { title: string }[] };
    expect(compared.commits.map((c) => c.title)).toEqual(['Add doc', 'Edit doc']);
    expect((await api.Repositories.allRepositoryTrees(id, { ref: 'topic' })).map((entry) => entry.path)).toEqual(['docs', 'lib', 'README.md']);

    const tag = await api.Tags.create(id, 'v1.0.0', 'main', { message: 'First release' });
    expect(tag).toMatchObject({ name: 'v1.0.0', message: 'First release', protected: false });
    expect((await api.Tags.all(id)).map((t) => t.name)).toEqual(['v1.0.0']);
    const rule = await api.ProtectedTags.create(id, 'v*', { createAccessLevel: 40 });
    expect(rule).toMatchObject({ name: 'v*', create_access_levels: [{ access_level: 40, access_level_description: 'Maintainers' }] });
    expect((await api.ProtectedTags.show(id, 'v*')).name).toBe('v*');
    expect((await api.Tags.show(id, 'v1.0.0')).protected).toBe(true);
    await api.ProtectedTags.remove(id, 'v*');
    expect(await api.ProtectedTags.all(id)).toEqual([]);
    await api.Tags.remove(id, 'v1.0.0');
    await expect(api.Tags.show(id, 'v1.0.0')).rejects.toThrow(/404|Not Found/);

    const mr = await api.MergeRequests.create(id, 'topic', 'main', 'Add the doc');
    expect(mr).toMatchObject({ iid: 1, state: 'opened', source_branch: 'topic', target_branch: 'main' });
    const edited = await api.MergeRequests.edit(id, 1, { description: 'Please' });
    expect(edited.description).toBe('Please');
    const changes = (await api.MergeRequests.showChanges(id, 1)) as unknown as { changes: { new_path: string }[] };
    expect(changes.changes.map((c) => c.new_path)).toEqual(['docs/new.md']);
    const versions = await api.MergeRequests.allDiffVersions(id, 1);
    expect(versions).toHaveLength(1);
    expect((await api.MergeRequests.showDiffVersion(id, 1, versions[0]!.id as number)).commits).toHaveLength(2);
    const merged = await api.MergeRequests.accept(id, 1);
    expect(merged).toMatchObject({ state: 'merged', merged_by: { username: 'root' } });
    expect((await api.MergeRequests.all({ projectId: id, state: 'merged' })).map((m) => m.iid)).toEqual([1]);

    await api.Branches.remove(id, 'topic');
    expect((await api.Branches.all(id)).map((b) => b.name)).toEqual(['main']);
  });
});

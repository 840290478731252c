/**
 * Discussions through a real GitLab client, unmodified: Issues, IssueDiscussions, IssueNotes, ProjectSnippets,
 * ProjectSnippetDiscussions, MergeRequestDiscussions (diff notes, resolution), MergeRequestNotes, CommitDiscussions,
 * Epics, EpicDiscussions, EpicNotes; cross-references ("mentioned in …") read through IssueNotes and MergeRequestNotes.
 */
import { describe, expect, it } from 'vitest';
import { gitbeakerAsRoot } from '../repositories/support.js';

const client = gitbeakerAsRoot();

const bodies = (notes: unknown): string[] => (notes as { body: string }[]).map((note) => note.body);

describe('@gitbeaker/rest on discussions', () => {
  it('issues, snippets, merge requests, commits and epics', async () => {
    const api = client();
    const project = await api.Projects.create({ name: 'Client Talk', initializeWithReadme: true });
    const id = project.id as number;

    const issue = await api.Issues.create(id, 'Client bug', { description: 'Broken', labels: 'bug' });
    expect(issue).toMatchObject({ iid: 1, state: 'opened', labels: ['bug'] });
    expect((await api.Issues.all({ projectId: id, state: 'opened' })).map((item) => item.iid)).toEqual([1]);
    expect((await api.Issues.edit(id, 1, { stateEvent: 'close' })).state).toBe('closed');
    const thread = await api.IssueDiscussions.create(id, 1, 'Why?');
    expect(thread.individual_note).toBe(false);
    const reply = await api.IssueDiscussions.addNote(id, 1, thread.id, 'Because');
    expect(reply.body).toBe('Because');
    expect((await api.IssueDiscussions.editNote(id, 1, thread.id, reply.id, { body: 'Because!' })).body).toBe('Because!');
    expect(bodies((await api.IssueDiscussions.show(id, 1, thread.id)).notes)).toEqual(['Why?', 'Because!']);
    await api.IssueDiscussions.removeNote(id, 1, thread.id, reply.id);
    const note = await api.IssueNotes.create(id, 1, 'Flat');
    expect((await api.IssueNotes.all(id, 1, { sort: 'asc' })).map((item) => item.body)).toEqual(['Why?', 'Flat']);
    expect((await api.IssueNotes.edit(id, 1, note.id, { body: 'Flat!' })).body).toBe('Flat!');
    expect((await api.IssueNotes.show(id, 1, note.id)).body).toBe('Flat!');
    await api.IssueNotes.remove(id, 1, note.id);
    expect(await api.IssueDiscussions.all(id, 1)).toHaveLength(1);

    const snippet = await api.ProjectSnippets.create(id, 'Client snippet', { visibility: 'public', files: [{ filePath: 'a.rb', content: 'puts 1' }] });
    expect(await api.ProjectSnippets.showContent(id, snippet.id as number)).toBe('puts 1');
    const snippetThread = await api.ProjectSnippetDiscussions.create(id, snippet.id as number, 'Nice');
    expect((await api.ProjectSnippetDiscussions.all(id, snippet.id as number)).map((discussion) => discussion.id)).toEqual([snippetThread.id]);

    const base = await api.Commits.create(id, 'main', 'Add file', [{ action: 'create', filePath: 'f.txt', content: 'a\nb\nc\n' }]);
    const head = await api.Commits.create(id, 'feature', 'Change b', [{ action: 'update', filePath: 'f.txt', content: 'a\nB\nc\n' }], { startBranch: 'main' });
    const mr = await api.MergeRequests.create(id, 'feature', 'main', 'Change b');
    const refs = mr.diff_refs as { base_sha: string; start_sha: string; head_sha: string };
    const diffThread = await api.MergeRequestDiscussions.create(id, mr.iid, 'Capital?', {
      position: { baseSha: refs.base_sha, startSha: refs.start_sha, headSha: refs.head_sha, positionType: 'text', oldPath: 'f.txt', newPath: 'f.txt', newLine: '2' },
    });
    expect(diffThread.notes![0]).toMatchObject({ type: 'DiffNote', position: { new_line: 2, old_line: null } });
    const resolved = await api.MergeRequestDiscussions.resolve(id, mr.iid, diffThread.id, true);
    expect(resolved.notes![0]).toMatchObject({ resolved: true, resolved_by: { username: 'root' } });
    const mrReply = await api.MergeRequestDiscussions.addNote(id, mr.iid, diffThread.id, 'Yes');
    expect(mrReply).toMatchObject({ type: 'DiffNote', resolved: true });
    expect((await api.MergeRequestDiscussions.editNote(id, mr.iid, diffThread.id, mrReply.id, { resolved: false })).resolved).toBe(false);
    const mrNote = await api.MergeRequestNotes.create(id, mr.iid, 'LGTM');
    expect(mrNote).toMatchObject({ noteable_type: 'MergeRequest', resolvable: false });
    expect((await api.MergeRequestNotes.all(id, mr.iid)).map((item) => item.body)).toEqual(['LGTM', 'Yes', 'Capital?']);

    const commitThread = await api.CommitDiscussions.create(id, head.id as string, 'On the commit');
    expect(commitThread.notes![0]).toMatchObject({ noteable_type: 'Commit', noteable_id: null });
    expect((await api.CommitDiscussions.all(id, head.id as string)).map((discussion) => discussion.id)).toEqual([commitThread.id]);
    expect(await api.CommitDiscussions.all(id, base.id as string)).toEqual([]);

    const group = await api.Groups.create('Client Group', 'client-group');
    const epic = await api.Epics.create(group.id, 'Client epic');
    expect((await api.Epics.show(group.id, epic.iid)).title).toBe('Client epic');
    const epicThread = await api.EpicDiscussions.create(group.id, epic.id, 'Plan');
    await api.EpicDiscussions.addNote(group.id, epic.id, epicThread.id, 'Agreed');
    expect(bodies((await api.EpicDiscussions.show(group.id, epic.id, epicThread.id)).notes)).toEqual(['Plan', 'Agreed']);
    expect((await api.EpicNotes.create(group.id, epic.id, 'Flat epic')).noteable_type).toBe('Epic');

    // Cross-references: an issue naming #1 and !1 puts "mentioned in issue #2" on both, as system notes.
    const mentioning = await api.Issues.create(id, 'Follow-up', { description: `Follows #1 and !${mr.iid}` });
    const mention = (await api.IssueNotes.all(id, 1, { sort: 'desc', orderBy: 'created_at' }))[0]!;
    expect(mention).toMatchObject({ body: `mentioned in issue #${mentioning.iid}`, system: true, noteable_type: 'Issue', author: { username: 'root' } });
    expect((await api.MergeRequestNotes.all(id, mr.iid))[0]).toMatchObject({ body: `mentioned in issue #${mentioning.iid}`, system: true });
  });
});

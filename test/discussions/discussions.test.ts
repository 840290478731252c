/**
 * Discussions and notes over HTTP (lib/api/discussions.rb, notes.rb, 14.7; reference §5): threads on issues,
 * snippets, epics, merge requests and commits; replies, edits, deletions, resolution; diff notes validated against
 * the real diff with the platform's line codes; system notes projected from events; permissions.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { member, newDataDir, removeDir, start, type Running } from '../repositories/support.js';

let server: Running;
let dataDir: string;
let project: { id: number; path_with_namespace: string };
let priv: { id: number };
let guest: { id: number; token: string };
let dev: { id: number; token: string };
let maint: { id: number; token: string };
let outsider: { id: number; token: string };

const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');

beforeAll(async () => {
  dataDir = newDataDir();
  server = await start(dataDir);
  project = (await server.call('POST', '/projects', { name: 'Talk', visibility: 'public', initialize_with_readme: true })).body;
  priv = (await server.call('POST', '/projects', { name: 'Hidden', initialize_with_readme: true })).body;
  guest = await member(server, 'guest', { id: project.id, level: 10 });
  dev = await member(server, 'dev', { id: project.id, level: 30 });
  maint = await member(server, 'maint', { id: project.id, level: 40 });
  outsider = await member(server, 'outsider');
});
afterAll(async () => {
  await server.close();
  removeDir(dataDir);
});

describe('issue discussions', () => {
  it('starts threads, replies, edits, deletes, paginates threads; system notes come from events', async () => {
    const issue = (await server.call('POST', `/projects/${project.id}/issues`, { title: 'Crash', description: 'Boom' }, guest.token)).body;
    const base = `/projects/${project.id}/issues/${issue.iid}`;
    expect(await server.call('GET', `${base}/discussions`, undefined, null)).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    expect(await server.call('POST', `${base}/discussions`, {}, guest.token)).toMatchObject({ status: 400, body: { error: 'body is missing' } });
    expect(await server.call('POST', `${base}/discussions`, { body: ' ' }, guest.token)).toMatchObject({ status: 400, body: { message: '400 Bad request - Note {:note=>["can\'t be blank"]}' } });
    expect(await server.call('POST', `/projects/${project.id}/issues/99/discussions`, { body: 'x' }, guest.token)).toMatchObject({ status: 404, body: { message: '404 Issue Not Found' } });
    const thread = await server.call('POST', `${base}/discussions`, { body: 'First!' }, guest.token);
    expect(thread.status).toBe(201);
    expect(thread.body).toMatchObject({ id: expect.stringMatching(/^[0-9a-f]{40}$/), individual_note: false });
    expect(thread.body.notes).toEqual([
      {
        id: expect.any(Number),
        type: 'DiscussionNote',
        body: 'First!',
        attachment: null,
        author: expect.objectContaining({ id: guest.id, username: 'guest' }),
        created_at: expect.any(String),
        updated_at: expect.any(String),
        system: false,
        noteable_id: issue.id,
        noteable_type: 'Issue',
        resolvable: false,
        confidential: false,
        noteable_iid: issue.iid,
        commands_changes: {},
      },
    ]);
    const first = thread.body.notes[0];
    // Any signed-in user comments on a public project's issue.
    const reply = await server.call('POST', `${base}/discussions/${thread.body.id}/notes`, { body: 'Me too' }, outsider.token);
    expect(reply).toMatchObject({ status: 201, body: { type: 'DiscussionNote', body: 'Me too', author: { id: outsider.id } } });
    expect(await server.call('POST', `${base}/discussions/${'0'.repeat(40)}/notes`, { body: 'x' }, dev.token)).toMatchObject({ status: 404, body: { message: '404 Discussion Not Found' } });
    // Edit: exactly one of body/resolved; the author or a Maintainer; "Note is not resolvable" on issues.
    const notePath = `${base}/discussions/${thread.body.id}/notes/${first.id}`;
    expect(await server.call('PUT', notePath, {}, guest.token)).toMatchObject({ status: 400, body: { error: 'body, resolved are missing, exactly one parameter must be provided' } });
    expect(await server.call('PUT', notePath, { body: 'a', resolved: true }, guest.token)).toMatchObject({ status: 400, body: { error: 'body, resolved are mutually exclusive' } });
    expect((await server.call('PUT', notePath, { body: 'Hijack' }, dev.token)).status).toBe(403);
    expect(await server.call('PUT', notePath, { body: 'First, edited' }, guest.token)).toMatchObject({ status: 200, body: { body: 'First, edited' } });
    expect(await server.call('PUT', notePath, { body: 'By a maintainer' }, maint.token)).toMatchObject({ status: 200, body: { body: 'By a maintainer' } });
    expect(await server.call('PUT', notePath, { resolved: true }, maint.token)).toMatchObject({ status: 400, body: { message: '400 Bad request - Note is not resolvable' } });
    expect(await server.call('GET', `${base}/discussions/${thread.body.id}/notes/999999`, undefined, guest.token)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    // The resolve-a-thread route exists for merge requests only (the router's answer to a known path: 405, see decisions).
    expect(await server.call('PUT', `${base}/discussions/${thread.body.id}`, { resolved: true }, maint.token)).toMatchObject({ status: 405, body: { error: '405 Not Allowed' } });
    // A description change is a system note, shown as an individual note.
    await server.call('PUT', `/projects/${project.id}/issues/${issue.iid}`, { description: 'Boom!', title: 'Crash on start' }, guest.token);
    const list = await server.call('GET', `${base}/discussions`, undefined, guest.token);
    expect(list.headers.get('x-total')).toBe('3');
    const [, titleNote, descriptionNote] = list.body;
    expect(titleNote).toMatchObject({ individual_note: true, notes: [{ type: null, system: true, body: 'changed title from **Crash** to **Crash{+ on start+}**', author: { id: guest.id } }] });
    expect(descriptionNote).toMatchObject({ individual_note: true, notes: [{ type: null, system: true, body: 'changed the description' }] });
    expect((await server.call('PUT', `${base}/discussions/${descriptionNote.id}/notes/${descriptionNote.notes[0].id}`, { body: 'x' }, maint.token)).status).toBe(403);
    // Replying to an individual note of an issue converts it to a thread, in place.
    const converted = await server.call('POST', `${base}/discussions/${descriptionNote.id}/notes`, { body: 'Why?' }, dev.token);
    expect(converted.status).toBe(201);
    expect((await server.call('GET', `${base}/discussions/${descriptionNote.id}`, undefined, dev.token)).body).toMatchObject({
      id: descriptionNote.id,
      individual_note: false,
      notes: [{ type: 'DiscussionNote', system: true }, { type: 'DiscussionNote', body: 'Why?' }],
    });
    // Pages of threads.
    const page = await server.call('GET', `${base}/discussions?per_page=2&page=2`, undefined, guest.token);
    expect(page.body.map((discussion: { id: string }) => discussion.id)).toEqual([descriptionNote.id]);
    // Delete: the author or a Maintainer; the last note takes the thread along.
    expect((await server.call('DELETE', `${base}/discussions/${thread.body.id}/notes/${reply.body.id}`, undefined, dev.token)).status).toBe(403);
    expect((await server.call('DELETE', `${base}/discussions/${thread.body.id}/notes/${reply.body.id}`, undefined, outsider.token)).status).toBe(204);
    expect((await server.call('DELETE', `${base}/discussions/${thread.body.id}/notes/${reply.body.id}`, undefined, outsider.token)).status).toBe(404);
    expect((await server.call('DELETE', notePath, undefined, maint.token)).status).toBe(204);
    expect(await server.call('GET', `${base}/discussions/${thread.body.id}`, undefined, guest.token)).toMatchObject({ status: 404, body: { message: '404 Discussion Not Found' } });
    expect(await server.call('GET', `${base}/discussions/${thread.body.id}/notes`, undefined, guest.token)).toMatchObject({ status: 404, body: { message: '404 Notes Not Found' } });
  });

  it('hides confidential issues and private projects; the flat notes API sorts and orders', async () => {
    const secret = (await server.call('POST', `/projects/${project.id}/issues`, { title: 'Secret', confidential: true }, maint.token)).body;
    expect(await server.call('POST', `/projects/${project.id}/issues/${secret.iid}/discussions`, { body: 'peek' }, outsider.token)).toMatchObject({ status: 404, body: { message: '404 Issue Not Found' } });
    expect((await server.call('POST', `/projects/${project.id}/issues/${secret.iid}/discussions`, { body: 'ok' }, dev.token)).status).toBe(201);
    const hidden = (await server.call('POST', `/projects/${priv.id}/issues`, { title: 'Private' })).body;
    expect(await server.call('GET', `/projects/${priv.id}/issues/${hidden.iid}/notes`, undefined, outsider.token)).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    const notes = `/projects/${project.id}/issues/${secret.iid}/notes`;
    const a = await server.call('POST', notes, { body: 'one' }, dev.token);
    expect(a).toMatchObject({ status: 201, body: { type: null, body: 'one', noteable_type: 'Issue' } });
    await server.call('POST', notes, { body: 'two' }, maint.token);
    expect((await server.call('GET', notes, undefined, dev.token)).body.map((note: { body: string }) => note.body)).toEqual(['two', 'one', 'ok']);
    expect((await server.call('GET', `${notes}?sort=asc`, undefined, dev.token)).body.map((note: { body: string }) => note.body)).toEqual(['ok', 'one', 'two']);
    await server.call('PUT', `${notes}/${a.body.id}`, { body: 'one, edited' }, dev.token);
    expect((await server.call('GET', `${notes}?order_by=updated_at`, undefined, dev.token)).body[0].body).toBe('one, edited');
    expect((await server.call('GET', `${notes}/${a.body.id}`, undefined, dev.token)).body.body).toBe('one, edited');
    expect((await server.call('DELETE', `${notes}/${a.body.id}`, undefined, dev.token)).status).toBe(204);
    expect(await server.call('GET', `${notes}?order_by=id`, undefined, dev.token)).toMatchObject({ status: 400, body: { error: 'order_by does not have a valid value' } });
  });
});

describe('snippet and epic discussions', () => {
  it('snippet individual notes cannot be replied to; epic ones can; epics use the global id', async () => {
    const snippet = (await server.call('POST', `/projects/${project.id}/snippets`, { title: 'S', visibility: 'public', content: 'x', file_name: 'x.txt' }, maint.token)).body;
    const note = await server.call('POST', `/projects/${project.id}/snippets/${snippet.id}/notes`, { body: 'nice' }, guest.token);
    expect(note.body).toMatchObject({ noteable_type: 'Snippet', noteable_id: snippet.id, noteable_iid: null });
    const threads = await server.call('GET', `/projects/${project.id}/snippets/${snippet.id}/discussions`, undefined, guest.token);
    expect(await server.call('POST', `/projects/${project.id}/snippets/${snippet.id}/discussions/${threads.body[0].id}/notes`, { body: 'reply' }, guest.token)).toMatchObject({
      status: 400,
      body: { message: '400 Bad request - Discussion can not be replied to.' },
    });
    const group = (await server.call('POST', '/groups', { name: 'Roadmaps', path: 'roadmaps', visibility: 'public' })).body;
    const other = (await server.call('POST', '/groups', { name: 'Other', path: 'other-plans', visibility: 'public' })).body;
    await server.call('POST', `/groups/${other.id}/epics`, { title: 'Filler' });
    await server.call('POST', `/groups/${other.id}/epics`, { title: 'Filler 2' });
    const epic = (await server.call('POST', `/groups/${group.id}/epics`, { title: 'Big' })).body;
    expect(epic).toMatchObject({ iid: 1 });
    expect(epic.id).not.toBe(1);
    expect(await server.call('GET', `/groups/${group.id}/epics/${epic.iid}/discussions`)).toMatchObject({ status: 404, body: { message: '404 Epic Not Found' } });
    const epicNote = await server.call('POST', `/groups/${group.id}/epics/${epic.id}/notes`, { body: 'plan' });
    expect(epicNote.body).toMatchObject({ noteable_type: 'Epic', noteable_id: epic.id, type: null });
    const epicThreads = await server.call('GET', `/groups/${group.id}/epics/${epic.id}/discussions`);
    expect((await server.call('POST', `/groups/${group.id}/epics/${epic.id}/discussions/${epicThreads.body[0].id}/notes`, { body: 'ok' })).status).toBe(201);
  });
});

describe('merge request and commit discussions', () => {
  it('validates diff positions against the real diff, computes line codes, resolves threads', async () => {
    const base = `/projects/${project.id}`;
    const content = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'].join('\n') + '\n';
    await server.call('POST', `${base}/repository/commits`, { branch: 'main', commit_message: 'Add file', actions: [{ action: 'create', file_path: 'lib/a.txt', content }] });
    const changed = content.replace('two\n', 'TWO\n');
    const commit = await server.call('POST', `${base}/repository/commits`, { branch: 'feature', start_branch: 'main', commit_message: 'Shout', actions: [{ action: 'update', file_path: 'lib/a.txt', content: changed }] });
    const mr = (await server.call('POST', `${base}/merge_requests`, { title: 'Shout', source_branch: 'feature', target_branch: 'main' }, dev.token)).body;
    const refs = mr.diff_refs;
    const mrBase = `${base}/merge_requests/${mr.iid}`;
    const position = (lines: object) => ({ base_sha: refs.base_sha, start_sha: refs.start_sha, head_sha: refs.head_sha, position_type: 'text', old_path: 'lib/a.txt', new_path: 'lib/a.txt', ...lines });
    const code = (oldLine: number, newLine: number) => `${sha1('lib/a.txt')}_${oldLine}_${newLine}`;
    // Hunk @@ -1,5 +1,5 @@: one, -two, +TWO, three, four, five.
    const added = await server.call('POST', `${mrBase}/discussions`, { body: 'Louder?', position: position({ new_line: 2 }) }, dev.token);
    expect(added.status).toBe(201);
    expect(added.body.notes[0]).toMatchObject({
      type: 'DiffNote',
      noteable_type: 'MergeRequest',
      noteable_iid: mr.iid,
      commit_id: null,
      position: { ...position({ old_line: null, new_line: 2 }), line_range: null },
      resolvable: true,
      resolved: false,
      resolved_by: null,
      resolved_at: null,
    });
    const threads = (await server.call('GET', `${mrBase}/discussions`, undefined, dev.token)).body;
    expect(threads).toHaveLength(1);
    expect(server.events.some((event) => event.type === 'DiscussionStarted' && (event.data as { note: { line_code: string } }).note.line_code === code(3, 2))).toBe(true);
    const removed = await server.call('POST', `${mrBase}/discussions`, { body: 'Gone', position: position({ old_line: 2 }) }, dev.token);
    expect(removed.status).toBe(201);
    expect(server.events.at(-1)!.data).toMatchObject({ note: { line_code: code(2, 2) } });
    // Context line inside the hunk, and a line unfolded beyond it.
    expect((await server.call('POST', `${mrBase}/discussions`, { body: 'ctx', position: position({ old_line: 3, new_line: 3 }) }, dev.token)).status).toBe(201);
    expect((await server.call('POST', `${mrBase}/discussions`, { body: 'far', position: position({ old_line: 11, new_line: 11 }) }, dev.token)).status).toBe(201);
    expect(server.events.at(-1)!.data).toMatchObject({ note: { line_code: code(11, 11) } });
    const invalid = '400 Bad request - Note {:line_code=>["can\'t be blank", "must be a valid line code"]}';
    expect(await server.call('POST', `${mrBase}/discussions`, { body: 'x', position: position({ new_line: 3 }) }, dev.token)).toMatchObject({ status: 400, body: { message: invalid } });
    expect(await server.call('POST', `${mrBase}/discussions`, { body: 'x', position: position({ old_line: 40, new_line: 40 }) }, dev.token)).toMatchObject({ status: 400, body: { message: invalid } });
    expect(await server.call('POST', `${mrBase}/discussions`, { body: 'x', position: { ...position({ new_line: 2 }), new_path: 'nope.txt', old_path: 'nope.txt' } }, dev.token)).toMatchObject({ status: 400, body: { message: invalid } });
    expect(await server.call('POST', `${mrBase}/discussions`, { body: 'x', position: position({}) }, dev.token)).toMatchObject({
      status: 400,
      body: { message: '400 Bad request - Note {:line_code=>["can\'t be blank", "must be a valid line code"], :position=>["is incomplete"]}' },
    });
    expect(await server.call('POST', `${mrBase}/discussions`, { body: 'x', position: { ...position({ new_line: 2 }), position_type: 'pdf' } }, dev.token)).toMatchObject({
      status: 400,
      body: { error: 'position[position_type] does not have a valid value' },
    });
    // Image positions: complete (x, y, width, height, a path, start and head SHAs) and without a line code.
    const image = (fields: object) => ({ base_sha: refs.base_sha, start_sha: refs.start_sha, head_sha: refs.head_sha, position_type: 'image', old_path: 'logo.png', new_path: 'logo.png', width: 100, height: 80, x: 0, y: 5, ...fields });
    const pinned = await server.call('POST', `${mrBase}/discussions`, { body: 'Pixel', position: image({}) }, dev.token);
    expect(pinned.status).toBe(201);
    expect(pinned.body.notes[0]).toMatchObject({ type: 'DiffNote', resolvable: true, position: { position_type: 'image', width: 100, height: 80, x: 0, y: 5, new_path: 'logo.png', head_sha: refs.head_sha } });
    expect(pinned.body.notes[0].position).not.toHaveProperty('new_line');
    expect(await server.call('POST', `${mrBase}/discussions`, { body: 'Pixel', position: image({ height: undefined }) }, dev.token)).toMatchObject({ status: 400, body: { message: '400 Bad request - Note {:position=>["is incomplete"]}' } });
    expect(await server.call('POST', `${mrBase}/discussions`, { body: 'Pixel', position: image({ x: 'left' }) }, dev.token)).toMatchObject({ status: 400, body: { error: 'position[x] is invalid' } });
    // Resolution: the thread, by a Developer; a reply to a resolved thread is born resolved.
    const threadPath = `${mrBase}/discussions/${added.body.id}`;
    expect((await server.call('PUT', threadPath, { resolved: true }, guest.token)).status).toBe(403);
    const resolved = await server.call('PUT', threadPath, { resolved: true }, maint.token);
    expect(resolved.body.notes[0]).toMatchObject({ resolved: true, resolved_by: { id: maint.id }, resolved_at: expect.any(String) });
    const reply = await server.call('POST', `${threadPath}/notes`, { body: 'ack' }, dev.token);
    expect(reply.body).toMatchObject({ type: 'DiffNote', resolved: true, resolved_by: { id: dev.id }, position: { new_line: 2 } });
    expect((await server.call('PUT', threadPath, { resolved: false }, dev.token)).body.notes.map((note: { resolved: boolean }) => note.resolved)).toEqual([false, false]);
    expect((await server.call('PUT', `${threadPath}/notes/${reply.body.id}`, { resolved: true }, dev.token)).body).toMatchObject({ resolved: true });
    expect(await server.call('PUT', threadPath, {}, dev.token)).toMatchObject({ status: 400, body: { error: 'resolved is missing' } });
    // An individual comment on a merge request is not resolvable.
    const comment = await server.call('POST', `${mrBase}/notes`, { body: 'LGTM' }, dev.token);
    expect(comment.body).toMatchObject({ type: null, resolvable: false });
    expect(comment.body).not.toHaveProperty('resolved');
    const commentThread = (await server.call('GET', `${mrBase}/discussions?per_page=100`, undefined, dev.token)).body.at(-1);
    expect((await server.call('PUT', `${mrBase}/discussions/${commentThread.id}`, { resolved: true }, maint.token)).status).toBe(403);
    // The branch moves on: the note keeps its version.
    await server.call('POST', `${base}/repository/commits`, { branch: 'feature', commit_message: 'More', actions: [{ action: 'create', file_path: 'b.txt', content: 'b\n' }] });
    expect((await server.call('GET', `${threadPath}`, undefined, dev.token)).body.notes[0].position.head_sha).toBe(refs.head_sha);
    // The push is a system note projected from the new version: "added 1 commit", its list and the compare link.
    const pushed = (await server.call('GET', `${mrBase}/discussions?per_page=100`, undefined, dev.token)).body.at(-1);
    const head = (await server.call('GET', `${base}/repository/branches/feature`)).body.commit;
    expect(pushed).toMatchObject({ individual_note: true, notes: [{ type: null, system: true, author: { username: 'root' } }] });
    expect(pushed.notes[0].body).toBe(
      `added 1 commit\n\n<ul><li>${head.id.slice(0, 8)} - More</li></ul>\n\n[Compare with previous version](/${project.path_with_namespace}/-/merge_requests/${mr.iid}/diffs?diff_id=2&start_sha=${refs.head_sha})`,
    );

    // Commits, under both paths: plain threads, diff notes, no replies to individual notes.
    for (const prefix of [`${base}/repository/commits`, `${base}/commits`]) {
      const commitBase = `${prefix}/${commit.body.id}`;
      const plain = await server.call('POST', `${commitBase}/discussions`, { body: 'Nice commit' }, guest.token);
      expect(plain.body.notes[0]).toMatchObject({ type: 'DiscussionNote', noteable_type: 'Commit', noteable_id: null, noteable_iid: null, resolvable: false });
      const diffNote = await server.call(
        'POST',
        `${commitBase}/discussions`,
        { body: 'here', position: { base_sha: commit.body.parent_ids[0], start_sha: commit.body.parent_ids[0], head_sha: commit.body.id, position_type: 'text', old_path: 'lib/a.txt', new_path: 'lib/a.txt', new_line: 2 } },
        guest.token,
      );
      expect(diffNote.body.notes[0]).toMatchObject({ type: 'DiffNote', position: { new_line: 2 } });
      expect(diffNote.body.notes[0]).not.toHaveProperty('commit_id');
    }
    // A commit's diff note names the commit's own diff refs (its parent as base and start, itself as head).
    const commitBase = `${base}/repository/commits/${commit.body.id}`;
    const parent = commit.body.parent_ids[0];
    const onCommit = (shas: object) => ({ body: 'x', position: { base_sha: parent, start_sha: parent, head_sha: commit.body.id, position_type: 'text', old_path: 'lib/a.txt', new_path: 'lib/a.txt', new_line: 2, ...shas } });
    expect(await server.call('POST', `${commitBase}/discussions`, onCommit({ head_sha: head.id }), guest.token)).toMatchObject({
      status: 400,
      body: { message: '400 Bad request - Note {:commit_id=>["does not match the diff refs"]}' },
    });
    expect(await server.call('POST', `${commitBase}/discussions`, onCommit({ head_sha: head.id, new_line: 7 }), guest.token)).toMatchObject({
      status: 400,
      body: { message: '400 Bad request - Note {:commit_id=>["does not match the diff refs"], :line_code=>["can\'t be blank", "must be a valid line code"]}' },
    });
    expect(await server.call('POST', `${commitBase}/discussions`, onCommit({ start_sha: commit.body.id }), guest.token)).toMatchObject({
      status: 400,
      body: { message: '400 Bad request - Note {:commit_id=>["does not match the diff refs"]}' },
    });
    expect((await server.call('POST', `${commitBase}/discussions`, onCommit({ base_sha: parent.slice(0, 8), start_sha: parent.slice(0, 8), head_sha: commit.body.id.slice(0, 8) }), guest.token)).status).toBe(201);
    expect(await server.call('GET', `${base}/repository/commits/${'f'.repeat(40)}/discussions`, undefined, guest.token)).toMatchObject({ status: 404, body: { message: '404 Commit Not Found' } });
    expect((await server.call('GET', `${base}/repository/commits/${commit.body.id}/discussions`, undefined, guest.token)).body).toHaveLength(5);
    // Private project: outsiders see nothing.
    expect(await server.call('GET', `/projects/${priv.id}/repository/commits/main/discussions`, undefined, outsider.token)).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
  });
});

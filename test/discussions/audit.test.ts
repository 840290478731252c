/** `forgefold audit --discussion ID` prints a thread's history from the log: who started, replied, edited, resolved, deleted. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliInProcess } from '../cli/fixtures.js';
import { member, newDataDir, removeDir, start } from '../repositories/support.js';

let dataDir: string;
let threadId: string;

beforeAll(async () => {
  dataDir = newDataDir();
  const server = await start(dataDir);
  const project = (await server.call('POST', '/projects', { name: 'Audit', visibility: 'public', initialize_with_readme: true })).body;
  const dev = await member(server, 'dev', { id: project.id, level: 30 });
  await server.call('POST', `/projects/${project.id}/repository/commits`, { branch: 'feature', start_branch: 'main', commit_message: 'x', actions: [{ action: 'create', file_path: 'x.txt', content: 'x\n' }] });
  const mr = (await server.call('POST', `/projects/${project.id}/merge_requests`, { title: 'X', source_branch: 'feature', target_branch: 'main' })).body;
  const base = `/projects/${project.id}/merge_requests/${mr.iid}/discussions`;
  const thread = (await server.call('POST', base, { body: 'Please rename' }, dev.token)).body;
  threadId = thread.id;
  const reply = (await server.call('POST', `${base}/${threadId}/notes`, { body: 'Done' })).body;
  await server.call('PUT', `${base}/${threadId}/notes/${reply.id}`, { body: 'Done, renamed' });
  await server.call('PUT', `${base}/${threadId}`, { resolved: true }, dev.token);
  await server.call('DELETE', `${base}/${threadId}/notes/${reply.id}`);
  await server.close();
});
afterAll(() => removeDir(dataDir));

describe('forgefold audit --discussion', () => {
  it("prints the thread's history, oldest first, with the actors", async () => {
    const run = await cliInProcess(['audit', '--data', dataDir, '--discussion', threadId]);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatch(/DiscussionStarted +note \d+ {2}"Please rename" {2}by dev \[api\]$/);
    expect(lines[1]).toMatch(/NoteAdded +note \d+ {2}"Done" {2}by root \[api\]$/);
    expect(lines[2]).toMatch(/NoteEdited +note \d+ {2}"Done, renamed" {2}by root \[api\]$/);
    expect(lines[3]).toMatch(/DiscussionResolved +note \d+, note \d+ {2}by dev \[api\]$/);
    expect(lines[4]).toMatch(/NoteDeleted +note \d+ {2}by root \[api\]$/);
    const json = await cliInProcess(['audit', '--data', dataDir, '--discussion', threadId, '--json']);
    expect(JSON.parse(json.stdout).map((entry: { event: string }) => entry.event)).toEqual(['DiscussionStarted', 'NoteAdded', 'NoteEdited', 'DiscussionResolved', 'NoteDeleted']);
    const missing = await cliInProcess(['audit', '--data', dataDir, '--discussion', 'f'.repeat(40)]);
    expect(missing.status).not.toBe(0);
    expect(missing.stderr).toMatch(/no thread/);
  });
});

/**
 * `issuesClosedBy`: the default `issue_closing_pattern` (gitlab.yml, 14.x) over a merge request's title and
 * description, as `Gitlab::ClosingIssueExtractor` reads it: the closing statements first, then the issue references
 * inside them.
 */
import { describe, expect, it } from 'vitest';
import { findMergeRequest, findProject, issuesClosedBy, issuesOf, mergeRequestsOf } from '@forgefold/core';
import { as, makeApp, system, userCommand } from '../core/fixtures.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);

const setup = async () => {
  const fixture = await makeApp();
  const { ok } = fixture;
  await ok(system, userCommand('root', { is_admin: true }));
  await ok(as(1), { type: 'CreateGroup', name: 'Team', path: 'team', visibility: 'public' });
  await ok(as(1), { type: 'CreateProject', name: 'App', namespace_id: 2, visibility: 'public' });
  await ok(as(1), { type: 'CreateProject', name: 'Lib', namespace_id: 2, visibility: 'public' });
  await ok(system, { type: 'UpdateRefs', project_id: 1, via: 'api', changes: [{ ref: 'refs/heads/main', old_sha: null, new_sha: A }, { ref: 'refs/heads/feature', old_sha: null, new_sha: B }, { ref: 'refs/heads/side', old_sha: null, new_sha: A }] });
  for (let i = 1; i <= 9; i++) await ok(as(1), { type: 'CreateIssue', project_id: 1, title: `Issue ${i}` });
  await ok(as(1), { type: 'CreateIssue', project_id: 2, title: 'In the library' });
  return fixture;
};

describe('closing statements', () => {
  it('reads the default closing pattern: verbs, lists, prefixes, other projects, URLs; not the lookalikes', async () => {
    const { app, ok } = await setup();
    const closes = async (title: string, description: string, target = 'main') => {
      const iid = mergeRequestsOf(app.state.repositories, 1).length + 1;
      await ok(as(1), { type: 'CreateMergeRequest', project_id: 1, title, description, source_branch: 'feature', target_branch: target, version: { head_commit_sha: B, base_commit_sha: A, start_commit_sha: A } });
      const mr = findMergeRequest(app.state.repositories, 1, iid)!;
      await ok(as(1), { type: 'UpdateMergeRequest', project_id: 1, iid, state_event: 'close' });
      const ids = issuesClosedBy(app.state, findProject(app.state.projects, 1)!, mr);
      const byId = new Map([...issuesOf(app.state.issues, 1), ...issuesOf(app.state.issues, 2)].map((issue) => [issue.id, issue]));
      return ids.map((id) => `${byId.get(id)!.project_id === 1 ? '' : 'lib'}#${byId.get(id)!.iid}`);
    };
    expect(await closes('Closes #1', '')).toEqual(['#1']);
    expect(await closes('Work', 'This fixes #2, #3 and #4.\n\nResolved: #5')).toEqual(['#2', '#3', '#4', '#5']);
    expect(await closes('Work', 'Implementing issue #6; closing issues #7 and team/lib#1')).toEqual(['#6', '#7', 'lib#1']);
    expect(await closes('Work', 'Closes https://gitlab.example.com/team/app/-/issues/8')).toEqual(['#8']);
    expect(await closes('Work', 'see #1, closer #2, prefix #3, fixes JIRA-12, Closes#4')).toEqual([]);
    // The extractor scans the raw text: a statement in a code span closes all the same.
    expect(await closes('Work', 'the commit said `closes #5`')).toEqual(['#5']);
    // Only a merge request into the default branch closes anything.
    expect(await closes('Closes #9', '', 'side')).toEqual([]);
  });
});

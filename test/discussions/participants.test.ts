/**
 * `issueParticipants` (Participable#participants, 14.7) against the reference extractor's rules for user mentions:
 * `User.reference_pattern` (no word character before `@`, a namespace path that does not end in a dot), code left
 * out, a group's direct members, mentioned users by id after the groups' members.
 */
import { describe, expect, it } from 'vitest';
import { findIssue, findProject, findUser, issueParticipants, listGroups, type State } from '@forgefold/core';
import { as, makeApp, system, userCommand } from '../core/fixtures.js';

const usernames = (state: State, ids: number[]) => ids.map((id) => findUser(state.users, id)?.username);

describe('issue participants', () => {
  it('orders assignees, note authors, the author, then group members and mentioned users by id; reads mentions as the platform does', async () => {
    const { app, ok } = await makeApp();
    await ok(system, userCommand('root', { is_admin: true }));
    for (const name of ['ann', 'bob', 'cid', 'dee', 'eve', 'fay']) await ok(system, userCommand(name));
    // ids: root 1, ann 2, bob 3, cid 4, dee 5, eve 6, fay 7
    await ok(as(1), { type: 'CreateGroup', name: 'Crew', path: 'crew', visibility: 'public' });
    const crew = [...listGroups(app.state.groups)].find((group) => group.path === 'crew')!;
    await ok(as(1), { type: 'AddMember', source_type: 'Namespace', source_id: crew.id, user_id: 7, access_level: 30 });
    await ok(as(1), { type: 'CreateProject', name: 'App', namespace_id: crew.id, visibility: 'public' });
    // A Reporter, so that the assignee is kept (`set_issue_metadata`).
    await ok(as(1), { type: 'AddMember', source_type: 'Project', source_id: 1, user_id: 2, access_level: 20 });
    await ok(as(2), {
      type: 'CreateIssue',
      project_id: 1,
      title: 'Hello @eve.',
      description: 'mail@dee.example is no mention; `@cid` in code neither; @crew is, and so is @BOB (any case)',
      assignee_ids: [5],
    });
    const issue = findIssue(app.state.issues, 1, 1)!;
    const project = findProject(app.state.projects, 1)!;
    // dee (assignee), ann (author), then crew's members (root, its creator and owner; fay), then bob and eve by id.
    expect(usernames(app.state, issueParticipants(app.state, project, issue, null))).toEqual(['dee', 'ann', 'root', 'fay', 'bob', 'eve']);
  });
});

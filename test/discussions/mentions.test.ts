/**
 * Cross-references ("mentioned in …") as projections, given/when/then: given the events that happened, when an
 * event carrying text is folded, then exactly these system notes are on the referenced noteables (body, author,
 * mentioner), once per target and body, only where the text's author may read the target.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { noteVisibleTo, notesOfNoteable, type ForgefoldEvent, type NoteData, type NoteableData } from '@forgefold/core';
import { AT, groupCreated, memberAdded, projectCreated, stateOf, userCreated } from '../specs/spec.js';

const LATER = '2026-01-02T00:00:00.000Z';
const A = 'a'.repeat(40);
const B = 'b'.repeat(40);

/** Group team (10) holds app (1) and lib (2); group other (11) holds tool (3). guest 2 reads app; outsider 5 nothing private. */
const base: ForgefoldEvent[] = [
  userCreated(1, 'root', { admin: true }),
  userCreated(2, 'guest'),
  userCreated(3, 'dev'),
  userCreated(5, 'outsider'),
  groupCreated(10, 'team', { visibility: 'public' }),
  groupCreated(11, 'other', { visibility: 'public' }),
  projectCreated(1, 'app', 10, { visibility: 'public' }),
  projectCreated(2, 'lib', 10, { visibility: 'public' }),
  projectCreated(3, 'tool', 11, { visibility: 'public' }),
  memberAdded(1, { project: 1 }, 2, 10),
  memberAdded(2, { project: 1 }, 3, 30),
];

const issue = (project: number, id: number, iid: number, text: { title?: string; description?: string; author?: number; confidential?: boolean; at?: string } = {}): ForgefoldEvent => ({
  type: 'IssueCreated',
  data: {
    project_id: project,
    id,
    iid,
    title: text.title ?? `Issue ${id}`,
    description: text.description ?? '',
    confidential: text.confidential ?? false,
    labels: [],
    assignee_ids: [],
    author_id: text.author ?? 3,
    created_at: text.at ?? AT,
  },
});

const mergeRequest = (description: string, author = 3): ForgefoldEvent[] => [
  { type: 'BranchCreated', data: { project_id: 1, name: 'main', sha: A, via: 'api' } },
  { type: 'BranchCreated', data: { project_id: 1, name: 'feature', sha: B, via: 'api' } },
  {
    type: 'MergeRequestCreated',
    data: { project_id: 1, id: 7, iid: 1, title: 'Feature', description, source_branch: 'feature', target_branch: 'main', author_id: author, assignee_ids: [], squash: false, remove_source_branch: false, created_at: AT },
  },
];

const discussionId = (noteId: number) => createHash('sha1').update(`discussion-${noteId}`).digest('hex');
const noteable = (type: NoteableData['type'], id: number | null, iid: number | null, project: number | null, extra: Partial<NoteableData> = {}): NoteableData => ({
  key: type === 'Commit' ? `Commit:${project}:${extra.commit_sha}` : `${type}:${id}`,
  type,
  id,
  iid,
  project_id: project,
  group_id: null,
  commit_sha: null,
  ...extra,
});
const userNote = (id: number, author: number, body: string): NoteData => ({ id, type: 'DiscussionNote', body, author_id: author, created_at: LATER, position: null, line_code: null, commit_id: null, resolved_by_id: null, resolved_at: null });
const started = (on: NoteableData, data: NoteData): ForgefoldEvent => ({ type: 'DiscussionStarted', data: { discussion_id: discussionId(data.id), noteable: on, individual_note: false, note: data } });

/** The system notes of issue `id` (Issue:<id>): body, author, time, mentioner. */
const systemNotesOf = (events: readonly ForgefoldEvent[], key: string) =>
  notesOfNoteable(stateOf(events).discussions, key)
    .filter((note) => note.system)
    .map((note) => ({ body: note.body, author_id: note.author_id, created_at: note.created_at, mentioner: note.mentioner ?? null }));

interface MentionSpec {
  readonly given: readonly ForgefoldEvent[];
  readonly when: readonly ForgefoldEvent[];
  /** Target noteable key → its system notes after `when`. */
  readonly then: Record<string, readonly { body: string; author_id: number | null; created_at?: string; mentioner?: unknown }[]>;
}

const specs: Record<string, MentionSpec> = {
  'an issue created with "#1" in its description': {
    given: [...base, issue(1, 1, 1)],
    when: [issue(1, 2, 2, { description: 'Related to #1.' })],
    then: { 'Issue:1': [{ body: 'mentioned in issue #2', author_id: 3, created_at: AT, mentioner: { kind: 'Issue', project_id: 1, iid: 2 } }], 'Issue:2': [] },
  },
  'the title counts too; each target once; no note on the mentioner itself': {
    given: [...base, issue(1, 1, 1), issue(1, 2, 2)],
    when: [issue(1, 3, 3, { title: 'Fix #1', description: 'See #1, #2 and #3 (itself); #99 does not exist' })],
    then: { 'Issue:1': [{ body: 'mentioned in issue #3', author_id: 3 }], 'Issue:2': [{ body: 'mentioned in issue #3', author_id: 3 }], 'Issue:3': [] },
  },
  'another project of the namespace by its path, another namespace by its full path, URLs': {
    given: [...base, issue(2, 1, 1), issue(3, 2, 1), issue(1, 3, 1)],
    when: [issue(1, 4, 2, { description: 'lib#1, other/tool#1 and http://gitlab.example.com/team/app/-/issues/1' })],
    then: {
      'Issue:1': [{ body: 'mentioned in issue app#2', author_id: 3 }],
      'Issue:2': [{ body: 'mentioned in issue team/app#2', author_id: 3 }],
      'Issue:3': [{ body: 'mentioned in issue #2', author_id: 3 }],
    },
  },
  'merge requests mention and are mentioned: "merge request !1"': {
    given: [...base, issue(1, 1, 1)],
    when: [...mergeRequest('Closes #1'), issue(1, 2, 2, { description: 'Fixed by !1' })],
    then: { 'Issue:1': [{ body: 'mentioned in merge request !1', author_id: 3 }], 'MergeRequest:7': [{ body: 'mentioned in issue #2', author_id: 3 }] },
  },
  'a note mentions as its noteable: "mentioned in issue #2", by the note author': {
    given: [...base, issue(1, 1, 1), issue(1, 2, 2)],
    when: [started(noteable('Issue', 2, 2, 1), userNote(1, 2, 'Duplicate of #1'))],
    then: { 'Issue:1': [{ body: 'mentioned in issue #2', author_id: 2, created_at: LATER, mentioner: { kind: 'Issue', project_id: 1, iid: 2 } }] },
  },
  'an edit of the description writes only the references not yet noted (cross_reference_exists?)': {
    given: [...base, issue(1, 1, 1), issue(1, 2, 2), issue(1, 3, 3, { description: 'See #1' })],
    when: [
      { type: 'IssueUpdated', data: { project_id: 1, id: 3, iid: 3, updated_by_id: 2, updated_at: LATER, description: 'See #1 and #2' } },
      { type: 'IssueUpdated', data: { project_id: 1, id: 3, iid: 3, updated_by_id: 2, updated_at: LATER, description: 'See #2 only' } },
    ],
    then: { 'Issue:1': [], 'Issue:2': [{ body: 'mentioned in issue #3', author_id: 2, created_at: LATER }] },
  },
  'a note edited to name another issue: the editor is the author of the new reference': {
    given: [...base, issue(1, 1, 1), issue(1, 2, 2), started(noteable('Issue', 2, 2, 1), userNote(1, 2, 'nothing yet'))],
    when: [{ type: 'NoteEdited', data: { discussion_id: discussionId(1), note_id: 1, body: 'see #1', updated_at: LATER, edited_by_id: 3 } }],
    then: { 'Issue:1': [{ body: 'mentioned in issue #2', author_id: 3 }] },
  },
  'a target the author may not read gets no note (a confidential issue, an outsider)': {
    given: [...base, issue(1, 1, 1, { confidential: true, author: 1 }), issue(1, 2, 2)],
    when: [started(noteable('Issue', 2, 2, 1), userNote(1, 5, 'Is this #1?'))],
    then: { 'Issue:1': [] },
  },
  'code spans and blocks are not references; "#1abc" is not one': {
    given: [...base, issue(1, 1, 1)],
    when: [issue(1, 2, 2, { description: 'Try `#1` or\n```\n#1\n```\nor #1abc or a#1' })],
    then: { 'Issue:1': [] },
  },
  'snippet, commit and epic notes mention as their noteable': {
    given: [
      ...base,
      issue(1, 1, 1),
      { type: 'SnippetCreated', data: { project_id: 2, id: 4, title: 'S', description: '', visibility: 'public', files: [{ path: 'a', content: 'b' }], author_id: 3, created_at: AT } },
      { type: 'EpicCreated', data: { group_id: 11, id: 9, iid: 2, title: 'E', description: '', confidential: false, labels: [], author_id: 3, created_at: AT } },
    ],
    when: [
      started(noteable('Snippet', 4, null, 2), userNote(1, 3, 'app#1')),
      // Each system note draws the next id: the notes after it take the ids after that.
      started(noteable('Commit', null, null, 1, { commit_sha: B }), userNote(3, 3, '#1')),
      started(noteable('Epic', 9, null, null, { group_id: 11 }), userNote(5, 3, 'team/app#1')),
    ],
    then: { 'Issue:1': [{ body: 'mentioned in project snippet lib$4', author_id: 3 }, { body: `mentioned in commit ${B}`, author_id: 3 }, { body: 'mentioned in epic other&2', author_id: 3 }] },
  },
  'a merge request description edited by a developer': {
    given: [...base, issue(1, 1, 1), ...mergeRequest('')],
    when: [{ type: 'MergeRequestUpdated', data: { project_id: 1, iid: 1, updated_at: LATER, description: 'Closes #1', updated_by_id: 2 } }],
    then: { 'Issue:1': [{ body: 'mentioned in merge request !1', author_id: 2, created_at: LATER }] },
  },
};

describe('cross-references projected from the events that carry text', () => {
  for (const [name, spec] of Object.entries(specs)) {
    it(name, () => {
      const events = [...spec.given, ...spec.when];
      const before = stateOf(spec.given);
      for (const [key, expected] of Object.entries(spec.then)) {
        const added = systemNotesOf(events, key).slice(notesOfNoteable(before.discussions, key).filter((note) => note.system).length);
        expect(added).toEqual(expected.map((note) => expect.objectContaining(note)));
      }
    });
  }

  it('readers who may not read the mentioner do not see the note', () => {
    // A confidential issue (by root) mentions a public one: guest (Guest) may not read confidential issues of others.
    const state = stateOf([...base, issue(1, 1, 1), issue(1, 2, 2, { confidential: true, author: 1, description: 'About #1' })]);
    const [note] = notesOfNoteable(state.discussions, 'Issue:1');
    expect(note).toMatchObject({ body: 'mentioned in issue #2', system: true });
    expect(noteVisibleTo(state, 3, note!)).toBe(true);
    expect(noteVisibleTo(state, 2, note!)).toBe(false);
    expect(noteVisibleTo(state, null, note!)).toBe(false);
    // The mentioner deleted: nobody sees it (its references no longer resolve).
    const deleted = stateOf([...base, issue(1, 1, 1), issue(1, 2, 2, { description: 'About #1' }), { type: 'IssueDeleted', data: { project_id: 1, id: 2, iid: 2, at: LATER } }]);
    expect(noteVisibleTo(deleted, 1, notesOfNoteable(deleted.discussions, 'Issue:1')[0]!)).toBe(false);
  });

  it('a log recorded before cross-references were projected keeps its decided note ids', () => {
    // Note 1 on issue 2 mentions issue 1: today its note is projected as id 2, which the old log gave to a reply.
    const thread = started(noteable('Issue', 2, 2, 1), userNote(1, 3, 'See #1'));
    const reply: ForgefoldEvent = { type: 'NoteAdded', data: { discussion_id: discussionId(1), note: userNote(2, 3, 'Reply'), converted_note_id: null } };
    const state = stateOf([...base, issue(1, 1, 1), issue(1, 2, 2), thread, reply]);
    expect(notesOfNoteable(state.discussions, 'Issue:2').map((note) => [note.id, note.body])).toEqual([
      [1, 'See #1'],
      [2, 'Reply'],
    ]);
    expect(notesOfNoteable(state.discussions, 'Issue:1').map((note) => [note.id, note.body, note.system])).toEqual([[3, 'mentioned in issue #2', true]]);
    expect(state.discussions.sequence).toBe(3);
  });
});

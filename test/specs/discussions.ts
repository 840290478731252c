/**
 * Decider specs of the issues, snippets, epics and discussions modules: given the events, when a command, then
 * exactly these events (the thread's history) or this error.
 */
import { createHash } from 'node:crypto';
import { badRequest, conflict, forbidden, notFound, unprocessable, validation, type ForgefoldEvent, type NoteData, type NoteableData } from '@forgefold/core';
import { AT, groupCreated, memberAdded, projectCreated, userCreated, type Spec } from './spec.js';

const LATER = '2026-01-02T00:00:00.000Z';
const A = 'a'.repeat(40);
const B = 'b'.repeat(40);

const root = userCreated(1, 'root', { admin: true });
const guest = userCreated(2, 'guest');
const dev = userCreated(3, 'dev');
const maint = userCreated(4, 'maint');
const outsider = userCreated(5, 'outsider');

/** Public project 1 in group 10 (guest 10, dev 30, maint 40); outsider is nobody there. */
const base: ForgefoldEvent[] = [
  root,
  guest,
  dev,
  maint,
  outsider,
  groupCreated(10, 'team', { visibility: 'public' }),
  projectCreated(1, 'app', 10, { visibility: 'public' }),
  memberAdded(1, { project: 1 }, 2, 10),
  memberAdded(2, { project: 1 }, 3, 30),
  memberAdded(3, { project: 1 }, 4, 40),
  memberAdded(4, { group: 10 }, 3, 20),
];

const issueCreated = (id: number, iid: number, options: { author?: number; confidential?: boolean; title?: string } = {}): ForgefoldEvent => ({
  type: 'IssueCreated',
  data: { project_id: 1, id, iid, title: options.title ?? 'Bug', description: '', confidential: options.confidential ?? false, labels: [], assignee_ids: [], author_id: options.author ?? 2, created_at: AT },
});

const snippetCreated = (id: number, visibility: 'private' | 'internal' | 'public' = 'public', author = 3): ForgefoldEvent => ({
  type: 'SnippetCreated',
  data: { project_id: 1, id, title: 'Snip', description: '', visibility, files: [{ path: 'a.rb', content: 'puts 1' }], author_id: author, created_at: AT },
});

const epicCreated = (id: number, iid: number): ForgefoldEvent => ({
  type: 'EpicCreated',
  data: { group_id: 10, id, iid, title: 'Epic', description: '', confidential: false, labels: [], author_id: 3, created_at: AT },
});

const mergeRequest: ForgefoldEvent[] = [
  { type: 'BranchCreated', data: { project_id: 1, name: 'main', sha: A, via: 'api' } },
  { type: 'BranchCreated', data: { project_id: 1, name: 'feature', sha: B, via: 'api' } },
  {
    type: 'MergeRequestCreated',
    data: { project_id: 1, id: 7, iid: 1, title: 'Feature', description: '', source_branch: 'feature', target_branch: 'main', author_id: 2, assignee_ids: [], squash: false, remove_source_branch: false, created_at: AT },
  },
  { type: 'MergeRequestVersionCreated', data: { project_id: 1, iid: 1, id: 1, head_commit_sha: B, base_commit_sha: A, start_commit_sha: A, created_at: AT } },
];

const discussionId = (noteId: number) => createHash('sha1').update(`discussion-${noteId}`).digest('hex');
const issueNoteable: NoteableData = { key: 'Issue:1', type: 'Issue', id: 1, iid: 1, project_id: 1, group_id: null, commit_sha: null };
const mrNoteable: NoteableData = { key: 'MergeRequest:7', type: 'MergeRequest', id: 7, iid: 1, project_id: 1, group_id: null, commit_sha: null };
const snippetNoteable: NoteableData = { key: 'Snippet:1', type: 'Snippet', id: 1, iid: null, project_id: 1, group_id: null, commit_sha: null };
const epicNoteable: NoteableData = { key: 'Epic:3', type: 'Epic', id: 3, iid: null, project_id: null, group_id: 10, commit_sha: null };

const note = (id: number, author: number, body: string, extra: Partial<NoteData> = {}): NoteData => ({
  id,
  type: 'DiscussionNote',
  body,
  author_id: author,
  created_at: AT,
  position: null,
  line_code: null,
  commit_id: null,
  resolved_by_id: null,
  resolved_at: null,
  ...extra,
});

const started = (noteable: NoteableData, data: NoteData, individual = false): ForgefoldEvent => ({
  type: 'DiscussionStarted',
  data: { discussion_id: discussionId(data.id), noteable, individual_note: individual, note: data },
});

const position = { base_sha: A, start_sha: A, head_sha: B, old_path: 'a.txt', new_path: 'a.txt', position_type: 'text' as const, old_line: null, new_line: 2 };
const lineCode = `${createHash('sha1').update('a.txt').digest('hex')}_1_2`;
const issueRef = { kind: 'Issue' as const, project_id: 1, iid: 1 };
const C = 'c'.repeat(40);
const commitRef = { kind: 'Commit' as const, project_id: 1, sha: B };
const commitNoteable: NoteableData = { key: `Commit:1:${B}`, type: 'Commit', id: null, iid: null, project_id: 1, group_id: null, commit_sha: B };
const commitPosition = { ...position };
const imagePosition = { base_sha: A, start_sha: A, head_sha: B, old_path: 'logo.png', new_path: 'logo.png', position_type: 'image' as const, width: 100, height: 80, x: 10, y: 20 };
const mrRef = { kind: 'MergeRequest' as const, project_id: 1, iid: 1 };

export const issueSpecs: Record<string, Spec> = {
  'a guest opens an issue': {
    given: base,
    as: 2,
    when: { type: 'CreateIssue', project_id: 1, title: 'Bug', labels: ['x', 'x', ' '] },
    then: [{ type: 'IssueCreated', data: { project_id: 1, id: 1, iid: 1, title: 'Bug', description: '', confidential: false, labels: ['x'], assignee_ids: [], author_id: 2, created_at: AT } }],
  },
  'a blank title is refused': { given: base, as: 2, when: { type: 'CreateIssue', project_id: 1, title: ' ' }, error: validation({ title: ["can't be blank"] }) },
  // `set_issue_iid`: administrators and owners choose the iid; one in use is "Duplicated issue"; others' is ignored.
  'an administrator opens an issue at a chosen iid': {
    given: [...base, issueCreated(1, 1)],
    as: 1,
    when: { type: 'CreateIssue', project_id: 1, title: 'Bug', iid: 7 },
    then: [{ type: 'IssueCreated', data: { project_id: 1, id: 2, iid: 7, title: 'Bug', description: '', confidential: false, labels: [], assignee_ids: [], author_id: 1, created_at: AT } }],
  },
  'an iid in use is a conflict': { given: [...base, issueCreated(1, 1)], as: 1, when: { type: 'CreateIssue', project_id: 1, title: 'Bug', iid: 1 }, error: conflict('Duplicated issue') },
  "a developer's iid is ignored": {
    given: [...base, issueCreated(1, 1)],
    as: 3,
    when: { type: 'CreateIssue', project_id: 1, title: 'Bug', iid: 7 },
    then: [{ type: 'IssueCreated', data: { project_id: 1, id: 2, iid: 2, title: 'Bug', description: '', confidential: false, labels: [], assignee_ids: [], author_id: 3, created_at: AT } }],
  },
  'a title change records the previous title and who': {
    given: [...base, issueCreated(1, 1)],
    as: 2,
    at: LATER,
    when: { type: 'UpdateIssue', project_id: 1, iid: 1, title: 'Crash', state_event: 'close' },
    then: [
      { type: 'IssueUpdated', data: { project_id: 1, id: 1, iid: 1, updated_by_id: 2, updated_at: LATER, title: 'Crash', previous_title: 'Bug' } },
      { type: 'IssueClosed', data: { project_id: 1, id: 1, iid: 1, closed_by_id: 2, at: LATER } },
    ],
  },
  "a guest does not edit another's issue": { given: [...base, issueCreated(1, 1, { author: 4 })], as: 2, when: { type: 'UpdateIssue', project_id: 1, iid: 1, title: 'x' }, error: forbidden() },
  // `find_by!` then `authorize! :update_issue` (put_projects_issues_spec: "returns 403 for non project members").
  'a confidential issue is refused to outsiders': { given: [...base, issueCreated(1, 1, { confidential: true, author: 4 })], as: 5, when: { type: 'UpdateIssue', project_id: 1, iid: 1, title: 'x' }, error: forbidden() },
  'labels and assignees given again, in another order, change nothing (ids_changing? compares them sorted)': {
    given: [...base, issueCreated(1, 1), { type: 'IssueUpdated', data: { project_id: 1, id: 1, iid: 1, updated_by_id: 3, updated_at: AT, labels: ['b', 'a'], assignee_ids: [3, 4] } }],
    as: 3,
    at: LATER,
    when: { type: 'UpdateIssue', project_id: 1, iid: 1, title: 'Bug', labels: ['a', 'b', 'a'], assignee_ids: [4, 3] },
    then: [],
  },
  'removing a due date that is not set records nothing': {
    given: [...base, issueCreated(1, 1)],
    as: 2,
    at: LATER,
    when: { type: 'UpdateIssue', project_id: 1, iid: 1, due_date: null },
    then: [],
  },
  'a due date is recorded': {
    given: [...base, issueCreated(1, 1)],
    as: 3,
    at: LATER,
    when: { type: 'UpdateIssue', project_id: 1, iid: 1, due_date: '2026-03-01' },
    then: [{ type: 'IssueUpdated', data: { project_id: 1, id: 1, iid: 1, updated_by_id: 3, updated_at: LATER, due_date: '2026-03-01' } }],
  },
  // `set_issue_metadata` is `admin_issue` (Reporters) on an existing issue: its guest author's metadata is dropped.
  "a guest author's labels, due date and confidentiality are dropped": {
    given: [...base, issueCreated(1, 1)],
    as: 2,
    at: LATER,
    when: { type: 'UpdateIssue', project_id: 1, iid: 1, title: 'Renamed', labels: ['x'], due_date: '2026-03-01', confidential: true },
    then: [{ type: 'IssueUpdated', data: { project_id: 1, id: 1, iid: 1, updated_by_id: 2, updated_at: LATER, title: 'Renamed', previous_title: 'Bug' } }],
  },
  // A new issue: any project member may set its metadata (gitlab#300100); someone from outside may not.
  "an outsider's new issue drops its labels and assignees": {
    given: base,
    as: 5,
    when: { type: 'CreateIssue', project_id: 1, title: 'Bug', labels: ['x'], assignee_ids: [3], confidential: true },
    then: [{ type: 'IssueCreated', data: { project_id: 1, id: 1, iid: 1, title: 'Bug', description: '', confidential: true, labels: [], assignee_ids: [], author_id: 5, created_at: AT } }],
  },
  'owners delete issues': { given: [...base, issueCreated(1, 1)], as: 1, when: { type: 'DeleteIssue', project_id: 1, iid: 1 }, then: [{ type: 'IssueDeleted', data: { project_id: 1, id: 1, iid: 1, at: AT } }] },
  'maintainers do not delete issues': { given: [...base, issueCreated(1, 1)], as: 4, when: { type: 'DeleteIssue', project_id: 1, iid: 1 }, error: forbidden() },
  'whoever reads an issue subscribes to it': {
    given: [...base, issueCreated(1, 1, { author: 4 })],
    as: 2,
    when: { type: 'SetIssueSubscription', project_id: 1, iid: 1, subscribed: true },
    then: [{ type: 'IssueSubscribed', data: { project_id: 1, id: 1, iid: 1, user_id: 2, at: AT } }],
  },
  'and unsubscribes': {
    given: [...base, issueCreated(1, 1, { author: 4 })],
    as: 4,
    when: { type: 'SetIssueSubscription', project_id: 1, iid: 1, subscribed: false },
    then: [{ type: 'IssueUnsubscribed', data: { project_id: 1, id: 1, iid: 1, user_id: 4, at: AT } }],
  },
  'a confidential issue is not found by an outsider who would subscribe': {
    given: [...base, issueCreated(1, 1, { confidential: true, author: 4 })],
    as: 5,
    when: { type: 'SetIssueSubscription', project_id: 1, iid: 1, subscribed: true },
    error: notFound('Issue'),
  },
  'nor a missing one': { given: base, as: 2, when: { type: 'SetIssueSubscription', project_id: 1, iid: 7, subscribed: true }, error: notFound('Issue') },
  'a developer links two issues': {
    given: [...base, issueCreated(1, 1), issueCreated(2, 2)],
    as: 3,
    when: { type: 'CreateIssueLink', project_id: 1, iid: 1, target_project_id: 1, target_iid: 2, link_type: 'blocks' },
    then: [{ type: 'IssueLinkCreated', data: { id: 1, source: { project_id: 1, id: 1, iid: 1 }, target: { project_id: 1, id: 2, iid: 2 }, link_type: 'blocks', author_id: 3, at: AT } }],
  },
  'a guest does not (admin_issue_link is for Reporters)': {
    given: [...base, issueCreated(1, 1), issueCreated(2, 2)],
    as: 2,
    when: { type: 'CreateIssueLink', project_id: 1, iid: 1, target_project_id: 1, target_iid: 2 },
    error: notFound(undefined, 'No matching issue found. Make sure that you are adding a valid issue URL.'),
  },
  'an issue is not linked to itself': {
    given: [...base, issueCreated(1, 1)],
    as: 3,
    when: { type: 'CreateIssueLink', project_id: 1, iid: 1, target_project_id: 1, target_iid: 1 },
    error: unprocessable('#1 cannot be added: cannot be related to itself'),
  },
  'nor twice, either way (said before the permission)': {
    given: [...base, issueCreated(1, 1), issueCreated(2, 2), { type: 'IssueLinkCreated', data: { id: 1, source: { project_id: 1, id: 1, iid: 1 }, target: { project_id: 1, id: 2, iid: 2 }, link_type: 'relates_to', author_id: 3, at: AT } }],
    as: 2,
    when: { type: 'CreateIssueLink', project_id: 1, iid: 2, target_project_id: 1, target_iid: 1 },
    error: conflict('Issue(s) already assigned'),
  },
  'unlinking takes admin_issue_link on both issues': {
    given: [...base, issueCreated(1, 1), issueCreated(2, 2), { type: 'IssueLinkCreated', data: { id: 1, source: { project_id: 1, id: 1, iid: 1 }, target: { project_id: 1, id: 2, iid: 2 }, link_type: 'relates_to', author_id: 3, at: AT } }],
    as: 2,
    when: { type: 'DestroyIssueLink', link_id: 1 },
    error: notFound(undefined, 'No Issue Link found'),
  },
};

export const snippetSpecs: Record<string, Spec> = {
  'a developer creates a snippet': {
    given: base,
    as: 3,
    when: { type: 'CreateSnippet', project_id: 1, title: 'Snip', visibility: 'public', files: [{ file_path: 'a.rb', content: 'puts 1' }] },
    then: [snippetCreated(1)],
  },
  'guests do not create snippets': { given: base, as: 2, when: { type: 'CreateSnippet', project_id: 1, title: 'S', visibility: 'public', files: [{ file_path: 'a', content: 'b' }] }, error: forbidden() },
  'duplicate paths are refused': {
    given: base,
    as: 3,
    when: { type: 'CreateSnippet', project_id: 1, title: 'S', visibility: 'public', files: [{ file_path: 'a', content: 'b' }, { file_path: 'a', content: 'c' }] },
    error: validation({ files: ['have duplicate paths'] }),
  },
  'the author updates': {
    given: [...base, snippetCreated(1)],
    as: 3,
    at: LATER,
    when: { type: 'UpdateSnippet', project_id: 1, id: 1, title: 'New' },
    then: [{ type: 'SnippetUpdated', data: { project_id: 1, id: 1, updated_at: LATER, title: 'New' } }],
  },
  'an update to the values the snippet holds, its files included, writes nothing': {
    given: [...base, snippetCreated(1)],
    as: 3,
    at: LATER,
    when: { type: 'UpdateSnippet', project_id: 1, id: 1, title: 'Snip', description: '', visibility: 'public', files: [{ file_path: 'a.rb', content: 'puts 1' }] },
    then: [],
  },
  'a file whose content changes is an update': {
    given: [...base, snippetCreated(1)],
    as: 3,
    at: LATER,
    when: { type: 'UpdateSnippet', project_id: 1, id: 1, title: 'Snip', files: [{ file_path: 'a.rb', content: 'puts 2' }] },
    then: [{ type: 'SnippetUpdated', data: { project_id: 1, id: 1, updated_at: LATER, files: [{ path: 'a.rb', content: 'puts 2' }] } }],
  },
  'a private snippet is not found by outsiders': { given: [...base, snippetCreated(1, 'private')], as: 5, when: { type: 'DeleteSnippet', project_id: 1, id: 1 }, error: notFound('Snippet') },
  // ProjectSnippetPolicy: `is_author` enables `update_snippet`; `is_author & ~project.reporter` prevents `admin_snippet`.
  'a guest author updates their snippet': {
    given: [...base, snippetCreated(1, 'public', 2)],
    as: 2,
    at: LATER,
    when: { type: 'UpdateSnippet', project_id: 1, id: 1, title: 'New' },
    then: [{ type: 'SnippetUpdated', data: { project_id: 1, id: 1, updated_at: LATER, title: 'New' } }],
  },
  'a guest author does not delete their snippet': { given: [...base, snippetCreated(1, 'public', 2)], as: 2, when: { type: 'DeleteSnippet', project_id: 1, id: 1 }, error: forbidden() },
  'maintainers delete any snippet': { given: [...base, snippetCreated(1)], as: 4, when: { type: 'DeleteSnippet', project_id: 1, id: 1 }, then: [{ type: 'SnippetDeleted', data: { project_id: 1, id: 1, at: AT } }] },
};

export const epicSpecs: Record<string, Spec> = {
  'a group reporter creates an epic': {
    given: base,
    as: 3,
    when: { type: 'CreateEpic', group_id: 10, title: 'Epic' },
    then: [epicCreated(1, 1)],
  },
  'an epic with fixed dates, then one of them changed and the other given as it is': {
    given: [...base, { type: 'EpicCreated', data: { group_id: 10, id: 3, iid: 1, title: 'Epic', description: '', confidential: false, labels: [], author_id: 3, created_at: AT, start_date_fixed: '2026-01-05', start_date_is_fixed: true } }],
    as: 3,
    at: LATER,
    when: { type: 'UpdateEpic', group_id: 10, iid: 1, start_date_fixed: '2026-01-05', due_date_fixed: '2026-03-31', due_date_is_fixed: false },
    then: [{ type: 'EpicUpdated', data: { group_id: 10, id: 3, iid: 1, updated_by_id: 3, updated_at: LATER, due_date_fixed: '2026-03-31' } }],
  },
  'outsiders do not create epics': { given: base, as: 5, when: { type: 'CreateEpic', group_id: 10, title: 'Epic' }, error: forbidden() },
  'closing an epic': {
    given: [...base, epicCreated(3, 1)],
    as: 3,
    when: { type: 'UpdateEpic', group_id: 10, iid: 1, state_event: 'close' },
    then: [{ type: 'EpicClosed', data: { group_id: 10, id: 3, iid: 1, closed_by_id: 3, at: AT } }],
  },
  'an epic given the labels it has writes nothing': {
    given: [...base, { type: 'EpicCreated', data: { group_id: 10, id: 3, iid: 1, title: 'Epic', description: '', confidential: false, labels: ['x', 'y'], author_id: 3, created_at: AT } }],
    as: 3,
    at: LATER,
    when: { type: 'UpdateEpic', group_id: 10, iid: 1, title: 'Epic', labels: ['y', 'x'] },
    then: [],
  },
  // `authorize!(:admin_epic, epic)` with no epic: `NilPolicy` refuses.
  'a missing epic is refused': { given: [...base, epicCreated(3, 1)], as: 3, when: { type: 'UpdateEpic', group_id: 10, iid: 9, title: 'x' }, error: forbidden() },
  'an administrator deletes an epic': {
    given: [...base, epicCreated(3, 1)],
    as: 1,
    when: { type: 'DeleteEpic', group_id: 10, iid: 1 },
    then: [{ type: 'EpicDeleted', data: { group_id: 10, id: 3, iid: 1, at: AT } }],
  },
  'a reporter does not delete an epic (`destroy_epic`: owners)': { given: [...base, epicCreated(3, 1)], as: 3, when: { type: 'DeleteEpic', group_id: 10, iid: 1 }, error: forbidden() },
};

export const discussionSpecs: Record<string, Spec> = {
  'a thread on an issue': {
    given: [...base, issueCreated(1, 1)],
    as: 2,
    when: { type: 'StartDiscussion', noteable: issueRef, body: 'Hi' },
    then: [started(issueNoteable, note(1, 2, 'Hi'))],
  },
  'a confidential note from the notes API': {
    given: [...base, issueCreated(1, 1)],
    as: 5,
    when: { type: 'StartDiscussion', noteable: issueRef, body: 'Psst', individual: true, confidential: true },
    then: [started(issueNoteable, note(1, 5, 'Psst', { type: null, confidential: true }), true)],
  },
  'making a note public records the change alone': {
    given: [...base, issueCreated(1, 1), started(issueNoteable, note(1, 3, 'Psst', { type: null, confidential: true }), true)],
    as: 3,
    at: LATER,
    when: { type: 'EditNote', noteable: issueRef, note_id: 1, confidential: false },
    then: [{ type: 'NoteEdited', data: { discussion_id: discussionId(1), note_id: 1, body: 'Psst', updated_at: LATER, edited_by_id: 3, confidential: false } }],
  },
  // NotePolicy: `confidential & ~can_read_confidential` prevents `admin_note`, even for the note's author.
  'a guest does not edit a confidential note, even their own': {
    given: [...base, issueCreated(1, 1, { author: 4 }), started(issueNoteable, note(1, 2, 'Psst', { type: null, confidential: true }), true)],
    as: 2,
    when: { type: 'EditNote', noteable: issueRef, note_id: 1, body: 'Hm' },
    error: forbidden(),
  },
  'an individual note from the notes API; created_at ignored for non-owners': {
    given: [...base, issueCreated(1, 1)],
    as: 5,
    when: { type: 'StartDiscussion', noteable: issueRef, body: 'Hi', individual: true, created_at: LATER },
    then: [started(issueNoteable, note(1, 5, 'Hi', { type: null }), true)],
  },
  'a blank body': {
    given: [...base, issueCreated(1, 1)],
    as: 2,
    when: { type: 'StartDiscussion', noteable: issueRef, body: '' },
    error: badRequest('Note {:note=>["can\'t be blank"]}'),
  },
  'a diff note on a merge request, with the line code from the diff': {
    given: [...base, ...mergeRequest],
    as: 3,
    when: { type: 'StartDiscussion', noteable: mrRef, body: 'Here', diff: { position, line_code: lineCode } },
    then: [started(mrNoteable, note(1, 3, 'Here', { type: 'DiffNote', position, line_code: lineCode }))],
  },
  'a diff note on a line outside the diff': {
    given: [...base, ...mergeRequest],
    as: 3,
    when: { type: 'StartDiscussion', noteable: mrRef, body: 'Here', diff: { position, line_code: null } },
    error: badRequest('Note {:line_code=>["can\'t be blank", "must be a valid line code"]}'),
  },
  'a reply to a resolved thread is born resolved': {
    given: [
      ...base,
      ...mergeRequest,
      started(mrNoteable, note(1, 3, 'Fix')),
      { type: 'DiscussionResolved', data: { discussion_id: discussionId(1), note_ids: [1], resolved_by_id: 4, at: AT } },
    ],
    as: 2,
    at: LATER,
    when: { type: 'AddNote', noteable: mrRef, discussion_id: discussionId(1), body: 'ok' },
    then: [{ type: 'NoteAdded', data: { discussion_id: discussionId(1), note: note(2, 2, 'ok', { created_at: LATER, resolved_by_id: 2, resolved_at: LATER }), converted_note_id: null } }],
  },
  'a reply to an individual issue note converts it': {
    given: [...base, issueCreated(1, 1), started(issueNoteable, note(1, 2, 'Hi', { type: null }), true)],
    as: 3,
    when: { type: 'AddNote', noteable: issueRef, discussion_id: discussionId(1), body: 'Re' },
    then: [{ type: 'NoteAdded', data: { discussion_id: discussionId(1), note: note(2, 3, 'Re'), converted_note_id: 1 } }],
  },
  'individual snippet notes are not replied to': {
    given: [...base, snippetCreated(1), started(snippetNoteable, note(1, 2, 'Hi', { type: null }), true)],
    as: 3,
    when: { type: 'AddNote', noteable: { kind: 'Snippet', project_id: 1, id: 1 }, discussion_id: discussionId(1), body: 'Re' },
    error: badRequest('Discussion can not be replied to.'),
  },
  'an epic thread by global id': {
    given: [...base, epicCreated(3, 1)],
    as: 3,
    when: { type: 'StartDiscussion', noteable: { kind: 'Epic', group_id: 10, id: 3 }, body: 'Plan' },
    then: [started(epicNoteable, note(1, 3, 'Plan'))],
  },
  'the author edits': {
    given: [...base, issueCreated(1, 1), started(issueNoteable, note(1, 2, 'Hi'))],
    as: 2,
    at: LATER,
    when: { type: 'EditNote', noteable: issueRef, note_id: 1, body: 'Hello' },
    then: [{ type: 'NoteEdited', data: { discussion_id: discussionId(1), note_id: 1, body: 'Hello', updated_at: LATER, edited_by_id: 2 } }],
  },
  "a developer does not edit another's note": {
    given: [...base, issueCreated(1, 1), started(issueNoteable, note(1, 2, 'Hi'))],
    as: 3,
    when: { type: 'EditNote', noteable: issueRef, note_id: 1, body: 'Hello' },
    error: forbidden(),
  },
  'system notes are not edited': {
    given: [...base, issueCreated(1, 1), { type: 'IssueUpdated', data: { project_id: 1, id: 1, iid: 1, updated_by_id: 2, updated_at: AT, description: 'x' } }],
    as: 1,
    when: { type: 'EditNote', noteable: issueRef, note_id: 1, body: 'Hello' },
    error: forbidden(),
  },
  'issue notes are not resolvable': {
    given: [...base, issueCreated(1, 1), started(issueNoteable, note(1, 2, 'Hi'))],
    as: 4,
    when: { type: 'ResolveNote', noteable: issueRef, note_id: 1, resolved: true },
    error: badRequest('Note is not resolvable'),
  },
  'a merge request note resolved alone': {
    given: [...base, ...mergeRequest, started(mrNoteable, note(1, 3, 'Fix'))],
    as: 3,
    when: { type: 'ResolveNote', noteable: mrRef, note_id: 1, resolved: true },
    then: [{ type: 'DiscussionResolved', data: { discussion_id: discussionId(1), note_ids: [1], resolved_by_id: 3, at: AT } }],
  },
  'a thread resolved by a developer': {
    given: [...base, ...mergeRequest, started(mrNoteable, note(1, 3, 'Fix')), { type: 'NoteAdded', data: { discussion_id: discussionId(1), note: note(2, 2, 'ok'), converted_note_id: null } }],
    as: 4,
    when: { type: 'ResolveDiscussion', noteable: mrRef, discussion_id: discussionId(1), resolved: true },
    then: [{ type: 'DiscussionResolved', data: { discussion_id: discussionId(1), note_ids: [1, 2], resolved_by_id: 4, at: AT } }],
  },
  'a guest who is not the author does not resolve': {
    given: [...base, ...mergeRequest.map((event) => (event.type === 'MergeRequestCreated' ? { ...event, data: { ...event.data, author_id: 4 } } : event)), started(mrNoteable, note(1, 3, 'Fix'))],
    as: 2,
    when: { type: 'ResolveDiscussion', noteable: mrRef, discussion_id: discussionId(1), resolved: true },
    error: forbidden(),
  },
  'a maintainer deletes any note': {
    given: [...base, issueCreated(1, 1), started(issueNoteable, note(1, 2, 'Hi'))],
    as: 4,
    when: { type: 'DeleteNote', noteable: issueRef, note_id: 1 },
    then: [{ type: 'NoteDeleted', data: { discussion_id: discussionId(1), note_id: 1, at: AT } }],
  },
  'a push to the source branch projects "added N commits"': {
    given: [...base, ...mergeRequest],
    as: 3,
    when: {
      type: 'UpdateRefs',
      project_id: 1,
      via: 'push',
      changes: [{ ref: 'refs/heads/feature', old_sha: B, new_sha: 'c'.repeat(40), forced: false }],
      versions: [{ iid: 1, head_commit_sha: 'c'.repeat(40), base_commit_sha: A, start_commit_sha: A, commits: [{ id: 'c'.repeat(40), title: 'Fix <b>' }] }],
    },
    then: [
      { type: 'BranchUpdated', data: { project_id: 1, name: 'feature', old_sha: B, new_sha: 'c'.repeat(40), forced: false, via: 'push' } },
      {
        type: 'MergeRequestVersionCreated',
        data: { project_id: 1, iid: 1, id: 2, head_commit_sha: 'c'.repeat(40), base_commit_sha: A, start_commit_sha: A, created_at: AT, commits: [{ id: 'c'.repeat(40), title: 'Fix <b>' }], pushed_by_id: 3 },
      },
    ],
  },
  'a diff note on a commit names the commit\'s diff refs (its parent as base and start)': {
    given: base,
    as: 2,
    when: { type: 'StartDiscussion', noteable: commitRef, body: 'Here', diff: { position: commitPosition, line_code: lineCode, commit_diff_refs: { base_sha: A, start_sha: A, head_sha: B } } },
    then: [started(commitNoteable, note(1, 2, 'Here', { type: 'DiffNote', position: commitPosition, line_code: lineCode }))],
  },
  'a diff note on a commit with abbreviated SHAs of at least 7 characters': {
    given: base,
    as: 2,
    when: {
      type: 'StartDiscussion',
      noteable: commitRef,
      body: 'Here',
      diff: { position: { ...commitPosition, base_sha: A.slice(0, 7), start_sha: A.slice(0, 7), head_sha: B.slice(0, 12) }, line_code: lineCode, commit_diff_refs: { base_sha: A, start_sha: A, head_sha: B } },
    },
    then: [started(commitNoteable, note(1, 2, 'Here', { type: 'DiffNote', position: { ...commitPosition, base_sha: A.slice(0, 7), start_sha: A.slice(0, 7), head_sha: B.slice(0, 12) }, line_code: lineCode }))],
  },
  'a diff note on a commit with another commit\'s SHAs': {
    given: base,
    as: 2,
    when: { type: 'StartDiscussion', noteable: commitRef, body: 'Here', diff: { position: { ...commitPosition, head_sha: C }, line_code: lineCode, commit_diff_refs: { base_sha: A, start_sha: A, head_sha: B } } },
    error: badRequest('Note {:commit_id=>["does not match the diff refs"]}'),
  },
  'a diff note on a commit with SHAs too short to compare, off the diff': {
    given: base,
    as: 2,
    when: { type: 'StartDiscussion', noteable: commitRef, body: 'Here', diff: { position: { ...commitPosition, base_sha: 'aaaaaa' }, line_code: null, commit_diff_refs: { base_sha: A, start_sha: A, head_sha: B } } },
    error: badRequest('Note {:commit_id=>["does not match the diff refs"], :line_code=>["can\'t be blank", "must be a valid line code"]}'),
  },
  'an image diff note on a merge request: no line code': {
    given: [...base, ...mergeRequest],
    as: 3,
    when: { type: 'StartDiscussion', noteable: mrRef, body: 'Pixel', diff: { position: imagePosition, line_code: null } },
    then: [started(mrNoteable, note(1, 3, 'Pixel', { type: 'DiffNote', position: imagePosition }))],
  },
  'an image position at the origin is complete': {
    given: [...base, ...mergeRequest],
    as: 3,
    when: { type: 'StartDiscussion', noteable: mrRef, body: 'Corner', diff: { position: { ...imagePosition, x: 0, y: 0 }, line_code: null } },
    then: [started(mrNoteable, note(1, 3, 'Corner', { type: 'DiffNote', position: { ...imagePosition, x: 0, y: 0 } }))],
  },
  'an image position without its height is incomplete': {
    given: [...base, ...mergeRequest],
    as: 3,
    when: { type: 'StartDiscussion', noteable: mrRef, body: 'Pixel', diff: { position: { ...imagePosition, height: null }, line_code: null } },
    error: badRequest('Note {:position=>["is incomplete"]}'),
  },
  'an image position without a path is incomplete': {
    given: [...base, ...mergeRequest],
    as: 3,
    when: { type: 'StartDiscussion', noteable: mrRef, body: 'Pixel', diff: { position: { ...imagePosition, old_path: null, new_path: null }, line_code: null } },
    error: badRequest('Note {:position=>["is incomplete"]}'),
  },
  'an unknown note': {
    given: [...base, issueCreated(1, 1)],
    as: 4,
    when: { type: 'DeleteNote', noteable: issueRef, note_id: 9 },
    error: notFound(undefined, '404 Not found'),
  },
};

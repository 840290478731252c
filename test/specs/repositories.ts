/**
 * Decider specs of the repositories module: ref moves (the audit trail of refs, with the pre-receive checks),
 * the default branch, protected tags and branches, merge requests. Object ids are facts in the commands.
 */
import { conflict, forbidden, notFound, unauthorized, unprocessable, validation, type ForgefoldEvent } from '@forgefold/core';
import { AT, memberAdded, projectCreated, userCreated, type Spec } from './spec.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const C = 'c'.repeat(40);

const root = userCreated(1, 'root', { admin: true });
const dev = userCreated(2, 'dev');
const rep = userCreated(3, 'rep');
const maint = userCreated(4, 'maint');

/** Project 1 (personal to root) with dev (30), rep (20) and maint (40), `main` at A. */
const base: ForgefoldEvent[] = [
  root,
  dev,
  rep,
  maint,
  projectCreated(1, 'app', 101, { kind: 'user' }),
  memberAdded(1, { project: 1 }, 2, 30),
  memberAdded(2, { project: 1 }, 3, 20),
  memberAdded(3, { project: 1 }, 4, 40),
  { type: 'BranchCreated', data: { project_id: 1, name: 'main', sha: A, via: 'api' } },
];

const tagFacts = { commit_sha: A, committed_date: '2026-01-01T00:00:00.000+00:00', message: 'Release', tagger: { name: 'Dev', email: 'dev@example.com', date: '2026-01-01T00:00:00+00:00' } };
const tagProtected = (name: string, level: number, id = 1): ForgefoldEvent => ({
  type: 'ProtectedTagCreated',
  data: { project_id: 1, id, name, create_access_levels: [{ id, access_level: level }], created_at: AT },
});
const branchProtected = (name: string, push: number, merge: number, id = 1, allowForcePush = false): ForgefoldEvent => ({
  type: 'ProtectedBranchCreated',
  data: {
    project_id: 1,
    id,
    name,
    push_access_levels: [{ id: 2 * id - 1, access_level: push }],
    merge_access_levels: [{ id: 2 * id, access_level: merge }],
    unprotect_access_levels: [],
    allow_force_push: allowForcePush,
    code_owner_approval_required: false,
    created_at: AT,
  },
});
const move = (ref: string, old_sha: string | null, new_sha: string | null, extra: object = {}) => ({ ref, old_sha, new_sha, ...extra });
const refusal = (message: string) => ({ _tag: 'BadRequest' as const, message });

const feature: ForgefoldEvent = { type: 'BranchCreated', data: { project_id: 1, name: 'feature', sha: B, via: 'api' } };
const mergeRequest: ForgefoldEvent[] = [
  feature,
  {
    type: 'MergeRequestCreated',
    data: { project_id: 1, id: 1, iid: 1, title: 'Feature', description: '', source_branch: 'feature', target_branch: 'main', author_id: 2, assignee_ids: [], squash: false, remove_source_branch: null, created_at: AT },
  },
  { type: 'MergeRequestVersionCreated', data: { project_id: 1, iid: 1, id: 1, head_commit_sha: B, base_commit_sha: A, start_commit_sha: A, created_at: AT } },
];

export const repositorySpecs: Record<string, Spec> = {
  'moves are recorded with old and new object ids and how they came': {
    given: base,
    as: 2,
    when: { type: 'UpdateRefs', project_id: 1, via: 'push', changes: [move('refs/heads/main', A, B, { forced: false }), move('refs/heads/topic', null, C), move('refs/tags/v1', null, A, { tag: tagFacts })] },
    then: [
      { type: 'BranchUpdated', data: { project_id: 1, name: 'main', old_sha: A, new_sha: B, forced: false, via: 'push' } },
      { type: 'BranchCreated', data: { project_id: 1, name: 'topic', sha: C, via: 'push' } },
      { type: 'TagCreated', data: { project_id: 1, name: 'v1', target: A, ...tagFacts, via: 'push' } },
    ],
  },
  'a move must start from the value the log holds': {
    given: base,
    as: 2,
    when: { type: 'UpdateRefs', project_id: 1, via: 'api', changes: [move('refs/heads/main', B, C)] },
    error: refusal('Could not update refs/heads/main. Please refresh and try again.'),
  },
  'reporters do not push': { given: base, as: 3, when: { type: 'UpdateRefs', project_id: 1, via: 'push', changes: [move('refs/heads/x', null, A)] }, error: refusal('You are not allowed to push code to this project.') },
  'only branches and tags are pushed': { given: base, as: 2, when: { type: 'UpdateRefs', project_id: 1, via: 'push', changes: [move('refs/notes/x', null, A)] }, error: refusal('You can only push branches and tags to this project.') },
  'the default branch is not deleted': { given: base, as: 4, when: { type: 'UpdateRefs', project_id: 1, via: 'api', changes: [move('refs/heads/main', A, null)] }, error: refusal('The default branch of a project cannot be deleted.') },
  'no 40-hex branch names': { given: base, as: 2, when: { type: 'UpdateRefs', project_id: 1, via: 'push', changes: [move(`refs/heads/${B}`, null, A)] }, error: refusal('You cannot create a branch with a 40-character hexadecimal branch name.') },
  'a protected tag is created by its level only': {
    given: [...base, tagProtected('v*', 40)],
    as: 2,
    when: { type: 'UpdateRefs', project_id: 1, via: 'push', changes: [move('refs/tags/v1', null, A, { tag: tagFacts })] },
    error: refusal('You are not allowed to create this tag as it is protected.'),
  },
  'a protected tag is never updated': {
    given: [...base, tagProtected('v*', 40), { type: 'TagCreated', data: { project_id: 1, name: 'v1', target: A, ...tagFacts, via: 'api' } }],
    as: 4,
    when: { type: 'UpdateRefs', project_id: 1, via: 'push', changes: [move('refs/tags/v1', A, B, { tag: tagFacts })] },
    error: refusal('Protected tags cannot be updated.'),
  },
  'a protected tag is deleted by maintainers from the API only': {
    given: [...base, tagProtected('v*', 40), { type: 'TagCreated', data: { project_id: 1, name: 'v1', target: A, ...tagFacts, via: 'api' } }],
    as: 4,
    when: { type: 'UpdateRefs', project_id: 1, via: 'push', changes: [move('refs/tags/v1', A, null)] },
    error: refusal('You can only delete protected tags using the web interface.'),
  },
  '"No one" refuses administrators too': {
    given: [...base, tagProtected('frozen', 0)],
    as: 1,
    when: { type: 'UpdateRefs', project_id: 1, via: 'api', changes: [move('refs/tags/frozen', null, A, { tag: tagFacts })] },
    error: refusal('You are not allowed to create this tag as it is protected.'),
  },
  'a protected branch takes pushes from its level': {
    given: [...base, branchProtected('main', 40, 30)],
    as: 2,
    when: { type: 'UpdateRefs', project_id: 1, via: 'push', changes: [move('refs/heads/main', A, B, { forced: false })] },
    error: refusal('You are not allowed to push code to protected branches on this project.'),
  },
  'no force push to a protected branch': {
    given: [...base, branchProtected('main', 40, 30)],
    as: 4,
    when: { type: 'UpdateRefs', project_id: 1, via: 'push', changes: [move('refs/heads/main', A, B, { forced: true })] },
    error: refusal('You are not allowed to force push code to a protected branch on this project.'),
  },
  'a protected branch is deleted by maintainers from the API only': {
    given: [...base, branchProtected('release/*', 30, 30), { type: 'BranchCreated', data: { project_id: 1, name: 'release/1', sha: A, via: 'api' } }],
    as: 4,
    when: { type: 'UpdateRefs', project_id: 1, via: 'push', changes: [move('refs/heads/release/1', A, null)] },
    error: refusal('You can only delete protected branches using the web interface.'),
  },
  'a source branch moving gives its open merge requests a version': {
    given: [...base, ...mergeRequest],
    as: 2,
    when: {
      type: 'UpdateRefs',
      project_id: 1,
      via: 'push',
      changes: [move('refs/heads/feature', B, C, { forced: false })],
      versions: [{ iid: 1, head_commit_sha: C, base_commit_sha: A, start_commit_sha: A }],
    },
    then: [
      { type: 'BranchUpdated', data: { project_id: 1, name: 'feature', old_sha: B, new_sha: C, forced: false, via: 'push' } },
      { type: 'MergeRequestVersionCreated', data: { project_id: 1, iid: 1, id: 2, head_commit_sha: C, base_commit_sha: A, start_commit_sha: A, created_at: AT } },
    ],
  },
  'maintainers move HEAD to an existing branch': {
    given: [...base, feature],
    as: 4,
    when: { type: 'ChangeDefaultBranch', project_id: 1, branch: 'feature' },
    then: [{ type: 'DefaultBranchChanged', data: { project_id: 1, default_branch: 'feature' } }],
  },
  'HEAD goes to any name while there is no branch': {
    given: [root, projectCreated(1, 'app', 101, { kind: 'user' })],
    as: 1,
    when: { type: 'ChangeDefaultBranch', project_id: 1, branch: 'trunk' },
    then: [{ type: 'DefaultBranchChanged', data: { project_id: 1, default_branch: 'trunk' } }],
  },
  'HEAD does not go to a missing branch': { given: base, as: 4, when: { type: 'ChangeDefaultBranch', project_id: 1, branch: 'nope' }, error: refusal('Could not set the default branch') },
  'developers do not change the default branch': { given: [...base, feature], as: 2, when: { type: 'ChangeDefaultBranch', project_id: 1, branch: 'feature' }, error: forbidden() },
  'maintainers protect a tag pattern': {
    given: base,
    as: 4,
    when: { type: 'ProtectTag', project_id: 1, name: 'v*', create_access_level: 30 },
    then: [tagProtected('v*', 30)],
  },
  'developers do not protect tags': { given: base, as: 2, when: { type: 'ProtectTag', project_id: 1, name: 'v*', create_access_level: 40 }, error: forbidden() },
  'a protected tag name is unique': { given: [...base, tagProtected('v*', 40)], as: 4, when: { type: 'ProtectTag', project_id: 1, name: 'v*', create_access_level: 40 }, error: validation({ name: ['has already been taken'] }) },
  'a protected tag level is one of the allowed': { given: base, as: 4, when: { type: 'ProtectTag', project_id: 1, name: 'v*', create_access_level: 20 }, error: validation({ create_access_level: ['is not included in the list'] }) },
  'unprotecting a tag': { given: [...base, tagProtected('v*', 40)], as: 4, when: { type: 'UnprotectTag', project_id: 1, name: 'v*' }, then: [{ type: 'ProtectedTagDeleted', data: { project_id: 1, id: 1 } }] },
  'unprotecting an unknown tag': { given: base, as: 4, when: { type: 'UnprotectTag', project_id: 1, name: 'v*' }, error: notFound(undefined, '404 Not found') },
  'maintainers protect a branch': {
    given: base,
    as: 4,
    when: { type: 'ProtectBranch', project_id: 1, name: 'main', push_access_level: 40, merge_access_level: 30, allow_force_push: false, code_owner_approval_required: false },
    then: [branchProtected('main', 40, 30)],
  },
  'a branch is protected once': {
    given: [...base, branchProtected('main', 40, 30)],
    as: 4,
    when: { type: 'ProtectBranch', project_id: 1, name: 'main', push_access_level: 40, merge_access_level: 40, allow_force_push: false, code_owner_approval_required: false },
    error: conflict("Protected branch 'main' already exists"),
  },
  'the legacy protect replaces the levels of an exact rule': {
    given: [...base, branchProtected('main', 40, 40)],
    as: 4,
    when: { type: 'ProtectBranchLegacy', project_id: 1, name: 'main', developers_can_push: true, developers_can_merge: false },
    then: [{ type: 'ProtectedBranchUpdated', data: { project_id: 1, id: 1, push_access_levels: [{ id: 3, access_level: 30 }], merge_access_levels: [{ id: 4, access_level: 40 }] } }],
  },
  'code owner approval set on a protected branch (EE PATCH)': {
    given: [...base, branchProtected('main', 40, 40)],
    as: 4,
    when: { type: 'SetCodeOwnerApprovalRequired', project_id: 1, name: 'main', code_owner_approval_required: true },
    then: [{ type: 'ProtectedBranchCodeOwnerApprovalSet', data: { project_id: 1, id: 1, code_owner_approval_required: true } }],
  },
  'code owner approval unchanged records nothing': {
    given: [...base, branchProtected('main', 40, 40)],
    as: 4,
    when: { type: 'SetCodeOwnerApprovalRequired', project_id: 1, name: 'main', code_owner_approval_required: false },
    then: [],
  },
  'code owner approval of no exact rule': {
    given: [...base, branchProtected('release/*', 40, 40)],
    as: 4,
    when: { type: 'SetCodeOwnerApprovalRequired', project_id: 1, name: 'release/1', code_owner_approval_required: true },
    error: notFound(undefined, '404 Not found'),
  },
  'unprotecting a branch': { given: [...base, branchProtected('main', 40, 40)], as: 4, when: { type: 'UnprotectBranch', project_id: 1, name: 'main' }, then: [{ type: 'ProtectedBranchDeleted', data: { project_id: 1, id: 1 } }] },
  'a merge request with its first version': {
    given: [...base, feature],
    as: 2,
    when: { type: 'CreateMergeRequest', project_id: 1, title: 'Feature', source_branch: 'feature', target_branch: 'main', version: { head_commit_sha: B, base_commit_sha: A, start_commit_sha: A } },
    then: mergeRequest.slice(1),
  },
  'a merge request needs two branches': {
    given: base,
    as: 2,
    when: { type: 'CreateMergeRequest', project_id: 1, title: 'Same', source_branch: 'main', target_branch: 'main', version: null },
    error: unprocessable("You can't use same project/branch for source and target"),
  },
  'one open merge request per source and target': {
    given: [...base, ...mergeRequest],
    as: 2,
    when: { type: 'CreateMergeRequest', project_id: 1, title: 'Again', source_branch: 'feature', target_branch: 'main', version: { head_commit_sha: B, base_commit_sha: A, start_commit_sha: A } },
    error: conflict('Another open merge request already exists for this source branch: !1'),
  },
  'reporters do not open merge requests': {
    given: [...base, feature],
    as: 3,
    when: { type: 'CreateMergeRequest', project_id: 1, title: 'F', source_branch: 'feature', target_branch: 'main', version: { head_commit_sha: B, base_commit_sha: A, start_commit_sha: A } },
    error: forbidden(),
  },
  'closing a merge request': {
    given: [...base, ...mergeRequest],
    as: 2,
    when: { type: 'UpdateMergeRequest', project_id: 1, iid: 1, title: 'Better', state_event: 'close' },
    then: [
      { type: 'MergeRequestUpdated', data: { project_id: 1, iid: 1, updated_at: AT, title: 'Better', previous_title: 'Feature', updated_by_id: 2 } },
      { type: 'MergeRequestClosed', data: { project_id: 1, iid: 1, closed_by_id: 2, at: AT } },
    ],
  },
  'a merge request given the assignees it has writes nothing': {
    given: [...base, ...mergeRequest, { type: 'MergeRequestUpdated', data: { project_id: 1, iid: 1, updated_at: AT, assignee_ids: [2, 4], updated_by_id: 2 } }],
    as: 2,
    when: { type: 'UpdateMergeRequest', project_id: 1, iid: 1, title: 'Feature', assignee_ids: [4, 2] },
    then: [],
  },
  'an unknown merge request': { given: base, as: 2, when: { type: 'UpdateMergeRequest', project_id: 1, iid: 9, title: 'x' }, error: notFound('Merge Request') },
  'a merge moves the target branch and records who merged': {
    given: [...base, ...mergeRequest],
    as: 2,
    when: { type: 'MergeMergeRequest', project_id: 1, iid: 1, old_sha: A, merge_commit_sha: C, source_sha: B },
    then: [
      { type: 'BranchUpdated', data: { project_id: 1, name: 'main', old_sha: A, new_sha: C, forced: false, via: 'api' } },
      { type: 'MergeRequestMerged', data: { project_id: 1, iid: 1, merged_by_id: 2, merge_commit_sha: C, at: AT } },
    ],
  },
  'a merge request with labels and reviewers': {
    given: [...base, feature],
    as: 2,
    when: {
      type: 'CreateMergeRequest',
      project_id: 1,
      title: 'Feature',
      source_branch: 'feature',
      target_branch: 'main',
      labels: ['bug', 'api'],
      reviewer_ids: [4],
      version: { head_commit_sha: B, base_commit_sha: A, start_commit_sha: A },
    },
    then: [
      {
        type: 'MergeRequestCreated',
        data: {
          project_id: 1,
          id: 1,
          iid: 1,
          title: 'Feature',
          description: '',
          source_branch: 'feature',
          target_branch: 'main',
          author_id: 2,
          assignee_ids: [],
          reviewer_ids: [4],
          labels: ['bug', 'api'],
          squash: false,
          remove_source_branch: null,
          created_at: AT,
        },
      },
      ...mergeRequest.slice(2),
    ],
  },
  'labels and reviewers change; the ones held in another order write nothing': {
    given: [...base, ...mergeRequest, { type: 'MergeRequestUpdated', data: { project_id: 1, iid: 1, updated_at: AT, labels: ['a', 'b'], updated_by_id: 2 } }],
    as: 2,
    when: { type: 'UpdateMergeRequest', project_id: 1, iid: 1, labels: ['b', 'a'], reviewer_ids: [3] },
    then: [{ type: 'MergeRequestUpdated', data: { project_id: 1, iid: 1, updated_at: AT, reviewer_ids: [3], previous_reviewer_ids: [], updated_by_id: 2 } }],
  },
  'owners delete merge requests': {
    given: [...base, ...mergeRequest],
    as: 1,
    when: { type: 'DeleteMergeRequest', project_id: 1, iid: 1 },
    then: [{ type: 'MergeRequestDeleted', data: { project_id: 1, iid: 1, id: 1 } }],
  },
  'maintainers do not delete merge requests': { given: [...base, ...mergeRequest], as: 4, when: { type: 'DeleteMergeRequest', project_id: 1, iid: 1 }, error: forbidden() },
  'a maintainer approves a merge request': {
    given: [...base, ...mergeRequest],
    as: 4,
    when: { type: 'ApproveMergeRequest', project_id: 1, iid: 1 },
    then: [{ type: 'MergeRequestApproved', data: { project_id: 1, iid: 1, user_id: 4, at: AT } }],
  },
  'the author does not approve their own merge request': { given: [...base, ...mergeRequest], as: 2, when: { type: 'ApproveMergeRequest', project_id: 1, iid: 1 }, error: unauthorized },
  'a reporter does not approve': { given: [...base, ...mergeRequest], as: 3, when: { type: 'ApproveMergeRequest', project_id: 1, iid: 1 }, error: unauthorized },
  'approving twice': {
    given: [...base, ...mergeRequest, { type: 'MergeRequestApproved', data: { project_id: 1, iid: 1, user_id: 4, at: AT } }],
    as: 4,
    when: { type: 'ApproveMergeRequest', project_id: 1, iid: 1 },
    error: unauthorized,
  },
  'unapproving what one approved': {
    given: [...base, ...mergeRequest, { type: 'MergeRequestApproved', data: { project_id: 1, iid: 1, user_id: 4, at: AT } }],
    as: 4,
    when: { type: 'UnapproveMergeRequest', project_id: 1, iid: 1 },
    then: [{ type: 'MergeRequestUnapproved', data: { project_id: 1, iid: 1, user_id: 4, at: AT } }],
  },
  'unapproving without an approval': { given: [...base, ...mergeRequest], as: 4, when: { type: 'UnapproveMergeRequest', project_id: 1, iid: 1 }, error: notFound() },
  'a reader subscribes to a merge request': {
    given: [...base, ...mergeRequest],
    as: 3,
    when: { type: 'SetMergeRequestSubscription', project_id: 1, iid: 1, subscribed: true },
    then: [{ type: 'MergeRequestSubscribed', data: { project_id: 1, iid: 1, user_id: 3, at: AT } }],
  },
  // Review 'review-mr': a second request with the same choice (two racing subscribes) records nothing.
  'subscribing again records nothing': {
    given: [...base, ...mergeRequest, { type: 'MergeRequestSubscribed', data: { project_id: 1, iid: 1, user_id: 3, at: AT } }],
    as: 3,
    when: { type: 'SetMergeRequestSubscription', project_id: 1, iid: 1, subscribed: true },
    then: [],
  },
  'locking a merge request’s discussion': {
    given: [...base, ...mergeRequest],
    as: 2,
    when: { type: 'UpdateMergeRequest', project_id: 1, iid: 1, discussion_locked: true },
    then: [{ type: 'MergeRequestUpdated', data: { project_id: 1, iid: 1, updated_at: AT, discussion_locked: true, updated_by_id: 2 } }],
  },
  'a merge into a branch the merger may not update': {
    given: [...base, ...mergeRequest, branchProtected('main', 40, 40)],
    as: 2,
    when: { type: 'MergeMergeRequest', project_id: 1, iid: 1, old_sha: A, merge_commit_sha: C, source_sha: B },
    error: unauthorized,
  },
};

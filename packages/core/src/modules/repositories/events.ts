/**
 * Repository events: the audit trail of refs. Every ref change, by the API or by a push, is one event with the
 * old and new object ids; the acting user is the event's `actorId`. Git holds the objects; replaying these
 * events gives every ref's value, which `forgefold verify` compares with the repository on disk.
 */
import * as t from 'io-ts';
import { defineEvents, type EventsOf } from '../../kernel/events.js';
import { nullable } from '../shared/codecs.js';

const stream = (data: { project_id: number }) => `repository-${data.project_id}`;

/** How a ref moved: through the API (commits, files, branches, tags, merges) or by `git push`. */
const via = t.keyof({ api: null, push: null });

const tagger = t.type({ name: t.string, email: t.string, date: t.string });

const accessLevel = t.type({ id: t.number, access_level: t.number });

export const repositoryEvents = defineEvents({
  /** HEAD moved to another branch (the project's `default_branch`). */
  DefaultBranchChanged: { version: 1, stream, codec: t.type({ project_id: t.number, default_branch: t.string }) },
  BranchCreated: { version: 1, stream, codec: t.type({ project_id: t.number, name: t.string, sha: t.string, via }) },
  /** A branch moved; `forced` when the old commit is not an ancestor of the new one. */
  BranchUpdated: {
    version: 1,
    stream,
    codec: t.type({ project_id: t.number, name: t.string, old_sha: t.string, new_sha: t.string, forced: t.boolean, via }),
  },
  BranchDeleted: { version: 1, stream, codec: t.type({ project_id: t.number, name: t.string, old_sha: t.string, via }) },
  /** `target` is the tag object for an annotated tag, the commit for a lightweight one. */
  TagCreated: {
    version: 1,
    stream,
    codec: t.type({
      project_id: t.number,
      name: t.string,
      target: t.string,
      commit_sha: nullable(t.string),
      /** The committer date of `commit_sha` (the tags list's `updated` order, without asking git). */
      committed_date: nullable(t.string),
      message: t.string,
      tagger: nullable(tagger),
      via,
    }),
  },
  /** A tag moved by a (forced) push. */
  TagUpdated: {
    version: 1,
    stream,
    codec: t.type({
      project_id: t.number,
      name: t.string,
      old_target: t.string,
      target: t.string,
      commit_sha: nullable(t.string),
      committed_date: nullable(t.string),
      message: t.string,
      tagger: nullable(tagger),
      via,
    }),
  },
  TagDeleted: { version: 1, stream, codec: t.type({ project_id: t.number, name: t.string, old_target: t.string, via }) },
  ProtectedTagCreated: {
    version: 1,
    stream,
    codec: t.type({ project_id: t.number, id: t.number, name: t.string, create_access_levels: t.array(accessLevel), created_at: t.string }),
  },
  ProtectedTagDeleted: { version: 1, stream, codec: t.type({ project_id: t.number, id: t.number }) },
  ProtectedBranchCreated: {
    version: 1,
    stream,
    codec: t.type({
      project_id: t.number,
      id: t.number,
      name: t.string,
      push_access_levels: t.array(accessLevel),
      merge_access_levels: t.array(accessLevel),
      unprotect_access_levels: t.array(accessLevel),
      allow_force_push: t.boolean,
      code_owner_approval_required: t.boolean,
      created_at: t.string,
    }),
  },
  /** The legacy `PUT …/branches/:branch/protect` on an already protected branch replaces its levels. */
  ProtectedBranchUpdated: {
    version: 1,
    stream,
    codec: t.type({ project_id: t.number, id: t.number, push_access_levels: t.array(accessLevel), merge_access_levels: t.array(accessLevel) }),
  },
  ProtectedBranchDeleted: { version: 1, stream, codec: t.type({ project_id: t.number, id: t.number }) },
  /** EE's `PATCH …/protected_branches/:name`: the rule's `code_owner_approval_required` changed. */
  ProtectedBranchCodeOwnerApprovalSet: { version: 1, stream, codec: t.type({ project_id: t.number, id: t.number, code_owner_approval_required: t.boolean }) },
  MergeRequestCreated: {
    version: 1,
    stream,
    codec: t.intersection([
      t.type({
      project_id: t.number,
      id: t.number,
      iid: t.number,
      title: t.string,
      description: t.string,
      source_branch: t.string,
      target_branch: t.string,
      author_id: nullable(t.number),
      assignee_ids: t.array(t.number),
      squash: t.boolean,
      /** Null (since the fidelity audit) when the creation did not give it. */
      remove_source_branch: nullable(t.boolean),
      created_at: t.string,
      }),
      /** Added with the fidelity audit: logs before it have neither (none). */
      t.partial({ labels: t.array(t.string), reviewer_ids: t.array(t.number) }),
    ]),
  },
  MergeRequestUpdated: {
    version: 1,
    stream,
    codec: t.intersection([
      t.type({ project_id: t.number, iid: t.number, updated_at: t.string }),
      /**
       * `updated_by_id`: who updated (the cross-references and system notes are theirs); `previous_…`: what a new
       * title, target, assignees or reviewers replaced (the system notes name them).
       */
      t.partial({ title: t.string, description: t.string, target_branch: t.string, assignee_ids: t.array(t.number), reviewer_ids: t.array(t.number), labels: t.array(t.string), squash: t.boolean, remove_source_branch: t.boolean, updated_by_id: nullable(t.number) }),
      t.partial({ discussion_locked: t.boolean, previous_title: t.string, previous_target_branch: t.string, previous_assignee_ids: t.array(t.number), previous_reviewer_ids: t.array(t.number) }),
    ]),
  },
  MergeRequestClosed: { version: 1, stream, codec: t.type({ project_id: t.number, iid: t.number, closed_by_id: nullable(t.number), at: t.string }) },
  MergeRequestReopened: { version: 1, stream, codec: t.type({ project_id: t.number, iid: t.number, at: t.string }) },
  /** A new diff version: at creation, whenever the source branch moves, and when the target branch changes. */
  MergeRequestVersionCreated: {
    version: 1,
    stream,
    codec: t.intersection([
      t.type({
        project_id: t.number,
        iid: t.number,
        id: t.number,
        head_commit_sha: t.string,
        base_commit_sha: nullable(t.string),
        start_commit_sha: nullable(t.string),
        created_at: t.string,
      }),
      /** When the source branch moved: the commits it gained (newest first) and who moved it (the system note's author). */
      t.partial({ commits: t.array(t.type({ id: t.string, title: t.string })), pushed_by_id: nullable(t.number) }),
    ]),
  },
  /** EE `POST …/approve` (`MergeRequests::ApprovalService`) and `…/unapprove` (`RemoveApprovalService`). */
  MergeRequestApproved: { version: 1, stream, codec: t.type({ project_id: t.number, iid: t.number, user_id: t.number, at: t.string }) },
  MergeRequestUnapproved: { version: 1, stream, codec: t.type({ project_id: t.number, iid: t.number, user_id: t.number, at: t.string }) },
  /** `POST …/merge_requests/:iid/subscribe` and `…/unsubscribe` (a `Subscription` row). */
  MergeRequestSubscribed: { version: 1, stream, codec: t.type({ project_id: t.number, iid: t.number, user_id: t.number, at: t.string }) },
  MergeRequestUnsubscribed: { version: 1, stream, codec: t.type({ project_id: t.number, iid: t.number, user_id: t.number, at: t.string }) },
  /** `DELETE …/merge_requests/:iid` (`Issuable::DestroyService`); `id` for the followers (its threads go). */
  MergeRequestDeleted: { version: 1, stream, codec: t.type({ project_id: t.number, iid: t.number, id: t.number }) },
  MergeRequestMerged: {
    version: 1,
    stream,
    codec: t.intersection([
      t.type({ project_id: t.number, iid: t.number, merged_by_id: nullable(t.number), merge_commit_sha: t.string, at: t.string }),
      /** The merge's `should_remove_source_branch` parameter when given (`merge_params`, shown by the entity). */
      t.partial({ should_remove_source_branch: t.boolean }),
    ]),
  },
});

export type RepositoryEvent = EventsOf<typeof repositoryEvents>;
export type Via = t.TypeOf<typeof via>;
export type TaggerData = t.TypeOf<typeof tagger>;

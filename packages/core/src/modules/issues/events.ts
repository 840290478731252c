/**
 * Issue events. `IssueUpdated` carries the previous title and whether the description changed, so that the
 * discussions module can project the platform's system notes ("changed title from …", "changed the description")
 * from the event alone.
 */
import * as t from 'io-ts';
import { defineEvents, type EventsOf } from '../../kernel/events.js';
import { nullable } from '../shared/codecs.js';

const stream = (data: { project_id: number }) => `issues-${data.project_id}`;

/** An issue as a link names it. */
const linkedIssue = t.type({ project_id: t.number, id: t.number, iid: t.number });

export const issueEvents = defineEvents({
  IssueCreated: {
    version: 1,
    stream,
    codec: t.intersection([
      t.type({
        project_id: t.number,
        id: t.number,
        iid: t.number,
        title: t.string,
        description: t.string,
        confidential: t.boolean,
        labels: t.array(t.string),
        assignee_ids: t.array(t.number),
        author_id: nullable(t.number),
        created_at: t.string,
      }),
      t.partial({ due_date: t.string, discussion_locked: t.boolean }),
    ]),
  },
  IssueUpdated: {
    version: 1,
    stream,
    codec: t.intersection([
      t.type({ project_id: t.number, id: t.number, iid: t.number, updated_by_id: nullable(t.number), updated_at: t.string }),
      t.partial({
        title: t.string,
        previous_title: t.string,
        description: t.string,
        confidential: t.boolean,
        labels: t.array(t.string),
        assignee_ids: t.array(t.number),
        /** The assignees before, beside a change of `assignee_ids` (the "assigned to" note); absent in logs before it. */
        previous_assignee_ids: t.array(t.number),
        /** Null when the due date was removed. */
        due_date: nullable(t.string),
        discussion_locked: t.boolean,
      }),
    ]),
  },
  IssueClosed: { version: 1, stream, codec: t.type({ project_id: t.number, id: t.number, iid: t.number, closed_by_id: nullable(t.number), at: t.string }) },
  IssueReopened: { version: 1, stream, codec: t.type({ project_id: t.number, id: t.number, iid: t.number, at: t.string }) },
  IssueDeleted: { version: 1, stream, codec: t.type({ project_id: t.number, id: t.number, iid: t.number, at: t.string }) },
  /** The user subscribed to the issue's notifications (a `Subscription` row with `subscribed: true`). */
  IssueSubscribed: { version: 1, stream, codec: t.type({ project_id: t.number, id: t.number, iid: t.number, user_id: t.number, at: t.string }) },
  /** The user unsubscribed: no notifications, participant or not (`subscribed: false`). */
  IssueUnsubscribed: { version: 1, stream, codec: t.type({ project_id: t.number, id: t.number, iid: t.number, user_id: t.number, at: t.string }) },
  /** `IssueLinks::CreateService`: recorded on the source's stream. */
  IssueLinkCreated: {
    version: 1,
    stream: (data: { source: { project_id: number } }) => `issues-${data.source.project_id}`,
    codec: t.type({ id: t.number, source: linkedIssue, target: linkedIssue, link_type: t.union([t.literal('relates_to'), t.literal('blocks')]), author_id: nullable(t.number), at: t.string }),
  },
  /** `IssueLinks::DestroyService`. */
  IssueLinkDestroyed: {
    version: 1,
    stream: (data: { source: { project_id: number } }) => `issues-${data.source.project_id}`,
    codec: t.type({ id: t.number, source: linkedIssue, target: linkedIssue, author_id: nullable(t.number), at: t.string }),
  },
});

export type IssueEvent = EventsOf<typeof issueEvents>;

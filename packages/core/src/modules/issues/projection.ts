/** The issues projection: every project's issues, by id and by the project's iid. */
import { emptyTable, type Table } from '../../kernel/table.js';
import type { MembershipView } from '../members/projection.js';
import type { OwnerIndexes } from '../shared/owners.js';

export type IssueState = 'opened' | 'closed';

export interface Issue {
  readonly id: number;
  readonly iid: number;
  readonly project_id: number;
  readonly title: string;
  readonly description: string;
  readonly state: IssueState;
  readonly confidential: boolean;
  readonly labels: readonly string[];
  readonly assignee_ids: readonly number[];
  /** `YYYY-MM-DD`; absent on issues created without one. */
  readonly due_date?: string | null;
  /** Null (absent) until someone locks or unlocks the discussion. */
  readonly discussion_locked?: boolean | null;
  readonly author_id: number | null;
  readonly created_at: string;
  readonly updated_at: string;
  readonly closed_at: string | null;
  readonly closed_by_id: number | null;
  /**
   * User id → whether that user subscribed (true) or unsubscribed (false) through the subscription endpoints; absent
   * until the first one. Whoever is not listed is subscribed while a participant (`Issue#subscribed?`).
   */
  readonly subscriptions?: Readonly<Record<number, boolean>>;
  /** Ids of the links (`IssueLink`) the issue is the source or the target of, oldest first; absent until the first. */
  readonly link_ids?: readonly number[];
}

/** `IssueLink` (14.7): `relates_to`, or `blocks` (the source blocks the target; seen from the target, `is_blocked_by`). */
export type IssueLinkType = 'relates_to' | 'blocks';

export interface IssueLink {
  readonly id: number;
  readonly source_id: number;
  readonly target_id: number;
  readonly link_type: IssueLinkType;
  readonly created_at: string;
  readonly updated_at: string;
}

export interface ProjectIssues {
  /** iid → issue id. */
  readonly byIid: Table<number>;
  /** The last iid drawn (iids are never reused, even after a deletion). */
  readonly last_iid: number;
}

/**
 * `byAuthor` and `byAssignee` (`OwnerIndexes`): user id → the set of their issue ids. `GET /issues`
 * (`scope=created_by_me`, its default, or `assigned_to_me`) reads the caller's own, not every issue of every project
 * the caller can see.
 */
export interface IssuesSlice extends OwnerIndexes {
  readonly byId: Table<Issue>;
  readonly byProject: Table<ProjectIssues>;
  readonly sequence: number;
  /** Links between issues, by id. */
  readonly links: Table<IssueLink>;
  readonly link_sequence: number;
}

export type IssuesView = MembershipView & { readonly issues: IssuesSlice };

export const initialIssues = (): IssuesSlice => ({
  byId: emptyTable(),
  byProject: emptyTable(),
  byAuthor: emptyTable(),
  byAssignee: emptyTable(),
  sequence: 0,
  links: emptyTable(),
  link_sequence: 0,
});

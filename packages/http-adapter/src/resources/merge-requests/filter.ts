/**
 * `MergeRequestsFinder` (14.7) over merge requests, for what Forgefold keeps: no milestones, award emoji or label
 * objects, so `milestone=None` keeps every merge request and any other value none; `my_reaction_emoji` is the issues'
 * rule (`reactionMatches`).
 */
import { isDraftTitle, type MergeRequest, type UsersSlice } from '@forgefold/core';
import type { NoneOrAny } from '../issues/params.js';
import { fullSearchMatches, idOf, inTimestampWindow, labelsMatch, reactionMatches, scopeMatches, sortByTimestamp, type TimestampFilters } from '../issues/filter.js';

interface NegatableFilters {
  readonly author_id?: number | null | undefined;
  readonly author_username?: string | null | undefined;
  readonly assignee_id?: number | NoneOrAny | null | undefined;
  readonly assignee_username?: readonly string[] | null | undefined;
  readonly reviewer_id?: number | NoneOrAny | null | undefined;
  readonly reviewer_username?: string | null | undefined;
  readonly labels?: readonly string[] | null | undefined;
  readonly milestone?: string | null | undefined;
  readonly my_reaction_emoji?: string | null | undefined;
}

/** The list filters of `GET …/merge_requests` (and of a deployment's merge requests), as decoded. */
export interface MergeRequestFilters extends NegatableFilters, TimestampFilters {
  readonly state?: string | null | undefined;
  readonly order_by?: string | null | undefined;
  readonly sort?: string | null | undefined;
  readonly scope?: string | null | undefined;
  readonly source_branch?: string | null | undefined;
  readonly source_project_id?: number | null | undefined;
  readonly target_branch?: string | null | undefined;
  readonly search?: string | null | undefined;
  readonly in?: string | null | undefined;
  readonly wip?: string | null | undefined;
  readonly not?: NegatableFilters | null | undefined;
  readonly iids?: readonly (number | null)[] | null | undefined;
}

const given = <A>(value: A | null | undefined): value is A => value !== undefined && value !== null;

/** A filter on milestones, which Forgefold never holds: blank or `None` keeps all, anything else none. */
const noneOnly = (value: string): boolean => value === '' || value.toLowerCase() === 'none';

/** `integer_none_any` over a list of user ids: `None` empty, `Any` not empty, an id among them. */
const usersMatch = (ids: readonly number[], filter: number | NoneOrAny): boolean => (filter === 'none' ? ids.length === 0 : filter === 'any' ? ids.length > 0 : ids.includes(filter));

const matches = (mr: MergeRequest, filters: NegatableFilters, users: UsersSlice): boolean =>
  (!given(filters.author_id) || mr.author_id === filters.author_id) &&
  (!given(filters.author_username) || mr.author_id === idOf(users, filters.author_username)) &&
  (!given(filters.assignee_id) || usersMatch(mr.assignee_ids, filters.assignee_id)) &&
  (!given(filters.assignee_username) || filters.assignee_username.every((username) => mr.assignee_ids.includes(idOf(users, username)))) &&
  (!given(filters.reviewer_id) || usersMatch(mr.reviewer_ids, filters.reviewer_id)) &&
  // `by_reviewer`: a username matches like an id (`None`/`Any` are the documented values of the id only).
  (!given(filters.reviewer_username) || mr.reviewer_ids.includes(idOf(users, filters.reviewer_username))) &&
  (!given(filters.labels) || labelsMatch(mr, filters.labels)) &&
  (!given(filters.milestone) || noneOnly(filters.milestone));

/** `not[…]`: leaves out what has any of the labels, that author, any of those assignees or reviewers. */
const excluded = (mr: MergeRequest, not: NegatableFilters, users: UsersSlice): boolean =>
  (given(not.author_id) && mr.author_id === not.author_id) ||
  (given(not.author_username) && mr.author_id === idOf(users, not.author_username)) ||
  (typeof not.assignee_id === 'number' && mr.assignee_ids.includes(not.assignee_id)) ||
  (given(not.assignee_username) && not.assignee_username.some((username) => mr.assignee_ids.includes(idOf(users, username)))) ||
  (typeof not.reviewer_id === 'number' && mr.reviewer_ids.includes(not.reviewer_id)) ||
  (given(not.reviewer_username) && mr.reviewer_ids.includes(idOf(users, not.reviewer_username))) ||
  (given(not.labels) && not.labels.some((label) => mr.labels.includes(label)));

/** The filtered merge requests in the finder's order: `created_at` or `updated_at`, ties by id, newest first by default. */
export const filterMergeRequests = (list: readonly MergeRequest[], params: MergeRequestFilters, users: UsersSlice, viewer: number | null): MergeRequest[] => {
  // The same answer for every row (see `reactionMatches`).
  if (!reactionMatches(params.my_reaction_emoji, viewer)) return [];
  const search = params.search;
  const iids = params.iids?.filter((iid): iid is number => iid !== null);
  const rows = list.filter(
    (mr) =>
      (!given(params.state) || params.state === 'all' || params.state === mr.state) &&
      (!params.source_branch || mr.source_branch === params.source_branch) &&
      (!given(params.source_project_id) || mr.project_id === params.source_project_id) &&
      (!params.target_branch || mr.target_branch === params.target_branch) &&
      (!iids || iids.length === 0 || iids.includes(mr.iid)) &&
      matches(mr, params, users) &&
      (!given(params.not) || !excluded(mr, params.not, users)) &&
      scopeMatches(mr, params.scope, viewer) &&
      // `by_draft` (`wip`): `yes` the drafts, `no` the others.
      (!given(params.wip) || (params.wip === 'yes') === isDraftTitle(mr.title)) &&
      // `Issuable.full_search`, as for issues.
      (!search || fullSearchMatches(mr, search, params.in)) &&
      inTimestampWindow(mr, params),
  );
  return sortByTimestamp(rows, params.order_by === 'updated_at' ? 'updated_at' : 'created_at', params.sort);
};

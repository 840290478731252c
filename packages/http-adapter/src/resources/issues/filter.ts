/**
 * `IssuesFinder` over a project's issues as `GET /projects/:id/issues` calls it (14.x), for what Forgefold keeps:
 * no milestones, so `milestone=None` keeps every issue and any other milestone none.
 */
import { findUserByUsername, fuzzyMatches, isOwnedBy, isRubyBlank, type Issue, type OwnerRole, type UsersSlice } from '@forgefold/core';
import type { NoneOrAny } from './params.js';

interface NegatableFilters {
  readonly labels?: readonly string[] | null | undefined;
  readonly milestone?: string | null | undefined;
  readonly iids?: readonly number[] | null | undefined;
  readonly author_id?: number | null | undefined;
  readonly author_username?: string | null | undefined;
  readonly assignee_id?: number | NoneOrAny | null | undefined;
  readonly assignee_username?: readonly string[] | null | undefined;
}

/** `created_after/before` and `updated_after/before`: the issuable finders' window (issues and epics alike). */
export interface TimestampFilters {
  readonly created_after?: string | null | undefined;
  readonly created_before?: string | null | undefined;
  readonly updated_after?: string | null | undefined;
  readonly updated_before?: string | null | undefined;
}

export interface IssueFilters extends NegatableFilters, TimestampFilters {
  readonly state?: string | null | undefined;
  readonly order_by?: string | null | undefined;
  readonly sort?: string | null | undefined;
  readonly search?: string | null | undefined;
  readonly in?: string | null | undefined;
  readonly not?: NegatableFilters | null | undefined;
  readonly scope?: string | null | undefined;
  readonly confidential?: boolean | null | undefined;
  readonly due_date?: string | null | undefined;
  readonly issue_type?: string | null | undefined;
  readonly my_reaction_emoji?: string | null | undefined;
}

/**
 * `IssuableFinder#by_my_reaction_emoji`, one rule for the issue, merge request and epic lists: a signed-in caller's
 * `None` keeps what they have not awarded any emoji to, `Any` what they have awarded one to, any other value (blank
 * included: the finder tests the param, not its presence) what they have awarded that emoji to; for an anonymous caller
 * the param is ignored. No one awards emoji here, so for a signed-in caller `None` keeps all and every other value none.
 */
export const reactionMatches = (filter: string | null | undefined, viewer: number | null): boolean =>
  filter === undefined || filter === null || viewer === null || filter.toLowerCase() === 'none';

const given = <A>(value: A | null | undefined): value is A => value !== undefined && value !== null;

interface Timestamped {
  readonly id: number;
  readonly created_at: string;
  readonly updated_at: string;
}

/** Whether `row` lies in the window the filters give (each bound inclusive, each optional). */
export const inTimestampWindow = (row: Timestamped, filters: TimestampFilters): boolean =>
  (!given(filters.created_after) || row.created_at >= filters.created_after) &&
  (!given(filters.created_before) || row.created_at <= filters.created_before) &&
  (!given(filters.updated_after) || row.updated_at >= filters.updated_after) &&
  (!given(filters.updated_before) || row.updated_at <= filters.updated_before);

/** Sorts `rows` in place by `key`, ties by id, newest first unless `sort` is `asc`. */
export const sortByTimestamp = <A extends Timestamped>(rows: A[], key: 'created_at' | 'updated_at', sort: string | null | undefined): A[] => {
  rows.sort((a, b) => (a[key] < b[key] ? -1 : a[key] > b[key] ? 1 : a.id - b.id));
  if (sort !== 'asc') rows.reverse();
  return rows;
};

/** A username's id; an unknown one matches nobody (the finder answers `none`). */
export const idOf = (users: UsersSlice, username: string): number => findUserByUsername(users, username)?.id ?? -1;

/** `by_label`: every label named, or `None` (no label) or `Any` (some label); issues', epics' and merge requests' alike. */
export const labelsMatch = (issue: { readonly labels: readonly string[] }, labels: readonly string[]): boolean => {
  const names = labels.filter((label) => label !== '');
  if (names.length === 0) return true;
  const lower = names.map((label) => label.toLowerCase());
  if (lower.includes('none')) return issue.labels.length === 0;
  if (lower.includes('any')) return issue.labels.length > 0;
  return names.every((label) => issue.labels.includes(label));
};

/** `milestone_title`: blank is no filter, `None` is "without a milestone" (every issue here). */
const milestoneMatches = (milestone: string): boolean => milestone === '' || milestone.toLowerCase() === 'none';

/** The positive filters (`by_author`, `by_assignee`, `by_label`, `by_milestone`, iids). */
const matches = (issue: Issue, filters: NegatableFilters, users: UsersSlice): boolean => {
  if (given(filters.labels) && !labelsMatch(issue, filters.labels)) return false;
  if (given(filters.milestone) && !milestoneMatches(filters.milestone)) return false;
  if (given(filters.iids) && filters.iids.length > 0 && !filters.iids.includes(issue.iid)) return false;
  if (given(filters.author_id) && issue.author_id !== filters.author_id) return false;
  if (given(filters.author_username) && issue.author_id !== idOf(users, filters.author_username)) return false;
  const assignee = filters.assignee_id;
  if (assignee === 'none' && issue.assignee_ids.length > 0) return false;
  if (assignee === 'any' && issue.assignee_ids.length === 0) return false;
  if (typeof assignee === 'number' && !issue.assignee_ids.includes(assignee)) return false;
  if (given(filters.assignee_username) && !filters.assignee_username.every((username) => issue.assignee_ids.includes(idOf(users, username)))) return false;
  return true;
};

/** `not[…]`: leaves out the issues with any of the labels, iids, that author, or any of those assignees. */
const excluded = (issue: Issue, not: NegatableFilters, users: UsersSlice): boolean =>
  (given(not.labels) && not.labels.some((label) => issue.labels.includes(label))) ||
  (given(not.iids) && not.iids.includes(issue.iid)) ||
  (given(not.author_id) && issue.author_id === not.author_id) ||
  (given(not.author_username) && issue.author_id === idOf(users, not.author_username)) ||
  (typeof not.assignee_id === 'number' && issue.assignee_ids.includes(not.assignee_id)) ||
  (given(not.assignee_username) && not.assignee_username.some((username) => issue.assignee_ids.includes(idOf(users, username))));

/**
 * `Issuable.full_search(search, matched_columns: in)`: `fuzzy_search` over the columns `in` names (`title`,
 * `description`, comma-joined; nothing recognised is both), one column's fuzzy match or the other's. Epics search
 * both (`Epic.search`).
 */
export const fullSearchMatches = (row: { readonly title: string; readonly description: string }, search: string, columns?: string | null): boolean => {
  // `IssuableFinder#search` is `params[:search].presence`: a blank search is no filter.
  if (isRubyBlank(search)) return true;
  const wanted = (columns ?? '').split(',');
  const title = wanted.includes('title');
  const description = wanted.includes('description');
  const both = title === description;
  return ((both || title) && fuzzyMatches(row.title, search)) || ((both || description) && fuzzyMatches(row.description, search));
};

const DAY = 86_400_000;
const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
const endOfMonth = (year: number, month: number): string => dayOf(Date.UTC(year, month + 1, 0));

/** `by_due_date`: none (`0`), overdue (before today), this week (Monday to Sunday), this month, or two weeks back to the end of next month. */
const dueDateMatches = (due: string | null, filter: string | null | undefined, today: string): boolean => {
  if (!filter) return true;
  if (filter === '0') return due === null;
  if (due === null) return false;
  const now = Date.parse(`${today}T00:00:00Z`);
  const date = new Date(now);
  const [year, month] = [date.getUTCFullYear(), date.getUTCMonth()];
  switch (filter) {
    case 'overdue':
      return due < today;
    case 'week': {
      const monday = now - ((date.getUTCDay() + 6) % 7) * DAY;
      return due >= dayOf(monday) && due <= dayOf(monday + 6 * DAY);
    }
    case 'month':
      return due >= dayOf(Date.UTC(year, month, 1)) && due <= endOfMonth(year, month);
    default:
      return due >= dayOf(now - 14 * DAY) && due <= endOfMonth(year, month + 1);
  }
};

/** `scope` as the issuable finders read it (hyphens too): `created_by_me` the author's, `assigned_to_me` the assignees', else (`all`) null. */
const scopeRole = (scope: string | null | undefined): OwnerRole | null => {
  const by = scope?.replace(/-/g, '_');
  return by === 'created_by_me' ? 'author' : by === 'assigned_to_me' ? 'assignee' : null;
};

/**
 * The index a user list's scope reads (`GET /issues`, `GET /merge_requests`, `issuesOfUser` / `mergeRequestsOfUser`):
 * `created_by_me` (their default) the author's, `assigned_to_me` the assignee's; null for `all` or an anonymous caller.
 */
export const ownScope = (scope: string | null | undefined, viewer: number | null): OwnerRole | null => (viewer === null ? null : scopeRole(scope));

/**
 * `by_scope` of an issue or merge request list: the viewer's own by `scope` (the rule the indexes keep, `isOwnedBy`),
 * none of them for an anonymous caller; everything for `all`.
 */
export const scopeMatches = (row: Parameters<typeof isOwnedBy>[0], scope: string | null | undefined, viewer: number | null): boolean => {
  const role = scopeRole(scope);
  return role === null || (viewer !== null && isOwnedBy(row, role, viewer));
};

/** The filtered issues in the finder's order: `created_at` or `updated_at`, else by id, newest first. */
export const filterIssues = (issues: readonly Issue[], params: IssueFilters, users: UsersSlice, viewer: number | null, today: string): Issue[] => {
  // The same answer for every row (see `reactionMatches`).
  if (!reactionMatches(params.my_reaction_emoji, viewer)) return [];
  const search = params.search;
  const rows = issues.filter(
    (issue) =>
      (params.state === 'all' || issue.state === params.state) &&
      matches(issue, params, users) &&
      (!given(params.not) || !excluded(issue, params.not, users)) &&
      scopeMatches(issue, params.scope, viewer) &&
      (!search || fullSearchMatches(issue, search, params.in)) &&
      (!given(params.confidential) || issue.confidential === params.confidential) &&
      // Every issue here is of type `issue`.
      (!given(params.issue_type) || params.issue_type === 'issue') &&
      dueDateMatches(issue.due_date ?? null, params.due_date, today) &&
      inTimestampWindow(issue, params),
  );
  if (params.order_by === 'due_date') {
    // `order_due_date_asc|desc.with_order_id_desc`: dates in the asked direction, issues without one last.
    const direction = params.sort === 'asc' ? 1 : -1;
    return rows.sort((a, b) => {
      const [x, y] = [a.due_date ?? null, b.due_date ?? null];
      if (x !== y) return x === null ? 1 : y === null ? -1 : (x < y ? -1 : 1) * direction;
      return b.id - a.id;
    });
  }
  const key = params.order_by === 'updated_at' ? 'updated_at' : params.order_by === 'created_at' ? 'created_at' : null;
  // The other orders (priority, position, popularity) sort on values Forgefold does not keep, all equal here, and
  // break ties by id, newest first (`with_order_id_desc`).
  if (key === null) return rows.sort((a, b) => b.id - a.id);
  return sortByTimestamp(rows, key, params.sort);
};

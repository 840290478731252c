/**
 * The author and assignee indexes issues and merge requests keep alike (user id → the set of their record ids), and
 * the rule they index: whose a record is (`scope=created_by_me` / `assigned_to_me` of the issuable finders).
 */
import { tableGet, tableIds, tableIndexUnder, type Table } from '../../kernel/table.js';

/** Whose a record is: its author's, or each of its assignees'. */
export type OwnerRole = 'author' | 'assignee';

/** What the indexes and the scope filters read of an issue or a merge request. */
interface Owned {
  readonly id: number;
  readonly author_id: number | null;
  readonly assignee_ids: readonly number[];
}

/** The two indexes, as a slice keeps them: user id → record id → 1 (a set). */
export interface OwnerIndexes {
  readonly byAuthor: Table<Table<1>>;
  readonly byAssignee: Table<Table<1>>;
}

/** Whether `record` is `userId`'s as `role`: the rule the indexes hold, for lists filtered without them. */
export const isOwnedBy = (record: Omit<Owned, 'id'>, role: OwnerRole, userId: number): boolean =>
  role === 'author' ? record.author_id === userId : record.assignee_ids.includes(userId);

/** A record's entries in both indexes, made (`listed`) or removed. Called from evolve. */
export const indexOwners = (indexes: OwnerIndexes, record: Owned, listed: boolean): void => {
  if (record.author_id !== null) tableIndexUnder(indexes.byAuthor, [record.author_id], record.id, 1, listed);
  tableIndexUnder(indexes.byAssignee, record.assignee_ids, record.id, 1, listed);
};

/** A record reassigned: off its former assignees' sets, onto the new ones'. Called from evolve. */
export const reindexAssignees = (indexes: OwnerIndexes, id: number, before: readonly number[], after: readonly number[]): void => {
  tableIndexUnder(indexes.byAssignee, before, id, 1, false);
  tableIndexUnder(indexes.byAssignee, after, id, 1, true);
};

/** The ids of the records `userId` holds as `role`, ascending: O(theirs). */
export function* idsOwnedBy(indexes: OwnerIndexes, userId: number, role: OwnerRole): Generator<number> {
  const ids = tableGet(role === 'author' ? indexes.byAuthor : indexes.byAssignee, userId);
  if (ids) yield* tableIds(ids);
}

/** The folding of access requests (their decisions: `decide/access-requests.ts`). */
import { emptyTable, peekField, tableDelete, tableGet, tableKeys, tablePeek, tableSet } from '../../kernel/table.js';
import type { MemberEvent } from './events.js';
import { sourceKey, type AccessRequest, type MembersSlice, type SourceType } from './projection.js';
import type { MembersDraft } from './evolve.js';

/**
 * Whether a source has access requests. Looked up past a batch's draft (`tablePeek`): every membership added asks, almost
 * none had a request, and a lookup through the draft drafted three nodes of this string-keyed table, to find nothing.
 */
export const accessRequested = (members: Pick<MembersSlice, 'accessRequests'>, type: SourceType, sourceId: number): boolean =>
  tablePeek(peekField(members, 'accessRequests'), sourceKey(type, sourceId)) !== undefined;

const drop = (state: MembersDraft, type: SourceType, sourceId: number, userId: number): void => {
  if (!accessRequested(state.members, type, sourceId)) return;
  const table = tableGet(state.members.accessRequests, sourceKey(type, sourceId));
  if (!table) return;
  tableDelete(table, userId);
  if ([...tableKeys(table)].length === 0) tableDelete(state.members.accessRequests, sourceKey(type, sourceId));
};

/** Folds the access-request events; a membership added by any path also ends a pending request (it is granted). */
export const evolveAccessRequest = (state: MembersDraft, event: MemberEvent): void => {
  switch (event.type) {
    case 'AccessRequested': {
      const { source_type, source_id, user_id, at } = event.data;
      const key = sourceKey(source_type, source_id);
      if (!tableGet(state.members.accessRequests, key)) tableSet(state.members.accessRequests, key, emptyTable<AccessRequest>());
      state.members.accessRequestSequence += 1;
      tableSet(tableGet(state.members.accessRequests, key)!, user_id, { source_type, source_id, user_id, requested_at: at, seq: state.members.accessRequestSequence });
      return;
    }
    case 'AccessRequestApproved':
    case 'AccessRequestDenied':
      drop(state, event.data.source_type, event.data.source_id, event.data.user_id);
      return;
    case 'MemberAdded':
      if (event.data.user_id !== null) drop(state, event.data.source_type, event.data.source_id, event.data.user_id);
      return;
    default:
      return;
  }
};

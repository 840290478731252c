/** The epics projection: every group's epics, by id and by the group's iid. */
import { emptyTable, type Table } from '../../kernel/table.js';
import type { MembershipView } from '../members/projection.js';

export interface Epic {
  readonly id: number;
  readonly iid: number;
  readonly group_id: number;
  readonly title: string;
  readonly description: string;
  readonly state: 'opened' | 'closed';
  readonly confidential: boolean;
  readonly labels: readonly string[];
  readonly author_id: number | null;
  readonly created_at: string;
  readonly updated_at: string;
  readonly closed_at: string | null;
  readonly closed_by_id: number | null;
  /** The fixed dates (`start_date`, `due_date_fixed` as `end_date`) and whether each is in force; absent: none, no. */
  readonly start_date_fixed?: string | null;
  readonly start_date_is_fixed?: boolean;
  readonly due_date_fixed?: string | null;
  readonly due_date_is_fixed?: boolean;
}

export interface GroupEpics {
  readonly byIid: Table<number>;
  readonly last_iid: number;
}

export interface EpicsSlice {
  readonly byId: Table<Epic>;
  readonly byGroup: Table<GroupEpics>;
  readonly sequence: number;
}

export type EpicsView = MembershipView & { readonly epics: EpicsSlice };

export const initialEpics = (): EpicsSlice => ({ byId: emptyTable(), byGroup: emptyTable(), sequence: 0 });

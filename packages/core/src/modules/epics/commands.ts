/**
 * EE group epic commands (`Epics::CreateService`, `UpdateService`, `Issuable::DestroyService`), lean: title,
 * description, labels, confidentiality, state, and the fixed dates (`start_date_fixed`, `due_date_fixed`: a date,
 * or null for none; whether each is the one in force).
 */
export interface EpicDates {
  readonly start_date_fixed?: string | null;
  readonly start_date_is_fixed?: boolean;
  readonly due_date_fixed?: string | null;
  readonly due_date_is_fixed?: boolean;
}

export type EpicCommand =
  | ({
      readonly type: 'CreateEpic';
      readonly group_id: number;
      readonly title: string;
      /** Honoured for administrators and the group's owners (`set_epic_created_at`), else ignored. */
      readonly created_at?: string;
      readonly description?: string;
      readonly confidential?: boolean;
      readonly labels?: readonly string[];
    } & EpicDates)
  | ({
      readonly type: 'UpdateEpic';
      readonly group_id: number;
      readonly iid: number;
      /** Honoured for administrators and the group's owners (`set_epic_updated_at`), else ignored. */
      readonly updated_at?: string;
      readonly title?: string;
      readonly description?: string;
      readonly confidential?: boolean;
      readonly labels?: readonly string[];
      readonly state_event?: 'close' | 'reopen';
    } & EpicDates)
  | { readonly type: 'DeleteEpic'; readonly group_id: number; readonly iid: number };

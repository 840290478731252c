/** EE group epic commands (`Epics::CreateService`, `UpdateService`, `Issuable::DestroyService`), lean: title, description, labels, confidentiality, state. */
export type EpicCommand =
  | {
      readonly type: 'CreateEpic';
      readonly group_id: number;
      readonly title: string;
      readonly description?: string;
      readonly confidential?: boolean;
      readonly labels?: readonly string[];
    }
  | {
      readonly type: 'UpdateEpic';
      readonly group_id: number;
      readonly iid: number;
      readonly title?: string;
      readonly description?: string;
      readonly confidential?: boolean;
      readonly labels?: readonly string[];
      readonly state_event?: 'close' | 'reopen';
    }
  | { readonly type: 'DeleteEpic'; readonly group_id: number; readonly iid: number };

/**
 * Issue commands (`Issues::CreateService`, `UpdateService`, `DestroyService`), lean: title, description, labels,
 * confidentiality, state; and the actor's subscription to an issue (`Subscribable#subscribe`, `#unsubscribe`).
 */
export type IssueCommand =
  | {
      readonly type: 'CreateIssue';
      readonly project_id: number;
      readonly title: string;
      readonly description?: string;
      readonly confidential?: boolean;
      readonly labels?: readonly string[];
      readonly assignee_ids?: readonly number[];
      /** `YYYY-MM-DD`. */
      readonly due_date?: string;
      readonly discussion_locked?: boolean;
      /** Honoured for administrators and project owners (`set_issue_created_at`), else ignored. */
      readonly created_at?: string;
      /** The issue's iid; honoured, as `created_at`, for administrators and project owners (`set_issue_iid`). */
      readonly iid?: number;
    }
  | {
      readonly type: 'UpdateIssue';
      readonly project_id: number;
      readonly iid: number;
      /** Honoured for administrators and project owners (`set_issue_updated_at`), else ignored. */
      readonly updated_at?: string;
      readonly title?: string;
      readonly description?: string;
      readonly confidential?: boolean;
      readonly labels?: readonly string[];
      readonly assignee_ids?: readonly number[];
      /** `YYYY-MM-DD`, or null to remove it. */
      readonly due_date?: string | null;
      readonly discussion_locked?: boolean;
      readonly state_event?: 'close' | 'reopen';
    }
  | { readonly type: 'DeleteIssue'; readonly project_id: number; readonly iid: number }
  | { readonly type: 'SetIssueSubscription'; readonly project_id: number; readonly iid: number; readonly subscribed: boolean }
  /** Links the issue (the source) to another (the target) (`IssueLinks::CreateService`). */
  | {
      readonly type: 'CreateIssueLink';
      readonly project_id: number;
      readonly iid: number;
      readonly target_project_id: number;
      readonly target_iid: number;
      readonly link_type?: 'relates_to' | 'blocks';
    }
  | { readonly type: 'DestroyIssueLink'; readonly link_id: number };

import type { Visibility } from '../shared/access.js';

export type GroupCommand =
  | {
      readonly type: 'CreateGroup';
      readonly name: string;
      readonly path: string;
      readonly parent_id?: number | null;
      readonly visibility?: Visibility;
      readonly description?: string;
      readonly request_access_enabled?: boolean;
      /** EE: no new members may be added to the projects of this group. */
      readonly membership_lock?: boolean;
      /** 0–3 (`Gitlab::Access.protection_values`, checked by the route). */
      readonly default_branch_protection?: number;
      /** 0 no one, 1 maintainers, 2 developers and maintainers; absent: the instance's `default_project_creation`. */
      readonly project_creation_level?: number;
      /** 0 owners, 1 maintainers (the default). */
      readonly subgroup_creation_level?: number;
      /** No project of the group (or below) may be shared with a group. */
      readonly share_with_group_lock?: boolean;
    }
  | {
      readonly type: 'UpdateGroup';
      readonly id: number;
      readonly name?: string;
      readonly path?: string;
      readonly visibility?: Visibility;
      readonly description?: string;
      readonly request_access_enabled?: boolean;
      readonly new_user_signups_cap?: number | null;
      readonly membership_lock?: boolean;
      /** null: the instance's level again. */
      readonly default_branch_protection?: number | null;
      readonly project_creation_level?: number;
      readonly subgroup_creation_level?: number;
      readonly share_with_group_lock?: boolean;
    }
  /** `POST /groups/:id/transfer`: under another group (`parent_id`), or to the top (null). */
  | { readonly type: 'TransferGroup'; readonly id: number; readonly parent_id: number | null }
  /** Deletes the group with its subgroups, projects and memberships. */
  | { readonly type: 'DeleteGroup'; readonly id: number };

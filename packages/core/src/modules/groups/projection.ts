/** The groups projection: every group with its full path, parent and children, indexed by full path. */
import { emptyTable, type Table } from '../../kernel/table.js';
import type { Visibility } from '../shared/access.js';

export interface Group {
  readonly id: number;
  readonly name: string;
  readonly path: string;
  /** "parent/child": derived from the ancestors' paths, kept current on renames. */
  readonly full_path: string;
  /** "Parent / Child". */
  readonly full_name: string;
  readonly parent_id: number | null;
  readonly visibility: Visibility;
  readonly description: string;
  readonly created_at: string;
  readonly updated_at: string;
  /** Top-level groups only: the user cap that puts new members in the awaiting state (null = no cap). */
  readonly new_user_signups_cap: number | null;
  readonly request_access_enabled: boolean;
  /** EE membership lock: the group's projects take no new members. */
  readonly membership_lock: boolean;
  /** Who creates projects in the group (0 no one, 1 maintainers, 2 developers and maintainers): the instance's `default_project_creation` when it was created; absent means 2. */
  readonly project_creation_level?: number;
  /** Who creates subgroups (0 owners, 1 maintainers and owners); absent means 1. */
  readonly subgroup_creation_level?: number;
  /** No project of the group may be shared with a group (`share_with_group_lock`); absent means false. */
  readonly share_with_group_lock?: boolean;
  /** How a new default branch of its projects is protected (0–3, as the setting); absent: the instance's. */
  readonly default_branch_protection?: number | null;
  readonly children: readonly number[];
}

export interface GroupsSlice {
  readonly byId: Table<Group>;
  /** Lower-cased full path → group id (the platform's route lookup is case-insensitive). */
  readonly byFullPath: Table<number>;
  readonly count: number;
  /**
   * Ids of the public and of the internal groups (id → 1), kept by evolve: what every caller (public) or every
   * signed-in caller (internal) sees, so that a list need not scan every group to find them.
   */
  readonly publicIds: Table<1>;
  readonly internalIds: Table<1>;
}

export const initialGroups = (): GroupsSlice => ({ byId: emptyTable(), byFullPath: emptyTable(), count: 0, publicIds: emptyTable(), internalIds: emptyTable() });

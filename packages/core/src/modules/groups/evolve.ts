/** The groups module's evolve: the groups projection, full paths kept current on renames. */
import type { Draft } from 'immer';
import { tableDelete, tableGet, tableSet } from '../../kernel/table.js';
import type { Writable } from '../../kernel/module.js';
import { advance, type Sequences } from '../../kernel/sequences.js';
import { placeByVisibility } from '../shared/access.js';
import type { GroupEvent } from './events.js';
import type { Group, GroupsSlice } from './projection.js';

export type GroupsDraft = Writable<{ readonly sequences: Sequences; readonly groups: GroupsSlice }, 'groups' | 'sequences'>;

/** Recomputes full paths and names below a renamed group (the projects module follows for its projects). */
const refreshPaths = (state: GroupsDraft, group: Draft<Group>): void => {
  const parent = group.parent_id === null ? undefined : tableGet(state.groups.byId, group.parent_id);
  const fullPath = parent ? `${parent.full_path}/${group.path}` : group.path;
  const fullName = parent ? `${parent.full_name} / ${group.name}` : group.name;
  if (fullPath !== group.full_path) {
    tableDelete(state.groups.byFullPath, group.full_path.toLowerCase());
    tableSet(state.groups.byFullPath, fullPath.toLowerCase(), group.id);
  }
  group.full_path = fullPath;
  group.full_name = fullName;
  for (const childId of group.children) {
    const child = tableGet(state.groups.byId, childId);
    if (child) refreshPaths(state, child);
  }
};

/**
 * The `children` of every group until it has one: one frozen array, where each group had an `[]` of its own (32 bytes
 * per group creation kept on the heap and marked by the collector; issue 16, branch heapcensus2). Never written into:
 * a first child replaces it (`addChild`).
 */
const NO_CHILDREN: readonly number[] = Object.freeze([]);

/**
 * Appends a child: into the group's own array, or as a new one in place of an empty one (the shared `NO_CHILDREN`, or
 * an empty array a snapshot decoded, which `v8.deserialize` may share between the groups of one node).
 */
const addChild = (group: Draft<Group>, id: number): void => {
  if (group.children.length === 0) group.children = [id];
  else group.children.push(id);
};

export const evolve = (state: GroupsDraft, event: GroupEvent): void => {
  const groups = state.groups;
  switch (event.type) {
    case 'GroupCreated': {
      const data = event.data;
      const parent = data.parent_id === null ? undefined : tableGet(groups.byId, data.parent_id);
      const full_path = parent ? `${parent.full_path}/${data.path}` : data.path;
      const full_name = parent ? `${parent.full_name} / ${data.name}` : data.name;
      // The row field by field, not `{ ...data }` after a rest destructuring: the two copies allocated ~2.7 KB per
      // group creation (measured in-process). The event's fields are the codec's; created_by_id stays out.
      const group: { -readonly [K in keyof Group]: Group[K] } = {
        id: data.id,
        name: data.name,
        path: data.path,
        parent_id: data.parent_id,
        visibility: data.visibility,
        description: data.description,
        request_access_enabled: data.request_access_enabled,
        membership_lock: data.membership_lock ?? false,
        created_at: data.created_at,
        full_path,
        full_name,
        updated_at: data.created_at,
        new_user_signups_cap: null,
        children: NO_CHILDREN,
      };
      if (data.project_creation_level !== undefined) group.project_creation_level = data.project_creation_level;
      if (data.default_branch_protection !== undefined) group.default_branch_protection = data.default_branch_protection;
      if (data.subgroup_creation_level !== undefined) group.subgroup_creation_level = data.subgroup_creation_level;
      if (data.share_with_group_lock !== undefined) group.share_with_group_lock = data.share_with_group_lock;
      tableSet(groups.byId, data.id, group);
      tableSet(groups.byFullPath, full_path.toLowerCase(), data.id);
      if (parent) addChild(parent, data.id);
      placeByVisibility(groups, data.id, null, data.visibility);
      groups.count += 1;
      advance(state, 'namespace', data.id);
      return;
    }
    case 'GroupUpdated': {
      const group = tableGet(groups.byId, event.data.id);
      if (!group) return;
      if (event.data.visibility !== undefined) placeByVisibility(groups, group.id, group.visibility, event.data.visibility);
      Object.assign(group, event.data);
      if (event.data.path !== undefined || event.data.name !== undefined) refreshPaths(state, group);
      return;
    }
    case 'GroupTransferred': {
      const group = tableGet(groups.byId, event.data.id);
      if (!group) return;
      const from = group.parent_id === null ? undefined : tableGet(groups.byId, group.parent_id);
      if (from) from.children = from.children.filter((id) => id !== group.id);
      const to = event.data.parent_id === null ? undefined : tableGet(groups.byId, event.data.parent_id);
      if (to) addChild(to, group.id);
      group.parent_id = event.data.parent_id;
      group.updated_at = event.data.at;
      refreshPaths(state, group);
      return;
    }
    case 'GroupDeleted': {
      const group = tableGet(groups.byId, event.data.id);
      if (!group) return;
      tableDelete(groups.byId, group.id);
      tableDelete(groups.byFullPath, group.full_path.toLowerCase());
      placeByVisibility(groups, group.id, group.visibility, null);
      const parent = group.parent_id === null ? undefined : tableGet(groups.byId, group.parent_id);
      if (parent) parent.children = parent.children.filter((id) => id !== group.id);
      groups.count -= 1;
      return;
    }
  }
};

import { tableGet, tableValues } from '../../kernel/table.js';
import type { SettingsSlice } from '../settings/projection.js';
import { defaultBranchProtection } from '../settings/queries.js';
import type { Group, GroupsSlice } from './projection.js';

export const findGroup = (groups: GroupsSlice, id: number): Group | undefined => tableGet(groups.byId, id);

/** `Namespace#default_branch_protection` of a group: its own level, else the instance's. */
export const groupBranchProtection = (group: Group, settings: SettingsSlice): number => group.default_branch_protection ?? defaultBranchProtection(settings);

export const findGroupByFullPath = (groups: GroupsSlice, fullPath: string): Group | undefined => {
  const id = tableGet(groups.byFullPath, fullPath.toLowerCase());
  return id === undefined ? undefined : findGroup(groups, id);
};

/** `:id` on group routes: digits are an id, anything else a full path. */
export const findGroupByIdOrPath = (groups: GroupsSlice, value: string): Group | undefined =>
  /^\d+$/.test(value) ? findGroup(groups, Number(value)) : findGroupByFullPath(groups, value);

export const findTopLevelNamespaceByPath = (groups: GroupsSlice, path: string): Group | undefined => {
  const group = findGroupByFullPath(groups, path);
  return group && group.parent_id === null ? group : undefined;
};

/** The group itself, then its parent, up to the root. */
export const selfAndAncestors = (groups: GroupsSlice, group: Group): Group[] => {
  const chain: Group[] = [];
  for (let current: Group | undefined = group; current; current = current.parent_id === null ? undefined : findGroup(groups, current.parent_id)) {
    chain.push(current);
  }
  return chain;
};

/** The last of `selfAndAncestors`, walked up to without the chain (every membership's billable root is one). */
export const rootAncestor = (groups: GroupsSlice, group: Group): Group => {
  let root = group;
  while (root.parent_id !== null) {
    const parent = findGroup(groups, root.parent_id);
    if (!parent) break;
    root = parent;
  }
  return root;
};

/** The group and every group below it, parents before children. */
export const selfAndDescendants = (groups: GroupsSlice, group: Group): Group[] => {
  const result: Group[] = [];
  const queue: Group[] = [group];
  while (queue.length > 0) {
    const current = queue.shift()!;
    result.push(current);
    for (const childId of current.children) {
      const child = findGroup(groups, childId);
      if (child) queue.push(child);
    }
  }
  return result;
};

export const listGroups = (groups: GroupsSlice): Generator<Group> => tableValues(groups.byId);

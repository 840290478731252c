/** Reads over the epics projection, and `EpicPolicy` (EE). */
import { tableGet, tableValues } from '../../kernel/table.js';
import { canOnGroup, canReadGroup, type AccessView } from '../access/abilities.js';
import type { Group } from '../groups/projection.js';
import type { Epic, EpicsSlice } from './projection.js';

export const findEpicById = (epics: EpicsSlice, id: number): Epic | undefined => tableGet(epics.byId, id);

export const findEpic = (epics: EpicsSlice, groupId: number, iid: number): Epic | undefined => {
  const group = tableGet(epics.byGroup, groupId);
  const id = group ? tableGet(group.byIid, iid) : undefined;
  return id === undefined ? undefined : tableGet(epics.byId, id);
};

export const epicsOf = (epics: EpicsSlice, groupId: number): Epic[] => {
  const group = tableGet(epics.byGroup, groupId);
  if (!group) return [];
  const out: Epic[] = [];
  for (const id of tableValues(group.byIid)) {
    const epic = tableGet(epics.byId, id);
    if (epic) out.push(epic);
  }
  return out.sort((a, b) => a.iid - b.iid);
};

/** `read_epic`: whoever reads the group; a confidential epic only Reporters and above. */
export const canReadEpic = (state: AccessView, userId: number | null, group: Group, epic: Epic): boolean =>
  canReadGroup(state, userId, group) && (!epic.confidential || canOnGroup(state, userId, 'create_epic', group));

/** `create_epic`, `admin_epic`: Reporters and above. */
export const canCreateEpic = (state: AccessView, userId: number | null, group: Group): boolean => userId !== null && canOnGroup(state, userId, 'create_epic', group);
export const canUpdateEpic = (state: AccessView, userId: number | null, group: Group, epic: Epic): boolean =>
  userId !== null && canReadEpic(state, userId, group, epic) && canOnGroup(state, userId, 'admin_epic', group);

/** `destroy_epic`: the group's owners. */
export const canDestroyEpic = (state: AccessView, userId: number | null, group: Group, epic: Epic): boolean =>
  userId !== null && canReadEpic(state, userId, group, epic) && canOnGroup(state, userId, 'destroy_epic', group);

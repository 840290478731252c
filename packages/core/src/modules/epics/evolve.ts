/** The epics module's evolve; a deleted group takes its epics along. */
import type { Draft } from 'immer';
import { emptyTable, tableDelete, tableGet, tableSet, tableValues } from '../../kernel/table.js';
import type { Writable } from '../../kernel/module.js';
import type { GroupEvent } from '../groups/events.js';
import type { EpicEvent } from './events.js';
import type { Epic, EpicsSlice } from './projection.js';

export type EpicsDraft = Writable<{ readonly epics: EpicsSlice }, 'epics'>;
export type EpicsFollowed = Extract<GroupEvent, { type: 'GroupDeleted' }>;

const epicOf = (state: EpicsDraft, id: number): Draft<Epic> | undefined => tableGet(state.epics.byId, id);

export const evolve = (state: EpicsDraft, event: EpicEvent): void => {
  switch (event.type) {
    case 'EpicCreated': {
      const { created_at, ...data } = event.data;
      tableSet(state.epics.byId, data.id, { ...data, state: 'opened', created_at, updated_at: created_at, closed_at: null, closed_by_id: null });
      if (!tableGet(state.epics.byGroup, data.group_id)) tableSet(state.epics.byGroup, data.group_id, { byIid: emptyTable(), last_iid: 0 });
      const group = tableGet(state.epics.byGroup, data.group_id)!;
      tableSet(group.byIid, data.iid, data.id);
      if (data.iid > group.last_iid) group.last_iid = data.iid;
      if (data.id > state.epics.sequence) state.epics.sequence = data.id;
      return;
    }
    case 'EpicUpdated': {
      const epic = epicOf(state, event.data.id);
      if (!epic) return;
      const { group_id: _g, id: _i, iid: _n, updated_at, updated_by_id: _u, previous_title: _t, ...changes } = event.data;
      Object.assign(epic, changes, { updated_at });
      return;
    }
    case 'EpicClosed': {
      const epic = epicOf(state, event.data.id);
      if (epic) Object.assign(epic, { state: 'closed', closed_at: event.data.at, closed_by_id: event.data.closed_by_id, updated_at: event.data.at });
      return;
    }
    case 'EpicReopened': {
      const epic = epicOf(state, event.data.id);
      if (epic) Object.assign(epic, { state: 'opened', closed_at: null, closed_by_id: null, updated_at: event.data.at });
      return;
    }
    case 'EpicDeleted': {
      // The group's `last_iid` stays: iids are never reused.
      tableDelete(state.epics.byId, event.data.id);
      const group = tableGet(state.epics.byGroup, event.data.group_id);
      if (group) tableDelete(group.byIid, event.data.iid);
      return;
    }
  }
};

export const follows = {
  GroupDeleted: (state: EpicsDraft, event: EpicsFollowed): void => {
    const group = tableGet(state.epics.byGroup, event.data.id);
    if (!group) return;
    for (const id of [...tableValues(group.byIid)]) tableDelete(state.epics.byId, id);
    tableDelete(state.epics.byGroup, event.data.id);
  },
};

/** The groups module: groups and subgroups with their full paths. */
import { defineModule } from '../../kernel/module.js';
import type { GroupCommand } from './commands.js';
import { decide, type GroupsView } from './decider.js';
import { evolve, type GroupsDraft } from './evolve.js';
import { groupEvents } from './events.js';
import { initialGroups, type GroupsSlice } from './projection.js';

export const groupsModule = defineModule<'groups', { readonly groups: GroupsSlice }, GroupsView, GroupsDraft, GroupCommand, typeof groupEvents>({
  name: 'groups',
  // 2: membership lock and transfers; 3: the public and internal id sets; 4: subgroup creation level, share lock.
  version: 4,
  initial: () => ({ groups: initialGroups() }),
  events: groupEvents,
  commands: ['CreateGroup', 'UpdateGroup', 'TransferGroup', 'DeleteGroup'],
  decide,
  evolve,
  // A top-level group's creation writes through the table helpers alone; a subgroup's also appends to its parent's
  // `children` in place, which only immer copies.
  copyOnWrite: { GroupCreated: (_state, event) => event.data.parent_id === null },
});

/**
 * The whole projection state: the kernel's sequences and every module's slices. Only the composition (and the
 * adapters) see it whole; a module reads what its view declares and writes its own slices.
 */
import type { Draft } from 'immer';
import type { Sequences } from './kernel/sequences.js';
import type { UsersSlice } from './modules/users/projection.js';
import type { TokensSlice } from './modules/tokens/projection.js';
import type { GroupsSlice } from './modules/groups/projection.js';
import type { ProjectsSlice } from './modules/projects/projection.js';
import type { MembersSlice } from './modules/members/projection.js';
import type { ScimSlice } from './modules/scim/projection.js';

export type { Sequences } from './kernel/sequences.js';
export { advance } from './kernel/sequences.js';

export interface State {
  readonly sequences: Sequences;
  readonly users: UsersSlice;
  readonly tokens: TokensSlice;
  readonly groups: GroupsSlice;
  readonly projects: ProjectsSlice;
  readonly members: MembersSlice;
  readonly scim: ScimSlice;
}

export type MutableState = Draft<State>;

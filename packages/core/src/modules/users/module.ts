/** The users module: accounts, their state and activity. */
import { defineModule } from '../../kernel/module.js';
import type { UserCommand } from './commands.js';
import { decide, type UsersView } from './decider.js';
import { evolve, type UsersDraft } from './evolve.js';
import { userEvents } from './events.js';
import { initialUsers, type UsersSlice } from './projection.js';

export const usersModule = defineModule<'users', { readonly users: UsersSlice }, UsersView, UsersDraft, UserCommand, typeof userEvents>({
  name: 'users',
  version: 1,
  initial: () => ({ users: initialUsers() }),
  events: userEvents,
  commands: ['CreateUser', 'UpdateUser', 'BlockUser', 'UnblockUser', 'DeleteUser', 'RecordUserActivity'],
  decide,
  evolve,
});

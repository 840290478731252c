/** The users module: accounts, their state and activity. */
import { defineModule } from '../../kernel/module.js';
import type { UserCommand } from './commands.js';
import { decide, type UsersView } from './decider.js';
import { evolve, type UsersDraft } from './evolve.js';
import { userEvents } from './events.js';
import { initialUsers, type UsersSlice } from './projection.js';

export const usersModule = defineModule<'users', { readonly users: UsersSlice }, UsersView, UsersDraft, UserCommand, typeof userEvents>({
  name: 'users',
  // 2: identities and bans. 3: an identity set or removed no longer moves the account's updated_at. 4: sign_in_count; deactivation.
  version: 4,
  initial: () => ({ users: initialUsers() }),
  events: userEvents,
  commands: ['CreateUser', 'UpdateUser', 'DeleteUserIdentity', 'BlockUser', 'UnblockUser', 'BanUser', 'UnbanUser', 'DeactivateUser', 'ActivateUser', 'DeleteUser', 'RecordUserActivity'],
  decide,
  evolve,
});

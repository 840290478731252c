/** The users module's evolve: accounts and their username, e-mail and namespace indexes. */
import { tableDelete, tableGet, tableSet } from '../../kernel/table.js';
import type { Writable } from '../../kernel/module.js';
import { advance, type Sequences } from '../../kernel/sequences.js';
import type { UserEvent } from './events.js';
import type { UsersSlice } from './projection.js';

export type UsersDraft = Writable<{ readonly sequences: Sequences; readonly users: UsersSlice }, 'users' | 'sequences'>;

export const evolve = (state: UsersDraft, event: UserEvent): void => {
  const users = state.users;
  switch (event.type) {
    case 'UserCreated': {
      const data = event.data;
      tableSet(users.byId, data.id, {
        ...data,
        state: 'active',
        updated_at: data.created_at,
        last_activity_on: null,
        current_sign_in_at: null,
        last_sign_in_at: null,
      });
      tableSet(users.byUsername, data.username.toLowerCase(), data.id);
      tableSet(users.byEmail, data.email.toLowerCase(), data.id);
      tableSet(users.byNamespace, data.namespace_id, data.id);
      users.count += 1;
      advance(state, 'user', data.id);
      advance(state, 'namespace', data.namespace_id);
      return;
    }
    case 'UserUpdated': {
      const user = tableGet(users.byId, event.data.id);
      if (!user) return;
      if (event.data.username !== undefined && event.data.username !== user.username) {
        tableDelete(users.byUsername, user.username.toLowerCase());
        tableSet(users.byUsername, event.data.username.toLowerCase(), user.id);
      }
      if (event.data.email !== undefined && event.data.email !== user.email) {
        tableDelete(users.byEmail, user.email.toLowerCase());
        tableSet(users.byEmail, event.data.email.toLowerCase(), user.id);
      }
      Object.assign(user, event.data);
      return;
    }
    case 'UserBlocked':
    case 'UserUnblocked': {
      const user = tableGet(users.byId, event.data.id);
      if (!user) return;
      user.state = event.type === 'UserBlocked' ? 'blocked' : 'active';
      user.updated_at = event.data.at;
      return;
    }
    case 'UserDeleted': {
      const user = tableGet(users.byId, event.data.id);
      if (!user) return;
      tableDelete(users.byId, user.id);
      tableDelete(users.byUsername, user.username.toLowerCase());
      tableDelete(users.byEmail, user.email.toLowerCase());
      tableDelete(users.byNamespace, user.namespace_id);
      users.count -= 1;
      return;
    }
    case 'UserSignedIn': {
      const user = tableGet(users.byId, event.data.id);
      if (!user) return;
      user.last_sign_in_at = user.current_sign_in_at;
      user.current_sign_in_at = event.data.at;
      return;
    }
    case 'UserActivityRecorded': {
      const user = tableGet(users.byId, event.data.id);
      if (user) user.last_activity_on = event.data.day;
      return;
    }
  }
};

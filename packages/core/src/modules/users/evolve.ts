/** The users module's evolve: accounts and their username, e-mail and namespace indexes. */
import { tableDelete, tableGet, tableSet } from '../../kernel/table.js';
import type { Writable } from '../../kernel/module.js';
import { advance, type Sequences } from '../../kernel/sequences.js';
import type { UserEvent } from './events.js';
import { identityKey, type UsersSlice } from './projection.js';

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
        identities: [],
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
    case 'UserIdentitySet': {
      const user = tableGet(users.byId, event.data.id);
      if (!user) return;
      const { provider, extern_uid } = event.data;
      const current = user.identities.find((identity) => identity.provider === provider);
      if (current) tableDelete(users.byIdentity, identityKey(provider, current.extern_uid));
      // A changed extern_uid keeps the identity's place; a new provider comes last.
      user.identities = current ? user.identities.map((identity) => (identity.provider === provider ? { provider, extern_uid } : identity)) : [...user.identities, { provider, extern_uid }];
      tableSet(users.byIdentity, identityKey(provider, extern_uid), user.id);
      // An identity is a row of its own (`Identity belongs_to :user`, no `touch`): the account's updated_at stays.
      return;
    }
    case 'UserIdentityRemoved': {
      const user = tableGet(users.byId, event.data.id);
      const current = user?.identities.find((identity) => identity.provider === event.data.provider);
      if (!user || !current) return;
      tableDelete(users.byIdentity, identityKey(current.provider, current.extern_uid));
      user.identities = user.identities.filter((identity) => identity.provider !== event.data.provider);
      return;
    }
    case 'UserBlocked':
    case 'UserUnblocked':
    case 'UserBanned':
    case 'UserUnbanned':
    case 'UserDeactivated':
    case 'UserActivated': {
      const user = tableGet(users.byId, event.data.id);
      if (!user) return;
      user.state = event.type === 'UserBlocked' ? 'blocked' : event.type === 'UserBanned' ? 'banned' : event.type === 'UserDeactivated' ? 'deactivated' : 'active';
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
      for (const identity of user.identities) tableDelete(users.byIdentity, identityKey(identity.provider, identity.extern_uid));
      users.count -= 1;
      return;
    }
    case 'UserSignedIn': {
      const user = tableGet(users.byId, event.data.id);
      if (!user) return;
      user.last_sign_in_at = user.current_sign_in_at;
      user.current_sign_in_at = event.data.at;
      user.sign_in_count = (user.sign_in_count ?? 0) + 1;
      return;
    }
    case 'UserActivityRecorded': {
      const user = tableGet(users.byId, event.data.id);
      if (user) user.last_activity_on = event.data.day;
      return;
    }
  }
};

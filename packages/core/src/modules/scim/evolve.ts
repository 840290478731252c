/** The SCIM module's evolve: providers, tokens and identities with their indexes; identities end with their user or group. */
import type { Writable } from '../../kernel/module.js';
import { emptyTable, tableDelete, tableGet, tableKeys, tableSet } from '../../kernel/table.js';
import type { GroupEvent } from '../groups/events.js';
import type { UserEvent } from '../users/events.js';
import type { ScimEvent } from './events.js';
import { externUidKey, groupUserKey, userNameKey, type ScimIdentity, type ScimSlice } from './projection.js';

export type ScimDraft = Writable<{ readonly scim: ScimSlice }, 'scim'>;

const indexIdentity = (state: ScimDraft, identity: ScimIdentity): void => {
  const scim = state.scim;
  tableSet(scim.byExternUid, externUidKey(identity.group_id, identity.extern_uid), identity.id);
  tableSet(scim.byUserName, userNameKey(identity.group_id, identity.user_name), identity.id);
  tableSet(scim.byGroupUser, groupUserKey(identity.group_id, identity.user_id), identity.id);
};

const unindexIdentity = (state: ScimDraft, identity: ScimIdentity): void => {
  const scim = state.scim;
  tableDelete(scim.byExternUid, externUidKey(identity.group_id, identity.extern_uid));
  tableDelete(scim.byUserName, userNameKey(identity.group_id, identity.user_name));
  tableDelete(scim.byGroupUser, groupUserKey(identity.group_id, identity.user_id));
};

const removeIdentity = (state: ScimDraft, id: number): void => {
  const scim = state.scim;
  const identity = tableGet(scim.identities, id);
  if (!identity) return;
  unindexIdentity(state, identity);
  tableDelete(scim.identities, id);
  const ofGroup = tableGet(scim.ofGroup, identity.group_id);
  if (ofGroup) tableDelete(ofGroup, id);
  const ofUser = tableGet(scim.ofUser, identity.user_id);
  if (ofUser) tableDelete(ofUser, id);
  tableSet(scim.counts, identity.group_id, (tableGet(scim.counts, identity.group_id) ?? 1) - 1);
};


export const evolve = (state: ScimDraft, event: ScimEvent): void => {
  const scim = state.scim;
  switch (event.type) {
    case 'SamlProviderConfigured': {
      const { at, ...data } = event.data;
      const current = tableGet(scim.providers, data.group_id);
      tableSet(scim.providers, data.group_id, { ...data, created_at: current?.created_at ?? at, updated_at: at });
      if (data.id > scim.lastProviderId) scim.lastProviderId = data.id;
      return;
    }
    case 'ScimTokenRotated':
      tableSet(scim.tokens, event.data.group_id, { group_id: event.data.group_id, token_digest: event.data.token_digest, created_at: event.data.at });
      return;
    case 'ScimIdentityProvisioned': {
      const { at, ...data } = event.data;
      const identity: ScimIdentity = { ...data, created_at: at, updated_at: at };
      tableSet(scim.identities, identity.id, identity);
      indexIdentity(state, identity);
      let ofGroup = tableGet(scim.ofGroup, identity.group_id);
      if (!ofGroup) {
        tableSet(scim.ofGroup, identity.group_id, emptyTable<1>());
        ofGroup = tableGet(scim.ofGroup, identity.group_id)!;
      }
      tableSet(ofGroup, identity.id, 1);
      let ofUser = tableGet(scim.ofUser, identity.user_id);
      if (!ofUser) {
        tableSet(scim.ofUser, identity.user_id, emptyTable<number>());
        ofUser = tableGet(scim.ofUser, identity.user_id)!;
      }
      tableSet(ofUser, identity.id, identity.group_id);
      tableSet(scim.counts, identity.group_id, (tableGet(scim.counts, identity.group_id) ?? 0) + 1);
      if (identity.id > scim.lastIdentityId) scim.lastIdentityId = identity.id;
      return;
    }
    case 'ScimIdentityUpdated': {
      const identity = tableGet(scim.identities, event.data.id);
      if (!identity) return;
      unindexIdentity(state, identity);
      const { at, changed: _changed, id: _id, group_id: _group, user_id: _user, ...changes } = event.data;
      Object.assign(identity, changes, { updated_at: at });
      indexIdentity(state, identity);
      return;
    }
    case 'ScimIdentityDeprovisioned':
    case 'ScimIdentityReprovisioned': {
      const identity = tableGet(scim.identities, event.data.id);
      if (!identity) return;
      identity.active = event.type === 'ScimIdentityReprovisioned';
      identity.updated_at = event.data.at;
      return;
    }
    case 'ScimIdentityDeleted':
      removeIdentity(state, event.data.id);
      return;
  }
};

/** Events of other modules that end identities: a deleted user or group takes its identities along. */
export type ScimFollowed = Extract<UserEvent, { type: 'UserDeleted' }> | Extract<GroupEvent, { type: 'GroupDeleted' }>;

export const follows = {
  UserDeleted: (state: ScimDraft, event: Extract<UserEvent, { type: 'UserDeleted' }>): void => {
    const scim = state.scim;
    const ofUser = tableGet(scim.ofUser, event.data.id);
    if (!ofUser) return;
    for (const key of tableKeys(ofUser)) removeIdentity(state, Number(key));
    tableDelete(scim.ofUser, event.data.id);
  },
  GroupDeleted: (state: ScimDraft, event: Extract<GroupEvent, { type: 'GroupDeleted' }>): void => {
    const scim = state.scim;
    const groupId = event.data.id;
    const ofGroup = tableGet(scim.ofGroup, groupId);
    if (ofGroup) for (const key of tableKeys(ofGroup)) removeIdentity(state, Number(key));
    tableDelete(scim.ofGroup, groupId);
    tableDelete(scim.providers, groupId);
    tableDelete(scim.tokens, groupId);
  },
};

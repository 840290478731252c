/**
 * The members module's evolve: memberships, invitations, shares and LDAP links, with their indexes and read
 * models (see indexes.ts), and the events of other modules it follows to keep them current.
 */
import { tableDelete, tableGet, tableIndexUnder, tableSet, tableSetIn, type Table } from '../../kernel/table.js';
import type { Writable } from '../../kernel/module.js';
import { advance, type Sequences } from '../../kernel/sequences.js';
import type { GroupEvent } from '../groups/events.js';
import type { ProjectEvent } from '../projects/events.js';
import type { UserEvent } from '../users/events.js';
import type { MemberEvent } from './events.js';
import { changeMember, contribute, contributeLink, onGroupCreated, onGroupDeleted, onGroupMoved, onProjectMoved, onUserBlockedChanging } from './indexes.js';
import { ldapLinkKey, sourceIndex, sourceKey, sourceUserKey, type GroupLink, type Member, type MembershipView, type SourceType } from './projection.js';
import { findLink, linksOfSource } from './queries.js';
import { findProject } from '../projects/queries.js';
import type { Visibility } from '../shared/access.js';
import { evolveAccessRequest } from './access-requests.js';

/** Members write their own slice and the member sequence; they read accounts and namespaces. */
export type MembersDraft = Writable<MembershipView & { readonly sequences: Sequences }, 'members' | 'sequences'>;

type MutableMember = { -readonly [K in keyof Member]: Member[K] };

const removeFromIndex = (tables: Table<Table<unknown>>, key: number | string, id: number | string): void => {
  const table = tableGet(tables, key);
  if (table) tableDelete(table, id);
};

const unindexMember = (state: MembersDraft, member: Member): void => {
  const members = state.members;
  contribute(state, member, -1);
  tableDelete(members.byId, member.id);
  tableDelete(members.expiring, member.id);
  removeFromIndex(members.bySource, sourceIndex(member.source_type, member.source_id), member.id);
  if (member.user_id !== null) {
    if (member.source_type === 'Namespace') removeFromIndex(members.byGroupUser, member.source_id, member.user_id);
    else tableDelete(members.bySourceUser, sourceUserKey(member.source_type, member.source_id, member.user_id));
    removeFromIndex(members.byUser, member.user_id, member.id);
  }
  if (member.invite_email !== null) removeFromIndex(members.byInviteEmail, member.invite_email.toLowerCase(), member.id);
  if (member.user_id === null) countInvite(state, member, -1);
};

const countInvite = (state: MembersDraft, member: { source_type: SourceType; source_id: number }, delta: number): void => {
  const key = sourceKey(member.source_type, member.source_id);
  tableSet(state.members.invitesBySource, key, (tableGet(state.members.invitesBySource, key) ?? 0) + delta);
};

/**
 * Lists a project in its invited group's set for its visibility (`sharedPublicByGroup`, `sharedInternalByGroup`,
 * `sharedPrivateByGroup`), or takes it off all three (`visibility` null: the share ended, the project went).
 */
const placeSharedProject = (members: MembersDraft['members'], projectId: number, groupId: number, visibility: Visibility | null): void => {
  tableIndexUnder(members.sharedPublicByGroup, [groupId], projectId, 1, visibility === 'public');
  tableIndexUnder(members.sharedInternalByGroup, [groupId], projectId, 1, visibility === 'internal');
  tableIndexUnder(members.sharedPrivateByGroup, [groupId], projectId, 1, visibility === 'private');
};

/** A project's visibility (null: deleted) moves it between the sets of every group it is shared with. */
const replaceSharedProject = (state: MembersDraft, projectId: number, visibility: Visibility | null): void => {
  for (const link of linksOfSource(state.members, 'Project', projectId)) placeSharedProject(state.members, projectId, link.group_id, visibility);
};

export const evolve = (state: MembersDraft, event: MemberEvent): void => {
  const members = state.members;
  evolveAccessRequest(state, event);
  switch (event.type) {
    case 'MemberAdded': {
      const data = event.data;
      // Field by field rather than `{ ...data, … }`: the spread allocated ~1.3 KB per membership (measured in-process).
      const member: Member = {
        id: data.id,
        source_type: data.source_type,
        source_id: data.source_id,
        user_id: data.user_id,
        invite_email: data.invite_email,
        access_level: data.access_level,
        expires_at: data.expires_at,
        state: data.state,
        ldap: data.ldap,
        created_at: data.created_at,
        created_by_id: data.created_by_id,
        override: false,
        updated_at: data.created_at,
        invite_accepted_at: null,
      };
      tableSet(members.byId, data.id, member);
      const index = sourceIndex(data.source_type, data.source_id);
      tableSetIn(members.bySource, index, data.id, data.user_id ?? 0);
      if (data.user_id !== null) {
        // Groups are indexed by integers (byGroupUser); the string-keyed index serves projects.
        if (data.source_type === 'Namespace') tableSetIn(members.byGroupUser, data.source_id, data.user_id, data.id);
        else tableSet(members.bySourceUser, sourceUserKey(data.source_type, data.source_id, data.user_id), data.id);
        tableSetIn(members.byUser, data.user_id, data.id, index);
      } else {
        if (data.invite_email !== null) tableSetIn(members.byInviteEmail, data.invite_email.toLowerCase(), data.id, sourceKey(data.source_type, data.source_id));
        countInvite(state, data, 1);
      }
      if (data.expires_at !== null) tableSet(members.expiring, data.id, data.expires_at);
      contribute(state, tableGet(members.byId, data.id)!, 1);
      advance(state, 'member', data.id);
      return;
    }
    case 'MemberAccessLevelChanged': {
      const member = tableGet(members.byId, event.data.id);
      if (!member) return;
      changeMember(state, member, (m) => {
        m.access_level = event.data.to;
        m.updated_at = event.data.at;
      });
      return;
    }
    case 'MemberExpirySet': {
      const member = tableGet(members.byId, event.data.id) as MutableMember | undefined;
      if (!member) return;
      member.expires_at = event.data.expires_at;
      member.updated_at = event.data.at;
      if (event.data.expires_at === null) tableDelete(members.expiring, member.id);
      else tableSet(members.expiring, member.id, event.data.expires_at);
      return;
    }
    case 'MemberApproved': {
      const member = tableGet(members.byId, event.data.id);
      if (!member) return;
      changeMember(state, member, (m) => {
        m.state = 'active';
        m.updated_at = event.data.at;
      });
      return;
    }
    case 'MemberOverrideSet': {
      const member = tableGet(members.byId, event.data.id) as MutableMember | undefined;
      if (!member) return;
      member.override = event.data.override;
      member.updated_at = event.data.at;
      return;
    }
    case 'MemberInvitationAccepted': {
      const member = tableGet(members.byId, event.data.id);
      if (!member || member.user_id !== null) return;
      removeFromIndex(members.byInviteEmail, event.data.invite_email.toLowerCase(), member.id);
      countInvite(state, member, -1);
      changeMember(state, member, (m) => {
        m.user_id = event.data.user_id;
        m.invite_accepted_at = event.data.at;
        m.updated_at = event.data.at;
      });
      const index = sourceIndex(member.source_type, member.source_id);
      tableSetIn(members.bySource, index, member.id, event.data.user_id);
      if (member.source_type === 'Namespace') tableSetIn(members.byGroupUser, member.source_id, event.data.user_id, member.id);
      else tableSet(members.bySourceUser, sourceUserKey(member.source_type, member.source_id, event.data.user_id), member.id);
      tableSetIn(members.byUser, event.data.user_id, member.id, index);
      return;
    }
    case 'MemberRemoved':
    case 'MemberExpired': {
      const member = tableGet(members.byId, event.data.id);
      if (member) unindexMember(state, member);
      return;
    }
    case 'GroupLinkCreated': {
      const data = event.data;
      const link: GroupLink = { id: data.id, source_type: data.source_type, source_id: data.source_id, group_id: data.group_id, group_access: data.group_access, expires_at: data.expires_at, created_at: data.created_at, created_by_id: data.created_by_id };
      tableSet(members.links, link.id, link);
      tableSetIn(members.linksBySource, sourceKey(link.source_type, link.source_id), link.group_id, link.id);
      tableSetIn(members.linksByGroup, link.group_id, link.id, link.id);
      if (link.id > members.linkSequence) members.linkSequence = link.id;
      if (link.source_type === 'Project') placeSharedProject(members, link.source_id, link.group_id, findProject(state.projects, link.source_id)?.visibility ?? null);
      contributeLink(state, tableGet(members.links, link.id)!, 1);
      return;
    }
    case 'GroupLinkRemoved':
    case 'GroupLinkExpired': {
      const link = findLink(members, event.data.id);
      if (!link) return;
      contributeLink(state, link, -1);
      if (link.source_type === 'Project') placeSharedProject(members, link.source_id, link.group_id, null);
      tableDelete(members.links, link.id);
      removeFromIndex(members.linksBySource, sourceKey(link.source_type, link.source_id), link.group_id);
      removeFromIndex(members.linksByGroup, link.group_id, link.id);
      return;
    }
    case 'LdapGroupLinkAdded': {
      const { at: _at, ...link } = event.data;
      members.ldapLinkSequence += 1;
      tableSetIn(members.ldapLinks, link.group_id, ldapLinkKey(link), { ...link, seq: members.ldapLinkSequence });
      return;
    }
    case 'LdapGroupLinkRemoved': {
      removeFromIndex(members.ldapLinks, event.data.group_id, ldapLinkKey(event.data));
      return;
    }
  }
};

/** Other modules' events the members read models follow. */
export type MembersFollowed =
  | Extract<GroupEvent, { type: 'GroupCreated' | 'GroupDeleted' | 'GroupTransferred' }>
  | Extract<ProjectEvent, { type: 'ProjectTransferred' | 'ProjectUpdated' | 'ProjectDeleted' }>
  | Extract<UserEvent, { type: 'UserBlocked' | 'UserUnblocked' | 'UserBanned' | 'UserUnbanned' | 'UserDeactivated' | 'UserActivated' | 'UserDeleted' }>;

export const follows = {
  /** A subgroup starts with the effective members of its ancestors. */
  GroupCreated: (state: MembersDraft, event: Extract<GroupEvent, { type: 'GroupCreated' }>) => onGroupCreated(state, event.data.id),
  GroupDeleted: (state: MembersDraft, event: Extract<GroupEvent, { type: 'GroupDeleted' }>) => onGroupDeleted(state, event.data.id),
  /** A transfer recomputes the read models of the hierarchies it leaves and joins. */
  GroupTransferred: (state: MembersDraft, event: Extract<GroupEvent, { type: 'GroupTransferred' }>) => onGroupMoved(state, event.data.id, event.data.from_parent_id),
  ProjectTransferred: (state: MembersDraft, event: Extract<ProjectEvent, { type: 'ProjectTransferred' }>) => onProjectMoved(state, event.data.id, event.data.from_namespace_id),
  /** A shared project's new visibility moves it between its invited groups' sets (`sharedPublicByGroup`, …). */
  ProjectUpdated: (state: MembersDraft, event: Extract<ProjectEvent, { type: 'ProjectUpdated' }>) => {
    if (event.data.visibility !== undefined) replaceSharedProject(state, event.data.id, event.data.visibility);
  },
  /** A deleted project leaves those sets (its shares end before it, so this finds none unless an older log kept one). */
  ProjectDeleted: (state: MembersDraft, event: Extract<ProjectEvent, { type: 'ProjectDeleted' }>) => replaceSharedProject(state, event.data.id, null),
  /** Blocked users stop being billable. */
  UserBlocked: (state: MembersDraft, event: Extract<UserEvent, { type: 'UserBlocked' }>) => onUserBlockedChanging(state, event.data.id, true),
  UserUnblocked: (state: MembersDraft, event: Extract<UserEvent, { type: 'UserUnblocked' }>) => onUserBlockedChanging(state, event.data.id, false),
  /** A banned user is `blocked?` too; unbanning lifts it. */
  UserBanned: (state: MembersDraft, event: Extract<UserEvent, { type: 'UserBanned' }>) => onUserBlockedChanging(state, event.data.id, true),
  UserUnbanned: (state: MembersDraft, event: Extract<UserEvent, { type: 'UserUnbanned' }>) => onUserBlockedChanging(state, event.data.id, false),
  /** A deactivated user is not billable either (`User.billable` takes `active` users); activating restores it. */
  UserDeactivated: (state: MembersDraft, event: Extract<UserEvent, { type: 'UserDeactivated' }>) => onUserBlockedChanging(state, event.data.id, true),
  UserActivated: (state: MembersDraft, event: Extract<UserEvent, { type: 'UserActivated' }>) => onUserBlockedChanging(state, event.data.id, false),
  UserDeleted: (state: MembersDraft, event: Extract<UserEvent, { type: 'UserDeleted' }>) => tableDelete(state.members.blockedUsers, event.data.id),
};

/**
 * Incremental maintenance of the membership read models, called from evolve (live and replay alike):
 * - `effective[group]`: the users listed by `GET /groups/:id/members/all` (direct members of the group and its
 *   ancestors, and direct members of groups shared into it), each with the number of memberships behind it;
 * - `billable[root]`: the users who count as billable in a top-level group's hierarchy (reference §2.10 item 98).
 * Each membership contributes +1 to the entries it justifies and −1 when it stops doing so, so every change costs
 * time proportional to the groups it touches, never to the number of members.
 */
import { emptyTable, tableDelete, tableGet, tableGetOrCreate, tableSet, tableSetIn, type Table, tableKeys } from '../../kernel/table.js';
import type { MembersDraft } from './evolve.js';
import type { Group } from '../groups/projection.js';
import { findGroup, rootAncestor, selfAndAncestors, selfAndDescendants } from '../groups/queries.js';
import { findProject } from '../projects/queries.js';
import { findUser } from '../users/queries.js';
import { sourceIndex, sourceKey, type GroupLink, type Member, type MembershipView } from './projection.js';

type Counts = Table<Table<number>>;

const bump = (tables: Counts, totals: Table<number>, key: number, userId: number, delta: number): void => {
  const current = tableGet(tables, key);
  const before = (current === undefined ? undefined : tableGet(current, userId)) ?? 0;
  const after = before + delta;
  // A count's first user makes its table with its entry (`tableSetIn`): `onGroupCreated` stored it empty.
  if (after > 0) tableSetIn(tables, key, userId, after);
  else tableDelete(tableGetOrCreate(tables, key, emptyTable<number>), userId);
  const change = (after > 0 ? 1 : 0) - (before > 0 ? 1 : 0);
  if (change !== 0) tableSet(totals, key, (tableGet(totals, key) ?? 0) + change);
};

/** Minimal access (5) and pending invitations are never listed as effective members. */
const listsEffectively = (member: Member): boolean => member.user_id !== null && member.access_level >= 10;

/** Billable: an active, non-minimal membership of an active (unblocked) human user (reference item 98; awaiting excluded). */
const countsAsBillable = (state: MembersDraft, member: Member): boolean => {
  if (member.user_id === null || member.state !== 'active' || member.access_level < 10) return false;
  const user = findUser(state.users, member.user_id);
  return user !== undefined && tableGet(state.members.blockedUsers, user.id) === undefined && user.bot === null;
};

/** The top-level group a source belongs to (null for personal projects). */
export const rootOfSource = (state: MembershipView, type: 'Namespace' | 'Project', id: number): Group | null => {
  if (type === 'Namespace') {
    const group = findGroup(state.groups, id);
    return group ? rootAncestor(state.groups, group) : null;
  }
  const project = findProject(state.projects, id);
  if (!project || project.namespace_kind !== 'group') return null;
  const group = findGroup(state.groups, project.namespace_id);
  return group ? rootAncestor(state.groups, group) : null;
};

export function* linksInto(state: MembershipView, groupId: number): Generator<GroupLink> {
  const ids = tableGet(state.members.linksByGroup, groupId);
  if (!ids) return;
  for (const id of tableKeys(ids)) {
      const link = tableGet(state.members.links, Number(id));
      if (link) yield link;
    }
}

const contributeEffective = (state: MembersDraft, member: Member, delta: number): void => {
  if (!listsEffectively(member) || member.source_type !== 'Namespace') return;
  const members = state.members;
  const group = findGroup(state.groups, member.source_id);
  if (!group) return;
  // A group without subgroups (every new one) is its own only target: no list of descendants built.
  if (group.children.length === 0) bump(members.effective, members.effectiveCount, group.id, member.user_id!, delta);
  else for (const target of selfAndDescendants(state.groups, group)) bump(members.effective, members.effectiveCount, target.id, member.user_id!, delta);
  if (tableGet(members.linksByGroup, group.id) === undefined) return;
  for (const link of linksInto(state, group.id)) {
    if (link.source_type === 'Namespace') bump(members.effective, members.effectiveCount, link.source_id, member.user_id!, delta);
  }
};

const contributeBillable = (state: MembersDraft, member: Member, delta: number): void => {
  if (!countsAsBillable(state, member)) return;
  const members = state.members;
  const root = rootOfSource(state, member.source_type, member.source_id);
  // No group shared into this one (the usual case): its own root only, without a set of roots.
  if (member.source_type !== 'Namespace' || tableGet(members.linksByGroup, member.source_id) === undefined) {
    if (root) bump(members.billable, members.billableCount, root.id, member.user_id!, delta);
    return;
  }
  const roots = new Set<number>();
  if (root) roots.add(root.id);
  if (member.source_type === 'Namespace') {
    for (const link of linksInto(state, member.source_id)) {
      const linkedRoot = rootOfSource(state, link.source_type, link.source_id);
      if (linkedRoot) roots.add(linkedRoot.id);
    }
  }
  // A user counts once per root however many memberships justify it; each membership adds one per distinct root.
  for (const id of roots) bump(members.billable, members.billableCount, id, member.user_id!, delta);
};

export const contribute = (state: MembersDraft, member: Member, delta: 1 | -1): void => {
  contributeEffective(state, member, delta);
  contributeBillable(state, member, delta);
};

/** Runs `change` on a membership, moving its contributions from the old to the new version of the row. */
export const changeMember = (state: MembersDraft, member: Member, change: (member: { -readonly [K in keyof Member]: Member[K] }) => void): void => {
  contribute(state, member, -1);
  change(member as { -readonly [K in keyof Member]: Member[K] });
  contribute(state, member, 1);
};

function* directMembersOf(state: MembersDraft, groupId: number): Generator<Member> {
  const ids = tableGet(state.members.bySource, sourceIndex('Namespace', groupId));
  if (!ids) return;
  for (const id of tableKeys(ids)) {
      const member = tableGet(state.members.byId, Number(id));
      if (member) yield member;
    }
}

/** A share starts or stops: the invited group's members start or stop counting for the shared side. */
export const contributeLink = (state: MembersDraft, link: GroupLink, delta: 1 | -1): void => {
  const members = state.members;
  const root = rootOfSource(state, link.source_type, link.source_id);
  for (const member of directMembersOf(state, link.group_id)) {
    if (link.source_type === 'Namespace' && listsEffectively(member)) bump(members.effective, members.effectiveCount, link.source_id, member.user_id!, delta);
    if (root && countsAsBillable(state, member)) {
      // Only when no other path already brings this membership to that root (own root, or another link).
      const ownRoot = rootOfSource(state, 'Namespace', member.source_id);
      const otherLinks = [...linksInto(state, link.group_id)].filter((other) => other.id !== link.id && rootOfSource(state, other.source_type, other.source_id)?.id === root.id);
      if (ownRoot?.id !== root.id && otherLinks.length === 0) bump(members.billable, members.billableCount, root.id, member.user_id!, delta);
    }
  }
};

/** A subgroup starts with the effective members of its ancestors (called after GroupCreated). */
export const onGroupCreated = (state: MembersDraft, groupId: number): void => {
  const group = findGroup(state.groups, groupId);
  if (!group) return;
  const members = state.members;
  tableSet(members.effective, group.id, emptyTable<number>());
  tableSet(members.effectiveCount, group.id, 0);
  // A top-level group (most new ones) has no ancestors: no chain of them built and copied.
  if (group.parent_id === null) return;
  for (const ancestor of selfAndAncestors(state.groups, group).slice(1)) {
    for (const member of directMembersOf(state, ancestor.id)) {
      if (listsEffectively(member)) bump(members.effective, members.effectiveCount, group.id, member.user_id!, 1);
    }
  }
};

/** Called before a group is removed from the groups projection. */
export const onGroupDeleted = (state: MembersDraft, groupId: number): void => {
  const members = state.members;
  tableDelete(members.effective, groupId);
  tableDelete(members.effectiveCount, groupId);
  tableDelete(members.billable, groupId);
  tableDelete(members.billableCount, groupId);
  tableDelete(members.ldapLinks, groupId);
};

/** Blocking or unblocking a user changes whether their memberships are billable (after `UserBlocked`/`UserUnblocked`). */
export const onUserBlockedChanging = (state: MembersDraft, userId: number, blocked: boolean): void => {
  if (!findUser(state.users, userId)) return;
  if ((tableGet(state.members.blockedUsers, userId) !== undefined) === blocked) return;
  const ids = tableGet(state.members.byUser, userId);
  const memberships: Member[] = [];
  if (ids) for (const id of tableKeys(ids)) {
    const member = tableGet(state.members.byId, Number(id));
    if (member) memberships.push(member);
  }
  for (const member of memberships) contributeBillable(state, member, -1);
  if (blocked) tableSet(state.members.blockedUsers, userId, 1);
  else tableDelete(state.members.blockedUsers, userId);
  for (const member of memberships) contributeBillable(state, member, 1);
};

// ---------------------------------------------------------------------------------------------------------------
// Moves (group and project transfers): the read models of the hierarchies involved are recomputed from their
// definition, with the same counts the incremental maintenance keeps (a transfer is rare; a delta would have to
// untangle every membership, share and ancestor the move touches).

/** Billable roots of one membership: its own root and, for a group membership, the roots of sources its group is shared into. */
const billableRootsOf = (state: MembersDraft, member: Member): Set<number> => {
  const roots = new Set<number>();
  const own = rootOfSource(state, member.source_type, member.source_id);
  if (own) roots.add(own.id);
  if (member.source_type === 'Namespace') {
    for (const link of linksInto(state, member.source_id)) {
      const root = rootOfSource(state, link.source_type, link.source_id);
      if (root) roots.add(root.id);
    }
  }
  return roots;
};

function* membershipsOf(state: MembersDraft, type: 'Namespace' | 'Project', id: number): Generator<Member> {
  const ids = tableGet(state.members.bySource, sourceIndex(type, id));
  if (!ids) return;
  for (const memberId of tableKeys(ids)) {
    const member = tableGet(state.members.byId, Number(memberId));
    if (member) yield member;
  }
}

/** Recomputes `billable[root]`: every billable membership counted once for each of its roots that is this one. */
const rebuildBillable = (state: MembersDraft, rootId: number): void => {
  const root = findGroup(state.groups, rootId);
  const members = state.members;
  tableDelete(members.billable, rootId);
  tableDelete(members.billableCount, rootId);
  if (!root || root.parent_id !== null) return;
  tableSet(members.billable, rootId, emptyTable<number>());
  tableSet(members.billableCount, rootId, 0);
  const seen = new Set<number>();
  const consider = (member: Member) => {
    if (seen.has(member.id)) return;
    seen.add(member.id);
    if (countsAsBillable(state, member) && billableRootsOf(state, member).has(rootId)) bump(members.billable, members.billableCount, rootId, member.user_id!, 1);
  };
  for (const group of selfAndDescendants(state.groups, root)) {
    const sources: { type: 'Namespace' | 'Project'; id: number }[] = [{ type: 'Namespace', id: group.id }];
    const projects = tableGet(state.projects.byNamespace, group.id);
    if (projects) for (const id of tableKeys(projects)) sources.push({ type: 'Project', id: Number(id) });
    for (const source of sources) {
      for (const member of membershipsOf(state, source.type, source.id)) consider(member);
      // Members of groups shared into this source count here too.
      const links = tableGet(members.linksBySource, sourceKey(source.type, source.id));
      if (links) for (const invitedId of tableKeys(links)) for (const member of membershipsOf(state, 'Namespace', Number(invitedId))) consider(member);
    }
  }
};

/** Recomputes `effective[group]`: memberships of the group and its ancestors, and of groups shared into it. */
const rebuildEffective = (state: MembersDraft, groupId: number): void => {
  const group = findGroup(state.groups, groupId);
  const members = state.members;
  tableSet(members.effective, groupId, emptyTable<number>());
  tableSet(members.effectiveCount, groupId, 0);
  if (!group) return;
  for (const ancestor of selfAndAncestors(state.groups, group)) {
    for (const member of membershipsOf(state, 'Namespace', ancestor.id)) if (listsEffectively(member)) bump(members.effective, members.effectiveCount, groupId, member.user_id!, 1);
  }
  const links = tableGet(members.linksBySource, sourceKey('Namespace', groupId));
  if (links) {
    for (const invitedId of tableKeys(links)) {
      for (const member of membershipsOf(state, 'Namespace', Number(invitedId))) if (listsEffectively(member)) bump(members.effective, members.effectiveCount, groupId, member.user_id!, 1);
    }
  }
};

/** A group (with its subtree) moved under another parent or to the top: follows `GroupTransferred`. */
export const onGroupMoved = (state: MembersDraft, groupId: number, fromParentId: number | null): void => {
  const group = findGroup(state.groups, groupId);
  if (!group) return;
  const fromParent = fromParentId === null ? undefined : findGroup(state.groups, fromParentId);
  // A group that was at the top was its own root.
  const oldRoot = fromParent ? rootAncestor(state.groups, fromParent).id : groupId;
  for (const target of selfAndDescendants(state.groups, group)) rebuildEffective(state, target.id);
  const newRoot = rootAncestor(state.groups, group).id;
  // A group promoted to the top becomes a root of its own: its old root loses the subtree.
  rebuildBillable(state, oldRoot);
  if (newRoot !== oldRoot) rebuildBillable(state, newRoot);
};

/** A project moved to another namespace: follows `ProjectTransferred`. */
export const onProjectMoved = (state: MembersDraft, projectId: number, fromNamespaceId: number): void => {
  const fromGroup = findGroup(state.groups, fromNamespaceId);
  const oldRoot = fromGroup ? rootAncestor(state.groups, fromGroup).id : null;
  const newRoot = rootOfSource(state, 'Project', projectId)?.id ?? null;
  if (oldRoot !== null) rebuildBillable(state, oldRoot);
  if (newRoot !== null && newRoot !== oldRoot) rebuildBillable(state, newRoot);
};

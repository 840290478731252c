import { emptyTable, tableGet, tableIds, tableValues, tableKeys, tableIdsFrom, tableSize, type Table } from '../../kernel/table.js';
import type { Group } from '../groups/projection.js';
import { findGroup, selfAndAncestors, selfAndDescendants } from '../groups/queries.js';
import type { Project } from '../projects/projection.js';
import { findProject, projectsInNamespace } from '../projects/queries.js';
import { findUser, isProjectBot } from '../users/queries.js';
import type { Visibility } from '../shared/access.js';
import { sourceIndex, sourceKey, sourceUserKey, type AccessRequest, type GroupLink, type LdapLink, type Member, type MembershipView, type MembersSlice, type SourceType } from './projection.js';

export const findMember = (members: MembersSlice, id: number): Member | undefined => tableGet(members.byId, id);

/** The direct membership of a user in a source, whatever its state. */
export const directMembership = (members: MembersSlice, type: SourceType, sourceId: number, userId: number): Member | undefined => {
  if (type === 'Namespace') {
    const ofGroup = tableGet(members.byGroupUser, sourceId);
    const memberId = ofGroup ? tableGet(ofGroup, userId) : undefined;
    return memberId === undefined ? undefined : findMember(members, memberId);
  }
  const id = tableGet(members.bySourceUser, sourceUserKey(type, sourceId, userId));
  return id === undefined ? undefined : findMember(members, id);
};

/** Direct memberships of a source in member-id order (invitations included). */
export function* membersOfSource(members: MembersSlice, type: SourceType, sourceId: number): Generator<Member> {
  const ids = tableGet(members.bySource, sourceIndex(type, sourceId));
  if (!ids) return;
  for (const memberId of tableKeys(ids)) {
      const member = findMember(members, Number(memberId));
      if (member) yield member;
    }
}

/** Number of direct memberships of a source that belong to an account (pending invitations excluded). */
export const directMemberCount = (members: MembersSlice, type: SourceType, sourceId: number): number => {
  const ids = tableGet(members.bySource, sourceIndex(type, sourceId));
  return (ids ? tableSize(ids) : 0) - (tableGet(members.invitesBySource, sourceKey(type, sourceId)) ?? 0);
};

/** Direct memberships of a source from the `offset`-th account-bound one on, in member-id order (whole shards skipped). */
export function* membersOfSourceFrom(members: MembersSlice, type: SourceType, sourceId: number, offset: number): Generator<Member> {
  const ids = tableGet(members.bySource, sourceIndex(type, sourceId));
  if (!ids) return;
  const invites = tableGet(members.invitesBySource, sourceKey(type, sourceId)) ?? 0;
  if (invites === 0) {
    // No invitation can hide among the rows: skip whole leaves.
    for (const id of tableIdsFrom(ids, offset)) {
      const member = findMember(members, id);
      if (member) yield member;
    }
    return;
  }
  let skip = offset;
  for (const key of tableKeys(ids)) {
    const member = findMember(members, Number(key));
    if (!member || member.user_id === null) continue;
    if (skip > 0) {
      skip--;
      continue;
    }
    yield member;
  }
}

/** Every membership a user holds, anywhere. */
export function* membershipsOfUser(members: MembersSlice, userId: number): Generator<Member> {
  const ids = tableGet(members.byUser, userId);
  if (!ids) return;
  for (const memberId of tableKeys(ids)) {
      const member = findMember(members, Number(memberId));
      if (member) yield member;
    }
}

/** Pending e-mail invitations to this address (case-insensitive), anywhere. */
export function* invitationsForEmail(members: MembersSlice, email: string): Generator<Member> {
  const ids = tableGet(members.byInviteEmail, email.toLowerCase());
  if (!ids) return;
  for (const memberId of tableKeys(ids)) {
      const member = findMember(members, Number(memberId));
      if (member && member.user_id === null) yield member;
    }
}

/** The pending invitation of an address to a source. */
export const invitationOf = (members: MembersSlice, type: SourceType, sourceId: number, email: string): Member | undefined => {
  for (const member of invitationsForEmail(members, email)) if (member.source_type === type && member.source_id === sourceId) return member;
  return undefined;
};

/** `expires_at <= today`: the platform's `Member.active` excludes such rows (they are being removed). */
export const isExpired = (expiresAt: string | null, today: string | undefined): boolean => today !== undefined && expiresAt !== null && expiresAt <= today;

/** A membership grants access only when active (awaiting members have none) and not expired. */
const grants = (member: Member | undefined, today?: string): number =>
  member && member.state === 'active' && member.user_id !== null && !isExpired(member.expires_at, today) ? member.access_level : 0;

export const findLink = (members: MembersSlice, id: number): GroupLink | undefined => tableGet(members.links, id);

/** Shares into a source (groups invited to it), in invited-group order. */
export function* linksOfSource(members: MembersSlice, type: SourceType, sourceId: number): Generator<GroupLink> {
  const ids = tableGet(members.linksBySource, sourceKey(type, sourceId));
  if (!ids) return;
  for (const linkId of tableValues(ids)) {
    const link = findLink(members, linkId);
    if (link) yield link;
  }
}

/** Shares of a group into other groups and projects. */
export function* linksOfInvitedGroup(members: MembersSlice, groupId: number): Generator<GroupLink> {
  const ids = tableGet(members.linksByGroup, groupId);
  if (!ids) return;
  for (const id of tableKeys(ids)) {
    const link = findLink(members, Number(id));
    if (link) yield link;
  }
}

/** `group.shared_projects`: the projects shared with a group (the project group links inviting it), in link order. */
export function* projectsSharedWithGroup(state: { readonly members: MembersSlice; readonly projects: MembershipView['projects'] }, groupId: number): Generator<Project> {
  for (const link of linksOfInvitedGroup(state.members, groupId)) {
    if (link.source_type !== 'Project') continue;
    const project = findProject(state.projects, link.source_id);
    if (project) yield project;
  }
}

/**
 * Ids of the projects shared with a group that every caller sees by visibility alone: the public ones, and for a
 * caller who sees internal projects the internal ones too (ascending within each set; the index kept by evolve).
 */
export function* idsSharedVisibleWithGroup(members: MembersSlice, groupId: number, withInternal: boolean): Generator<number> {
  yield* idsSharedWithGroupOf(members, groupId, 'public');
  if (withInternal) yield* idsSharedWithGroupOf(members, groupId, 'internal');
}

/** Ids of the projects of one visibility shared with a group, ascending (the indexes kept by evolve). */
export function* idsSharedWithGroupOf(members: MembersSlice, groupId: number, visibility: Visibility): Generator<number> {
  const ids = tableGet(visibility === 'public' ? members.sharedPublicByGroup : visibility === 'internal' ? members.sharedInternalByGroup : members.sharedPrivateByGroup, groupId);
  if (ids) yield* tableIds(ids);
}

export const linkBetween = (members: MembersSlice, type: SourceType, sourceId: number, groupId: number): GroupLink | undefined => {
  const id = tableGet(tableGet(members.linksBySource, sourceKey(type, sourceId)) ?? {}, groupId);
  return id === undefined ? undefined : findLink(members, id);
};

/**
 * Access through the shares into a source: the user's level in each invited group, capped at the share's
 * `group_access` (expired shares skipped). A group share counts the invited group's direct members only (the
 * platform's `members_from_self_and_ancestor_group_shares` joins `group_group_links` to the invited group's own
 * members); a project share counts whoever has access to the invited group (`groupAccessLevel`: its ancestors'
 * members, the groups shared into it), as `Gitlab::ProjectAuthorizations` joins a project's links to every group the
 * user reaches. Callers ask `projectSharesGrant` first for a project.
 */
const viaLinks = (state: MembershipView, type: SourceType, sourceId: number, userId: number, today?: string): number => {
  let level = 0;
  for (const link of linksOfSource(state.members, type, sourceId)) {
    if (isExpired(link.expires_at, today)) continue;
    const invited = type === 'Namespace' ? undefined : findGroup(state.groups, link.group_id);
    const inInvited = type === 'Namespace' ? grants(directMembership(state.members, 'Namespace', link.group_id, userId), today) : invited ? groupAccessLevel(state, invited, userId, today) : 0;
    level = Math.max(level, Math.min(inInvited, link.group_access));
  }
  return level;
};

/**
 * A user's effective access to a group: the highest of their memberships in it and its ancestors, and of their
 * memberships in groups shared into it or its ancestors (capped at each share's `group_access`).
 * `today` ("YYYY-MM-DD"), when given, also ignores memberships and shares past their expiry date.
 */
export const groupAccessLevel = (state: MembershipView, group: Group, userId: number, today?: string): number => {
  let level = 0;
  for (const candidate of selfAndAncestors(state.groups, group)) {
    level = Math.max(level, grants(directMembership(state.members, 'Namespace', candidate.id, userId), today), viaLinks(state, 'Namespace', candidate.id, userId, today));
  }
  return level;
};

/**
 * The highest of a user's own memberships in a group and its ancestors: no shares, no administrator rule (GroupsFinder's
 * `groups_with_min_access_level`, ForkTargetsFinder's manageable groups).
 */
export const ownGroupAccessLevel = (state: MembershipView, group: Group, userId: number, today?: string): number => {
  let level = 0;
  for (const candidate of selfAndAncestors(state.groups, group)) level = Math.max(level, grants(directMembership(state.members, 'Namespace', candidate.id, userId), today));
  return level;
};

/**
 * Whether a project's shares grant anything: `Project#allowed_to_share_with_group?`, false while the project's group
 * holds `share_with_group_lock` (ProjectTeam and `project_authorizations` skip the shares then). Every computation of
 * access through a project share asks this: effective access, `/members/all` and the audit's members.
 */
export const projectSharesGrant = (state: MembershipView, project: Project): boolean =>
  project.namespace_kind !== 'group' || findGroup(state.groups, project.namespace_id)?.share_with_group_lock !== true;

/** The shares into a project that grant access (none while its group is locked; see `projectSharesGrant`). */
function* grantingProjectLinks(state: MembershipView, project: Project): Generator<GroupLink> {
  if (projectSharesGrant(state, project)) yield* linksOfSource(state.members, 'Project', project.id);
}

/** A user's effective access to a project: its direct membership, its shares, or the access to its group. */
export const projectAccessLevel = (state: MembershipView, project: Project, userId: number, today?: string): number => {
  let level = grants(directMembership(state.members, 'Project', project.id, userId), today);
  const group = project.namespace_kind === 'group' ? findGroup(state.groups, project.namespace_id) : undefined;
  // ProjectTeam#max_member_access_for_user_ids: shares count while `allowed_to_share_with_group?` (no lock on the group).
  // `Gitlab::ProjectAuthorizations` joins a project's group links to every group the user reaches (their groups, the
  // groups those are shared into, and the subgroups of both): whoever has access to the invited group, capped.
  if (projectSharesGrant(state, project)) level = Math.max(level, viaLinks(state, 'Project', project.id, userId, today));
  if (group) level = Math.max(level, groupAccessLevel(state, group, userId, today));
  return level;
};

/** The group a source sits in (itself for a group, the namespace group for a group project). */
export const groupOfSource = (state: MembershipView, type: SourceType, sourceId: number): Group | undefined => {
  if (type === 'Namespace') return findGroup(state.groups, sourceId);
  const project = findProject(state.projects, sourceId);
  return project && project.namespace_kind === 'group' ? findGroup(state.groups, project.namespace_id) : undefined;
};

/**
 * The highest membership a user holds in the groups above a source (a group's ancestors, a project's group and
 * its ancestors), with the group that grants it: the "inherited membership" of the lower-than-inherited rule.
 */
export const inheritedMembership = (state: MembershipView, type: SourceType, sourceId: number, userId: number): { level: number; group: Group } | undefined => {
  const start = groupOfSource(state, type, sourceId);
  if (!start) return undefined;
  const chain = selfAndAncestors(state.groups, start);
  let best: { level: number; group: Group } | undefined;
  for (const group of type === 'Namespace' ? chain.slice(1) : chain) {
    const member = directMembership(state.members, 'Namespace', group.id, userId);
    if (member && member.state === 'active' && (!best || member.access_level > best.level)) best = { level: member.access_level, group };
  }
  return best;
};

/**
 * What a decision that saves several rows one after the other has changed so far in a group's owners, before its events
 * are folded: the owner rows it took below Owner or removed (member ids), and the users it made active owners of that
 * group.
 */
export interface OwnersChanged {
  readonly demoted: ReadonlySet<number>;
  readonly added: ReadonlySet<number>;
}

/** Active owners of a group, counting inherited owners (distinct users); `changed`: see `OwnersChanged`. */
export const ownerIds = (state: MembershipView, group: Group, changed?: OwnersChanged): Set<number> => {
  const owners = new Set<number>(changed?.added);
  for (const candidate of selfAndAncestors(state.groups, group)) {
    for (const member of membersOfSource(state.members, 'Namespace', candidate.id)) {
      if (member.user_id !== null && member.state === 'active' && member.access_level === 50 && !changed?.demoted.has(member.id)) owners.add(member.user_id);
    }
  }
  return owners;
};

/**
 * GroupMemberPolicy `last_owner`: the member is an owner and nobody else owns the group (directly or above). The policy
 * asks the database, so a decision changing several rows passes what it changed before this one (`changed`).
 */
export const isLastOwner = (state: MembershipView, member: Member, changed?: OwnersChanged): boolean => {
  if (member.source_type !== 'Namespace' || member.user_id === null || member.access_level !== 50 || member.state !== 'active') return false;
  const group = findGroup(state.groups, member.source_id);
  if (!group) return false;
  const owners = ownerIds(state, group, changed);
  return owners.size === 1 && owners.has(member.user_id);
};

/** Whether the user holds any active membership in the group's subtree or in its projects. */
export const hasMembershipBelow = (state: MembershipView, group: Group, userId: number): boolean => {
  for (const member of membershipsOfUser(state.members, userId)) {
    if (member.state !== 'active') continue;
    const sourceGroup = groupOfSource(state, member.source_type, member.source_id);
    if (sourceGroup && selfAndAncestors(state.groups, sourceGroup).some((g) => g.id === group.id)) return true;
  }
  return false;
};

// ---------------------------------------------------------------------------------------------------------------
// Effective membership (`/members/all`)

/** The platform's DISTINCT ON winner: the highest level, then the later expiry (none = latest), then the earlier row. */
export const betterMember = (a: Member, b: Member): Member => {
  if (a.access_level !== b.access_level) return a.access_level > b.access_level ? a : b;
  const ae = a.expires_at ?? '9999-12-31';
  const be = b.expires_at ?? '9999-12-31';
  if (ae !== be) return ae > be ? a : b;
  return a.created_at <= b.created_at ? a : b;
};

/**
 * A membership as it grants access through a share: the same row with its level capped at the share's
 * `group_access` (a Maintainer of a group shared at Reporter is a Reporter there). Uncapped rows are returned as is.
 */
export const cappedAt = (member: Member, cap: number): Member => (member.access_level <= cap ? member : { ...member, access_level: cap });

/** No cap: the membership's own level (members of the source and of its ancestors). */
const UNCAPPED = Number.POSITIVE_INFINITY;

const listable = (member: Member, today?: string, stateFilter?: string | null): boolean =>
  member.user_id !== null && member.access_level >= 10 && !isExpired(member.expires_at, today) && (stateFilter ? member.state === stateFilter : true);

/** A member table (user id → member id) that `/members/all` reads, with the level cap of the share it comes through. */
export interface EffectiveSource {
  readonly table: Table<number>;
  readonly cap: number;
}

/** Whether a viewer may see a group shared into another (the platform's `public_or_visible_to_user`). */
export type GroupVisibility = (group: Group) => boolean;

/**
 * Where a group's `/members/all` rows come from: the member tables of the group and its ancestors, and of the groups
 * shared into it with a live share that the viewer can see (capped at the share's level). Resolved once per page.
 */
export const effectiveSources = (state: MembershipView, group: Group, today?: string, canSeeGroup?: GroupVisibility): EffectiveSource[] => {
  const sources: EffectiveSource[] = [];
  for (let current: Group | undefined = group, depth = 0; current && depth < 100; depth++) {
    const table = tableGet(state.members.byGroupUser, current.id);
    if (table) sources.push({ table, cap: UNCAPPED });
    current = current.parent_id === null ? undefined : findGroup(state.groups, current.parent_id);
  }
  for (const link of linksOfSource(state.members, 'Namespace', group.id)) {
    if (isExpired(link.expires_at, today)) continue;
    if (canSeeGroup) {
      const invited = findGroup(state.groups, link.group_id);
      if (!invited || !canSeeGroup(invited)) continue;
    }
    const table = tableGet(state.members.byGroupUser, link.group_id);
    if (table) sources.push({ table, cap: link.group_access });
  }
  return sources;
};

/** Whether every group shared into this one is visible (then the incrementally kept index lists exactly the members). */
export const allSharedGroupsVisible = (state: MembershipView, group: Group, canSeeGroup: GroupVisibility): boolean => {
  for (const link of linksOfSource(state.members, 'Namespace', group.id)) {
    const invited = findGroup(state.groups, link.group_id);
    if (invited && !canSeeGroup(invited)) return false;
  }
  return true;
};

/** The winning row of a user among prepared sources (see `effectiveSources`), at its capped level. */
export const winningMember = (members: MembersSlice, sources: readonly EffectiveSource[], userId: number, today?: string, stateFilter?: string | null): Member | undefined => {
  let best: Member | undefined;
  for (const { table, cap } of sources) {
    const memberId = tableGet(table, userId);
    if (memberId === undefined) continue;
    const member = findMember(members, memberId);
    if (member && listable(member, today, stateFilter)) {
      const row = cappedAt(member, cap);
      best = best ? betterMember(best, row) : row;
    }
  }
  return best;
};

/** The winning row of a user in a group's `/members/all` (capped through shares), or undefined. */
export const effectiveGroupMember = (state: MembershipView, group: Group, userId: number, today?: string, stateFilter?: string | null, canSeeGroup?: GroupVisibility): Member | undefined =>
  winningMember(state.members, effectiveSources(state, group, today, canSeeGroup), userId, today, stateFilter);

/** User ids of a group's effective members, in user-id order (maintained incrementally; see indexes.ts). */
export function* effectiveUserIds(members: MembersSlice, groupId: number): Generator<number> {
  const table = tableGet(members.effective, groupId);
  if (!table) return;
  for (const id of tableKeys(table)) yield Number(id);
}

export const effectiveCount = (members: MembersSlice, groupId: number): number => tableGet(members.effectiveCount, groupId) ?? 0;

/** User ids of a table from the `offset`-th on, skipping whole leaves (see `tableIdsFrom`). */
export function* userIdsFrom(table: Table<number> | undefined, offset: number): Generator<number> {
  if (table) yield* tableIdsFrom(table, offset);
}

/**
 * The groups whose members a project's `/members/all` lists through its shares, with the cap of the share:
 * `MembersFinder#project_invited_groups`, the invited groups and their ancestors (`base_and_ancestors`), each kept
 * when the viewer can see it (`public_or_visible_to_user`), through live shares that grant (see `projectSharesGrant`).
 * The rows are capped at the share's `group_access`, as `projectAccessLevel` grants them.
 */
function* listedShareGroups(state: MembershipView, project: Project, canSeeGroup: (group: Group) => boolean, today?: string): Generator<{ groupId: number; cap: number }> {
  for (const link of grantingProjectLinks(state, project)) {
    if (isExpired(link.expires_at, today)) continue;
    const invited = findGroup(state.groups, link.group_id);
    if (!invited) continue;
    for (const group of selfAndAncestors(state.groups, invited)) if (canSeeGroup(group)) yield { groupId: group.id, cap: link.group_access };
  }
}

/** Candidate rows of a user for a project's `/members/all`: the project, its group chain, and visible shared groups and their ancestors (capped). */
export const effectiveProjectCandidates = (state: MembershipView, project: Project, userId: number, canSeeGroup: (group: Group) => boolean, today?: string): Member[] => {
  const rows: Member[] = [];
  const direct = directMembership(state.members, 'Project', project.id, userId);
  if (direct) rows.push(direct);
  if (project.namespace_kind === 'group') {
    const group = findGroup(state.groups, project.namespace_id);
    if (group) for (const candidate of selfAndAncestors(state.groups, group)) {
      const member = directMembership(state.members, 'Namespace', candidate.id, userId);
      if (member) rows.push(member);
    }
  }
  for (const { groupId, cap } of listedShareGroups(state, project, canSeeGroup, today)) {
    const member = directMembership(state.members, 'Namespace', groupId, userId);
    if (member) rows.push(cappedAt(member, cap));
  }
  return rows;
};

/** A project's `/members/all`, computed on demand (projects have few sources), in user-id order. */
export const effectiveProjectMembers = (state: MembershipView, project: Project, canSeeGroup: (group: Group) => boolean, today?: string, stateFilter?: string | null): Member[] => {
  const userIds = new Set<number>();
  const sources: { type: SourceType; id: number }[] = [{ type: 'Project', id: project.id }];
  if (project.namespace_kind === 'group') {
    const group = findGroup(state.groups, project.namespace_id);
    if (group) for (const g of selfAndAncestors(state.groups, group)) sources.push({ type: 'Namespace', id: g.id });
  }
  for (const { groupId } of listedShareGroups(state, project, canSeeGroup, today)) sources.push({ type: 'Namespace', id: groupId });
  for (const source of sources) for (const member of membersOfSource(state.members, source.type, source.id)) if (member.user_id !== null) userIds.add(member.user_id);
  const out: Member[] = [];
  for (const userId of [...userIds].sort((a, b) => a - b)) {
    let best: Member | undefined;
    for (const member of effectiveProjectCandidates(state, project, userId, canSeeGroup, today)) {
      if (!listable(member, today, stateFilter)) continue;
      best = best ? betterMember(best, member) : member;
    }
    if (best) out.push(best);
  }
  return out;
};

/**
 * A project's `/members/all` as a random-access page source when its group has no shares of its own: the group's
 * effective index (its members and its ancestors', kept incrementally) merged with the few extra users of the
 * project (direct members and members of visible groups shared into the project). A page costs the page (plus the
 * extras), not the hierarchy. Returns null when the index cannot be used (the group has shares; see reference item 58).
 */
export const projectMembersPage = (
  state: MembershipView,
  project: Project,
  canSeeGroup: (group: Group) => boolean,
  today?: string,
): { count: () => number; slice: (offset: number, limit: number) => Member[] } | null => {
  const group = project.namespace_kind === 'group' ? findGroup(state.groups, project.namespace_id) : undefined;
  if (group && tableGet(state.members.linksBySource, sourceKey('Namespace', group.id))) return null;
  const index = group ? tableGet(state.members.effective, group.id) : undefined;
  const inIndex = (userId: number): boolean => index !== undefined && tableGet(index, userId) !== undefined;
  const extra = new Set<number>();
  for (const member of membersOfSource(state.members, 'Project', project.id)) if (listable(member) && !inIndex(member.user_id!)) extra.add(member.user_id!);
  for (const { groupId } of listedShareGroups(state, project, canSeeGroup, today)) {
    for (const member of membersOfSource(state.members, 'Namespace', groupId)) if (listable(member) && !inIndex(member.user_id!)) extra.add(member.user_id!);
  }
  const extras = [...extra].sort((a, b) => a - b);
  const indexCount = group ? effectiveCount(state.members, group.id) : 0;
  const winner = (userId: number): Member | undefined => {
    let best: Member | undefined;
    for (const member of effectiveProjectCandidates(state, project, userId, canSeeGroup, today)) {
      if (listable(member, today)) best = best ? betterMember(best, member) : member;
    }
    return best;
  };
  return {
    count: () => indexCount + extras.length,
    slice: (offset, limit) => {
      const out: Member[] = [];
      // Index elements before rank offset − |extras| lie before the page whatever the extras are.
      const start = Math.max(0, offset - extras.length);
      const ids = index ? tableIdsFrom(index, start) : [][Symbol.iterator]();
      let next = ids.next();
      let e = 0;
      if (start > 0 && !next.done) while (e < extras.length && extras[e]! < next.value) e++;
      let position = start + (start > 0 ? e : 0);
      while (out.length < limit) {
        const fromIndex = !next.done && (e >= extras.length || next.value < extras[e]!);
        if (!fromIndex && e >= extras.length) break;
        const userId = fromIndex ? (next.value as number) : extras[e++]!;
        if (fromIndex) next = ids.next();
        if (position++ < offset) continue;
        const member = winner(userId);
        if (member) out.push(member);
      }
      return out;
    },
  };
};

// ---------------------------------------------------------------------------------------------------------------
// Hierarchy, billable and pending members

/** Every source in a top-level group's hierarchy: its groups and their projects. */
export const hierarchySources = (state: MembershipView, root: Group): { type: SourceType; id: number }[] => {
  const sources: { type: SourceType; id: number }[] = [];
  for (const group of selfAndDescendants(state.groups, root)) {
    sources.push({ type: 'Namespace', id: group.id });
    for (const project of projectsInNamespace(state.projects, group.id)) sources.push({ type: 'Project', id: project.id });
  }
  return sources;
};

/** Whether a source lies in the hierarchy of a top-level group (walks parent ids; no allocation). */
export const inHierarchy = (state: MembershipView, root: Group, type: SourceType, sourceId: number): boolean => {
  let groupId: number | null;
  if (type === 'Namespace') groupId = sourceId;
  else {
    const project = findProject(state.projects, sourceId);
    if (!project || project.namespace_kind !== 'group') return false;
    groupId = project.namespace_id;
  }
  for (let depth = 0; groupId !== null && depth < 100; depth++) {
    if (groupId === root.id) return true;
    const group = findGroup(state.groups, groupId);
    if (!group) return false;
    groupId = group.parent_id;
  }
  return false;
};

/** A user's direct memberships in a root's hierarchy (`user.members.in_hierarchy(group)`), in member-id order. */
export const membershipsInHierarchy = (state: MembershipView, root: Group, userId: number): Member[] =>
  [...membershipsOfUser(state.members, userId)].filter((m) => inHierarchy(state, root, m.source_type, m.source_id)).sort((a, b) => a.id - b.id);

export const isBillable = (members: MembersSlice, rootId: number, userId: number): boolean => (tableGet(tableGet(members.billable, rootId) ?? {}, userId) ?? 0) > 0;
export const billableCount = (members: MembersSlice, rootId: number): number => tableGet(members.billableCount, rootId) ?? 0;
export const billableTable = (members: MembersSlice, rootId: number) => tableGet(members.billable, rootId);

export type MembershipType = 'group_member' | 'project_member' | 'group_invite' | 'project_invite';

/** `membership_type` of a billable user: the first of group_member, project_member, group_invite, project_invite. */
export const membershipType = (state: MembershipView, root: Group, userId: number): MembershipType => {
  let project = false;
  let groupInvite = false;
  for (const member of membershipsOfUser(state.members, userId)) {
    if (member.state !== 'active' || member.access_level < 10) continue;
    if (inHierarchy(state, root, member.source_type, member.source_id)) {
      if (member.source_type === 'Namespace') return 'group_member';
      project = true;
    } else if (member.source_type === 'Namespace') {
      for (const link of linksOfInvitedGroup(state.members, member.source_id)) {
        if (!inHierarchy(state, root, link.source_type, link.source_id)) continue;
        if (link.source_type === 'Namespace') groupInvite = true;
      }
    }
  }
  return project ? 'project_member' : groupInvite ? 'group_invite' : 'project_invite';
};

/** The highest access level a user holds anywhere in the hierarchy (billable sort by access level). */
export const highestLevelInHierarchy = (state: MembershipView, root: Group, userId: number): number => {
  let level = 0;
  for (const member of membershipsOfUser(state.members, userId)) {
    if (member.state !== 'active') continue;
    if (inHierarchy(state, root, member.source_type, member.source_id)) level = Math.max(level, member.access_level);
    else if (member.source_type === 'Namespace') {
      for (const link of linksOfInvitedGroup(state.members, member.source_id)) {
        if (inHierarchy(state, root, link.source_type, link.source_id)) level = Math.max(level, Math.min(member.access_level, link.group_access));
      }
    }
  }
  return level;
};

/** The earliest creation of a membership that makes the user billable (billable sort by join date). */
export const joinedHierarchyAt = (state: MembershipView, root: Group, userId: number): string => {
  let joined = '9999';
  for (const member of membershipsOfUser(state.members, userId)) {
    if (member.state !== 'active') continue;
    if (inHierarchy(state, root, member.source_type, member.source_id) || (member.source_type === 'Namespace' && [...linksOfInvitedGroup(state.members, member.source_id)].some((l) => inHierarchy(state, root, l.source_type, l.source_id)))) {
      if (member.created_at < joined) joined = member.created_at;
    }
  }
  return joined;
};

/** Awaiting memberships and invitations in a root's hierarchy (`distinct_awaiting_or_invited_for_group`). */
export const pendingMembers = (state: MembershipView, root: Group): Member[] => {
  const seen = new Map<string, Member>();
  for (const source of hierarchySources(state, root)) {
    for (const member of membersOfSource(state.members, source.type, source.id)) {
      // An invitation until accepted (the platform's `invite?` tests the invite token, which acceptance clears).
      const invited = member.user_id === null && member.invite_email !== null;
      if (member.state !== 'awaiting' && !invited) continue;
      const key = `${member.user_id ?? ''}|${member.invite_email?.toLowerCase() ?? ''}`;
      const existing = seen.get(key);
      if (!existing || member.id < existing.id) seen.set(key, member);
    }
  }
  return [...seen.values()].sort((a, b) => (a.user_id ?? Infinity) - (b.user_id ?? Infinity) || (a.invite_email ?? '').localeCompare(b.invite_email ?? '') || a.id - b.id);
};

/** Whether a new membership of this user in the root's hierarchy must wait for approval (user cap reached). */
export const mustAwait = (state: MembershipView, root: Group | null, userId: number | null): boolean => {
  if (!root || root.new_user_signups_cap === null || root.new_user_signups_cap === undefined || userId === null) return false;
  if (isBillable(state.members, root.id, userId)) return false;
  // A user not in the state yet is an account created by the same decision (SCIM provisioning): a new human.
  const user = findUser(state.users, userId);
  if (user && user.bot !== null) return false;
  return billableCount(state.members, root.id) >= root.new_user_signups_cap;
};

/** A group's LDAP links in creation order. */
export function* ldapLinksOf(members: MembersSlice, groupId: number): Generator<LdapLink> {
  const table = tableGet(members.ldapLinks, groupId);
  if (!table) return;
  yield* [...tableValues(table)].sort((a, b) => a.seq - b.seq);
}

export const isLdapSynced = (members: MembersSlice, groupId: number): boolean => {
  for (const _link of ldapLinksOf(members, groupId)) return true;
  return false;
};

/**
 * The earliest `expires_at` among live memberships and shares (null when none expires): when it is today or earlier,
 * `ExpireMemberships` has work to do. Memoized per projection version (the tables are immutable between commands).
 */
const nextExpiryCache = new WeakMap<object, string | null>();
export const nextExpiry = (members: MembersSlice): string | null => {
  const key: object = members;
  const cached = nextExpiryCache.get(key);
  if (cached !== undefined) return cached;
  let earliest: string | null = null;
  for (const day of tableValues(members.expiring)) if (earliest === null || day < earliest) earliest = day;
  for (const link of tableValues(members.links)) if (link.expires_at !== null && (earliest === null || link.expires_at < earliest)) earliest = link.expires_at;
  nextExpiryCache.set(key, earliest);
  return earliest;
};

/** The full message of Member's bot uniqueness validation (ActiveSupport `humanize` drops `_id`). */
export const BOT_HELD_ELSEWHERE = 'project bots cannot be added to other groups / projects';

/**
 * Member's `validates :user_id, uniqueness: { message: … }, if: :project_bot?`: a token's bot holds one membership in
 * all (its resource's), so a membership of it in another source is invalid, whichever path adds it (members,
 * invitations, SCIM, an access request); one that holds none passes. The validation is unscoped over the members
 * table, where an access request is a row too (`requested_at`), so a pending request elsewhere counts.
 */
export const botHeldElsewhere = (state: MembershipView, userId: number, sourceType: SourceType, sourceId: number): boolean => {
  if (!isProjectBot(findUser(state.users, userId))) return false;
  const elsewhere = (row: { readonly source_type: SourceType; readonly source_id: number }) => row.source_type !== sourceType || row.source_id !== sourceId;
  for (const member of membershipsOfUser(state.members, userId)) if (elsewhere(member)) return true;
  return accessRequestsOfUser(state, userId).some(elsewhere);
};

// Access requests: kept apart from memberships (see access-requests.ts).

export const findAccessRequest = (state: MembershipView, type: SourceType, sourceId: number, userId: number): AccessRequest | undefined =>
  tableGet(tableGet(state.members.accessRequests, sourceKey(type, sourceId)) ?? emptyTable<AccessRequest>(), userId);

/** Pending requests of a source, oldest first. */
export const accessRequestsOf = (state: MembershipView, type: SourceType, sourceId: number): AccessRequest[] => {
  const table = tableGet(state.members.accessRequests, sourceKey(type, sourceId));
  return table ? [...tableValues(table)].sort((a, b) => a.seq - b.seq) : [];
};

/** Every pending request of a user (scans the sources that have requests: user deletion is rare). */
export const accessRequestsOfUser = (state: MembershipView, userId: number): AccessRequest[] => {
  const out: AccessRequest[] = [];
  for (const table of tableValues(state.members.accessRequests)) {
    const request = tableGet(table, userId);
    if (request) out.push(request);
  }
  return out;
};


/** Whether access to a group opens a project: one in its subtree, or one shared (live share) with a group of its subtree. */
const hasProjects = (state: MembershipView, group: Group, today?: string): boolean => {
  for (const candidate of selfAndDescendants(state.groups, group)) {
    if (!projectsInNamespace(state.projects, candidate.id).next().done) return true;
    for (const link of linksOfInvitedGroup(state.members, candidate.id)) {
      if (link.source_type === 'Project' && !isExpired(link.expires_at, today) && findProject(state.projects, link.source_id) !== undefined) return true;
    }
  }
  return false;
};

/**
 * Whether a user holds a project authorization (`project_authorizations`, what `User.without_projects` tests): a
 * project in their personal namespace, an active direct project membership, a group membership where the group or a
 * subgroup holds a project or is shared a project, or a share of such a group with a group they belong to.
 */
export const hasProjectAccess = (state: MembershipView, user: { readonly id: number; readonly namespace_id: number }, today?: string): boolean => {
  if (!projectsInNamespace(state.projects, user.namespace_id).next().done) return true;
  for (const member of membershipsOfUser(state.members, user.id)) {
    if (grants(member, today) === 0) continue;
    if (member.source_type === 'Project') {
      if (findProject(state.projects, member.source_id)) return true;
      continue;
    }
    const group = findGroup(state.groups, member.source_id);
    if (!group) continue;
    if (hasProjects(state, group, today)) return true;
    for (const link of linksOfInvitedGroup(state.members, group.id)) {
      if (isExpired(link.expires_at, today) || link.source_type !== 'Namespace') continue;
      const shared = findGroup(state.groups, link.source_id);
      if (shared && hasProjects(state, shared, today)) return true;
    }
  }
  return false;
};

/**
 * `User#highest_role` (the `user_highest_roles` row that member changes keep up to date): the highest access level
 * among the user's active, accepted memberships of groups and projects; 0 (`NO_ACCESS`) without any.
 */
export const highestRoleOf = (members: MembersSlice, userId: number, today?: string): number => {
  let level = 0;
  for (const member of membershipsOfUser(members, userId)) level = Math.max(level, grants(member, today));
  return level;
};

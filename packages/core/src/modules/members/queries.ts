import { tableGet, tableValues } from '../../kernel/table.js';
import type { State } from '../../state.js';
import type { Group } from '../groups/projection.js';
import { selfAndAncestors } from '../groups/queries.js';
import type { Project } from '../projects/projection.js';
import { findGroup } from '../groups/queries.js';
import { sourceKey, sourceUserKey, type Member, type MembersSlice, type SourceType } from './projection.js';

export const findMember = (members: MembersSlice, id: number): Member | undefined => tableGet(members.byId, id);

/** The direct membership of a user in a source, whatever its state. */
export const directMembership = (members: MembersSlice, type: SourceType, sourceId: number, userId: number): Member | undefined => {
  const id = tableGet(members.bySourceUser, sourceUserKey(type, sourceId, userId));
  return id === undefined ? undefined : findMember(members, id);
};

/** Direct memberships of a source in member-id order (invitations included). */
export function* membersOfSource(members: MembersSlice, type: SourceType, sourceId: number): Generator<Member> {
  const ids = tableGet(members.bySource, sourceKey(type, sourceId));
  if (!ids) return;
  for (const shard of Object.keys(ids)) {
    for (const memberId of Object.keys(ids[shard]!)) {
      const member = findMember(members, Number(memberId));
      if (member) yield member;
    }
  }
}

/** Every membership a user holds, anywhere. */
export function* membershipsOfUser(members: MembersSlice, userId: number): Generator<Member> {
  const ids = tableGet(members.byUser, userId);
  if (!ids) return;
  for (const shard of Object.keys(ids)) {
    for (const memberId of Object.keys(ids[shard]!)) {
      const member = findMember(members, Number(memberId));
      if (member) yield member;
    }
  }
}

/** A membership grants access only when active (awaiting members have none). */
const grants = (member: Member | undefined): number => (member && member.state === 'active' ? member.access_level : 0);

/** A user's effective access to a group: the highest of their memberships in it and its ancestors. */
export const groupAccessLevel = (state: State, group: Group, userId: number): number => {
  let level = 0;
  for (const candidate of selfAndAncestors(state.groups, group)) {
    level = Math.max(level, grants(directMembership(state.members, 'Namespace', candidate.id, userId)));
  }
  return level;
};

/** A user's effective access to a project: its direct membership, or the access to its group. */
export const projectAccessLevel = (state: State, project: Project, userId: number): number => {
  let level = grants(directMembership(state.members, 'Project', project.id, userId));
  if (project.namespace_kind === 'group') {
    const group = findGroup(state.groups, project.namespace_id);
    if (group) level = Math.max(level, groupAccessLevel(state, group, userId));
  }
  return level;
};

/** Whether the user holds any active membership in the group's subtree or in its projects. */
export const hasMembershipBelow = (state: State, group: Group, userId: number): boolean => {
  for (const member of membershipsOfUser(state.members, userId)) {
    if (member.state !== 'active') continue;
    const sourceGroupId =
      member.source_type === 'Namespace' ? member.source_id : (() => {
        const project = tableGet(state.projects.byId, member.source_id);
        return project && project.namespace_kind === 'group' ? project.namespace_id : null;
      })();
    if (sourceGroupId === null) continue;
    const sourceGroup = findGroup(state.groups, sourceGroupId);
    if (sourceGroup && selfAndAncestors(state.groups, sourceGroup).some((g) => g.id === group.id)) return true;
  }
  return false;
};

export const allMembers = (members: MembersSlice): Generator<Member> => tableValues(members.byId);

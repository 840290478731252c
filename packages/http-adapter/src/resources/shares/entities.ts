/** Shares: `shared_with_groups` of GroupDetail and the ProjectGroupLink answer. */
import { findGroup, linksOfSource, type GroupLink } from '@forgefold/core';
import type { PresentContext } from '../context.js';

/** `shared_with_groups` of GroupDetail. */
export const sharedWithGroupsEntity = (groupId: number, ctx: PresentContext) =>
  [...linksOfSource(ctx.state.members, 'Namespace', groupId)].map((link) => {
    const group = findGroup(ctx.state.groups, link.group_id);
    return { group_id: link.group_id, group_name: group?.name ?? null, group_full_path: group?.full_path ?? null, group_access_level: link.group_access, expires_at: link.expires_at };
  });

/** `POST /projects/:id/share` answer (ProjectGroupLink). */
export const projectGroupLinkEntity = (link: GroupLink) => ({ id: link.id, project_id: link.source_id, group_id: link.group_id, group_access: link.group_access, expires_at: link.expires_at });


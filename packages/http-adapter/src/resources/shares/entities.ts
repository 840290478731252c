/** Shares: `shared_with_groups` of GroupDetail and the ProjectGroupLink answer. */
import { canReadGroup, findGroup, linksOfSource, type GroupLink } from '@forgefold/core';
import type { PresentContext } from '../context.js';

/**
 * `shared_with_groups` of GroupDetail: `shared_with_group_links.public_or_visible_to_user(group, current_user)`, the
 * shares into groups the viewer can see.
 */
export const sharedWithGroupsEntity = (groupId: number, ctx: PresentContext) => {
  // Filled in a loop (one array, not a spread and a map): every group detail has this list, most of them empty.
  const shares: { group_id: number; group_name: string | null; group_full_path: string | null; group_access_level: number; expires_at: string | null }[] = [];
  for (const link of linksOfSource(ctx.state.members, 'Namespace', groupId)) {
    const group = findGroup(ctx.state.groups, link.group_id);
    if (group && !ctx.viewerIsAdmin && !canReadGroup(ctx.state, ctx.viewerId, group)) continue;
    shares.push({ group_id: link.group_id, group_name: group?.name ?? null, group_full_path: group?.full_path ?? null, group_access_level: link.group_access, expires_at: link.expires_at });
  }
  return shares;
};

/** `POST /projects/:id/share` answer (ProjectGroupLink). */
export const projectGroupLinkEntity = (link: GroupLink) => ({ id: link.id, project_id: link.source_id, group_id: link.group_id, group_access: link.group_access, expires_at: link.expires_at });


/** The platform's Group and GroupDetail entities. */
import { findProject, groupBranchProtection, groupProjectCandidates, isLdapSynced, ldapLinksOf, linksOfInvitedGroup, type Group } from '@forgefold/core';
import { ldapGroupLinkEntity } from '../ldap/entities.js';
import type { PresentContext } from '../context.js';
import { projectEntity } from '../projects/entities.js';
import { sharedWithGroupsEntity } from '../shares/entities.js';
import { PROJECT_CREATION_LEVELS, SUBGROUP_CREATION_LEVELS } from './params.js';


export const groupEntity = (group: Group, ctx: PresentContext) => ({
  id: group.id,
  web_url: `${ctx.baseUrl}/groups/${group.full_path}`,
  name: group.name,
  path: group.path,
  description: group.description,
  visibility: group.visibility,
  share_with_group_lock: group.share_with_group_lock === true,
  require_two_factor_authentication: false,
  two_factor_grace_period: 48,
  project_creation_level: PROJECT_CREATION_LEVELS[group.project_creation_level ?? 2] ?? 'developer',
  auto_devops_enabled: null,
  subgroup_creation_level: SUBGROUP_CREATION_LEVELS[group.subgroup_creation_level ?? 1] ?? 'maintainer',
  emails_disabled: null,
  mentions_disabled: null,
  lfs_enabled: true,
  default_branch_protection: groupBranchProtection(group, ctx.state.settings),
  avatar_url: null,
  request_access_enabled: group.request_access_enabled,
  full_name: group.full_name,
  full_path: group.full_path,
  created_at: group.created_at,
  parent_id: group.parent_id,
  ldap_cn: null,
  ldap_access: null,
  // EE Group: `ldap_group_links` only when the group has any.
  ...(isLdapSynced(ctx.state.members, group.id) ? { ldap_group_links: [...ldapLinksOf(ctx.state.members, group.id)].map(ldapGroupLinkEntity) } : {}),
  marked_for_deletion_on: null,
});

/** `GroupDetail#projects_limit` (GroupProjectsFinder::DEFAULT_PROJECTS_LIMIT, with `limit_projects_in_groups_api` on). */
const GROUP_DETAIL_PROJECTS_LIMIT = 100;

const newestProjects = (ids: number[], ctx: PresentContext): ReturnType<typeof projectEntity>[] => {
  ids.sort((a, b) => b - a);
  const entities: ReturnType<typeof projectEntity>[] = [];
  for (const id of ids.slice(0, GROUP_DETAIL_PROJECTS_LIMIT)) {
    const project = findProject(ctx.state.projects, id);
    if (project) entities.push(projectEntity(project, ctx));
  }
  return entities;
};

/** `visibleProjects`: whether `ctx.viewerId` reads a project (`canReadProject`; the own projects are its candidates). */
export const groupDetailEntity = (group: Group, ctx: PresentContext, visibleProjects: (projectId: number) => boolean) => {
  // The Group entity extended in place, in the same field order, rather than spread into a new object: the spread
  // of its 27 fields was ~7 KB of allocation per POST /groups (measured with the server's allocation profile).
  const entity: ReturnType<typeof groupEntity> & { new_user_signups_cap?: number | null } = groupEntity(group, ctx);
  if (group.parent_id === null) entity.new_user_signups_cap = group.new_user_signups_cap;
  // GroupProjectsFinder (`only_owned`, then `only_shared`): the visible projects, newest first (ProjectsFinder's
  // `projects_order_id_desc`), at most GROUP_DETAIL_PROJECTS_LIMIT of each. The own projects start from what the
  // viewer may see (`groupProjectCandidates`), not from every project of the group.
  const ownIds: number[] = [];
  for (const project of groupProjectCandidates(ctx.state, ctx.viewerId, [group])) if (visibleProjects(project.id)) ownIds.push(project.id);
  const sharedIds: number[] = [];
  for (const link of linksOfInvitedGroup(ctx.state.members, group.id)) if (link.source_type === 'Project' && visibleProjects(link.source_id)) sharedIds.push(link.source_id);
  // In GroupDetail's order: `prevent_sharing_groups_outside_hierarchy` only on a top-level group (`group.root?`).
  return Object.assign(
    entity,
    { shared_with_groups: sharedWithGroupsEntity(group.id, ctx) },
    group.parent_id === null ? { prevent_sharing_groups_outside_hierarchy: false } : {},
    {
      projects: newestProjects(ownIds, ctx),
      shared_projects: newestProjects(sharedIds, ctx),
      // EE GroupDetail
      membership_lock: group.membership_lock,
    },
  );
};

/** `PublicGroupDetails` (`GET /projects/:id/groups`): BasicGroupDetails (`id`, `web_url`, `name`) and its names and avatar. */
export const publicGroupDetailsEntity = (group: Group, ctx: PresentContext) => ({
  id: group.id,
  web_url: `${ctx.baseUrl}/groups/${group.full_path}`,
  name: group.name,
  avatar_url: null,
  full_name: group.full_name,
  full_path: group.full_path,
});

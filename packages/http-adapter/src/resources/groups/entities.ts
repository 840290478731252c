/** The platform's Group and GroupDetail entities. */
import { canReadProject, groupBranchProtection, groupProjectCandidates, isLdapSynced, ldapLinksOf, sharedProjectCandidates, type Group, type Project } from '@forgefold/core';
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

/** The projects the viewer may read, newest first (ProjectsFinder's `projects_order_id_desc`), at most the limit. */
const newestProjects = (projects: Iterable<Project>, ctx: PresentContext): ReturnType<typeof projectEntity>[] => {
  const visible: Project[] = [];
  for (const project of projects) if (canReadProject(ctx.state, ctx.viewerId, project)) visible.push(project);
  visible.sort((a, b) => b.id - a.id);
  return visible.slice(0, GROUP_DETAIL_PROJECTS_LIMIT).map((project) => projectEntity(project, ctx));
};

/** `GroupDetail` as the viewer of `ctx` sees it (its projects and shared projects, those they may read). */
export const groupDetailEntity = (group: Group, ctx: PresentContext) => {
  // The Group entity extended in place, in the same field order, rather than spread into a new object: the spread
  // of its 27 fields was ~7 KB of allocation per POST /groups (measured with the server's allocation profile).
  const entity: ReturnType<typeof groupEntity> & { new_user_signups_cap?: number | null } = groupEntity(group, ctx);
  if (group.parent_id === null) entity.new_user_signups_cap = group.new_user_signups_cap;
  // In GroupDetail's order: `prevent_sharing_groups_outside_hierarchy` only on a top-level group (`group.root?`).
  return Object.assign(
    entity,
    { shared_with_groups: sharedWithGroupsEntity(group.id, ctx) },
    group.parent_id === null ? { prevent_sharing_groups_outside_hierarchy: false } : {},
    {
      // GroupProjectsFinder (`only_owned`, then `only_shared`), at most GROUP_DETAIL_PROJECTS_LIMIT of each. Both start
      // from what the viewer may see (`groupProjectCandidates`, `sharedProjectCandidates`), not from every project of
      // the group or every share into it.
      projects: newestProjects(groupProjectCandidates(ctx.state, ctx.viewerId, [group]), ctx),
      shared_projects: newestProjects(sharedProjectCandidates(ctx.state, ctx.viewerId, group), ctx),
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

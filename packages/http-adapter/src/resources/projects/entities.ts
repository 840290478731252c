/** The platform's Project entity (the fields of ProjectDetails that Forgefold holds). */
import { AccessLevel, canReadGroup, canReadProject, defaultBranchOf, findProject, directMembership, findGroup, findRepository, findUserByNamespace, linksOfSource, selfAndAncestors, type Group, type Member, type Project, type User } from '@forgefold/core';
import { userBasic } from '../users/entities.js';
import type { PresentContext } from '../context.js';

/** `NamespaceBasic` of a group (a missing one shows empty names). */
export const groupNamespaceEntity = (id: number, group: Group | undefined, baseUrl: string) => ({
  id,
  name: group?.name ?? '',
  path: group?.path ?? '',
  kind: 'group',
  full_path: group?.full_path ?? '',
  parent_id: group?.parent_id ?? null,
  avatar_url: null,
  web_url: `${baseUrl}/groups/${group?.full_path ?? ''}`,
});

/** `NamespaceBasic` of a user's personal namespace (a missing owner shows empty names). */
export const userNamespaceEntity = (id: number, owner: User | undefined, baseUrl: string) => ({
  id,
  name: owner?.name ?? '',
  path: owner?.username ?? '',
  kind: 'user',
  full_path: owner?.username ?? '',
  parent_id: null,
  avatar_url: null,
  web_url: `${baseUrl}/${owner?.username ?? ''}`,
});

export const namespaceEntity = (project: Project, ctx: PresentContext) =>
  project.namespace_kind === 'group'
    ? groupNamespaceEntity(project.namespace_id, findGroup(ctx.state.groups, project.namespace_id), ctx.baseUrl)
    : userNamespaceEntity(project.namespace_id, findUserByNamespace(ctx.state.users, project.namespace_id), ctx.baseUrl);

const projectFields = (project: Project, ctx: PresentContext) => {
  const webUrl = `${ctx.baseUrl}/${project.path_with_namespace}`;
  const host = new URL(ctx.baseUrl).host;
  const owner = project.namespace_kind === 'user' ? findUserByNamespace(ctx.state.users, project.namespace_id) : undefined;
  const repository = findRepository(ctx.state.repositories, project.id);
  const defaultBranch = repository ? defaultBranchOf(repository) : null;
  return {
    id: project.id,
    description: project.description,
    name: project.name,
    name_with_namespace: project.name_with_namespace,
    path: project.path,
    path_with_namespace: project.path_with_namespace,
    created_at: project.created_at,
    default_branch: defaultBranch,
    tag_list: [] as string[],
    topics: [] as string[],
    ssh_url_to_repo: `git@${host.split(':')[0]}:${project.path_with_namespace}.git`,
    http_url_to_repo: `${webUrl}.git`,
    web_url: webUrl,
    readme_url: null,
    avatar_url: null,
    forks_count: project.forks_count,
    star_count: project.star_count,
    last_activity_at: project.last_activity_at,
    namespace: namespaceEntity(project, ctx),
    _links: {
      self: `${ctx.baseUrl}/api/v4/projects/${project.id}`,
      issues: `${ctx.baseUrl}/api/v4/projects/${project.id}/issues`,
      merge_requests: `${ctx.baseUrl}/api/v4/projects/${project.id}/merge_requests`,
      repo_branches: `${ctx.baseUrl}/api/v4/projects/${project.id}/repository/branches`,
      labels: `${ctx.baseUrl}/api/v4/projects/${project.id}/labels`,
      events: `${ctx.baseUrl}/api/v4/projects/${project.id}/events`,
      members: `${ctx.baseUrl}/api/v4/projects/${project.id}/members`,
    },
    visibility: project.visibility,
    ...(owner ? { owner: userBasic(owner, ctx) } : {}),
    creator_id: project.creator_id,
    archived: false,
    empty_repo: defaultBranch === null,
    request_access_enabled: project.request_access_enabled,
    merge_method: project.merge_method,
    shared_with_groups: sharedWithGroups(project, ctx),
  };
};

export const projectEntity = (project: Project, ctx: PresentContext) => ({ ...projectFields(project, ctx), ...forkedFrom(project, ctx) });

/** `BasicProjectDetails`: what a project shows of the project it was forked from, and lists with `simple=true`. */
export const basicProjectDetails = (project: Project, ctx: PresentContext) => {
  const full = projectFields(project, ctx);
  const { id, description, name, name_with_namespace, path, path_with_namespace, created_at, default_branch, tag_list, topics, ssh_url_to_repo, http_url_to_repo, web_url, readme_url, avatar_url, forks_count, star_count, last_activity_at, namespace } = full;
  return { id, description, name, name_with_namespace, path, path_with_namespace, created_at, default_branch, tag_list, topics, ssh_url_to_repo, http_url_to_repo, web_url, readme_url, avatar_url, forks_count, star_count, last_activity_at, namespace };
};

/** `forked_from_project`: only for a fork, and only when the viewer may read its source. */
const forkedFrom = (project: Project, ctx: PresentContext): { forked_from_project?: ReturnType<typeof basicProjectDetails> } => {
  const source = project.forked_from_id === null ? undefined : findProject(ctx.state.projects, project.forked_from_id);
  if (!source || !(ctx.viewerIsAdmin || canReadProject(ctx.state, ctx.viewerId, source))) return {};
  return { forked_from_project: basicProjectDetails(source, ctx) };
};

/** `SharedGroupWithProject` of the project's `visible_group_links(for_user:)`: shares into groups the viewer can see. */
const sharedWithGroups = (project: Project, ctx: PresentContext) =>
  [...linksOfSource(ctx.state.members, 'Project', project.id)].flatMap((link) => {
    const group = findGroup(ctx.state.groups, link.group_id);
    if (!group || !(ctx.viewerIsAdmin || canReadGroup(ctx.state, ctx.viewerId, group))) return [];
    return [{ group_id: link.group_id, group_name: group.name, group_full_path: group.full_path, group_access_level: link.group_access, expires_at: link.expires_at }];
  });

/** `MemberAccess`: the level and the member's notification level (a new member's setting is "global", 3). */
const memberAccess = (member: Member | undefined) => (member ? { access_level: member.access_level, notification_level: 3 } : null);

/**
 * `ProjectWithAccess` (what `GET /projects/:id` shows a signed-in user): `permissions.project_access`, the viewer's
 * direct membership of the project, and `permissions.group_access`, their highest membership of the project's
 * group and its ancestors (`highest_group_member`; shares do not count), each null when there is none.
 */
export const projectWithAccessEntity = (project: Project, ctx: PresentContext) => {
  const viewer = ctx.viewerId;
  const active = (member: Member | undefined) => (member && member.state === 'active' && member.access_level >= AccessLevel.GUEST ? member : undefined);
  const projectMember = viewer === null ? undefined : active(directMembership(ctx.state.members, 'Project', project.id, viewer));
  let groupMember: Member | undefined;
  const group = project.namespace_kind === 'group' ? findGroup(ctx.state.groups, project.namespace_id) : undefined;
  if (group && viewer !== null) {
    for (const candidate of selfAndAncestors(ctx.state.groups, group)) {
      const member = active(directMembership(ctx.state.members, 'Namespace', candidate.id, viewer));
      if (member && (!groupMember || member.access_level > groupMember.access_level)) groupMember = member;
    }
  }
  return { ...projectEntity(project, ctx), permissions: { project_access: memberAccess(projectMember), group_access: memberAccess(groupMember) } };
};

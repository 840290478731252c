/**
 * Who may do what: one table of the platform's policy abilities over the projections, used by every decider
 * and by the HTTP adapter's before-hooks. Administrators may do everything and see everything; otherwise an
 * ability on a group or project is a minimum effective access level there — the highest of the user's
 * memberships in it and above it, and of their memberships in groups shared into it (capped at each share's
 * `group_access`). Reading follows visibility: public resources are visible to all, internal ones to any
 * signed-in user, private ones to members (of the resource, an ancestor, or — for groups — anything below it).
 */
import * as E from 'fp-ts/lib/Either.js';
import { forbidden, type DomainError } from '../../kernel/domain-error.js';
import { AccessLevel, idsVisibleToAll } from '../shared/access.js';
import { findUser } from '../users/queries.js';
import { foldGeneration } from '../../kernel/fold-generation.js';
import type { Group } from '../groups/projection.js';
import { findGroup } from '../groups/queries.js';
import type { Project } from '../projects/projection.js';
import { findProject, idsVisibleInNamespace, projectsInNamespace } from '../projects/queries.js';
import type { MembershipView } from '../members/projection.js';
import {
  groupAccessLevel,
  groupOfSource,
  hasMembershipBelow,
  idsSharedVisibleWithGroup,
  idsSharedWithGroupOf,
  linkBetween,
  linksOfInvitedGroup,
  membershipsOfUser,
  projectAccessLevel,
  projectsSharedWithGroup,
} from '../members/queries.js';

/** What the abilities read. */
export type AccessView = MembershipView;

/** Group abilities and the level each needs (GroupPolicy / EE::GroupPolicy). */
export const GROUP_ABILITIES = {
  /** Developers and above create projects in a group (the default `project_creation_level`; see `canCreateProjectsIn`). */
  create_projects: AccessLevel.DEVELOPER,
  /** The default `subgroup_creation_level`: maintainers (see `canCreateSubgroupIn`). */
  create_subgroup: AccessLevel.MAINTAINER,
  admin_group: AccessLevel.OWNER,
  remove_group: AccessLevel.OWNER,
  admin_group_member: AccessLevel.OWNER,
  /** Group access tokens (`admin_resource_access_tokens` on a group). */
  admin_resource_access_tokens: AccessLevel.OWNER,
  /** Where projects may be moved to: `maintainer & can?(:create_projects)` (see `canTransferProjectsInto`). */
  transfer_projects: AccessLevel.MAINTAINER,
  admin_group_saml: AccessLevel.OWNER,
  read_group_saml_identity: AccessLevel.OWNER,
  /** EE epics (GroupPolicy): Reporters create and update them; notes on them are administered by Maintainers. */
  create_epic: AccessLevel.REPORTER,
  admin_epic: AccessLevel.REPORTER,
  destroy_epic: AccessLevel.OWNER,
  admin_epic_note: AccessLevel.MAINTAINER,
  /** NotePolicy's `can_read_confidential` on an epic's notes: Reporters and above. */
  read_confidential_note: AccessLevel.REPORTER,
} as const;

/** Project abilities and the level each needs (ProjectPolicy). */
export const PROJECT_ABILITIES = {
  admin_project: AccessLevel.MAINTAINER,
  admin_project_member: AccessLevel.MAINTAINER,
  /** Project access tokens (`admin_resource_access_tokens` on a project). */
  admin_resource_access_tokens: AccessLevel.MAINTAINER,
  remove_project: AccessLevel.OWNER,
  /** `DELETE /projects/:id/fork` (`remove_fork_project`): the project's owner. */
  remove_fork_project: AccessLevel.OWNER,
  /** `PUT /projects/:id/transfer` (`change_namespace`): the project's owner. */
  change_namespace: AccessLevel.OWNER,
  /** `PUT /projects/:id` with a name, or with a visibility (ProjectPolicy's owner block): the project's owner. */
  rename_project: AccessLevel.OWNER,
  change_visibility_level: AccessLevel.OWNER,
  /** Repositories (ProjectPolicy): fetching needs `download_code` (see `canDownloadCode` for visible projects). */
  download_code: AccessLevel.REPORTER,
  push_code: AccessLevel.DEVELOPER,
  admin_tag: AccessLevel.DEVELOPER,
  create_merge_request_in: AccessLevel.DEVELOPER,
  update_merge_request: AccessLevel.DEVELOPER,
  push_to_delete_protected_branch: AccessLevel.MAINTAINER,
  /** Deployments and environments (ProjectPolicy; reference §3.1): Reporters read, Developers deploy. */
  read_deployment: AccessLevel.REPORTER,
  create_deployment: AccessLevel.DEVELOPER,
  update_deployment: AccessLevel.DEVELOPER,
  read_environment: AccessLevel.REPORTER,
  create_environment: AccessLevel.DEVELOPER,
  update_environment: AccessLevel.DEVELOPER,
  stop_environment: AccessLevel.DEVELOPER,
  /** `destroy_environment`: Developers, and only once stopped (EnvironmentPolicy prevents it on available ones). */
  destroy_environment: AccessLevel.DEVELOPER,
  /** Certificate-based clusters (reference §4.1): Maintainers and above for everything. */
  read_cluster: AccessLevel.MAINTAINER,
  add_cluster: AccessLevel.MAINTAINER,
  update_cluster: AccessLevel.MAINTAINER,
  admin_cluster: AccessLevel.MAINTAINER,
  /**
   * Pipelines and schedules (ProjectPolicy, 14.7; reference §1.18); a cluster's management project needs `admin_pipeline` there.
   * `read_pipeline` is Guests' too: `public_builds & guest_access`, and builds are public (the default; no setting here).
   */
  read_pipeline: AccessLevel.GUEST,
  read_pipeline_schedule: AccessLevel.REPORTER,
  create_pipeline: AccessLevel.DEVELOPER,
  create_pipeline_schedule: AccessLevel.DEVELOPER,
  update_pipeline: AccessLevel.DEVELOPER,
  update_build: AccessLevel.DEVELOPER,
  admin_pipeline: AccessLevel.MAINTAINER,
  destroy_pipeline: AccessLevel.OWNER,
  /** Issues (ProjectPolicy 14.x): Guests open them; Reporters edit anyone's and see confidential ones; Owners delete. */
  create_issue: AccessLevel.GUEST,
  admin_issue: AccessLevel.REPORTER,
  read_confidential_issues: AccessLevel.REPORTER,
  destroy_issue: AccessLevel.OWNER,
  /** `destroy_merge_request` (ProjectPolicy's owner block): Owners (and administrators) delete merge requests. */
  destroy_merge_request: AccessLevel.OWNER,
  /** Project snippets: Reporters create them; Maintainers edit and delete anyone's. */
  create_snippet: AccessLevel.REPORTER,
  admin_snippet: AccessLevel.MAINTAINER,
  /** Notes: Guests comment; Maintainers edit and delete anyone's; Developers resolve threads. */
  create_note: AccessLevel.GUEST,
  admin_note: AccessLevel.MAINTAINER,
  resolve_note: AccessLevel.DEVELOPER,
  /** NotePolicy's `can_read_confidential` (14.7): Reporters and above read confidential notes. */
  read_confidential_note: AccessLevel.REPORTER,
  /** Releases (ProjectPolicy 14.7): Guests read them (without repository details); Developers create, update, delete. */
  read_release: AccessLevel.GUEST,
  create_release: AccessLevel.DEVELOPER,
  update_release: AccessLevel.DEVELOPER,
  destroy_release: AccessLevel.DEVELOPER,
} as const;

export type GroupAbility = keyof typeof GROUP_ABILITIES;
export type ProjectAbility = keyof typeof PROJECT_ABILITIES;

export const isAdmin = (state: AccessView, userId: number | null): boolean => userId !== null && findUser(state.users, userId)?.is_admin === true;

/**
 * `create_projects` in a group by its `project_creation_level` (GroupPolicy): 0 no one (administrators neither),
 * 1 maintainers and above, 2 developers and above; administrators pass otherwise.
 */
export const canCreateProjectsIn = (state: AccessView, userId: number | null, group: Group): boolean => {
  const level = group.project_creation_level ?? 2;
  if (level === 0) return false;
  return canOnGroup(state, userId, 'create_projects', group) && (level === 2 || effectiveGroupAccess(state, userId, group) >= AccessLevel.MAINTAINER);
};

/**
 * `transfer_projects` (GroupPolicy: `maintainer & can?(:create_projects)`): where Projects::TransferService's
 * `allowed_transfer?` lets a project move to.
 */
export const canTransferProjectsInto = (state: AccessView, userId: number | null, group: Group): boolean =>
  canOnGroup(state, userId, 'transfer_projects', group) && canCreateProjectsIn(state, userId, group);

/**
 * `create_subgroup` by the group's `subgroup_creation_level` (GroupPolicy: `owner`, or `maintainer &
 * maintainer_can_create_group`): 0 owners only, 1 (the default) maintainers and owners; administrators act as owners.
 */
export const canCreateSubgroupIn = (state: AccessView, userId: number | null, group: Group): boolean =>
  effectiveGroupAccess(state, userId, group) >= ((group.subgroup_creation_level ?? 1) === 1 ? AccessLevel.MAINTAINER : AccessLevel.OWNER);

/**
 * Whether a signed-in user sees what is internal by its visibility alone: not an external account (GroupPolicy's
 * `logged_in_viewable`, ProjectPolicy's `internal_access`: `internal? && !user.external?`).
 */
export const seesInternal = (state: AccessView, userId: number | null): boolean => userId !== null && findUser(state.users, userId)?.external !== true;

/** Visible by its visibility alone (ProjectPolicy's `public_access`): public, or internal to one who `seesInternal`. */
export const visibleByVisibility = (state: AccessView, userId: number | null, subject: Group | Project): boolean =>
  subject.visibility === 'public' || (subject.visibility === 'internal' && seesInternal(state, userId));

/** `read_group`. */
export const canReadGroup = (state: AccessView, userId: number | null, group: Group): boolean => {
  if (visibleByVisibility(state, userId, group)) return true;
  if (userId === null) return false;
  if (isAdmin(state, userId)) return true;
  return hasAccessInOrBelow(state, group, userId);
};

/**
 * What opens a group to a user besides its visibility: access to it (GroupPolicy `guest`), or a membership or a
 * project authorization below it (`has_projects`). GroupsFinder's own groups are the same set: the ancestors of
 * `authorized_groups` (their groups and the namespaces of their authorized projects) and the groups below theirs.
 */
export const hasAccessInOrBelow = (state: AccessView, group: Group, userId: number): boolean =>
  groupAccessLevel(state, group, userId) > 0 || hasMembershipBelow(state, group, userId) || groupsOpenedByProjects(state, userId).has(group.id);

/**
 * GroupPolicy's `has_projects` beyond the user's own memberships below a group (those are `hasMembershipBelow`'s):
 * `group_projects_for` takes the projects of the group and its subgroups `public_or_visible_to_user`, that is those
 * the user holds a project authorization for, and `Gitlab::ProjectAuthorizations` gives one for every project of a
 * group the user has access to (a group shared with one of their groups and its subgroups included) and for every
 * project shared with such a group. So the groups a user reads this way are those above (and including) each group
 * `walkMemberships` reaches that holds a project, when the user has access to it, and those above the group of each
 * project shared with a reached group, when the user has access to the project.
 */
const groupsOpenedThrough = (state: AccessView, userId: number): Set<number> => {
  // Ancestor-closed: a group in the set has every group above it in the set too.
  const opened = new Set<number>();
  const climb = (start: Group): void => {
    for (let group: Group | undefined = start; group && !opened.has(group.id); group = group.parent_id === null ? undefined : findGroup(state.groups, group.parent_id)) opened.add(group.id);
  };
  walkMemberships(state, userId, {
    reached: (group) => {
      // A project of the group is authorized with the group (`projects_belonging_directy_to_any_groups_user_has_access_to`).
      // `Gitlab::ProjectAuthorizations` joins memberships above Minimal Access only (`access_level > MINIMAL_ACCESS`).
      if (!opened.has(group.id) && !projectsInNamespace(state.projects, group.id).next().done && groupAccessLevel(state, group, userId) >= AccessLevel.GUEST) climb(group);
      for (const project of projectsSharedWithGroup(state, group.id)) {
        const home = project.namespace_kind === 'group' ? findGroup(state.groups, project.namespace_id) : undefined;
        if (home && !opened.has(home.id) && projectAccessLevel(state, project, userId) >= AccessLevel.GUEST) climb(home);
      }
    },
  });
  return opened;
};

/**
 * `groupsOpenedThrough`, computed once per user and state: `canReadGroup` asks it in loops (GET /groups' filter, a
 * project's `/members/all`, its `shared_with_groups`), and it costs the user's whole reach. Keyed on the slices it
 * reads (members, groups, projects), which a committed state never changes in place, and on the fold generation,
 * which moves whenever a state is changed in place (a batch's folds, a replay).
 */
const openedCache = new WeakMap<object, { readonly groups: object; readonly projects: object; readonly generation: number; readonly byUser: Map<number, ReadonlySet<number>> }>();
/** Users remembered per state: beyond it the map starts again (a state lives until the next write). */
const OPENED_USERS = 10_000;
const groupsOpenedByProjects = (state: AccessView, userId: number): ReadonlySet<number> => {
  let entry = openedCache.get(state.members);
  // A decision inside a batch reads slices that the batch's next folds change in place: the generation tells.
  if (!entry || entry.groups !== state.groups || entry.projects !== state.projects || entry.generation !== foldGeneration()) {
    entry = { groups: state.groups, projects: state.projects, generation: foldGeneration(), byUser: new Map() };
    openedCache.set(state.members, entry);
  }
  let opened = entry.byUser.get(userId);
  if (!opened) {
    if (entry.byUser.size >= OPENED_USERS) entry.byUser.clear();
    opened = groupsOpenedThrough(state, userId);
    entry.byUser.set(userId, opened);
  }
  return opened;
};

/** `read_project`. */
export const canReadProject = (state: AccessView, userId: number | null, project: Project): boolean => {
  if (visibleByVisibility(state, userId, project)) return true;
  if (userId === null) return false;
  if (isAdmin(state, userId)) return true;
  // The owner of a personal namespace reads its projects (a project transferred there has no membership for them).
  return effectiveProjectAccess(state, userId, project) > 0;
};

/**
 * Effective access for permission checks: administrators act as owners. `today` ("YYYY-MM-DD"), when given,
 * also ignores memberships and shares past their expiry date.
 */
export const effectiveGroupAccess = (state: AccessView, userId: number | null, group: Group, today?: string): number =>
  userId === null ? 0 : isAdmin(state, userId) ? AccessLevel.OWNER : groupAccessLevel(state, group, userId, today);

export const effectiveProjectAccess = (state: AccessView, userId: number | null, project: Project, today?: string): number => {
  if (userId === null) return 0;
  if (isAdmin(state, userId)) return AccessLevel.OWNER;
  // The owner of a personal namespace owns its projects (the platform shows 40 as their membership).
  if (project.namespace_kind === 'user' && findUser(state.users, userId)?.namespace_id === project.namespace_id) return AccessLevel.OWNER;
  return projectAccessLevel(state, project, userId, today);
};

/** Whether a user (null: anonymous) holds a group ability. */
export const canOnGroup = (state: AccessView, userId: number | null, ability: GroupAbility, group: Group, today?: string): boolean =>
  effectiveGroupAccess(state, userId, group, today) >= GROUP_ABILITIES[ability];

/** Whether a user (null: anonymous) holds a project ability. */
export const canOnProject = (state: AccessView, userId: number | null, ability: ProjectAbility, project: Project, today?: string): boolean =>
  effectiveProjectAccess(state, userId, project, today) >= PROJECT_ABILITIES[ability];

/**
 * An ability ProjectPolicy's `public_access` also enables: anyone who can see a public or internal project holds it
 * (the feature is open to everyone who can see the project); on a private one it takes the ability's level.
 */
export const canOnVisibleProject = (state: AccessView, userId: number | null, ability: ProjectAbility, project: Project, today?: string): boolean =>
  visibleByVisibility(state, userId, project) || canOnProject(state, userId, ability, project, today);


/** `download_code` (and `read_merge_request`): Reporters and above on a private project. */
export const canDownloadCode = (state: AccessView, userId: number | null, project: Project, today?: string): boolean =>
  canOnVisibleProject(state, userId, 'download_code', project, today);

/**
 * A protected ref's access level (`ProtectedRefAccess#check_access`): "No one" (0) is no one, administrators
 * included; otherwise administrators pass, and others need `push_code` and at least the level.
 */
export const meetsRefAccessLevel = (state: AccessView, userId: number | null, project: Project, level: number): boolean => {
  if (level === AccessLevel.NO_ACCESS || userId === null) return false;
  if (isAdmin(state, userId)) return true;
  const access = effectiveProjectAccess(state, userId, project);
  return access >= PROJECT_ABILITIES.push_code && access >= level;
};

/** A group or a project, as membership commands name their source. */
export type AccessTarget = { readonly group: Group; readonly project?: undefined } | { readonly project: Project; readonly group?: undefined };

/** `admin_group_member` on a group, `admin_project_member` on a project. */
export const canAdminMembers = (state: AccessView, userId: number | null, target: AccessTarget, today?: string): boolean =>
  target.group ? canOnGroup(state, userId, 'admin_group_member', target.group, today) : canOnProject(state, userId, 'admin_project_member', target.project, today);

/**
 * In a decision: the actor (null: the system, which may do anything) must hold the ability, else `error`
 * (403 unless the platform answers otherwise).
 */
export const authorizeGroup = <A>(state: AccessView, actorId: number | null, ability: GroupAbility, group: Group, value: A, options: { readonly today?: string; readonly error?: DomainError } = {}): E.Either<DomainError, A> =>
  actorId === null || canOnGroup(state, actorId, ability, group, options.today) ? E.right(value) : E.left(options.error ?? forbidden());

export const authorizeProject = <A>(state: AccessView, actorId: number | null, ability: ProjectAbility, project: Project, value: A, options: { readonly today?: string; readonly error?: DomainError } = {}): E.Either<DomainError, A> =>
  actorId === null || canOnProject(state, actorId, ability, project, options.today) ? E.right(value) : E.left(options.error ?? forbidden());

/** Instance administration (`admin_all_resources`): administrators, and the system actor. */
export const authorizeAdmin = (state: AccessView, actorId: number | null): E.Either<DomainError, void> =>
  actorId === null || isAdmin(state, actorId) ? E.right(undefined) : E.left(forbidden());

// ---------------------------------------------------------------------------------------------------------------
// Candidates of a non-administrator's lists

/**
 * What `walkMemberships` reports: each project membership's project, each group membership's group, each reached
 * group. A callback that returns `true` ends the walk (a yes/no that has its answer).
 */
type MembershipVisitor = {
  readonly project?: (projectId: number) => boolean | void;
  readonly memberGroup?: (group: Group) => boolean | void;
  readonly reached: (group: Group) => boolean | void;
};

/**
 * The walk of a user's memberships, found from their membership index (kept by evolve) instead of a scan of every
 * group: `project` for the project of each project membership, `memberGroup` for the group of each group membership,
 * and `reached` once for each group of the subtrees of their groups and of the groups those are shared into (whoever
 * has access to a group has it in its subgroups, and `Gitlab::ProjectAuthorizations` joins a group's shares to every
 * group the user reaches). Each subtree is walked once, so the cost is that of the memberships and of what they open,
 * or less when a callback ends the walk.
 */
const walkMemberships = (state: AccessView, userId: number, visit: MembershipVisitor): void => {
  const walked = new Set<number>();
  // Every walk covers a whole subtree, so a group already walked has its subgroups walked too. True: stopped.
  // Subgroups are queued by id and looked up when their turn comes, so that a walk ended early has not read them.
  const walk = (start: Group): boolean => {
    const queue: number[] = [start.id];
    for (let i = 0; i < queue.length; i++) {
      const id = queue[i]!;
      if (walked.has(id)) continue;
      const group = i === 0 ? start : findGroup(state.groups, id);
      if (!group) continue;
      walked.add(id);
      if (visit.reached(group) === true) return true;
      for (const childId of group.children) if (!walked.has(childId)) queue.push(childId);
    }
    return false;
  };
  for (const member of membershipsOfUser(state.members, userId)) {
    if (member.source_type === 'Project') {
      if (visit.project?.(member.source_id) === true) return;
      continue;
    }
    const group = findGroup(state.groups, member.source_id);
    if (!group) continue;
    if (walk(group) || visit.memberGroup?.(group) === true) return;
    for (const link of linksOfInvitedGroup(state.members, group.id)) {
      if (link.source_type !== 'Namespace') continue;
      const shared = findGroup(state.groups, link.source_id);
      if (shared && walk(shared)) return;
    }
  }
};

/**
 * What a user's memberships can open to them (`walkMemberships`): the groups in which, below which or above which
 * they hold a membership, the groups below the groups their groups are shared into, the groups above those of them
 * that hold projects and above the projects shared with any of them, and the projects of all those subtrees and
 * those shared with any group of them, and the projects of their personal namespace.
 */
const reachableThroughMemberships = (state: AccessView, userId: number): { groups: Set<number>; projects: Set<number> } => {
  const groups = new Set<number>();
  const projects = new Set<number>();
  const climbed = new Set<number>();
  const climb = (start: Group): void => {
    for (let group: Group | undefined = start; group && !climbed.has(group.id); group = group.parent_id === null ? undefined : findGroup(state.groups, group.parent_id)) {
      climbed.add(group.id);
      groups.add(group.id);
    }
  };
  // The projects of the user's personal namespace: its owner reads and owns them (`effectiveProjectAccess`), with or
  // without a membership (a project transferred there has none).
  const own = findUser(state.users, userId);
  if (own) for (const project of projectsInNamespace(state.projects, own.namespace_id)) projects.add(project.id);
  walkMemberships(state, userId, {
    project: (projectId) => {
      projects.add(projectId);
      const group = groupOfSource(state, 'Project', projectId);
      if (group) climb(group);
    },
    memberGroup: climb,
    reached: (group) => {
      groups.add(group.id);
      // The group's projects, and with them the groups above it (`groupsOpenedThrough`).
      let holdsProjects = false;
      for (const project of projectsInNamespace(state.projects, group.id)) {
        projects.add(project.id);
        holdsProjects = true;
      }
      if (holdsProjects) climb(group);
      // The projects shared with the group: whoever has access to it reaches them (`Gitlab::ProjectAuthorizations`),
      // and with them the groups above them (`groupsOpenedThrough`).
      for (const project of projectsSharedWithGroup(state, group.id)) {
        projects.add(project.id);
        const home = project.namespace_kind === 'group' ? findGroup(state.groups, project.namespace_id) : undefined;
        if (home) climb(home);
      }
    },
  });
  return { groups, projects };
};

const ascending = (ids: Iterable<number>): number[] => [...ids].sort((a, b) => a - b);

/**
 * Groups that may pass `canReadGroup` for a user who is not an administrator (null: anonymous), in id order: a
 * superset of the readable ones when `visibleToAll` (public, internal when signed in, and what the memberships
 * open), of those the user has access in or below otherwise. Callers filter them exactly as they would filter every
 * group; the list costs what the caller can see, not the number of groups.
 */
export const groupCandidates = (state: AccessView, userId: number | null, visibleToAll: boolean): Group[] => {
  const ids = userId === null ? new Set<number>() : reachableThroughMemberships(state, userId).groups;
  if (visibleToAll) for (const id of idsVisibleToAll(state.groups, seesInternal(state, userId))) ids.add(id);
  const groups: Group[] = [];
  for (const id of ascending(ids)) {
    const group = findGroup(state.groups, id);
    if (group) groups.push(group);
  }
  return groups;
};

/** Projects that may pass `canReadProject` for a user who is not an administrator, in id order (see `groupCandidates`). */
export const projectCandidates = (state: AccessView, userId: number | null, visibleToAll: boolean): Project[] => {
  const ids = userId === null ? new Set<number>() : reachableThroughMemberships(state, userId).projects;
  if (visibleToAll) for (const id of idsVisibleToAll(state.projects, seesInternal(state, userId))) ids.add(id);
  const projects: Project[] = [];
  for (const id of ascending(ids)) {
    const project = findProject(state.projects, id);
    if (project) projects.push(project);
  }
  return projects;
};

/**
 * The projects a user's own project memberships and the project shares open, by the group namespace they sit in
 * (namespace id → project ids): what `projectAccessLevel` grants on a group project besides the access to its group.
 * A share counts for every group the user has access to: the groups `walkMemberships` reaches.
 */
const projectsReachedByNamespace = (state: AccessView, userId: number): Map<number, number[]> => {
  const byNamespace = new Map<number, number[]>();
  const add = (projectId: number): void => {
    const project = findProject(state.projects, projectId);
    if (!project || project.namespace_kind !== 'group') return;
    const ids = byNamespace.get(project.namespace_id);
    if (ids) ids.push(project.id);
    else byNamespace.set(project.namespace_id, [project.id]);
  };
  walkMemberships(state, userId, {
    project: add,
    reached: (group) => {
      for (const project of projectsSharedWithGroup(state, group.id)) add(project.id);
    },
  });
  return byNamespace;
};

/**
 * Where a list of a group's projects takes them from: `every` project (for a caller who reaches them all through the
 * group), the ids every caller sees by visibility (`visible`, an index kept by evolve), and the ids a user's own
 * memberships reach otherwise (`reached`, computed once per list).
 */
interface GroupProjectSource {
  readonly every: (state: AccessView, group: Group) => Iterable<Project>;
  readonly visible: (state: AccessView, groupId: number, withInternal: boolean) => Iterable<number>;
  readonly reached: (state: AccessView, userId: number) => (groupId: number) => Iterable<number>;
}

/**
 * Projects of some groups, from `source`, that may pass `canReadProject` for a user (null: anonymous), in id order:
 * every project of a group when the user has any effective access to it (administrators included); otherwise the
 * ids every caller sees by visibility (internal ones when the user `seesInternal`) and those the user's own
 * memberships reach. A superset of the readable ones: callers filter them exactly as they would filter every project
 * of the source, and the list costs what the caller can see (and their memberships), not the size of the groups.
 */
const candidatesOfGroups = (state: AccessView, userId: number | null, groups: Iterable<Group>, source: GroupProjectSource): Project[] => {
  const ids = new Set<number>();
  const internal = seesInternal(state, userId);
  let reached: ((groupId: number) => Iterable<number>) | undefined;
  for (const group of groups) {
    if (effectiveGroupAccess(state, userId, group) > 0) {
      for (const project of source.every(state, group)) ids.add(project.id);
      continue;
    }
    for (const id of source.visible(state, group.id, internal)) ids.add(id);
    if (userId === null) continue;
    reached ??= source.reached(state, userId);
    for (const id of reached(group.id)) ids.add(id);
  }
  const projects: Project[] = [];
  for (const id of ascending(ids)) {
    const project = findProject(state.projects, id);
    if (project) projects.push(project);
  }
  return projects;
};

/**
 * A group's own projects: access to the group grants each of them (`projectAccessLevel`); its public and internal
 * ones are kept per namespace; besides, a user reaches its private ones only through project memberships and project
 * shares (`projectsReachedByNamespace`).
 */
const ownProjects: GroupProjectSource = {
  every: (state, group) => projectsInNamespace(state.projects, group.id),
  visible: (state, groupId, withInternal) => idsVisibleInNamespace(state.projects, groupId, withInternal),
  reached: (state, userId) => {
    const byNamespace = projectsReachedByNamespace(state, userId);
    return (groupId) => byNamespace.get(groupId) ?? [];
  },
};

/** Counts the items of an iterable up to `limit + 1` (more than `limit` is all it tells). */
const countBeyond = (items: Iterable<unknown>, limit: number): number => {
  let count = 0;
  for (const _item of items) if (++count > limit) break;
  return count;
};

/**
 * Whether what `reachableThroughMemberships` visits for a user is more than `limit` nodes: the projects of their
 * personal namespace, their project memberships, the groups `walkMemberships` reaches, their projects and the projects
 * shared with them. The walk ends as soon as it has seen more.
 */
const reachExceeds = (state: AccessView, userId: number, limit: number): boolean => {
  let seen = 0;
  const own = findUser(state.users, userId);
  if (own) seen += countBeyond(projectsInNamespace(state.projects, own.namespace_id), limit);
  if (seen > limit) return true;
  walkMemberships(state, userId, {
    project: () => ++seen > limit,
    reached: (group) => {
      if (++seen > limit) return true;
      seen += countBeyond(projectsInNamespace(state.projects, group.id), limit - seen);
      if (seen > limit) return true;
      seen += countBeyond(linksOfInvitedGroup(state.members, group.id), limit - seen);
      return seen > limit;
    },
  });
  return seen > limit;
};

/**
 * The projects shared with a group that a caller does not see by visibility: the private ones, and the internal ones
 * for a caller who does not `seesInternal` (an external user), ascending within each.
 */
function* sharesHiddenFrom(state: AccessView, groupId: number, withInternal: boolean): Generator<number> {
  yield* idsSharedWithGroupOf(state.members, groupId, 'private');
  if (!withInternal) yield* idsSharedWithGroupOf(state.members, groupId, 'internal');
}

/** Whether a caller's hidden shares (`sharesHiddenFrom`) are fewer than their reach (see `sharedProjects`). */
const hiddenSharesFewerThanReach = (state: AccessView, userId: number, groupId: number, withInternal: boolean): boolean => {
  // Both sides are counted up to a bound that grows: the answer costs the smaller side (times a constant).
  for (let bound = 64; ; bound *= 8) {
    const shares = countBeyond(sharesHiddenFrom(state, groupId, withInternal), bound);
    if (shares <= bound) return reachExceeds(state, userId, shares);
    if (!reachExceeds(state, userId, bound)) return false;
  }
};

/**
 * The projects shared with a group (`group.shared_projects`): access to the group opens them (the shares); their
 * public and internal ones are kept per invited group; besides, a user reads a private one only through what their
 * own memberships reach (project memberships, their groups' projects and the projects shared with those, their
 * personal namespace's: `reachableThroughMemberships`), and so an internal one for a caller who does not
 * `seesInternal`. Those hidden shares are found from the per-group indexes (the private ones are kept too): without
 * any, the caller's reach is not asked; when fewer than the caller's reach, they are the candidates (the callers'
 * `canReadProject` filter then checks each); otherwise the caller's reach, those of it shared with the group.
 */
const sharedProjects: GroupProjectSource = {
  every: (state, group) => projectsSharedWithGroup(state, group.id),
  visible: (state, groupId, withInternal) => idsSharedVisibleWithGroup(state.members, groupId, withInternal),
  reached: (state, userId) => {
    const withInternal = seesInternal(state, userId);
    let reach: ReadonlySet<number> | undefined;
    return function* (groupId) {
      if (sharesHiddenFrom(state, groupId, withInternal).next().done) return;
      if (hiddenSharesFewerThanReach(state, userId, groupId, withInternal)) {
        yield* sharesHiddenFrom(state, groupId, withInternal);
        return;
      }
      reach ??= reachableThroughMemberships(state, userId).projects;
      for (const id of reach) if (linkBetween(state.members, 'Project', id, groupId) !== undefined) yield id;
    };
  },
};

/**
 * Projects of some groups (each group's own, not its subgroups') that may pass `canReadProject` for a user (null:
 * anonymous), in id order (see `candidatesOfGroups`): `GET /groups/:id/projects`, GroupDetail's `projects`.
 */
export const groupProjectCandidates = (state: AccessView, userId: number | null, groups: Iterable<Group>): Project[] =>
  candidatesOfGroups(state, userId, groups, ownProjects);

/**
 * The projects shared with a group that may pass `canReadProject` for a user (null: anonymous), in id order (see
 * `candidatesOfGroups`): `GET /groups/:id/projects/shared`, `with_shared`, GroupDetail's `shared_projects`.
 */
export const sharedProjectCandidates = (state: AccessView, userId: number | null, group: Group): Project[] =>
  candidatesOfGroups(state, userId, [group], sharedProjects);

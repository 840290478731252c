import * as E from 'fp-ts/lib/Either.js';
import type { Draft } from 'immer';
import { pipe } from 'fp-ts/lib/function.js';
import { forbidden, notFound, validation, type DomainError } from '../../kernel/domain-error.js';
import { tableDelete, tableGet, tableSet, tableKeys } from '../../kernel/table.js';
import type { Issued } from '../../kernel/decider.js';
import { advance, type ModuleDecider, type MutableState, type State } from '../../state.js';
import type { ForgefoldEvent } from '../../events.js';
import { AccessLevel, visibilityRank, type Visibility } from '../shared/access.js';
import { effectiveGroupAccess } from '../shared/policy.js';
import { Errors, isNamespacePath, MAX_NAME } from '../shared/validation.js';
import { findUser, findUserByUsername } from '../users/queries.js';
import { directMembership, membersOfSource } from '../members/queries.js';
import { findProjectByFullPath } from '../projects/queries.js';
import { memberAdded, removeLinksOfSources, removeMembershipsOfSources } from '../members/decider.js';
import { onGroupCreated, onGroupDeleted, onGroupMoving } from '../members/indexes.js';
import { accessRequestsOf, endAccessRequests } from '../members/access-requests.js';
import { projectsInNamespace } from '../projects/queries.js';
import type { GroupCommand } from './commands.js';
import type { GroupEvent } from './events.js';
import type { Group } from './projection.js';
import { findGroup, findGroupByFullPath, findTopLevelNamespaceByPath, selfAndDescendants } from './queries.js';

const PATH_FORMAT = "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'.";

const requireGroup = (state: State, id: number): E.Either<DomainError, Group> => {
  const group = findGroup(state.groups, id);
  return group ? E.right(group) : E.left(notFound('Group'));
};

const requireAccess = (state: State, actorId: number | null, group: Group, level: number): E.Either<DomainError, Group> =>
  actorId === null || effectiveGroupAccess(state, actorId, group) >= level ? E.right(group) : E.left(forbidden());

/** Path, name and visibility rules shared by create and update; messages as the platform's Group model. */
const validateGroup = (
  state: State,
  fields: { name?: string; path?: string; visibility?: Visibility; description?: string },
  parent: Group | null,
  self: Group | null,
): E.Either<DomainError, void> => {
  const errors = new Errors();
  // Namespace: name and path at most 255 characters, description at most 255 (checked in the model's order).
  if (fields.name !== undefined) errors.check(fields.name.trim() !== '', 'name', "can't be blank").maxLength('name', fields.name, MAX_NAME);
  errors.maxLength('description', fields.description, MAX_NAME);
  if (fields.path !== undefined) {
    errors.maxLength('path', fields.path, MAX_NAME);
    if (fields.path === '') errors.add('path', "can't be blank");
    else if (!isNamespacePath(fields.path)) errors.add('path', PATH_FORMAT);
    else {
      const fullPath = parent ? `${parent.full_path}/${fields.path}` : fields.path;
      const holder = findGroupByFullPath(state.groups, fullPath);
      const userHolder = parent === null ? findUserByUsername(state.users, fields.path) : undefined;
      if ((holder && holder.id !== self?.id) || userHolder) errors.add('path', 'has already been taken');
    }
  }
  if (fields.visibility !== undefined && parent && visibilityRank(fields.visibility) > visibilityRank(parent.visibility)) {
    errors.add('visibility_level', `${fields.visibility} is not allowed since the parent group has a ${parent.visibility} visibility.`);
  }
  return errors.toEither(undefined);
};

const decide = (issued: Issued<GroupCommand>, state: State): E.Either<DomainError, readonly ForgefoldEvent[]> => {
  const { command, at, actor } = issued;
  switch (command.type) {
    case 'CreateGroup': {
      const parentId = command.parent_id ?? null;
      const parent = parentId === null ? E.right<DomainError, Group | null>(null) : pipe(requireGroup(state, parentId), E.chain((group) => requireAccess(state, actor.userId, group, AccessLevel.MAINTAINER)));
      return pipe(
        parent,
        E.chainFirst((parentGroup) => validateGroup(state, command, parentGroup, null)),
        E.mapLeft((error) =>
          // The platform renders a failed save as "Failed to save group {:path=>[…]}".
          error._tag === 'Validation' ? ({ _tag: 'BadRequest', message: `Failed to save group ${rubyHash(error.errors)}` } as DomainError) : error,
        ),
        E.map((parentGroup): ForgefoldEvent[] => {
          const id = state.sequences.namespace + 1;
          const created: GroupEvent = {
            type: 'GroupCreated',
            data: {
              id,
              name: command.name,
              path: command.path,
              parent_id: parentGroup?.id ?? null,
              visibility: command.visibility ?? 'private',
              description: command.description ?? '',
              request_access_enabled: command.request_access_enabled ?? true,
              ...(command.membership_lock ? { membership_lock: true } : {}),
              created_at: at,
              created_by_id: actor.userId,
            },
          };
          // The creator owns what they create (the system actor creates groups without an owner).
          const owner = actor.userId === null ? [] : [memberAdded(state, { source_type: 'Namespace', source_id: id, user_id: actor.userId, access_level: AccessLevel.OWNER, at, created_by_id: actor.userId })];
          return [created, ...owner];
        }),
      );
    }
    case 'UpdateGroup':
      return pipe(
        requireGroup(state, command.id),
        E.chain((group) => requireAccess(state, actor.userId, group, AccessLevel.OWNER)),
        E.chainFirst((group) =>
          command.new_user_signups_cap !== undefined && group.parent_id !== null
            ? E.left(validation({ new_user_signups_cap: ['is only available on top-level groups'] }))
            : E.right(undefined),
        ),
        E.chainFirst((group) => validateGroup(state, command, group.parent_id === null ? null : findGroup(state.groups, group.parent_id) ?? null, group)),
        E.map((group): ForgefoldEvent[] => {
          const { type: _type, ...changes } = command;
          return [{ type: 'GroupUpdated', data: { ...changes, id: group.id, updated_at: at } }];
        }),
      );
    case 'TransferGroup':
      return pipe(
        requireGroup(state, command.id),
        E.chain((group) => transferGroupEvents(state, actor.userId, group, command.parent_id, at)),
      );
    case 'DeleteGroup':
      return pipe(
        requireGroup(state, command.id),
        E.chain((group) => requireAccess(state, actor.userId, group, AccessLevel.OWNER)),
        E.map((group) => deleteGroupEvents(state, group, at)),
      );
  }
};

/** Groups::TransferService's refusals, rendered "Transfer failed: <text>" (400). */
const transferFailed = (text: string): DomainError => ({ _tag: 'BadRequest', message: `Transfer failed: ${text}` });

/**
 * Groups::TransferService: checks in the service's order, then the move, the visibility of everything below
 * lowered to the new parent's, and an owner for a group promoted to the top without one.
 */
const transferGroupEvents = (state: State, actorId: number | null, group: Group, parentId: number | null, at: string): E.Either<DomainError, ForgefoldEvent[]> => {
  const parent = parentId === null ? null : findGroup(state.groups, parentId);
  if (parentId !== null && !parent) return E.left(notFound('Group'));
  if (parent === null && group.parent_id === null) return E.left(transferFailed('Group is already a root group.'));
  if (parent && parent.id === group.parent_id) return E.left(transferFailed('Group is already associated to the parent group.'));
  const mayAdmin = actorId === null || effectiveGroupAccess(state, actorId, group) >= AccessLevel.OWNER;
  // Subgroups need Maintainer on the new parent (create_subgroup); a new top-level group, the right to create groups.
  const mayCreate = actorId === null || (parent ? effectiveGroupAccess(state, actorId, parent) >= AccessLevel.MAINTAINER : findUser(state.users, actorId)?.bot === null);
  if (!mayAdmin || !mayCreate) return E.left(transferFailed("You don't have enough permissions."));
  const takenAt = parent ? findGroupByFullPath(state.groups, `${parent.full_path}/${group.path}`) ?? findProjectByFullPath(state.projects, `${parent.full_path}/${group.path}`) : findTopLevelNamespaceByPath(state.groups, group.path) ?? findUserByUsername(state.users, group.path);
  if (takenAt) return E.left(transferFailed('The parent group already has a subgroup or a project with the same path.'));
  if (parent && selfAndDescendants(state.groups, group).some((g) => g.id === parent.id)) return E.left(transferFailed('Cannot transfer group to one of its subgroup.'));
  const events: ForgefoldEvent[] = [{ type: 'GroupTransferred', data: { id: group.id, from_parent_id: group.parent_id, parent_id: parent?.id ?? null, at } }];
  if (parent) {
    // `update_visibility`: nothing below may be more visible than its new parent.
    const ceiling = visibilityRank(parent.visibility);
    for (const g of selfAndDescendants(state.groups, group)) {
      if (visibilityRank(g.visibility) > ceiling) events.push({ type: 'GroupUpdated', data: { id: g.id, visibility: parent.visibility, updated_at: at } });
      for (const project of projectsInNamespace(state.projects, g.id)) {
        if (visibilityRank(project.visibility) > ceiling) events.push({ type: 'ProjectUpdated', data: { id: project.id, visibility: parent.visibility, updated_at: at } });
      }
    }
  } else if (actorId !== null && ![...membersOfSource(state.members, 'Namespace', group.id)].some((m) => m.access_level === AccessLevel.OWNER && m.state === 'active' && m.user_id !== null)) {
    // `ensure_ownership`: a new top-level group keeps an owner.
    const own = directMembership(state.members, 'Namespace', group.id, actorId);
    events.push(
      own
        ? { type: 'MemberAccessLevelChanged', data: { id: own.id, source_type: 'Namespace', source_id: group.id, user_id: actorId, from: own.access_level, to: AccessLevel.OWNER, at, reason: 'group_transferred' } }
        : memberAdded(state, { source_type: 'Namespace', source_id: group.id, user_id: actorId, access_level: AccessLevel.OWNER, at, created_by_id: actorId }),
    );
  }
  return E.right(events);
};

/** Deletes a group's subtree, deepest first, so that every event refers to a source that still exists when folded. */
export const deleteGroupEvents = (state: State, group: Group, at: string): ForgefoldEvent[] => {
  const events: ForgefoldEvent[] = [];
  const seenLinks = new Set<number>();
  for (const doomed of selfAndDescendants(state.groups, group).reverse()) {
    for (const project of projectsInNamespace(state.projects, doomed.id)) events.push(...deleteProjectEvents(state, project.id, at, seenLinks));
    // Shares end before the memberships they lend, so the audit trail shows every access going away.
    events.push(...removeLinksOfSources(state, [{ type: 'Namespace', id: doomed.id }], at, seenLinks));
    events.push(...removeMembershipsOfSources(state, [{ type: 'Namespace', id: doomed.id }], at));
    events.push(...endAccessRequests(accessRequestsOf(state, 'Namespace', doomed.id), at, 'source_deleted'));
    events.push({ type: 'GroupDeleted', data: { id: doomed.id, at } });
  }
  return events;
};

export const deleteProjectEvents = (state: State, projectId: number, at: string, seenLinks = new Set<number>()): ForgefoldEvent[] => [
  ...removeLinksOfSources(state, [{ type: 'Project', id: projectId }], at, seenLinks),
  ...removeMembershipsOfSources(state, [{ type: 'Project', id: projectId }], at),
  ...endAccessRequests(accessRequestsOf(state, 'Project', projectId), at, 'source_deleted'),
  { type: 'ProjectDeleted', data: { id: projectId, at } },
];

/** Ruby's Hash#inspect of validation errors: {:path=>["has already been taken"]}. */
const rubyHash = (errors: Readonly<Record<string, readonly string[]>>): string =>
  `{${Object.entries(errors)
    .map(([field, messages]) => `:${field}=>[${messages.map((m) => JSON.stringify(m)).join(', ')}]`)
    .join(', ')}}`;

/** Recomputes full paths and names below a renamed group (groups and their projects). */
const refreshPaths = (state: MutableState, group: Draft<Group>): void => {
  const parent = group.parent_id === null ? undefined : tableGet(state.groups.byId, group.parent_id);
  const fullPath = parent ? `${parent.full_path}/${group.path}` : group.path;
  const fullName = parent ? `${parent.full_name} / ${group.name}` : group.name;
  if (fullPath !== group.full_path) {
    tableDelete(state.groups.byFullPath, group.full_path.toLowerCase());
    tableSet(state.groups.byFullPath, fullPath.toLowerCase(), group.id);
  }
  group.full_path = fullPath;
  group.full_name = fullName;
  const projectIds = tableGet(state.projects.byNamespace, group.id);
  if (projectIds) {
    for (const id of tableKeys(projectIds)) {
      const project = tableGet(state.projects.byId, Number(id));
      if (!project) continue;
      tableDelete(state.projects.byFullPath, project.path_with_namespace.toLowerCase());
      project.path_with_namespace = `${fullPath}/${project.path}`;
      project.name_with_namespace = `${fullName} / ${project.name}`;
      tableSet(state.projects.byFullPath, project.path_with_namespace.toLowerCase(), project.id);
    }
  }
  for (const childId of group.children) {
    const child = tableGet(state.groups.byId, childId);
    if (child) refreshPaths(state, child);
  }
};

const evolve = (state: MutableState, event: GroupEvent): void => {
  const groups = state.groups;
  switch (event.type) {
    case 'GroupCreated': {
      const { created_by_id: _creator, ...data } = event.data;
      const parent = data.parent_id === null ? undefined : tableGet(groups.byId, data.parent_id);
      const full_path = parent ? `${parent.full_path}/${data.path}` : data.path;
      const full_name = parent ? `${parent.full_name} / ${data.name}` : data.name;
      tableSet(groups.byId, data.id, { ...data, membership_lock: data.membership_lock ?? false, full_path, full_name, updated_at: data.created_at, new_user_signups_cap: null, children: [] });
      tableSet(groups.byFullPath, full_path.toLowerCase(), data.id);
      parent?.children.push(data.id);
      groups.count += 1;
      advance(state, 'namespace', data.id);
      onGroupCreated(state, data.id);
      return;
    }
    case 'GroupUpdated': {
      const group = tableGet(groups.byId, event.data.id);
      if (!group) return;
      Object.assign(group, event.data);
      if (event.data.path !== undefined || event.data.name !== undefined) refreshPaths(state, group);
      return;
    }
    case 'GroupTransferred': {
      const group = tableGet(groups.byId, event.data.id);
      if (!group) return;
      onGroupMoving(state, group.id, () => {
        const from = group.parent_id === null ? undefined : tableGet(groups.byId, group.parent_id);
        if (from) from.children = from.children.filter((id) => id !== group.id);
        const to = event.data.parent_id === null ? undefined : tableGet(groups.byId, event.data.parent_id);
        to?.children.push(group.id);
        group.parent_id = event.data.parent_id;
        group.updated_at = event.data.at;
        refreshPaths(state, group);
      });
      return;
    }
    case 'GroupDeleted': {
      const group = tableGet(groups.byId, event.data.id);
      if (!group) return;
      onGroupDeleted(state, group.id);
      tableDelete(groups.byId, group.id);
      tableDelete(groups.byFullPath, group.full_path.toLowerCase());
      const parent = group.parent_id === null ? undefined : tableGet(groups.byId, group.parent_id);
      if (parent) parent.children = parent.children.filter((id) => id !== group.id);
      groups.count -= 1;
      return;
    }
  }
};

export const groupsDecider: ModuleDecider<GroupCommand, GroupEvent> = { decide, evolve };

/** The groups module's decisions: create (subgroups too), update, and delete with everything below. */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import { peekField } from '../../kernel/table.js';
import { forbidden, notFound, validation, type DomainError } from '../../kernel/domain-error.js';
import type { Issued } from '../../kernel/decider.js';
import type { Sequences } from '../../kernel/sequences.js';
import { authorizeGroup, canCreateSubgroupIn, canOnGroup, effectiveGroupAccess, isAdmin } from '../access/abilities.js';
import type { SettingsSlice } from '../settings/projection.js';
import { defaultGroupVisibility, defaultProjectCreation, restrictedVisibilityMessage, visibilityRestricted } from '../settings/queries.js';
import { memberAccessLevelChanged, memberAdded } from '../members/builders.js';
import type { MemberEvent } from '../members/events.js';
import type { MembershipView } from '../members/projection.js';
import type { ProjectEvent } from '../projects/events.js';
import { projectVisibilityLowered } from '../projects/builders.js';
import { findProjectByFullPath, projectsInNamespace } from '../projects/queries.js';
import { directMembership, membersOfSource } from '../members/queries.js';
import { AccessLevel, visibilityRank, type Visibility } from '../shared/access.js';
import { GROUP_NAME_FORMAT_MESSAGE, HTML_SAFETY_MESSAGE, isGroupNameFormat, isHtmlSafe } from '../shared/names.js';
import { NAMESPACE_FORMAT_MESSAGE, NAMESPACE_PATH_TOO_SHORT, namespacePathErrors, namespacePathReserved, reservedName } from '../shared/paths.js';
import { changesAnything, Errors, isNamespacePath, isRubyBlank, MAX_NAME, rubyErrorsInspect } from '../shared/validation.js';
import { canCreateGroupOf, findUser, findUserByUsername, usernameTaken } from '../users/queries.js';
import { deleteGroupEvents } from './builders.js';
import type { GroupCommand } from './commands.js';
import type { GroupEvent } from './events.js';
import type { Group } from './projection.js';
import { findGroup, findGroupByFullPath, findTopLevelNamespaceByPath, selfAndAncestors, selfAndDescendants } from './queries.js';

/** What group decisions read. */
export type GroupsView = MembershipView & { readonly sequences: Sequences; readonly settings: SettingsSlice };

/** `Gitlab::VisibilityLevel.allowed_for?` then `deny_visibility_level`: a restricted level is for administrators only. */
const refuseRestricted = (state: GroupsView, actorId: number | null, visibility: Visibility | undefined): E.Either<DomainError, void> =>
  visibility !== undefined && actorId !== null && !isAdmin(state, actorId) && visibilityRestricted(state.settings, visibility)
    ? E.left(validation({ visibility_level: [restrictedVisibilityMessage(visibility)] }))
    : E.right(undefined);

/** A new group's visibility: the one asked for, else the instance default, capped by the parent's. */
const newGroupVisibility = (state: GroupsView, asked: Visibility | undefined, parent: Group | null): Visibility => {
  if (asked !== undefined) return asked;
  const fallback = defaultGroupVisibility(state.settings);
  return parent && visibilityRank(fallback) > visibilityRank(parent.visibility) ? parent.visibility : fallback;
};

type Emitted = GroupEvent | MemberEvent | ProjectEvent;

const requireGroup = (state: GroupsView, id: number): E.Either<DomainError, Group> => {
  const group = findGroup(state.groups, id);
  return group ? E.right(group) : E.left(notFound('Group'));
};

/** `Gitlab::Access.protection_values` (the route's `values:` check; kept here for other callers of the decider). */
const validBranchProtection = (level: number | null | undefined): boolean => level === undefined || level === null || (Number.isInteger(level) && level >= 0 && level <= 3);
const INVALID_BRANCH_PROTECTION: DomainError = { _tag: 'BadRequest', message: 'default_branch_protection does not have a valid value' };

/** GlobalPolicy `create_group`: the account's `can_create_group` (administrators included; see `canCreateGroupOf`). */
const mayCreateGroup = (state: GroupsView, userId: number): boolean => {
  const user = findUser(state.users, userId);
  return user !== undefined && canCreateGroupOf(user);
};

/** `Group::NUMBER_OF_ANCESTORS_ALLOWED`. */
const NUMBER_OF_ANCESTORS_ALLOWED = 20;

/** Namespace#nesting_level_allowed: a group under `parent` would have more than NUMBER_OF_ANCESTORS_ALLOWED ancestors. */
const tooDeep = (state: GroupsView, parent: Group): boolean => selfAndAncestors(state.groups, parent).length > NUMBER_OF_ANCESTORS_ALLOWED;

/** Path, name, nesting and visibility rules shared by create and update; messages as the platform's Group model. */
const validateGroup = (
  state: GroupsView,
  fields: { name?: string; path?: string; visibility?: Visibility; description?: string },
  parent: Group | null,
  self: Group | null,
): E.Either<DomainError, void> => {
  const errors = new Errors();
  // Namespace: name and path at most 255 characters, description at most 255 (checked in the model's order).
  if (fields.name !== undefined) errors.check(!isRubyBlank(fields.name), 'name', "can't be blank").maxLength('name', fields.name, MAX_NAME);
  errors.maxLength('description', fields.description, MAX_NAME);
  if (fields.path !== undefined) {
    // `validates :path, presence: true, length: { maximum: 255 }` (presence is `blank?`, so spaces alone are blank).
    errors.check(!isRubyBlank(fields.path), 'path', "can't be blank").maxLength('path', fields.path, MAX_NAME);
    const fullPath = parent ? `${parent.full_path}/${fields.path}` : fields.path;
    // NamespacePathValidator on the full path (`build_full_path`): the format, then TOP_LEVEL_ROUTES at the top and the
    // project route words below; then the minimum length. Checked when the path changes (as a username's), so that a
    // group an old log holds under an older rule keeps its other updates, whether or not they name its path.
    // An empty path runs both too (no `allow_blank`): the format does not match "" and "" is shorter than 2.
    if (fields.path !== self?.path) {
      if (fields.path === '') errors.add('path', NAMESPACE_FORMAT_MESSAGE).add('path', NAMESPACE_PATH_TOO_SHORT);
      else for (const message of namespacePathErrors(fields.path, fullPath)) errors.add('path', message);
    }
    if (isNamespacePath(fields.path)) {
      // Routable's route uniqueness, appended after the model's own path errors (`set_path_errors`).
      const holder = findGroupByFullPath(state.groups, fullPath);
      // Read past the batch's draft: a group creation never writes the users' table (see `usernameTaken`).
      const userHolder = parent === null && usernameTaken(peekField(state, 'users'), fields.path);
      if ((holder && holder.id !== self?.id) || userHolder) errors.add('path', 'has already been taken');
    }
  }
  if (parent && tooDeep(state, parent)) errors.add('parent_id', 'has too deep level of nesting');
  if (fields.visibility !== undefined && parent && visibilityRank(fields.visibility) > visibilityRank(parent.visibility)) {
    errors.add('visibility_level', `${fields.visibility} is not allowed since the parent group has a ${parent.visibility} visibility.`);
  }
  // Group's own `validates :name, html_safety: true, format: group_name_regex, if: :name_changed?`, after the
  // visibility rules it declares first (so their key comes first when the name fails only here). HtmlSafetyValidator
  // skips a blank name; the format does not (the empty name fails it).
  if (fields.name !== undefined && fields.name !== self?.name) {
    if (!isRubyBlank(fields.name) && !isHtmlSafe(fields.name)) errors.add('name', HTML_SAFETY_MESSAGE);
    if (!isGroupNameFormat(fields.name)) errors.add('name', GROUP_NAME_FORMAT_MESSAGE);
  }
  return errors.toEither(undefined);
};

export const decide = (issued: Issued<GroupCommand>, state: GroupsView): E.Either<DomainError, readonly Emitted[]> => {
  const { command, at, actor } = issued;
  switch (command.type) {
    case 'CreateGroup': {
      // Step by step rather than a pipe of closures (a fifth of a group creation's allocation in the decider); the
      // same checks in the same order: the parent (404, then 403), the restricted visibility, the model's rules.
      const parentId = command.parent_id ?? null;
      let parentGroup: Group | null = null;
      if (parentId !== null) {
        const found = requireGroup(state, parentId);
        if (E.isLeft(found)) return found;
        // `create_subgroup`, by the parent's `subgroup_creation_level`.
        if (actor.userId !== null && !canCreateSubgroupIn(state, actor.userId, found.right)) return E.left(forbidden());
        parentGroup = found.right;
      } else if (actor.userId !== null && !mayCreateGroup(state, actor.userId)) {
        // lib/api/groups.rb: `authorize! :create_group` for a top-level group (GlobalPolicy's `can_create_group`).
        return E.left(forbidden());
      }
      const refused = refuseRestricted(state, actor.userId, command.visibility);
      if (E.isLeft(refused)) return E.left(failedToSave(refused.left));
      if (!validBranchProtection(command.default_branch_protection)) return E.left(INVALID_BRANCH_PROTECTION);
      const invalid = validateGroup(state, command, parentGroup, null);
      if (E.isLeft(invalid)) return E.left(failedToSave(invalid.left));
      const id = state.sequences.namespace + 1;
      const projectCreation = command.project_creation_level ?? defaultProjectCreation(state.settings);
      const subgroupCreation = command.subgroup_creation_level ?? 1;
      // `sync_share_with_group_lock_with_parent` (before_create): a locked parent locks its new subgroup.
      const shareLock = command.share_with_group_lock === true || parentGroup?.share_with_group_lock === true;
      const membershipLock = command.membership_lock === true;
      const visibility = newGroupVisibility(state, command.visibility, parentGroup);
      const description = command.description ?? '';
      const requestAccess = command.request_access_enabled ?? true;
      // `remove_unallowed_params`: only who may create groups (`create_group_with_default_branch_protection`) sets it.
      const branchProtection =
        command.default_branch_protection !== undefined && (actor.userId === null || mayCreateGroup(state, actor.userId)) ? command.default_branch_protection : undefined;
      // The usual case as one literal; with an optional field, the spreads put it before created_at, as they always
      // did (the event's JSON in the log keeps its key order).
      const created: GroupEvent =
        !membershipLock && projectCreation === 2 && branchProtection === undefined && subgroupCreation === 1 && !shareLock
          ? {
              type: 'GroupCreated',
              data: { id, name: command.name, path: command.path, parent_id: parentGroup?.id ?? null, visibility, description, request_access_enabled: requestAccess, created_at: at, created_by_id: actor.userId },
            }
          : {
              type: 'GroupCreated',
              data: {
                id,
                name: command.name,
                path: command.path,
                parent_id: parentGroup?.id ?? null,
                visibility,
                description,
                request_access_enabled: requestAccess,
                ...(membershipLock ? { membership_lock: true } : {}),
                // Recorded only when it is not the platform's default (developers and maintainers).
                ...(projectCreation !== 2 ? { project_creation_level: projectCreation } : {}),
                ...(branchProtection !== undefined ? { default_branch_protection: branchProtection } : {}),
                // Recorded only when not the defaults (maintainers; unlocked).
                ...(subgroupCreation !== 1 ? { subgroup_creation_level: subgroupCreation } : {}),
                ...(shareLock ? { share_with_group_lock: true } : {}),
                created_at: at,
                created_by_id: actor.userId,
              },
            };
      // The creator owns what they create (the system actor creates groups without an owner).
      if (actor.userId === null) return E.right([created]);
      return E.right([created, memberAdded(state, { source_type: 'Namespace', source_id: id, user_id: actor.userId, access_level: AccessLevel.OWNER, at, created_by_id: actor.userId })]);
    }
    case 'UpdateGroup':
      return pipe(
        requireGroup(state, command.id),
        E.chain((group) => authorizeGroup(state, actor.userId, 'admin_group', group, group)),
        E.chainFirst((group) =>
          command.new_user_signups_cap !== undefined && group.parent_id !== null
            ? E.left(validation({ new_user_signups_cap: ['is only available on top-level groups'] }))
            : E.right(undefined),
        ),
        E.chainFirst((group) => (command.visibility !== group.visibility ? refuseRestricted(state, actor.userId, command.visibility) : E.right(undefined))),
        E.chainFirst((group) => validShareLockChange(state, actor.userId, group, command.share_with_group_lock)),
        E.chainFirst(() => (validBranchProtection(command.default_branch_protection) ? E.right(undefined) : E.left(INVALID_BRANCH_PROTECTION))),
        E.chainFirst((group) => validateGroup(state, command, group.parent_id === null ? null : findGroup(state.groups, group.parent_id) ?? null, group)),
        E.map((group): Emitted[] => {
          const { type: _type, ...changes } = command;
          // A group without a level of its own set to none: nothing changes.
          if (changes.default_branch_protection === null && group.default_branch_protection == null) delete changes.default_branch_protection;
          // The settings a group holds by default (absent from the projection) asked for again change nothing.
          if (changes.project_creation_level === (group.project_creation_level ?? 2)) delete changes.project_creation_level;
          if (changes.subgroup_creation_level === (group.subgroup_creation_level ?? 1)) delete changes.subgroup_creation_level;
          if (changes.share_with_group_lock === (group.share_with_group_lock ?? false)) delete changes.share_with_group_lock;
          if (!changesAnything(group, changes)) return [];
          const events: Emitted[] = [{ type: 'GroupUpdated', data: { ...changes, id: group.id, updated_at: at } }];
          // `force_share_with_group_lock_on_descendants` (after_update): a lock set on a group locks everything below.
          if (changes.share_with_group_lock === true) events.push(...lockDescendants(state, group, at));
          return events;
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
        E.chain((group) => authorizeGroup(state, actor.userId, 'remove_group', group, group)),
        E.map((group) => deleteGroupEvents(state, group, at)),
      );
  }
};

/** The groups below `group` not yet locked, locked (`force_share_with_group_lock_on_descendants`). */
const lockDescendants = (state: GroupsView, group: Group, at: string): GroupEvent[] =>
  selfAndDescendants(state.groups, group)
    .slice(1)
    .filter((g) => g.share_with_group_lock !== true)
    .map((g) => ({ type: 'GroupUpdated', data: { id: g.id, share_with_group_lock: true, updated_at: at } }));

/**
 * GroupPolicy's `change_share_with_group_lock`: an owner, unless the group is locked under a locked parent, which takes
 * the same ability on the parent (so, up the chain, an owner of the group that set the lock).
 */
const canChangeShareLock = (state: GroupsView, userId: number, group: Group): boolean => {
  if (effectiveGroupAccess(state, userId, group) < AccessLevel.OWNER) return false;
  const parent = group.parent_id === null ? undefined : findGroup(state.groups, group.parent_id);
  if (group.share_with_group_lock !== true || !parent || parent.share_with_group_lock !== true) return true;
  return canChangeShareLock(state, userId, parent);
};

/** Groups::UpdateService#valid_share_with_group_lock_change?: a change of the lock needs `change_share_with_group_lock`. */
const validShareLockChange = (state: GroupsView, actorId: number | null, group: Group, asked: boolean | undefined): E.Either<DomainError, void> =>
  asked === undefined || asked === (group.share_with_group_lock ?? false) || actorId === null || canChangeShareLock(state, actorId, group)
    ? E.right(undefined)
    : E.left(validation({ share_with_group_lock: ['cannot be disabled when the parent group "Share with group lock" is enabled, except by the owner of the parent group'] }));

/** Groups::TransferService's refusals, rendered "Transfer failed: <text>" (400). */
const transferFailed = (text: string): DomainError => ({ _tag: 'BadRequest', message: `Transfer failed: ${text}` });

/**
 * Groups::TransferService: checks in the service's order, then the move, the visibility of everything below
 * lowered to the new parent's, and an owner for a group promoted to the top without one.
 */
const transferGroupEvents = (state: GroupsView, actorId: number | null, group: Group, parentId: number | null, at: string): E.Either<DomainError, Emitted[]> => {
  const parent = parentId === null ? null : findGroup(state.groups, parentId);
  if (parentId !== null && !parent) return E.left(notFound('Group'));
  if (parent === null && group.parent_id === null) return E.left(transferFailed('Group is already a root group.'));
  if (parent && parent.id === group.parent_id) return E.left(transferFailed('Group is already associated to the parent group.'));
  const mayAdmin = actorId === null || canOnGroup(state, actorId, 'admin_group', group);
  // Subgroups need `create_subgroup` on the new parent; a new top-level group, the right to create groups.
  const mayCreate = actorId === null || (parent ? canCreateSubgroupIn(state, actorId, parent) : findUser(state.users, actorId)?.bot === null);
  if (!mayAdmin || !mayCreate) return E.left(transferFailed("You don't have enough permissions."));
  const takenAt = parent ? findGroupByFullPath(state.groups, `${parent.full_path}/${group.path}`) ?? findProjectByFullPath(state.projects, `${parent.full_path}/${group.path}`) : findTopLevelNamespaceByPath(state.groups, group.path) ?? findUserByUsername(state.users, group.path);
  if (takenAt) return E.left(transferFailed('The parent group already has a subgroup or a project with the same path.'));
  if (parent && selfAndDescendants(state.groups, group).some((g) => g.id === parent.id)) return E.left(transferFailed('Cannot transfer group to one of its subgroup.'));
  // The group's `save!` runs the Namespace validations on its new full path, in the model's order (the path's
  // NamespacePathValidator, then `nesting_level_allowed`); the service renders the RecordInvalid's full messages.
  const invalid = [
    ...(namespacePathReserved(parent ? `${parent.full_path}/${group.path}` : group.path) ? [`Path ${reservedName(group.path)}`] : []),
    ...(parent && tooDeep(state, parent) ? ['Parent has too deep level of nesting'] : []),
  ];
  if (invalid.length > 0) return E.left(transferFailed(`Validation failed: ${invalid.join(', ')}`));
  const events: Emitted[] = [{ type: 'GroupTransferred', data: { id: group.id, from_parent_id: group.parent_id, parent_id: parent?.id ?? null, at } }];
  // `sync_share_with_group_lock_with_parent` (before_update, the parent changed), then the lock forced below it.
  if (parent?.share_with_group_lock === true && group.share_with_group_lock !== true) {
    events.push({ type: 'GroupUpdated', data: { id: group.id, share_with_group_lock: true, updated_at: at } }, ...lockDescendants(state, group, at));
  }
  if (parent) {
    // `update_visibility`: nothing below may be more visible than its new parent.
    const ceiling = visibilityRank(parent.visibility);
    for (const g of selfAndDescendants(state.groups, group)) {
      if (visibilityRank(g.visibility) > ceiling) events.push({ type: 'GroupUpdated', data: { id: g.id, visibility: parent.visibility, updated_at: at } });
      for (const project of projectsInNamespace(state.projects, g.id)) {
        if (visibilityRank(project.visibility) > ceiling) events.push(projectVisibilityLowered(project.id, parent.visibility, at));
      }
    }
  } else if (actorId !== null && ![...membersOfSource(state.members, 'Namespace', group.id)].some((m) => m.access_level === AccessLevel.OWNER && m.state === 'active' && m.user_id !== null)) {
    // `ensure_ownership`: a new top-level group keeps an owner.
    const own = directMembership(state.members, 'Namespace', group.id, actorId);
    events.push(
      own
        ? memberAccessLevelChanged(own, AccessLevel.OWNER, at, 'group_transferred')
        : memberAdded(state, { source_type: 'Namespace', source_id: group.id, user_id: actorId, access_level: AccessLevel.OWNER, at, created_by_id: actorId }),
    );
  }
  return E.right(events);
};

/** The platform renders a failed save as "Failed to save group {:path=>[…]}"; other errors pass as they are. */
const failedToSave = (error: DomainError): DomainError =>
  error._tag === 'Validation' ? ({ _tag: 'BadRequest', message: `Failed to save group ${rubyErrorsInspect(error.errors)}` } as DomainError) : error;


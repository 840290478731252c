/** The groups module's decisions: create (subgroups too), update, and delete with everything below. */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import { notFound, validation, type DomainError } from '../../kernel/domain-error.js';
import type { Issued } from '../../kernel/decider.js';
import type { Sequences } from '../../kernel/sequences.js';
import { authorizeGroup } from '../access/abilities.js';
import { memberAdded } from '../members/builders.js';
import type { MemberEvent } from '../members/events.js';
import type { MembershipView } from '../members/projection.js';
import type { ProjectEvent } from '../projects/events.js';
import { AccessLevel, visibilityRank, type Visibility } from '../shared/access.js';
import { Errors, isNamespacePath } from '../shared/validation.js';
import { findUserByUsername } from '../users/queries.js';
import { deleteGroupEvents } from './builders.js';
import type { GroupCommand } from './commands.js';
import type { GroupEvent } from './events.js';
import type { Group } from './projection.js';
import { findGroup, findGroupByFullPath } from './queries.js';

/** What group decisions read. */
export type GroupsView = MembershipView & { readonly sequences: Sequences };

type Emitted = GroupEvent | MemberEvent | ProjectEvent;

const PATH_FORMAT = "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'.";

const requireGroup = (state: GroupsView, id: number): E.Either<DomainError, Group> => {
  const group = findGroup(state.groups, id);
  return group ? E.right(group) : E.left(notFound('Group'));
};

/** Path, name and visibility rules shared by create and update; messages as the platform's Group model. */
const validateGroup = (
  state: GroupsView,
  fields: { name?: string; path?: string; visibility?: Visibility },
  parent: Group | null,
  self: Group | null,
): E.Either<DomainError, void> => {
  const errors = new Errors();
  if (fields.name !== undefined) errors.check(fields.name.trim() !== '', 'name', "can't be blank");
  if (fields.path !== undefined) {
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

export const decide = (issued: Issued<GroupCommand>, state: GroupsView): E.Either<DomainError, readonly Emitted[]> => {
  const { command, at, actor } = issued;
  switch (command.type) {
    case 'CreateGroup': {
      const parentId = command.parent_id ?? null;
      const parent = parentId === null ? E.right<DomainError, Group | null>(null) : pipe(requireGroup(state, parentId), E.chain((group) => authorizeGroup(state, actor.userId, 'create_subgroup', group, group)));
      return pipe(
        parent,
        E.chainFirst((parentGroup) => validateGroup(state, command, parentGroup, null)),
        E.mapLeft((error) =>
          // The platform renders a failed save as "Failed to save group {:path=>[…]}".
          error._tag === 'Validation' ? ({ _tag: 'BadRequest', message: `Failed to save group ${rubyHash(error.errors)}` } as DomainError) : error,
        ),
        E.map((parentGroup): Emitted[] => {
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
        E.chain((group) => authorizeGroup(state, actor.userId, 'admin_group', group, group)),
        E.chainFirst((group) =>
          command.new_user_signups_cap !== undefined && group.parent_id !== null
            ? E.left(validation({ new_user_signups_cap: ['is only available on top-level groups'] }))
            : E.right(undefined),
        ),
        E.chainFirst((group) => validateGroup(state, command, group.parent_id === null ? null : findGroup(state.groups, group.parent_id) ?? null, group)),
        E.map((group): Emitted[] => {
          const { type: _type, ...changes } = command;
          return [{ type: 'GroupUpdated', data: { ...changes, id: group.id, updated_at: at } }];
        }),
      );
    case 'DeleteGroup':
      return pipe(
        requireGroup(state, command.id),
        E.chain((group) => authorizeGroup(state, actor.userId, 'remove_group', group, group)),
        E.map((group) => deleteGroupEvents(state, group, at)),
      );
  }
};

/** Ruby's Hash#inspect of validation errors: {:path=>["has already been taken"]}. */
const rubyHash = (errors: Readonly<Record<string, readonly string[]>>): string =>
  `{${Object.entries(errors)
    .map(([field, messages]) => `:${field}=>[${messages.map((m) => JSON.stringify(m)).join(', ')}]`)
    .join(', ')}}`;


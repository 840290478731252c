/** Decisions about protected tags and branches (`ProtectedTags::CreateService`, `ProtectedBranches::*`). */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import { conflict, forbidden, notFound, validation, type DomainError } from '../../kernel/domain-error.js';
import type { Issued, IssuedAs } from '../../kernel/decider.js';
import { AccessLevel } from '../shared/access.js';
import type { Project } from '../projects/projection.js';
import type { RepositoryCommand } from './commands.js';
import type { RepositoryEvent } from './events.js';
import type { Repository, RepositoriesView } from './projection.js';
import { drawLevels } from './default-branch-protection.js';
import { canRepository } from './policy.js';
import { findProtectedBranch, findProtectedTag } from './queries.js';
import { requireProject, requireRepository } from './decide-refs.js';
import { isRubyBlank } from '../shared/validation.js';

type State = RepositoriesView;

/** `ProtectedRefAccess.allowed_access_levels`. */
export const PROTECTED_REF_ACCESS_LEVELS: readonly number[] = [AccessLevel.MAINTAINER, AccessLevel.DEVELOPER, AccessLevel.NO_ACCESS];


/** `authorize_admin_project`: Maintainers and above (the routes answer 403 before this; the decider keeps the rule). */
const requireAdmin = (state: State, userId: number | null, project: Project): E.Either<DomainError, Project> =>
  userId === null || canRepository(state, userId, project, 'admin_project') ? E.right(project) : E.left(forbidden());

const target = (state: State, issued: Issued<{ readonly project_id: number }>): E.Either<DomainError, { project: Project; repository: Repository }> =>
  pipe(
    requireProject(state, issued.command.project_id),
    E.chain((project) => requireAdmin(state, issued.actor.userId, project)),
    E.chain((project) => pipe(requireRepository(state, project.id), E.map((repository) => ({ project, repository })))),
  );

const checkLevel = (field: string, level: number): E.Either<DomainError, number> =>
  PROTECTED_REF_ACCESS_LEVELS.includes(level) ? E.right(level) : E.left(validation({ [field]: ['is not included in the list'] }));


/** The model's validations: name present and unique in the project (`{name: [...]}`, rendered 422). */
const checkName = (name: string, taken: boolean): E.Either<DomainError, string> => {
  if (isRubyBlank(name)) return E.left(validation({ name: ["can't be blank"] }));
  if (taken) return E.left(validation({ name: ['has already been taken'] }));
  return E.right(name);
};

export const decideProtectTag = (issued: IssuedAs<RepositoryCommand, 'ProtectTag'>, state: State): E.Either<DomainError, readonly RepositoryEvent[]> =>
  pipe(
    target(state, issued),
    E.chainFirst(({ repository }) => checkName(issued.command.name, findProtectedTag(repository, issued.command.name) !== undefined)),
    E.chainFirst(() => checkLevel('create_access_level', issued.command.create_access_level)),
    E.map(({ project }): RepositoryEvent[] => [
      {
        type: 'ProtectedTagCreated',
        data: {
          project_id: project.id,
          id: state.repositories.sequences.protected_ref + 1,
          name: issued.command.name,
          create_access_levels: drawLevels(state, 0, issued.command.create_access_level),
          created_at: issued.at,
        },
      },
    ]),
  );

export const decideUnprotectTag = (issued: IssuedAs<RepositoryCommand, 'UnprotectTag'>, state: State): E.Either<DomainError, readonly RepositoryEvent[]> =>
  pipe(
    target(state, issued),
    E.chain(({ project, repository }) => {
      const rule = findProtectedTag(repository, issued.command.name);
      return rule ? E.right<DomainError, RepositoryEvent[]>([{ type: 'ProtectedTagDeleted', data: { project_id: project.id, id: rule.id } }]) : E.left(notFound(undefined, '404 Not found'));
    }),
  );

export const decideProtectBranch = (issued: IssuedAs<RepositoryCommand, 'ProtectBranch'>, state: State): E.Either<DomainError, readonly RepositoryEvent[]> => {
  const { command } = issued;
  return pipe(
    target(state, issued),
    E.chainFirst(({ repository }) =>
      findProtectedBranch(repository, command.name) ? E.left(conflict(`Protected branch '${command.name}' already exists`)) : E.right(undefined),
    ),
    E.chainFirst(() => checkName(command.name, false)),
    E.chainFirst(() => checkLevel('push_access_level', command.push_access_level)),
    E.chainFirst(() => checkLevel('merge_access_level', command.merge_access_level)),
    E.map(({ project }): RepositoryEvent[] => {
      const unprotect = command.unprotect_access_level === undefined ? [] : [command.unprotect_access_level];
      const drawn = drawLevels(state, 0, command.push_access_level, command.merge_access_level, ...unprotect);
      return [
        {
          type: 'ProtectedBranchCreated',
          data: {
            project_id: project.id,
            id: state.repositories.sequences.protected_ref + 1,
            name: command.name,
            push_access_levels: [drawn[0]!],
            merge_access_levels: [drawn[1]!],
            unprotect_access_levels: drawn.slice(2),
            allow_force_push: command.allow_force_push,
            code_owner_approval_required: command.code_owner_approval_required,
            created_at: issued.at,
          },
        },
      ];
    }),
  );
};

/** `LegacyApiCreateService`/`LegacyApiUpdateService`: developers_can_* map to Developer or Maintainer levels. */
export const decideProtectBranchLegacy = (issued: IssuedAs<RepositoryCommand, 'ProtectBranchLegacy'>, state: State): E.Either<DomainError, readonly RepositoryEvent[]> => {
  const { command } = issued;
  const push = command.developers_can_push ? AccessLevel.DEVELOPER : AccessLevel.MAINTAINER;
  const merge = command.developers_can_merge ? AccessLevel.DEVELOPER : AccessLevel.MAINTAINER;
  return pipe(
    target(state, issued),
    E.map(({ project, repository }): RepositoryEvent[] => {
      const existing = findProtectedBranch(repository, command.name);
      const drawn = drawLevels(state, 0, push, merge);
      const event: RepositoryEvent = existing
        ? { type: 'ProtectedBranchUpdated', data: { project_id: project.id, id: existing.id, push_access_levels: [drawn[0]!], merge_access_levels: [drawn[1]!] } }
        : {
            type: 'ProtectedBranchCreated',
            data: {
              project_id: project.id,
              id: state.repositories.sequences.protected_ref + 1,
              name: command.name,
              push_access_levels: [drawn[0]!],
              merge_access_levels: [drawn[1]!],
              unprotect_access_levels: [],
              allow_force_push: false,
              code_owner_approval_required: false,
              created_at: issued.at,
            },
          };
      return [event];
    }),
  );
};

export const decideUnprotectBranch = (issued: IssuedAs<RepositoryCommand, 'UnprotectBranch'>, state: State): E.Either<DomainError, readonly RepositoryEvent[]> =>
  pipe(
    target(state, issued),
    E.chain(({ project, repository }) => {
      const rule = findProtectedBranch(repository, issued.command.name);
      return rule ? E.right<DomainError, RepositoryEvent[]>([{ type: 'ProtectedBranchDeleted', data: { project_id: project.id, id: rule.id } }]) : E.left(notFound(undefined, '404 Not found'));
    }),
  );

/**
 * EE's `PATCH …/protected_branches/:name` (14.7): the exact rule (`find_by!`, "404 Not found") gets the value
 * (`update_attribute`); the value it already has records nothing.
 */
export const decideSetCodeOwnerApprovalRequired = (issued: IssuedAs<RepositoryCommand, 'SetCodeOwnerApprovalRequired'>, state: State): E.Either<DomainError, readonly RepositoryEvent[]> =>
  pipe(
    target(state, issued),
    E.chain(({ project, repository }) => {
      const rule = findProtectedBranch(repository, issued.command.name);
      if (!rule) return E.left(notFound(undefined, '404 Not found'));
      const value = issued.command.code_owner_approval_required;
      return E.right<DomainError, RepositoryEvent[]>(
        rule.code_owner_approval_required === value ? [] : [{ type: 'ProtectedBranchCodeOwnerApprovalSet', data: { project_id: project.id, id: rule.id, code_owner_approval_required: value } }],
      );
    }),
  );

/** The repositories module: its commands, dispatched to the decisions of each concern, and its evolve. */
import * as E from 'fp-ts/lib/Either.js';
import type { DomainError } from '../../kernel/domain-error.js';
import type { Issued } from '../../kernel/decider.js';
import type { ModuleDecider, MutableState, State } from '../../state.js';
import type { ForgefoldEvent } from '../../events.js';
import type { RepositoryCommand } from './commands.js';
import type { RepositoryEvent } from './events.js';
import { decideChangeDefaultBranch, decideEnsureRepository, decideUpdateRefs } from './decide-refs.js';
import { decideProtectBranch, decideProtectBranchLegacy, decideProtectTag, decideUnprotectBranch, decideUnprotectTag } from './decide-protected.js';
import { decideCreateMergeRequest, decideMergeMergeRequest, decideUpdateMergeRequest } from './decide-merge-requests.js';
import { evolve, onProjectDeleted } from './evolve.js';

type Narrow<T extends RepositoryCommand['type']> = Issued<Extract<RepositoryCommand, { type: T }>>;

export const decide = (issued: Issued<RepositoryCommand>, state: State): E.Either<DomainError, readonly ForgefoldEvent[]> => {
  switch (issued.command.type) {
    case 'EnsureRepository':
      return decideEnsureRepository(issued as Narrow<'EnsureRepository'>, state);
    case 'ChangeDefaultBranch':
      return decideChangeDefaultBranch(issued as Narrow<'ChangeDefaultBranch'>, state);
    case 'UpdateRefs':
      return decideUpdateRefs(issued as Narrow<'UpdateRefs'>, state);
    case 'ProtectTag':
      return decideProtectTag(issued as Narrow<'ProtectTag'>, state);
    case 'UnprotectTag':
      return decideUnprotectTag(issued as Narrow<'UnprotectTag'>, state);
    case 'ProtectBranch':
      return decideProtectBranch(issued as Narrow<'ProtectBranch'>, state);
    case 'ProtectBranchLegacy':
      return decideProtectBranchLegacy(issued as Narrow<'ProtectBranchLegacy'>, state);
    case 'UnprotectBranch':
      return decideUnprotectBranch(issued as Narrow<'UnprotectBranch'>, state);
    case 'CreateMergeRequest':
      return decideCreateMergeRequest(issued as Narrow<'CreateMergeRequest'>, state);
    case 'UpdateMergeRequest':
      return decideUpdateMergeRequest(issued as Narrow<'UpdateMergeRequest'>, state);
    case 'MergeMergeRequest':
      return decideMergeMergeRequest(issued as Narrow<'MergeMergeRequest'>, state);
  }
};

/** The module's own events, and `ProjectDeleted`, which it follows. */
const evolveAll = (state: MutableState, event: RepositoryEvent | { readonly type: 'ProjectDeleted'; readonly data: { readonly id: number } }): void => {
  if (event.type === 'ProjectDeleted') onProjectDeleted(state, event.data.id);
  else evolve(state, event);
};

export const repositoriesDecider: ModuleDecider<RepositoryCommand, RepositoryEvent | { readonly type: 'ProjectDeleted'; readonly data: { readonly id: number } }> = {
  decide,
  evolve: evolveAll,
};

/** Every command type of the module (for the composition's dispatch table). */
export const REPOSITORY_COMMANDS = [
  'EnsureRepository',
  'ChangeDefaultBranch',
  'UpdateRefs',
  'ProtectTag',
  'UnprotectTag',
  'ProtectBranch',
  'ProtectBranchLegacy',
  'UnprotectBranch',
  'CreateMergeRequest',
  'UpdateMergeRequest',
  'MergeMergeRequest',
] as const satisfies readonly RepositoryCommand['type'][];

/** The repositories module's decisions, dispatched to each concern's file. */
import type * as E from 'fp-ts/lib/Either.js';
import type { DomainError } from '../../kernel/domain-error.js';
import type { Issued } from '../../kernel/decider.js';
import type { RepositoryCommand } from './commands.js';
import type { RepositoryEvent } from './events.js';
import type { RepositoriesView } from './projection.js';
import { decideChangeDefaultBranch, decideUpdateRefs } from './decide-refs.js';
import { decideProtectBranch, decideProtectBranchLegacy, decideProtectTag, decideUnprotectBranch, decideUnprotectTag } from './decide-protected.js';
import { decideCreateMergeRequest, decideMergeMergeRequest, decideUpdateMergeRequest } from './decide-merge-requests.js';

type Narrow<T extends RepositoryCommand['type']> = Issued<Extract<RepositoryCommand, { type: T }>>;

export const decide = (issued: Issued<RepositoryCommand>, state: RepositoriesView): E.Either<DomainError, readonly RepositoryEvent[]> => {
  switch (issued.command.type) {
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

/** The repositories module's decisions, dispatched to each concern's file. */
import type * as E from 'fp-ts/lib/Either.js';
import type { DomainError } from '../../kernel/domain-error.js';
import { decideByType } from '../../kernel/decider.js';
import type { RepositoryCommand } from './commands.js';
import type { RepositoryEvent } from './events.js';
import type { RepositoriesView } from './projection.js';
import { decideChangeDefaultBranch, decideUpdateRefs } from './decide-refs.js';
import { decideProtectBranch, decideProtectBranchLegacy, decideProtectTag, decideSetCodeOwnerApprovalRequired, decideUnprotectBranch, decideUnprotectTag } from './decide-protected.js';
import { decideApproveMergeRequest, decideCreateMergeRequest, decideDeleteMergeRequest, decideSetMergeRequestSubscription, decideUnapproveMergeRequest, decideMergeMergeRequest, decideUpdateMergeRequest } from './decide-merge-requests.js';

export const decide = decideByType<RepositoryCommand, RepositoriesView, E.Either<DomainError, readonly RepositoryEvent[]>>({
  ChangeDefaultBranch: decideChangeDefaultBranch,
  UpdateRefs: decideUpdateRefs,
  ProtectTag: decideProtectTag,
  UnprotectTag: decideUnprotectTag,
  ProtectBranch: decideProtectBranch,
  ProtectBranchLegacy: decideProtectBranchLegacy,
  UnprotectBranch: decideUnprotectBranch,
  SetCodeOwnerApprovalRequired: decideSetCodeOwnerApprovalRequired,
  CreateMergeRequest: decideCreateMergeRequest,
  UpdateMergeRequest: decideUpdateMergeRequest,
  MergeMergeRequest: decideMergeMergeRequest,
  DeleteMergeRequest: decideDeleteMergeRequest,
  ApproveMergeRequest: decideApproveMergeRequest,
  UnapproveMergeRequest: decideUnapproveMergeRequest,
  SetMergeRequestSubscription: decideSetMergeRequestSubscription,
});

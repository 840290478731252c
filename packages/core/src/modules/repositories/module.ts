/** The repositories module: every project's refs as the log recorded them, protected refs and merge requests. */
import { defineModule } from '../../kernel/module.js';
import type { RepositoryCommand } from './commands.js';
import { decide } from './decider.js';
import { evolve, follows, type RepositoriesDraft, type RepositoriesFollowed } from './evolve.js';
import { repositoryEvents } from './events.js';
import { initialRepositories, type RepositoriesSlice, type RepositoriesView } from './projection.js';

export const repositoriesModule = defineModule<
  'repositories',
  { readonly repositories: RepositoriesSlice },
  RepositoriesView,
  RepositoriesDraft,
  RepositoryCommand,
  typeof repositoryEvents,
  RepositoriesFollowed
>({
  name: 'repositories',
  // 3: the merge requests' author and assignee indexes (older snapshots replay from the log); 4: those indexes hold
  // sets of ids (they held each merge request's project id, never read).
  version: 4,
  initial: () => ({ repositories: initialRepositories() }),
  events: repositoryEvents,
  commands: [
    'ChangeDefaultBranch',
    'UpdateRefs',
    'ProtectTag',
    'UnprotectTag',
    'ProtectBranch',
    'ProtectBranchLegacy',
    'UnprotectBranch',
    'SetCodeOwnerApprovalRequired',
    'CreateMergeRequest',
    'UpdateMergeRequest',
    'MergeMergeRequest',
    'DeleteMergeRequest',
    'ApproveMergeRequest',
    'UnapproveMergeRequest',
    'SetMergeRequestSubscription',
  ],
  decide,
  evolve,
  follows,
});

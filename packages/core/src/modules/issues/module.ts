/** The issues module: project issues, a noteable of the discussions module. */
import { defineModule } from '../../kernel/module.js';
import type { IssueCommand } from './commands.js';
import { decide } from './decider.js';
import { evolve, follows, type IssuesDraft, type IssuesFollowed } from './evolve.js';
import { issueEvents } from './events.js';
import { initialIssues, type IssuesSlice, type IssuesView } from './projection.js';

export const issuesModule = defineModule<'issues', { readonly issues: IssuesSlice }, IssuesView, IssuesDraft, IssueCommand, typeof issueEvents, IssuesFollowed>({
  name: 'issues',
  // 2: issue links (older snapshots have no `links` slice, and replay from the log); 3: the author and assignee indexes;
  // 4: those indexes hold sets of ids (they held each issue's project id, never read).
  version: 4,
  initial: () => ({ issues: initialIssues() }),
  events: issueEvents,
  commands: ['CreateIssue', 'UpdateIssue', 'DeleteIssue', 'SetIssueSubscription', 'CreateIssueLink', 'DestroyIssueLink'],
  decide,
  evolve,
  follows,
});

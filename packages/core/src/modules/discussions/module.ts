/** The discussions module: threads and notes on issues, snippets, epics, merge requests and commits. */
import { defineModule } from '../../kernel/module.js';
import type { DiscussionCommand } from './commands.js';
import { decide } from './decider.js';
import { evolve, follows, type DiscussionsDraft, type DiscussionsFollowed } from './evolve.js';
import { discussionEvents } from './events.js';
import { initialDiscussions, type DiscussionsSlice, type DiscussionsView } from './projection.js';

export const discussionsModule = defineModule<'discussions', { readonly discussions: DiscussionsSlice }, DiscussionsView, DiscussionsDraft, DiscussionCommand, typeof discussionEvents, DiscussionsFollowed>({
  name: 'discussions',
  // 5: draft titles as 14.x's DRAFT_REGEX; 6: its whitespace is ASCII only (the system notes read titles when folded).
  version: 6,
  initial: () => ({ discussions: initialDiscussions() }),
  events: discussionEvents,
  commands: ['StartDiscussion', 'AddNote', 'EditNote', 'ResolveNote', 'ResolveDiscussion', 'DeleteNote'],
  decide,
  evolve,
  follows,
});

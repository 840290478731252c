/** The snippets module: project snippets, a noteable of the discussions module. */
import { defineModule } from '../../kernel/module.js';
import type { SnippetCommand } from './commands.js';
import { decide } from './decider.js';
import { evolve, follows, type SnippetsDraft, type SnippetsFollowed } from './evolve.js';
import { snippetEvents } from './events.js';
import { initialSnippets, type SnippetsSlice, type SnippetsView } from './projection.js';

export const snippetsModule = defineModule<'snippets', { readonly snippets: SnippetsSlice }, SnippetsView, SnippetsDraft, SnippetCommand, typeof snippetEvents, SnippetsFollowed>({
  name: 'snippets',
  version: 1,
  initial: () => ({ snippets: initialSnippets() }),
  events: snippetEvents,
  commands: ['CreateSnippet', 'UpdateSnippet', 'DeleteSnippet'],
  decide,
  evolve,
  follows,
});

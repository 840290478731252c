/** The epics module (EE): group epics, a noteable of the discussions module (by the epic's global id). */
import { defineModule } from '../../kernel/module.js';
import type { EpicCommand } from './commands.js';
import { decide } from './decider.js';
import { evolve, follows, type EpicsDraft, type EpicsFollowed } from './evolve.js';
import { epicEvents } from './events.js';
import { initialEpics, type EpicsSlice, type EpicsView } from './projection.js';

export const epicsModule = defineModule<'epics', { readonly epics: EpicsSlice }, EpicsView, EpicsDraft, EpicCommand, typeof epicEvents, EpicsFollowed>({
  name: 'epics',
  version: 1,
  initial: () => ({ epics: initialEpics() }),
  events: epicEvents,
  commands: ['CreateEpic', 'UpdateEpic', 'DeleteEpic'],
  decide,
  evolve,
  follows,
});

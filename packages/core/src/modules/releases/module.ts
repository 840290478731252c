/** The releases module: a project's releases of its tags, with asset links. */
import { defineModule } from '../../kernel/module.js';
import type { ReleaseCommand } from './commands.js';
import { decide } from './decider.js';
import { evolve, follows, type ReleasesDraft, type ReleasesFollowed } from './evolve.js';
import { releaseEvents } from './events.js';
import { initialReleases, type ReleasesSlice, type ReleasesView } from './projection.js';

export const releasesModule = defineModule<'releases', { readonly releases: ReleasesSlice }, ReleasesView, ReleasesDraft, ReleaseCommand, typeof releaseEvents, ReleasesFollowed>({
  name: 'releases',
  version: 1,
  initial: () => ({ releases: initialReleases() }),
  events: releaseEvents,
  commands: ['CreateRelease', 'UpdateRelease', 'DeleteRelease', 'CreateReleaseLink', 'UpdateReleaseLink', 'DeleteReleaseLink'],
  decide,
  evolve,
  follows,
});

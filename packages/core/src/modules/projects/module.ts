/** The projects module: projects in groups and personal namespaces. */
import { defineModule } from '../../kernel/module.js';
import type { ProjectCommand } from './commands.js';
import { decide, type ProjectsView } from './decider.js';
import { evolve, follows, type ProjectsDraft, type ProjectsFollowed } from './evolve.js';
import { projectEvents } from './events.js';
import { initialProjects, type ProjectsSlice } from './projection.js';

export const projectsModule = defineModule<'projects', { readonly projects: ProjectsSlice }, ProjectsView, ProjectsDraft, ProjectCommand, typeof projectEvents, ProjectsFollowed>({
  name: 'projects',
  // 2: transfers; 3: forks; 4: the public and internal id sets; 5: the forks index; 6: stars (`star_count`, the
  // starrers of each project and the projects each user starred); 7: the public and internal ids per namespace; 8:
  // `request_access_enabled` always held (true when ProjectCreated lacks it).
  version: 8,
  initial: () => ({ projects: initialProjects() }),
  events: projectEvents,
  commands: ['CreateProject', 'UpdateProject', 'TransferProject', 'DeleteProject', 'ForkProject', 'UnlinkFork', 'StarProject', 'UnstarProject'],
  decide,
  evolve,
  follows,
});

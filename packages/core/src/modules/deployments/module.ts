/** The deployments module: environments and the deployments made to them, with the deployment status machine. */
import { defineModule } from '../../kernel/module.js';
import type { DeploymentCommand } from './commands.js';
import { decide } from './decider.js';
import { evolve, follows, type DeploymentsDraft, type DeploymentsFollowed } from './evolve.js';
import { deploymentEvents } from './events.js';
import { initialDeployments, type DeploymentsSlice, type DeploymentsView } from './projection.js';
import { anyAutoDeletable } from './queries.js';

export const deploymentsModule = defineModule<
  'deployments',
  { readonly deployments: DeploymentsSlice },
  DeploymentsView,
  DeploymentsDraft,
  DeploymentCommand,
  typeof deploymentEvents,
  DeploymentsFollowed
>({
  name: 'deployments',
  // 3: `scheduledDeletions` holds ids of the stopped scheduled environments (the date is the environment's).
  // 4: a deployment's `links`, set when it first succeeds.
  // 5: `links` holds the start of every range linked (each success links one more), not the first one only.
  version: 5,
  initial: () => ({ deployments: initialDeployments() }),
  events: deploymentEvents,
  commands: [
    'CreateEnvironment',
    'UpdateEnvironment',
    'StopEnvironment',
    'DeleteEnvironment',
    'ScheduleReviewAppsDeletion',
    'DeleteAutoDeletableEnvironments',
    'CreateDeployment',
    'UpdateDeploymentStatus',
  ],
  decide,
  evolve,
  follows,
  processes: [
    {
      // Environments::AutoDeleteCronWorker: due once a scheduled environment's `auto_delete_at` has passed while stopped.
      name: 'auto-delete-environments',
      due: (state, now) => anyAutoDeletable(state.deployments, now),
      command: { type: 'DeleteAutoDeletableEnvironments' },
      reads: (state) => state.deployments,
    },
  ],
});

/** The clusters module: certificate-based project clusters, their secrets kept as ciphertext. */
import { defineModule } from '../../kernel/module.js';
import type { ClusterCommand } from './commands.js';
import { decide } from './decider.js';
import { evolve, follows, type ClustersDraft, type ClustersFollowed } from './evolve.js';
import { clusterEvents } from './events.js';
import { initialClusters, type ClustersSlice, type ClustersView } from './projection.js';

export const clustersModule = defineModule<'clusters', { readonly clusters: ClustersSlice }, ClustersView, ClustersDraft, ClusterCommand, typeof clusterEvents, ClustersFollowed>({
  name: 'clusters',
  version: 1,
  initial: () => ({ clusters: initialClusters() }),
  events: clusterEvents,
  commands: ['AddCluster', 'UpdateCluster', 'RemoveCluster'],
  decide,
  evolve,
  follows,
});

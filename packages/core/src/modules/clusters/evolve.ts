/** The clusters module's evolve. */
import { tableDelete, tableGet, tableSet } from '../../kernel/table.js';
import type { Writable } from '../../kernel/module.js';
import type { ProjectEvent } from '../projects/events.js';
import type { ClusterEvent } from './events.js';
import type { ClustersSlice } from './projection.js';

export type ClustersDraft = Writable<{ readonly clusters: ClustersSlice }, 'clusters'>;

export const evolve = (state: ClustersDraft, event: ClusterEvent): void => {
  switch (event.type) {
    case 'ClusterAdded': {
      const { id, project_id, created_at } = event.data;
      tableSet(state.clusters.byId, id, { ...event.data, updated_at: created_at });
      tableSet(state.clusters.byProject, project_id, [...(tableGet(state.clusters.byProject, project_id) ?? []), id]);
      if (id > state.clusters.sequence) state.clusters.sequence = id;
      return;
    }
    case 'ClusterUpdated': {
      const { id, changed: _changed, project_id: _project, updated_at, platform_kubernetes, ...fields } = event.data;
      const cluster = tableGet(state.clusters.byId, id);
      if (!cluster) return;
      Object.assign(cluster, fields);
      if (platform_kubernetes) Object.assign(cluster.platform_kubernetes, platform_kubernetes);
      cluster.updated_at = updated_at;
      return;
    }
    case 'ClusterRemoved': {
      const { id, project_id } = event.data;
      tableDelete(state.clusters.byId, id);
      const remaining = (tableGet(state.clusters.byProject, project_id) ?? []).filter((other) => other !== id);
      if (remaining.length === 0) tableDelete(state.clusters.byProject, project_id);
      else tableSet(state.clusters.byProject, project_id, remaining);
      return;
    }
  }
};

/** A deleted project's clusters go with it. */
const onProjectDeleted = (state: ClustersDraft, event: Extract<ProjectEvent, { type: 'ProjectDeleted' }>): void => {
  for (const id of tableGet(state.clusters.byProject, event.data.id) ?? []) tableDelete(state.clusters.byId, id);
  tableDelete(state.clusters.byProject, event.data.id);
};

export type ClustersFollowed = Extract<ProjectEvent, { type: 'ProjectDeleted' }>;

export const follows = { ProjectDeleted: onProjectDeleted };

/** Reads of the clusters slice. */
import { tableGet, tableValues } from '../../kernel/table.js';
import type { Cluster, ClustersSlice } from './projection.js';

export const findCluster = (slice: ClustersSlice, projectId: number, id: number): Cluster | undefined => {
  const cluster = tableGet(slice.byId, id);
  return cluster?.project_id === projectId ? cluster : undefined;
};

/** A project's clusters, by id ascending. */
export const clustersOf = (slice: ClustersSlice, projectId: number): Cluster[] =>
  (tableGet(slice.byProject, projectId) ?? []).map((id) => tableGet(slice.byId, id)).filter((cluster): cluster is Cluster => cluster !== undefined);

export const allClusters = (slice: ClustersSlice): Generator<Cluster> => tableValues(slice.byId);

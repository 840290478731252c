import { tableGet, tableValues } from '../../kernel/table.js';
import type { GeoNode, GeoNodeStatus, GeoSlice } from './projection.js';

export const findGeoNode = (geo: GeoSlice, id: number): GeoNode | undefined => tableGet(geo.nodes, id);

/** Every node by id (`GeoNode.all`). */
export const geoNodes = (geo: GeoSlice): GeoNode[] => [...tableValues(geo.nodes)].sort((a, b) => a.id - b.id);

/** Every stored status row, by node id (`GeoNodeStatus.all`). */
export const geoNodeStatuses = (geo: GeoSlice): GeoNodeStatus[] => [...tableValues(geo.statuses)].sort((a, b) => a.geo_node_id - b.geo_node_id);

export const findGeoNodeStatus = (geo: GeoSlice, nodeId: number): GeoNodeStatus | undefined => tableGet(geo.statuses, nodeId);

export const findGeoNodeByName = (geo: GeoSlice, name: string): GeoNode | undefined => geoNodes(geo).find((node) => node.name === name);

/** `internal_url`, falling back to `url` (the reader the entity and secondaries use). */
export const internalUrlOf = (node: GeoNode): string => node.internal_url ?? node.url;
